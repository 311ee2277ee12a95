// Durable work: a job queue table (claimed with a lease, so a killed process's job is resumed),
// bulk-import jobs with one row per item (each item commits with its product, so a resumed job
// redoes nothing), webhooks, and the delivery outbox written in the same transaction as the
// change it reports, with one row per delivery attempt.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("jobs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("payload", types.json, (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("run_after", "bigint", (c) => c.notNull())
      .addColumn("locked_by", "text")
      .addColumn("locked_until", "bigint")
      .addColumn("error", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("finished_at", "bigint")
      .execute();
    await db.schema.createIndex("jobs_claim_idx").on("jobs").columns(["status", "run_after"]).execute();

    await db.schema
      .createTable("bulk_jobs")
      .addColumn("job_id", "text", (c) => c.primaryKey().references("jobs.id").onDelete("cascade"))
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("total", "integer", (c) => c.notNull())
      .addColumn("callback_url", "text")
      .addColumn("callback_secret", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("finished_at", "bigint")
      .execute();
    await db.schema.createIndex("bulk_jobs_store_idx").on("bulk_jobs").columns(["store_id", "created_at"]).execute();

    await db.schema
      .createTable("bulk_job_items")
      .addColumn("job_id", "text", (c) => c.notNull().references("bulk_jobs.job_id").onDelete("cascade"))
      .addColumn("idx", "integer", (c) => c.notNull())
      .addColumn("store_id", "text", (c) => c.notNull())
      .addColumn("product_id", "text", (c) => c.notNull())
      .addColumn("payload", types.json, (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("error_code", "text")
      .addColumn("error_message", "text")
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("bulk_job_items_pk", ["job_id", "idx"])
      .execute();

    await db.schema
      .createTable("webhooks")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("url", "text", (c) => c.notNull())
      .addColumn("events", types.json, (c) => c.notNull())
      .addColumn("secret", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("disabled_reason", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhooks_store_idx").on("webhooks").column("store_id").execute();

    await db.schema
      .createTable("webhook_deliveries")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("webhook_id", "text", (c) => c.references("webhooks.id").onDelete("cascade"))
      .addColumn("target_url", "text", (c) => c.notNull())
      .addColumn("secret", "text", (c) => c.notNull())
      .addColumn("event", "text", (c) => c.notNull())
      .addColumn("ordering_key", "text", (c) => c.notNull())
      .addColumn("seq", "bigint", (c) => c.notNull())
      .addColumn("body", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
      .addColumn("locked_until", "bigint")
      .addColumn("last_status_code", "integer")
      .addColumn("last_error", "text")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("delivered_at", "bigint")
      .execute();
    await db.schema.createIndex("webhook_deliveries_due_idx").on("webhook_deliveries").columns(["status", "next_attempt_at"]).execute();
    await db.schema
      .createIndex("webhook_deliveries_order_idx")
      .on("webhook_deliveries")
      .columns(["store_id", "webhook_id", "ordering_key", "seq"])
      .execute();

    await db.schema
      .createTable("webhook_attempts")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("delivery_id", "text", (c) => c.notNull().references("webhook_deliveries.id").onDelete("cascade"))
      .addColumn("store_id", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("status_code", "integer")
      .addColumn("duration_ms", "integer", (c) => c.notNull())
      .addColumn("error", "text")
      .addColumn("next_attempt_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("webhook_attempts_delivery_idx").on("webhook_attempts").columns(["delivery_id", "attempt"]).execute();
  },
});

export default migration;
