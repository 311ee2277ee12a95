import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = () => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("stores")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("slug", "text", (c) => c.notNull().unique())
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("plan", "text", (c) => c.notNull().defaultTo("free"))
      .addColumn("client_secret_hash", "text")
      .addColumn("secret_rotated_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("users")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("email", "text", (c) => c.notNull().unique())
      .addColumn("password_hash", "text", (c) => c.notNull())
      .addColumn("full_name", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("is_super_admin", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("totp_secret", "text")
      .addColumn("totp_enabled", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("memberships")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("last_used_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("memberships_pk", ["store_id", "user_id"])
      .execute();
    await db.schema.createIndex("memberships_user_idx").on("memberships").column("user_id").execute();

    await db.schema
      .createTable("verification_tokens")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("revoked_tokens")
      .addColumn("jti", "text", (c) => c.primaryKey())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("auth_events")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.references("stores.id").onDelete("cascade"))
      .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("identity", "text")
      .addColumn("ip", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("auth_events_store_idx").on("auth_events").columns(["store_id", "created_at"]).execute();
  },
});

export default migration;
