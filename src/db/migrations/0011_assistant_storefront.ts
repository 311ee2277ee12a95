// Assistant API (issue 9), storefront side: per-store assistant settings, storefront connections
// (private token encrypted with AES-256-GCM), the admin audit trail, per-store exchange secrets and
// used assertion ids (single-use `jti` across processes), the embedded catalogue's carts, returns
// and orders, and the customer id of exchanged (signed-in) shopper sessions.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema.alterTable("assistant_sessions").addColumn("customer_id", "text").execute();

    await db.schema
      .createTable("assistant_settings")
      .addColumn("store_id", "text", (c) => c.primaryKey().references("stores.id").onDelete("cascade"))
      .addColumn("currency", "text", (c) => c.notNull())
      .addColumn("support_contact", types.json)
      .addColumn("updated_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("assistant_storefront_connections")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("store_url", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("auth", "text", (c) => c.notNull())
      .addColumn("token_ciphertext", "text")
      .addColumn("shop_name", "text")
      .addColumn("shop_currency", "text")
      .addColumn("verified_at", "bigint", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("disconnected_at", "bigint")
      .execute();
    await db.schema
      .createIndex("assistant_storefront_connections_store_idx")
      .on("assistant_storefront_connections")
      .columns(["store_id", "status", "created_at"])
      .execute();

    await db.schema
      .createTable("assistant_audit_events")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("actor_user_id", "text")
      .addColumn("operation", "text", (c) => c.notNull())
      .addColumn("method", "text", (c) => c.notNull())
      .addColumn("route", "text", (c) => c.notNull())
      .addColumn("target_id", "text")
      .addColumn("reason", "text")
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("status_code", "integer", (c) => c.notNull())
      .addColumn("error_code", "text")
      .addColumn("correlation_id", "text", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("assistant_audit_events_store_idx")
      .on("assistant_audit_events")
      .columns(["store_id", "created_at"])
      .execute();

    await db.schema
      .createTable("assistant_exchange_secrets")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("secret_ciphertext", "text", (c) => c.notNull())
      .addColumn("secret_prefix", "text", (c) => c.notNull())
      .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("revoked_at", "bigint")
      .execute();
    await db.schema
      .createIndex("assistant_exchange_secrets_store_idx")
      .on("assistant_exchange_secrets")
      .columns(["store_id", "created_at"])
      .execute();

    await db.schema
      .createTable("assistant_exchange_jtis")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("jti", "text", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("assistant_exchange_jtis_pk", ["store_id", "jti"])
      .execute();
    await db.schema.createIndex("assistant_exchange_jtis_expiry_idx").on("assistant_exchange_jtis").columns(["expires_at"]).execute();

    await db.schema
      .createTable("assistant_carts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("session_id", "text", (c) => c.notNull())
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("external_id", "text")
      .addColumn("lines", types.json, (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("assistant_carts_session_idx")
      .on("assistant_carts")
      .columns(["store_id", "session_id", "source"])
      .unique()
      .execute();

    await db.schema
      .createTable("assistant_returns")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("session_id", "text", (c) => c.notNull())
      .addColumn("customer_id", "text", (c) => c.notNull())
      .addColumn("order_id", "text", (c) => c.notNull())
      .addColumn("product_id", "text")
      .addColumn("quantity", "integer")
      .addColumn("reason", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("external_id", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("assistant_returns_store_idx")
      .on("assistant_returns")
      .columns(["store_id", "customer_id", "created_at"])
      .execute();

    // Orders of the embedded catalogue (no write route yet: written by fixtures or the store backend directly).
    await db.schema
      .createTable("assistant_orders")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("order_id", "text", (c) => c.notNull())
      .addColumn("customer_id", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("placed_at", "bigint", (c) => c.notNull())
      .addColumn("total_minor", "bigint", (c) => c.notNull())
      .addColumn("currency", "text", (c) => c.notNull())
      .addColumn("items", types.json, (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("assistant_orders_pk", ["store_id", "order_id"])
      .execute();
    await db.schema
      .createIndex("assistant_orders_customer_idx")
      .on("assistant_orders")
      .columns(["store_id", "customer_id", "placed_at"])
      .execute();
  },
});

export default migration;
