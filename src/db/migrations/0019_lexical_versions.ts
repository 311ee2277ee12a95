// Lexical index upkeep for fast search (issue 15).
// SQLite: a change counter per store of the lexical index: triggers on
// `product_text` bump `product_text_versions.version` in the transaction of every insert, update
// or delete of a store's text rows (API writes, reindex, cascades, any SQL), so the lexical
// result cache (src/lexical/cache.ts) can tell with one primary-key read whether a cached ranking
// is still the index's answer. PostgreSQL has no counter: a shared counter row would serialise a
// store's concurrent writers (its cached rankings follow this process's writes and expire: cache.ts).
// PostgreSQL: the GIN indexes of the documents (and trigrams) are written directly (fastupdate off) instead of
// through its pending list, which every search scans in full until (auto)vacuum merges it (up to
// 4 MB by default: tens of milliseconds per query after a bulk load); the list left by earlier
// writes is merged here.
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect === "postgres") {
      // The trigram index exists only where pg_trgm could be installed (migration 0018).
      for (const index of ["product_text_document_idx", "product_text_words_trgm_idx"]) {
        const found = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_class WHERE oid = to_regclass(${index})`.execute(db);
        if ((found.rows[0]?.n ?? 0) === 0) continue;
        await sql.raw(`ALTER INDEX ${index} SET (fastupdate = off)`).execute(db);
        await sql`SELECT gin_clean_pending_list(to_regclass(${index}))`.execute(db);
      }
      return;
    }
    await sql`CREATE TABLE product_text_versions (store_id TEXT PRIMARY KEY, version INTEGER NOT NULL)`.execute(db);
    const bump = (row: "new" | "old") =>
      `INSERT INTO product_text_versions (store_id, version) VALUES (${row}.store_id, 1) ` +
      `ON CONFLICT (store_id) DO UPDATE SET version = version + 1;`;
    await sql.raw(`CREATE TRIGGER product_text_version_ai AFTER INSERT ON product_text BEGIN ${bump("new")} END`).execute(db);
    await sql.raw(`CREATE TRIGGER product_text_version_ad AFTER DELETE ON product_text BEGIN ${bump("old")} END`).execute(db);
    await sql
      .raw(`CREATE TRIGGER product_text_version_au AFTER UPDATE ON product_text BEGIN ${bump("old")} ${bump("new")} END`)
      .execute(db);
  },
});

export default migration;
