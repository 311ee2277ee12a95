// The store's own vocabulary of the assistant's policy engine (issue 36, item 8;
// src/assistant/settings, src/assistant/knowledge/store-words.ts): one row per store that saved
// one — `synonyms` a JSON array of word groups, `scope_words` and `product_words` JSON arrays of
// words (lower case).
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("assistant_vocabulary")
      .addColumn("store_id", "text", (c) => c.primaryKey().references("stores.id").onDelete("cascade"))
      .addColumn("synonyms", types.json, (c) => c.notNull())
      .addColumn("scope_words", types.json, (c) => c.notNull())
      .addColumn("product_words", types.json, (c) => c.notNull())
      .addColumn("updated_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
  },
});

export default migration;
