// Search filters compare a brand ignoring case (`metadata_filters` on `brand` compile to the
// `brand` column: src/search/query/filters.ts); this index serves them as
// products_store_category_lower_idx (migration 0003) serves category filters. Without it such a
// filter reads every product of the store (bench:scale, 1,000,000 products: 338 ms per search).
// On PostgreSQL the build holds product writes back while it runs at the first start after the
// upgrade (seconds at a million products); it cannot be CONCURRENTLY inside the migration.
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = () => ({
  async up(db: MigrationDb) {
    await sql`CREATE INDEX products_store_brand_lower_idx ON products (store_id, lower(brand))`.execute(db);
  },
});

export default migration;
