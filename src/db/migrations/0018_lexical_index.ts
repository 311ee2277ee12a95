// The lexical (full-text) index of products (issue 15), one row per product in `product_text`,
// written in the same transaction as the product and removed with it (foreign key, cascade).
//   SQLite: `product_text` holds the fields; two external-content FTS5 tables follow it through
//     triggers: `product_fts` (porter stemming, unicode61, prefix indexes, bm25 per column) and
//     `product_trgm` (trigram tokenizer: typo-tolerant fallback).
//   PostgreSQL: `product_text.document` is a weighted tsvector (english: A name, B brand /
//     category / colour, C tags / description, D other metadata) with a GIN index; `words` gets a
//     pg_trgm GIN index when the extension can be installed (typo-tolerant fallback).
// Existing products are indexed here (the reindex command rebuilds it too).
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

/** The text fields of a product, one FTS5 column each (src/lexical/document.ts, LEXICAL_FIELDS, at the time of this migration). */
const FIELDS = ["name", "brand", "category", "color", "tags", "description", "other"] as const;

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect === "sqlite") {
      await sql`CREATE TABLE product_text (
        id INTEGER PRIMARY KEY,
        store_id TEXT NOT NULL,
        product_id TEXT NOT NULL,
        name TEXT NOT NULL, brand TEXT NOT NULL, category TEXT NOT NULL, color TEXT NOT NULL,
        tags TEXT NOT NULL, description TEXT NOT NULL, other TEXT NOT NULL, words TEXT NOT NULL,
        UNIQUE (store_id, product_id),
        FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, product_id) ON DELETE CASCADE
      )`.execute(db);
      const cols = FIELDS.join(", ");
      const newCols = FIELDS.map((f) => `new.${f}`).join(", ");
      const oldCols = FIELDS.map((f) => `old.${f}`).join(", ");
      await sql
        .raw(
          `CREATE VIRTUAL TABLE product_fts USING fts5(${cols}, content='product_text', content_rowid='id', ` +
            `tokenize='porter unicode61 remove_diacritics 2', prefix='2 3')`,
        )
        .execute(db);
      await sql
        .raw(`CREATE VIRTUAL TABLE product_trgm USING fts5(words, content='product_text', content_rowid='id', tokenize='trigram')`)
        .execute(db);
      const add = `INSERT INTO product_fts(rowid, ${cols}) VALUES (new.id, ${newCols}); INSERT INTO product_trgm(rowid, words) VALUES (new.id, new.words);`;
      const drop =
        `INSERT INTO product_fts(product_fts, rowid, ${cols}) VALUES ('delete', old.id, ${oldCols}); ` +
        `INSERT INTO product_trgm(product_trgm, rowid, words) VALUES ('delete', old.id, old.words);`;
      await sql.raw(`CREATE TRIGGER product_text_ai AFTER INSERT ON product_text BEGIN ${add} END`).execute(db);
      await sql.raw(`CREATE TRIGGER product_text_ad AFTER DELETE ON product_text BEGIN ${drop} END`).execute(db);
      await sql.raw(`CREATE TRIGGER product_text_au AFTER UPDATE ON product_text BEGIN ${drop} ${add} END`).execute(db);
    } else {
      await sql`CREATE TABLE product_text (
        store_id text NOT NULL,
        product_id text NOT NULL,
        document tsvector NOT NULL,
        words text NOT NULL,
        PRIMARY KEY (store_id, product_id),
        FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, product_id) ON DELETE CASCADE
      )`.execute(db);
      await sql`CREATE INDEX product_text_document_idx ON product_text USING gin (document)`.execute(db);
      // pg_trgm is database-wide (contrib; trusted, so a database owner may install it). Without
      // it the typo-tolerant fallback is off (the service checks for the extension at run time).
      await sql`SELECT pg_advisory_xact_lock(hashtext('shopsight:create extension pg_trgm'))`.execute(db);
      const available = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'pg_trgm'`.execute(db);
      if ((available.rows[0]?.n ?? 0) > 0) {
        await sql`SAVEPOINT shopsight_trgm`.execute(db);
        try {
          await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`.execute(db);
          await sql`RELEASE SAVEPOINT shopsight_trgm`.execute(db);
        } catch {
          await sql`ROLLBACK TO SAVEPOINT shopsight_trgm`.execute(db);
        }
      }
      const installed = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`.execute(db);
      if ((installed.rows[0]?.n ?? 0) > 0) {
        await sql`CREATE INDEX product_text_words_trgm_idx ON product_text USING gin (words public.gin_trgm_ops)`.execute(db);
      }
    }
    // Existing products, by the application's indexer (handed in: platform imports no product code).
    const existing = await sql<{ n: number }>`SELECT count(*) AS n FROM products`.execute(db);
    if (Number(existing.rows[0]?.n ?? 0) > 0) {
      if (!types.hooks?.indexProductText) {
        throw new Error(
          "0018 indexes the text of existing products with the application's code: open this database with `npm start` or `npm run cli`, which hand that step in.",
        );
      }
      await types.hooks.indexProductText(db, types.dialect);
    }
  },
});

export default migration;
