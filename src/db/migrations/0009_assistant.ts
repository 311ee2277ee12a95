// Assistant API (issue 9): store public keys, shopper sessions (opaque, hashed bearer tokens) and
// chat threads bound to the session that made them.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = () => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("assistant_public_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("key_hash", "text", (c) => c.notNull().unique())
      .addColumn("key_prefix", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema
      .createIndex("assistant_public_keys_store_idx")
      .on("assistant_public_keys")
      .columns(["store_id", "created_at"])
      .execute();

    await db.schema
      .createTable("assistant_sessions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("locale", "text")
      .addColumn("public_key_id", "text", (c) => c.references("assistant_public_keys.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .addColumn("revoke_reason", "text")
      .execute();
    await db.schema.createIndex("assistant_sessions_store_idx").on("assistant_sessions").columns(["store_id", "created_at"]).execute();

    await db.schema
      .createTable("assistant_threads")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("session_id", "text", (c) => c.notNull().references("assistant_sessions.id").onDelete("cascade"))
      .addColumn("locale", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("assistant_threads_session_idx").on("assistant_threads").columns(["store_id", "session_id"]).execute();
    // Store policies: versioned concepts. Every change of a concept inserts a new version; only
    // published versions are used for answers.
    await db.schema
      .createTable("assistant_policy_versions")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("concept_id", "text", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("handle", "text", (c) => c.notNull())
      .addColumn("title", "text", (c) => c.notNull())
      .addColumn("body_markdown", "text", (c) => c.notNull())
      .addColumn("locale", "text", (c) => c.notNull())
      .addColumn("published", "integer", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("assistant_policy_versions_pk", ["store_id", "concept_id", "version"])
      .execute();
  },
});

export default migration;
