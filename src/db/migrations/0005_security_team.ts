// Scoped API keys, the IP allow-list, team invites and user groups (issue 7).
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("api_keys")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("key_hash", "text", (c) => c.notNull().unique())
      .addColumn("key_prefix", "text", (c) => c.notNull())
      .addColumn("scopes", types.json, (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("last_used_at", "bigint")
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema.createIndex("api_keys_store_idx").on("api_keys").columns(["store_id", "created_at"]).execute();

    await db.schema
      .createTable("ip_allowlist")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("cidr", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("ip_allowlist_store_cidr_uq", ["store_id", "cidr"])
      .execute();

    await db.schema
      .createTable("team_invites")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("email", "text", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("token_hash", "text", (c) => c.notNull().unique())
      .addColumn("invited_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("accepted_at", "bigint")
      .addColumn("accepted_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("cancelled_at", "bigint")
      .execute();
    await db.schema.createIndex("team_invites_store_idx").on("team_invites").columns(["store_id", "email"]).execute();

    await db.schema
      .createTable("user_groups")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("name_key", "text", (c) => c.notNull())
      .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("user_groups_store_name_uq", ["store_id", "name_key"])
      .execute();

    await db.schema
      .createTable("user_group_permissions")
      .addColumn("group_id", "text", (c) => c.notNull().references("user_groups.id").onDelete("cascade"))
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("permission", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("user_group_permissions_pk", ["group_id", "permission"])
      .execute();

    await db.schema
      .createTable("user_group_members")
      .addColumn("group_id", "text", (c) => c.notNull().references("user_groups.id").onDelete("cascade"))
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("user_group_members_pk", ["group_id", "user_id"])
      .execute();
    await db.schema.createIndex("user_group_members_user_idx").on("user_group_members").columns(["store_id", "user_id"]).execute();

    await db.schema.createIndex("auth_events_user_idx").on("auth_events").columns(["user_id", "created_at"]).execute();
  },
});

export default migration;
