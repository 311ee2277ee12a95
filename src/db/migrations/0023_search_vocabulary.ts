// Text search that holds on how shoppers type (issue 35).
//   product_terms  — the words of each store's product text (the lexical index's vocabulary,
//                    src/lexical/lexicon.ts), written with each product's lexical row; typo
//                    tolerance looks a query's words up in it. A word stays after the last product
//                    holding it is removed (a write never waits on a shared counter); it then
//                    matches nothing, so no result or correction comes of it, and the reindex
//                    command rebuilds the table.
//   search_synonyms — a store's own synonyms (one_way: `words` also find `synonyms`;
//                    multi_way: every phrase of `words` finds the others), JSON arrays of phrases.
// Existing products' words are written here (the application's tokenizer, handed in).
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("product_terms")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("term", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("product_terms_pk", ["store_id", "term"])
      .execute();
    await db.schema
      .createTable("search_synonyms")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("words", types.json, (c) => c.notNull())
      .addColumn("synonyms", types.json, (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("search_synonyms_store_idx").on("search_synonyms").columns(["store_id", "created_at"]).execute();
    const existing = await sql<{ n: number }>`SELECT count(*) AS n FROM product_text`.execute(db);
    if (Number(existing.rows[0]?.n ?? 0) > 0) {
      if (!types.hooks?.indexProductTerms) {
        throw new Error(
          "0023 writes the words of existing products with the application's code: open this database with `npm start` or `npm run cli`, which hand that step in.",
        );
      }
      await types.hooks.indexProductTerms(db, types.dialect);
    }
  },
});

export default migration;
