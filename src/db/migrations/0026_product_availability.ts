// Product availability (issue 38, item 3): what the store says about a product's stock, set through
// the product API, bulk uploads and the portal, and read live by the assistant's embedded catalogue
// (src/assistant/storefront/embedded.ts). Both columns are NULL for every existing product
// (availability unknown): adding a nullable column rewrites no rows on either dialect.
//   availability    in_stock | low_stock | out_of_stock, or NULL (unknown)
//   stock_quantity  units in stock (0 or more), or NULL (not given)
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = () => ({
  async up(db: MigrationDb) {
    await db.schema
      .alterTable("products")
      .addColumn("availability", "text", (c) => c.check(sql`availability IN ('in_stock', 'low_stock', 'out_of_stock')`))
      .execute();
    await db.schema
      .alterTable("products")
      .addColumn("stock_quantity", "integer", (c) => c.check(sql`stock_quantity >= 0`))
      .execute();
  },
});

export default migration;
