// Products and their stored images. Filterable metadata fields are copied into columns
// (category, brand, price, color_name); the whole metadata document stays in `metadata`.
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("products")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("product_id", "text", (c) => c.notNull())
      .addColumn("vector_id", "text", (c) => c.notNull())
      .addColumn("image_url", "text", (c) => c.notNull())
      .addColumn("image_sha256", "text", (c) => c.notNull())
      .addColumn("name", "text")
      .addColumn("category", "text")
      .addColumn("brand", "text")
      .addColumn("price", "real")
      .addColumn("color_name", "text")
      .addColumn("metadata", types.json, (c) => c.notNull())
      .addColumn("dominant_colors", types.json, (c) => c.notNull())
      .addColumn("model", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("products_pk", ["store_id", "product_id"])
      .execute();
    await db.schema.createIndex("products_store_created_idx").on("products").columns(["store_id", "created_at", "product_id"]).execute();
    await db.schema.createIndex("products_store_category_idx").on("products").columns(["store_id", "category"]).execute();
    // Search filters compare categories ignoring case.
    await sql`CREATE INDEX products_store_category_lower_idx ON products (store_id, lower(category))`.execute(db);
    await db.schema.createIndex("products_store_brand_idx").on("products").columns(["store_id", "brand"]).execute();
    await db.schema.createIndex("products_store_price_idx").on("products").columns(["store_id", "price"]).execute();

    await db.schema
      .createTable("product_images")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("sha256", "text", (c) => c.notNull())
      .addColumn("content_type", "text", (c) => c.notNull())
      .addColumn("width", "integer", (c) => c.notNull())
      .addColumn("height", "integer", (c) => c.notNull())
      .addColumn("bytes", types.blob, (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("product_images_pk", ["store_id", "sha256"])
      .execute();
  },
});

export default migration;
