// Webhooks, their delivery outbox and attempt log. `storeId` first on every store-scoped method;
// the dispatcher's claim works across stores (it delivers for every store) and is marked so.
import { sql, type Selectable } from "kysely";
import { rowCount, type Executor } from "../../platform/db/index.js";
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from "../../db/schema.js";

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export class WebhooksRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): WebhooksRepository {
    return new WebhooksRepository(db);
  }

  async create(storeId: string, w: Omit<WebhookRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("webhooks")
      .values({ ...w, store_id: storeId })
      .execute();
  }

  list(storeId: string): Promise<WebhookRow[]> {
    return this.db.selectFrom("webhooks").selectAll().where("store_id", "=", storeId).orderBy("created_at").orderBy("id").execute();
  }

  find(storeId: string, id: string): Promise<WebhookRow | undefined> {
    return this.db.selectFrom("webhooks").selectAll().where("store_id", "=", storeId).where("id", "=", id).executeTakeFirst();
  }

  async delete(storeId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom("webhooks").where("store_id", "=", storeId).where("id", "=", id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async disable(storeId: string, id: string, reason: string, now: number): Promise<void> {
    await this.db
      .updateTable("webhooks")
      .set({ status: "disabled", disabled_reason: reason, updated_at: now })
      .where("store_id", "=", storeId)
      .where("id", "=", id)
      .execute();
    await this.db
      .updateTable("webhook_deliveries")
      .set({ status: "cancelled", last_error: reason, locked_until: null })
      .where("store_id", "=", storeId)
      .where("webhook_id", "=", id)
      .where("status", "=", "pending")
      .execute();
  }

  /** Active webhooks of the store; the caller filters by subscribed event. */
  active(storeId: string): Promise<WebhookRow[]> {
    return this.db.selectFrom("webhooks").selectAll().where("store_id", "=", storeId).where("status", "=", "active").execute();
  }

  async addDelivery(storeId: string, d: Omit<DeliveryRow, "store_id" | "attempts">): Promise<void> {
    await this.db
      .insertInto("webhook_deliveries")
      .values({ ...d, store_id: storeId })
      .execute();
  }

  deliveries(storeId: string, webhookId: string, limit: number): Promise<DeliveryRow[]> {
    return this.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("webhook_id", "=", webhookId)
      .orderBy("seq", "desc")
      .limit(limit)
      .execute();
  }

  attemptsOf(storeId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom("webhook_attempts")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("delivery_id", "in", deliveryIds)
      .orderBy("attempt")
      .execute();
  }

  /**
   * Embedded (SQLite) mode runs one process: at start, leases on pending deliveries were left by
   * a process that is gone, so they are claimable at once.
   */
  async releaseLeases(): Promise<void> {
    await this.db.updateTable("webhook_deliveries").set({ locked_until: null }).where("status", "=", "pending").execute();
  }

  /**
   * Cross-store (dispatcher only): claims up to `limit` due deliveries, each the oldest pending
   * one of its (store, target, ordering key), and leases them until `leaseUntil`.
   */
  async claimDue(now: number, leaseUntil: number, limit: number, forUpdate: boolean): Promise<DeliveryRow[]> {
    // One statement selects and leases, so two workers never take the same delivery
    // (PostgreSQL skips rows another worker is leasing; SQLite serialises writers).
    // Due deliveries, oldest first, each only when no earlier delivery of its ordering key is pending.
    const due = sql`
      SELECT d.id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}
        AND (d.locked_until IS NULL OR d.locked_until < ${now})
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries e
          WHERE e.store_id = d.store_id AND e.target_url = d.target_url AND e.ordering_key = d.ordering_key
            AND e.status = 'pending' AND e.seq < d.seq)
      ORDER BY d.next_attempt_at, d.seq
      LIMIT ${rowCount(limit)}`;
    const res = forUpdate
      ? // PostgreSQL: `id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` inside an UPDATE may be
        // rescanned by the planner and then leases every due row instead of n (one worker took the
        // whole outbox). A materialised CTE picks exactly n rows once; the outer UPDATE leases them.
        await sql<DeliveryRow>`
          WITH picked AS MATERIALIZED (${due} FOR UPDATE SKIP LOCKED)
          UPDATE webhook_deliveries w SET locked_until = ${leaseUntil}
          FROM picked WHERE w.id = picked.id
          RETURNING w.*`.execute(this.db)
      : await sql<DeliveryRow>`
          UPDATE webhook_deliveries SET locked_until = ${leaseUntil}
          WHERE status = 'pending' AND (locked_until IS NULL OR locked_until < ${now}) AND id IN (${due})
          RETURNING *`.execute(this.db);
    // BIGINT columns arrive as numbers (pg's int8 parser, src/platform/db/index.ts).
    return res.rows;
  }

  async recordAttempt(storeId: string, a: Omit<AttemptRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("webhook_attempts")
      .values({ ...a, store_id: storeId })
      .execute();
  }

  async updateDelivery(storeId: string, id: string, patch: Partial<Omit<DeliveryRow, "id" | "store_id">>): Promise<void> {
    await this.db.updateTable("webhook_deliveries").set(patch).where("store_id", "=", storeId).where("id", "=", id).execute();
  }
}
