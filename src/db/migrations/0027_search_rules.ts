// Merchandising rules of text search (issue 38, item 4; src/search/rules).
//   search_rules     — one row per rule: its condition (`match` exact | contains on `query`, the
//                      normalised query text: lower-case words joined by one space) and its
//                      consequences as JSON arrays: pins [{product_id, position}], hide
//                      [product_id], boost and bury [{field, value}]; `enabled` 1 | 0. One rule per
//                      (store, match, query).
//   search_rule_hits — how many searches each rule applied to, per UTC day (`day`: days since
//                      1970-01-01), written by additive upserts; removed with the rule.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("search_rules")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("match", "text", (c) => c.notNull())
      .addColumn("query", "text", (c) => c.notNull())
      .addColumn("pins", types.json, (c) => c.notNull())
      .addColumn("hide", types.json, (c) => c.notNull())
      .addColumn("boost", types.json, (c) => c.notNull())
      .addColumn("bury", types.json, (c) => c.notNull())
      .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
      .addColumn("description", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("search_rules_condition_idx").on("search_rules").columns(["store_id", "match", "query"]).unique().execute();
    await db.schema
      .createTable("search_rule_hits")
      .addColumn("rule_id", "text", (c) => c.notNull().references("search_rules.id").onDelete("cascade"))
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("day", "integer", (c) => c.notNull())
      .addColumn("hits", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("search_rule_hits_pk", ["rule_id", "day"])
      .execute();
    await db.schema.createIndex("search_rule_hits_store_idx").on("search_rule_hits").columns(["store_id", "day"]).execute();
  },
});

export default migration;
