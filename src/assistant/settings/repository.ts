// Per-store assistant settings (currency, support contact) and vocabulary. storeId first on every method.
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { AssistantSettingsTable, AssistantVocabularyTable } from "../../db/schema.js";

export type SettingsRow = Selectable<AssistantSettingsTable>;
export type VocabularyRow = Selectable<AssistantVocabularyTable>;

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

  findVocabulary(storeId: string): Promise<VocabularyRow | undefined> {
    return this.db.selectFrom("assistant_vocabulary").selectAll().where("store_id", "=", storeId).executeTakeFirst();
  }

  async upsertVocabulary(storeId: string, row: Omit<VocabularyRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_vocabulary")
      .values({ ...row, store_id: storeId })
      .onConflict((oc) =>
        oc.column("store_id").doUpdateSet({
          synonyms: row.synonyms,
          scope_words: row.scope_words,
          product_words: row.product_words,
          updated_by: row.updated_by,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  }
}
