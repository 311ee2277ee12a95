// Exchange secrets and used assertion ids (the session itself: SessionsRepository). storeId first on every method.
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { AssistantExchangeSecretsTable } from "../../db/schema.js";

export type ExchangeSecretRow = Selectable<AssistantExchangeSecretsTable>;

export class ExchangeRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): ExchangeRepository {
    return new ExchangeRepository(db);
  }

  activeSecret(storeId: string): Promise<ExchangeSecretRow | undefined> {
    return this.db
      .selectFrom("assistant_exchange_secrets")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("revoked_at", "is", null)
      .orderBy("created_at", "desc")
      .executeTakeFirst();
  }

  async revokeSecrets(storeId: string, at: number): Promise<void> {
    await this.db
      .updateTable("assistant_exchange_secrets")
      .set({ revoked_at: at })
      .where("store_id", "=", storeId)
      .where("revoked_at", "is", null)
      .execute();
  }

  async insertSecret(storeId: string, row: Omit<ExchangeSecretRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_exchange_secrets")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  async forgetExpiredJtis(storeId: string, now: number): Promise<void> {
    await this.db.deleteFrom("assistant_exchange_jtis").where("store_id", "=", storeId).where("expires_at", "<", now).execute();
  }

  /** Remembers a jti; false when it was already used (primary key store_id + jti). */
  async useJti(storeId: string, jti: string, expiresAt: number): Promise<boolean> {
    const res = await this.db
      .insertInto("assistant_exchange_jtis")
      .values({ store_id: storeId, jti, expires_at: expiresAt })
      .onConflict((oc) => oc.columns(["store_id", "jti"]).doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}
