// Search history: one row per successful search, the anchor feedback attributes conversions to.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("search_history")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("mode", "text", (c) => c.notNull())
      .addColumn("query_text", "text")
      .addColumn("query_summary", types.json, (c) => c.notNull())
      .addColumn("filters", types.json, (c) => c.notNull())
      .addColumn("results", types.json, (c) => c.notNull())
      .addColumn("result_count", "integer", (c) => c.notNull())
      .addColumn("latency_ms", "integer", (c) => c.notNull())
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("search_history_store_idx").on("search_history").columns(["store_id", "created_at"]).execute();
  },
});

export default migration;
