// The trigram fallback of migration 0018 is no longer read (issue 35): typo tolerance looks each
// query word up in the store's vocabulary (`product_terms`, migration 0023), so writing trigrams
// of every product was work with no reader.
//   SQLite: `product_trgm` and the triggers that fed it go; the triggers of `product_text` are
//     recreated to keep `product_fts` alone in step.
//   PostgreSQL: the pg_trgm GIN index on `product_text.words` goes (where 0018 could create it);
//     the extension stays, as it is database-wide and may serve others.
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

/** The FTS5 columns of `product_fts` (migration 0018). */
const FIELDS = ["name", "brand", "category", "color", "tags", "description", "other"] as const;

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect === "postgres") {
      await sql`DROP INDEX IF EXISTS product_text_words_trgm_idx`.execute(db);
      return;
    }
    for (const trigger of ["product_text_ai", "product_text_ad", "product_text_au"]) {
      await sql.raw(`DROP TRIGGER IF EXISTS ${trigger}`).execute(db);
    }
    await sql`DROP TABLE IF EXISTS product_trgm`.execute(db);
    const cols = FIELDS.join(", ");
    const add = `INSERT INTO product_fts(rowid, ${cols}) VALUES (new.id, ${FIELDS.map((f) => `new.${f}`).join(", ")});`;
    const drop = `INSERT INTO product_fts(product_fts, rowid, ${cols}) VALUES ('delete', old.id, ${FIELDS.map((f) => `old.${f}`).join(", ")});`;
    await sql.raw(`CREATE TRIGGER product_text_ai AFTER INSERT ON product_text BEGIN ${add} END`).execute(db);
    await sql.raw(`CREATE TRIGGER product_text_ad AFTER DELETE ON product_text BEGIN ${drop} END`).execute(db);
    await sql.raw(`CREATE TRIGGER product_text_au AFTER UPDATE ON product_text BEGIN ${drop} ${add} END`).execute(db);
  },
});

export default migration;
