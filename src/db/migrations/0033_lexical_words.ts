// PostgreSQL's lexical rows indexed as the query's words (src/lexical/repository.ts, tsText): the
// parser read "10.5", "acme.com", "v1.2.3" and "1/2" as one token each and "SKU-778812" as 'sku'
// and '-778812', while a query's words split them ("10" and "5", "sku" and "778812"), so no
// every-word query found those products. Every existing row is written again from its product's
// metadata by the application's indexer (DataHooks.indexProductText, as 0018's data step), a page
// of products per statement. SQLite: nothing to do (FTS5 splits where the query's words do).
// Measured at a million products (docs/operations.md): see there before upgrading a large store.
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect !== "postgres") return;
    const existing = await sql<{ one: number }>`SELECT 1 AS one FROM product_text LIMIT 1`.execute(db);
    if (existing.rows.length === 0) return;
    if (!types.hooks?.indexProductText) {
      throw new Error(
        "0033 indexes the text of existing products again with the application's code: open this database with `npm start` or `npm run cli`, which hand that step in.",
      );
    }
    await types.hooks.indexProductText(db, types.dialect);
  },
});

export default migration;
