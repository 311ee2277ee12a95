// Search feedback (clicks, add-to-cart, purchases with conversion attribution) and public widget
// keys (issue 6).
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("widget_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("key_hash", "text", (c) => c.notNull().unique())
      .addColumn("key_prefix", "text", (c) => c.notNull())
      .addColumn("allowed_origins", types.json, (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("last_used_at", "bigint")
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("widget_keys_store_idx").on("widget_keys").columns(["store_id", "created_at"]).execute();

    await db.schema
      .createTable("search_feedback")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("search_id", "text", (c) => c.references("search_history.id").onDelete("set null"))
      .addColumn("result_product_id", "text", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("quantity", "integer", (c) => c.notNull())
      // Money in the currency's minor unit (cents; yen; fils), so sums are exact.
      .addColumn("order_value_minor", "bigint")
      .addColumn("currency", "text")
      .addColumn("session_id", "text")
      .addColumn("result_rank", "integer")
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("widget_key_id", "text", (c) => c.references("widget_keys.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("search_feedback_store_idx").on("search_feedback").columns(["store_id", "created_at"]).execute();
    await db.schema.createIndex("search_feedback_search_idx").on("search_feedback").columns(["search_id", "action"]).execute();
  },
});

export default migration;
