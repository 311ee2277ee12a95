// Billing tables: accounts (provider, Stripe ids, period), local checkout sessions, invoices,
// processed Stripe events and hourly usage counters. Store-owned rows are addressed by `storeId`
// first; the lookups that find a store from a Stripe id (customer, subscription) or from a
// checkout token are the only methods that start without one.
import type { Selectable, Updateable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { BillingAccountsTable, BillingCheckoutSessionsTable, BillingInvoicesTable, BillingProvider } from "../../db/schema.js";

export type AccountRow = Selectable<BillingAccountsTable>;
export type CheckoutSessionRow = Selectable<BillingCheckoutSessionsTable>;
export type InvoiceRow = Selectable<BillingInvoicesTable>;

export interface UsageIncrement {
  storeId: string;
  bucketStart: number;
  calls: number;
}

export class BillingRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): BillingRepository {
    return new BillingRepository(db);
  }

  // --- stores (plan lives on the store row)
  findStore(storeId: string) {
    return this.db.selectFrom("stores").select(["id", "slug", "name", "plan"]).where("id", "=", storeId).executeTakeFirst();
  }

  async setStorePlan(storeId: string, planName: string, now: number): Promise<void> {
    await this.db.updateTable("stores").set({ plan: planName, updated_at: now }).where("id", "=", storeId).execute();
  }

  /** Number of indexed products of the store (the `products` table of 0003_catalog). */
  async countProducts(storeId: string): Promise<number> {
    const row = await this.db
      .selectFrom("products")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId)
      .executeTakeFirst();
    return row?.n ?? 0;
  }

  // --- accounts
  findAccount(storeId: string): Promise<AccountRow | undefined> {
    return this.db.selectFrom("billing_accounts").selectAll().where("store_id", "=", storeId).executeTakeFirst();
  }

  /** The account row of the store, created (provider "none") when missing. */
  async ensureAccount(storeId: string, now: number): Promise<AccountRow> {
    await this.db
      .insertInto("billing_accounts")
      .values({
        store_id: storeId,
        provider: "none" satisfies BillingProvider,
        stripe_customer_id: null,
        stripe_subscription_id: null,
        subscription_status: null,
        current_period_start: null,
        current_period_end: null,
        last_event_at: null,
        plan_source: null,
        plan_changed_at: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column("store_id").doNothing())
      .execute();
    const row = await this.findAccount(storeId);
    if (!row) throw new Error(`billing account of ${storeId} vanished`);
    return row;
  }

  async updateAccount(storeId: string, patch: Omit<Updateable<BillingAccountsTable>, "store_id" | "created_at">): Promise<void> {
    await this.db.updateTable("billing_accounts").set(patch).where("store_id", "=", storeId).execute();
  }

  /** The store whose account holds this Stripe subscription id. */
  async storeIdOfSubscription(subscriptionId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("billing_accounts")
      .select("store_id")
      .where("stripe_subscription_id", "=", subscriptionId)
      .executeTakeFirst();
    return row?.store_id;
  }

  /** The store whose account holds this Stripe customer id. */
  async storeIdOfCustomer(customerId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom("billing_accounts")
      .select("store_id")
      .where("stripe_customer_id", "=", customerId)
      .executeTakeFirst();
    return row?.store_id;
  }

  // --- local checkout sessions
  async createCheckoutSession(storeId: string, s: Omit<CheckoutSessionRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("billing_checkout_sessions")
      .values({ store_id: storeId, ...s })
      .execute();
  }

  /** Looks a session up by the hash of its (secret) id; the id is the capability, like Stripe's. */
  findCheckoutSessionByHash(tokenHash: string): Promise<CheckoutSessionRow | undefined> {
    return this.db.selectFrom("billing_checkout_sessions").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  }

  /** Moves an open, unexpired session to `status`; returns it, or undefined when it was not open. */
  finishCheckoutSession(tokenHash: string, status: "completed" | "cancelled", now: number): Promise<CheckoutSessionRow | undefined> {
    return this.db
      .updateTable("billing_checkout_sessions")
      .set({ status, finished_at: now })
      .where("token_hash", "=", tokenHash)
      .where("status", "=", "open")
      .where("expires_at", ">", now)
      .returningAll()
      .executeTakeFirst();
  }

  // --- invoices
  async insertInvoice(storeId: string, inv: Omit<InvoiceRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("billing_invoices")
      .values({ store_id: storeId, ...inv })
      .execute();
  }

  /**
   * Records a provider invoice, or updates the one already recorded under the same provider id.
   * A paid invoice stays paid: a late `payment_failed` for it does not overwrite the status.
   */
  async upsertProviderInvoice(storeId: string, inv: Omit<InvoiceRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("billing_invoices")
      .values({ store_id: storeId, ...inv })
      .onConflict((oc) =>
        oc
          .columns(["provider", "provider_invoice_id"])
          .doUpdateSet({
            status: inv.status,
            amount_minor: inv.amount_minor,
            currency: inv.currency,
            hosted_url: inv.hosted_url,
            plan_name: inv.plan_name,
            period_start: inv.period_start,
            period_end: inv.period_end,
            issued_at: inv.issued_at,
            updated_at: inv.updated_at,
          })
          .where("billing_invoices.status", "!=", "paid")
          .where("billing_invoices.store_id", "=", storeId),
      )
      .execute();
  }

  listInvoices(storeId: string, limit: number): Promise<InvoiceRow[]> {
    return this.db
      .selectFrom("billing_invoices")
      .selectAll()
      .where("store_id", "=", storeId)
      .orderBy("issued_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  }

  // --- processed Stripe events (idempotency)
  /** Claims the event id; false when it was processed before (or is being processed by a concurrent transaction that commits). */
  async claimStripeEvent(eventId: string, type: string, eventCreatedAt: number, now: number): Promise<boolean> {
    const rows = await this.db
      .insertInto("billing_stripe_events")
      .values({ event_id: eventId, type, store_id: null, outcome: "processing", event_created_at: eventCreatedAt, processed_at: now })
      .onConflict((oc) => oc.column("event_id").doNothing())
      .returning("event_id")
      .execute();
    return rows.length === 1;
  }

  async recordStripeEventOutcome(eventId: string, storeId: string | null, outcome: string): Promise<void> {
    await this.db.updateTable("billing_stripe_events").set({ store_id: storeId, outcome }).where("event_id", "=", eventId).execute();
  }

  countStripeEvents(storeId: string): Promise<number> {
    return this.db
      .selectFrom("billing_stripe_events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId)
      .executeTakeFirst()
      .then((r) => r?.n ?? 0);
  }

  // --- usage
  /** Adds the increments to the hourly counters (one multi-row upsert: count = count + n). */
  async addUsage(increments: readonly UsageIncrement[], now: number): Promise<void> {
    if (increments.length === 0) return;
    await this.db
      .insertInto("billing_usage")
      .values(increments.map((i) => ({ store_id: i.storeId, bucket_start: i.bucketStart, api_calls: i.calls, updated_at: now })))
      .onConflict((oc) =>
        oc.columns(["store_id", "bucket_start"]).doUpdateSet((eb) => ({
          api_calls: eb("billing_usage.api_calls", "+", eb.ref("excluded.api_calls")),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .execute();
  }

  /** API calls of the store in the buckets [from, to). */
  async sumUsage(storeId: string, from: number, to: number): Promise<number> {
    const row = await this.db
      .selectFrom("billing_usage")
      .select((eb) => eb.fn.sum<number>("api_calls").as("n"))
      .where("store_id", "=", storeId)
      .where("bucket_start", ">=", from)
      .where("bucket_start", "<", to)
      .executeTakeFirst();
    return row?.n ?? 0;
  }
}
