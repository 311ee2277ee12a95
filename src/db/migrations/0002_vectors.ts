// Product vectors (src/vectors): the source of truth for the vector index, one vector per
// product. SQLite keeps float32 little-endian blobs (the in-process HNSW index is rebuilt from
// them at start); PostgreSQL keeps pgvector `vector` values without a fixed dimension, and the
// adapter creates one partial HNSW index per dimension in use (`product_vectors_hnsw_<dim>`).
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect === "postgres") {
      // The extension is database-wide; install it into `public` so every schema (tests use one
      // each) finds the type through its search_path. The advisory lock serialises concurrent
      // first starts (CREATE EXTENSION IF NOT EXISTS alone can race).
      await sql`SELECT pg_advisory_xact_lock(hashtext('shopsight:create extension vector'))`.execute(db);
      await sql`CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public`.execute(db);
    }
    await db.schema
      .createTable("product_vectors")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("vector_id", "text", (c) => c.notNull())
      .addColumn("product_id", "text", (c) => c.notNull())
      .addColumn("model", "text", (c) => c.notNull())
      .addColumn("dim", "integer", (c) => c.notNull())
      .addColumn("embedding", types.dialect === "postgres" ? sql`vector` : "blob", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("product_vectors_pk", ["store_id", "vector_id"])
      .addUniqueConstraint("product_vectors_product_uq", ["store_id", "product_id"])
      .execute();
    if (types.dialect === "postgres") {
      // Keep vectors inside the heap row (a 512-d vector is ~2 KB, just over the TOAST threshold):
      // out-of-line storage costs a TOAST fetch for every distance computed from the table
      // (exact scans, and the distance of every HNSW result). MAIN still moves a vector out of
      // line as a last resort when the row cannot fit a page (> ~2,000 dimensions).
      await sql`ALTER TABLE product_vectors ALTER COLUMN embedding SET STORAGE MAIN`.execute(db);
    }
    // Serves per-store scans and counts per dimension (the unique index above also starts with
    // store_id, so no separate index on store_id alone is needed).
    await db.schema.createIndex("product_vectors_store_dim_idx").on("product_vectors").columns(["store_id", "dim"]).execute();
  },
});

export default migration;
