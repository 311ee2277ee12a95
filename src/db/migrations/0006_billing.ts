// Billing: the store's payment-provider account (Stripe customer and subscription, billing
// period), local test-mode checkout sessions, invoices, processed Stripe events (each event is
// applied once) and API-call usage counted per store per hour. The store's current plan stays in
// `stores.plan`; it only changes through BillingService.applyPlanChange.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = () => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("billing_accounts")
      .addColumn("store_id", "text", (c) => c.primaryKey().references("stores.id").onDelete("cascade"))
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("stripe_customer_id", "text", (c) => c.unique())
      .addColumn("stripe_subscription_id", "text", (c) => c.unique())
      .addColumn("subscription_status", "text")
      .addColumn("current_period_start", "bigint")
      .addColumn("current_period_end", "bigint")
      .addColumn("last_event_at", "bigint")
      .addColumn("plan_source", "text")
      .addColumn("plan_changed_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("billing_checkout_sessions")
      .addColumn("token_hash", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("plan_name", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("created_by", "text")
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("finished_at", "bigint")
      .execute();
    await db.schema
      .createIndex("billing_checkout_sessions_store_idx")
      .on("billing_checkout_sessions")
      .columns(["store_id", "created_at"])
      .execute();

    await db.schema
      .createTable("billing_invoices")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("provider_invoice_id", "text", (c) => c.notNull())
      .addColumn("plan_name", "text")
      .addColumn("amount_minor", "bigint", (c) => c.notNull())
      .addColumn("currency", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("hosted_url", "text")
      .addColumn("period_start", "bigint")
      .addColumn("period_end", "bigint")
      .addColumn("issued_at", "bigint", (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addUniqueConstraint("billing_invoices_provider_uq", ["provider", "provider_invoice_id"])
      .execute();
    await db.schema.createIndex("billing_invoices_store_idx").on("billing_invoices").columns(["store_id", "issued_at"]).execute();

    // No foreign key to stores: an event may name a store that does not exist (it is recorded
    // as ignored so a redelivery is still answered "already processed").
    await db.schema
      .createTable("billing_stripe_events")
      .addColumn("event_id", "text", (c) => c.primaryKey())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("store_id", "text")
      .addColumn("outcome", "text", (c) => c.notNull())
      .addColumn("event_created_at", "bigint", (c) => c.notNull())
      .addColumn("processed_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("billing_usage")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("bucket_start", "bigint", (c) => c.notNull())
      .addColumn("api_calls", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("billing_usage_pk", ["store_id", "bucket_start"])
      .execute();
  },
});

export default migration;
