// Per-store assistant settings (currency, support contact). storeId first on every method.
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { AssistantSettingsTable } from "../../db/schema.js";

export type SettingsRow = Selectable<AssistantSettingsTable>;

export class SettingsRepository {
  constructor(private readonly db: Executor) {}

  find(storeId: string): Promise<SettingsRow | undefined> {
    return this.db.selectFrom("assistant_settings").selectAll().where("store_id", "=", storeId).executeTakeFirst();
  }

  async upsert(storeId: string, row: Omit<SettingsRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_settings")
      .values({ ...row, store_id: storeId })
      .onConflict((oc) =>
        oc.column("store_id").doUpdateSet({
          currency: row.currency,
          support_contact: row.support_contact,
          updated_by: row.updated_by,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  }
}
