// Store public keys (store_pub_…) of the Assistant API. storeId first on every store-scoped query.
import type { Kysely, Selectable } from "kysely";
import type { AssistantPublicKeysTable, Schema } from "../../db/schema.js";

export type PublicKeyRow = Selectable<AssistantPublicKeysTable>;

export class PublicKeysRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async insert(storeId: string, row: Omit<PublicKeyRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_public_keys")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  list(storeId: string): Promise<PublicKeyRow[]> {
    return this.db
      .selectFrom("assistant_public_keys")
      .selectAll()
      .where("store_id", "=", storeId)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .execute();
  }

  find(storeId: string, id: string): Promise<PublicKeyRow | undefined> {
    return this.db.selectFrom("assistant_public_keys").selectAll().where("store_id", "=", storeId).where("id", "=", id).executeTakeFirst();
  }

  /** Key lookup for session minting, before the store is known (the hash is unique). */
  findByHash(keyHash: string): Promise<PublicKeyRow | undefined> {
    return this.db.selectFrom("assistant_public_keys").selectAll().where("key_hash", "=", keyHash).executeTakeFirst();
  }

  async revoke(storeId: string, id: string, at: number): Promise<void> {
    await this.db
      .updateTable("assistant_public_keys")
      .set({ revoked_at: at })
      .where("store_id", "=", storeId)
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .execute();
  }
}
