// A change counter per store of the lexical index (issue 15), embedded SQLite only: triggers on
// `product_text` bump `product_text_versions.version` in the transaction of every insert, update
// or delete of a store's text rows (API writes, reindex, cascades, any SQL), so the lexical
// result cache (src/lexical/cache.ts) can tell with one primary-key read whether a cached ranking
// is still the index's answer. PostgreSQL does not cache lexical results (its lexical query runs
// beside the vector query on another connection) and gets nothing here: a shared counter row
// would serialise a store's concurrent writers.
import { sql, type Kysely } from "kysely";
import type { MigrationFactory } from "../migrate.js";

const migration: MigrationFactory = (types) => ({
  async up(db: Kysely<any>) {
    if (types.dialect !== "sqlite") return;
    await sql`CREATE TABLE product_text_versions (store_id TEXT PRIMARY KEY, version INTEGER NOT NULL)`.execute(db);
    const bump = (row: "new" | "old") =>
      `INSERT INTO product_text_versions (store_id, version) VALUES (${row}.store_id, 1) ` +
      `ON CONFLICT (store_id) DO UPDATE SET version = version + 1;`;
    await sql.raw(`CREATE TRIGGER product_text_version_ai AFTER INSERT ON product_text BEGIN ${bump("new")} END`).execute(db);
    await sql.raw(`CREATE TRIGGER product_text_version_ad AFTER DELETE ON product_text BEGIN ${bump("old")} END`).execute(db);
    await sql.raw(`CREATE TRIGGER product_text_version_au AFTER UPDATE ON product_text BEGIN ${bump("old")} ${bump("new")} END`).execute(db);
  },
});

export default migration;
