// Plans, usage, invoices and checkout (spec: Billing; Team, users, groups, billing).
//
// The store's plan is `stores.plan` and changes in exactly one place, `applyPlanChange`, used by
// the Stripe webhook and by the local test checkout alike. Rate limits and product limits read
// the plan per request, so a change applies at once. A downgrade below the current product count
// keeps every product; the product service then refuses new ones (plan_limit_reached).
//
// Checkout: with STRIPE_SECRET_KEY a Stripe Checkout Session (subscription mode), or a billing-
// portal confirmation when the store already has a live subscription; without it a local hosted
// page (TEST MODE) whose single-use session id (256 random bits, stored hashed) expires after an
// hour. Stripe events are applied once each (their id is claimed in the same transaction as the
// change) and in order per store (an event older than the last applied one changes nothing).
import type { AppContext } from "../../context/context.js";
import type { Executor, Tx } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, randomSecret, sha256 } from "../../platform/ids.js";
import { calendarMonth, bucketRange, fromMinor, toMinor, type Period } from "./period.js";
import { PLAN_CURRENCY, isPaidPlan, isPlanName, planOf, type PaidPlanName, type Plan, type PlanName } from "../../tenancy/plans.js";
import { BillingRepository, type AccountRow, type CheckoutSessionRow } from "./repository.js";
import type { StripeEventLike, StripeGateway } from "./stripe.js";
import type { UsageMeter } from "./usage-meter.js";
import type { Checkout, CurrentPlan, Invoice, Usage } from "./schemas.js";
import type { Static } from "typebox";
import { iso } from "../../platform/clock.js";
import "../errors/codes.js"; // registers the error codes thrown here

export const CHECKOUT_SESSION_TTL_MS = 60 * 60 * 1000;
export const LOCAL_SESSION_PREFIX = "cs_local_";

/** Subscription statuses in which the subscribed plan is in force. */
const LIVE = new Set(["active", "trialing"]);
/** Statuses after which the store falls back to the free plan. */
const ENDED = new Set(["canceled", "unpaid", "incomplete_expired", "paused"]);

export interface PlanChange {
  previous: PlanName;
  current: PlanName;
  changed: boolean;
}

export type CurrentPlanView = Static<typeof CurrentPlan>;
export type UsageView = Static<typeof Usage>;
export type InvoiceView = Static<typeof Invoice>;
export type CheckoutView = Static<typeof Checkout>;

export interface LocalCheckoutDetails {
  sessionId: string;
  storeName: string;
  plan: Plan;
  expiresAt: number;
}

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

// Defensive readers for Stripe objects (their shape varies between API versions).
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === "object" ? (v as Obj) : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
/** An id, or the id of an expanded object. */
const idOf = (v: unknown): string | undefined => str(v) ?? str(obj(v)?.id);
const secondsToMs = (v: unknown): number | null => {
  const n = num(v);
  return n === undefined ? null : n * 1000;
};

export class BillingService {
  private readonly repo: BillingRepository;

  private readonly gateway: StripeGateway;
  /** The Search API app's usage meter, flushed before usage is read (absent in the CLI). */
  private readonly meter: UsageMeter | undefined;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: BillingRepository; gateway: StripeGateway; meter?: UsageMeter | undefined },
  ) {
    this.repo = deps.repo;
    this.gateway = deps.gateway;
    this.meter = deps.meter;
  }

  // --- the one path that changes a store's plan
  /**
   * Sets the store's plan (stores.plan) and records where the change came from. Used by the Stripe
   * webhook and the local checkout; pass the open transaction when there is one.
   */
  async applyPlanChange(storeId: string, planName: PlanName, source: string, exec: Executor = this.ctx.database.db): Promise<PlanChange> {
    if (!isPlanName(planName)) throw new AppError("validation_failed", `Unknown plan "${String(planName)}".`);
    const repo = this.repo.with(exec);
    const store = await repo.findStore(storeId);
    if (!store) throw new AppError("not_found", "No such store.");
    const now = this.ctx.clock.now();
    const previous = planOf(store.plan).plan_name;
    await repo.ensureAccount(storeId, now);
    if (store.plan !== planName) await repo.setStorePlan(storeId, planName, now);
    await repo.updateAccount(storeId, { plan_source: source, plan_changed_at: now, updated_at: now });
    return { previous, current: planName, changed: previous !== planName };
  }

  // --- reads
  async currentPlan(storeId: string): Promise<CurrentPlanView> {
    const { plan, account, period } = await this.state(storeId);
    return {
      plan_name: plan.plan_name,
      price_per_month: plan.price_per_month,
      currency: PLAN_CURRENCY,
      max_products: plan.max_products,
      requests_per_minute: plan.requests_per_minute,
      period_start: iso(period.start),
      period_end: iso(period.end),
      billing_provider: account?.provider ?? "none",
      subscription_status: account?.subscription_status ?? null,
    };
  }

  async usage(storeId: string): Promise<UsageView> {
    // Counts of this process are flushed first, so the figure includes every call that finished
    // before this one (other processes' counts lag by at most their flush interval).
    await this.meter?.flush();
    const { plan, period } = await this.state(storeId);
    const { from, to } = bucketRange(period);
    const [apiCalls, products] = await Promise.all([this.repo.sumUsage(storeId, from, to), this.repo.countProducts(storeId)]);
    const max = plan.max_products;
    return {
      plan_name: plan.plan_name,
      period_start: iso(period.start),
      period_end: iso(period.end),
      api_calls: apiCalls,
      products_count: products,
      max_products: max,
      requests_per_minute: plan.requests_per_minute,
      products_percent: max === null ? null : Math.round((products / max) * 1000) / 10,
      over_product_limit: max !== null && products > max,
    };
  }

  async invoices(storeId: string, limit: number): Promise<InvoiceView[]> {
    const rows = await this.repo.listInvoices(storeId, limit);
    return rows.map((r) => ({
      id: r.id,
      date: iso(r.issued_at),
      amount: fromMinor(r.amount_minor, r.currency),
      currency: r.currency,
      status: r.status,
      url: r.hosted_url,
      plan_name: r.plan_name,
      period_start: isoOrNull(r.period_start),
      period_end: isoOrNull(r.period_end),
    }));
  }

  /** Plan, billing account and current period of the store. */
  private async state(storeId: string): Promise<{ plan: Plan; account: AccountRow | undefined; period: Period }> {
    const [store, account] = await Promise.all([this.repo.findStore(storeId), this.repo.findAccount(storeId)]);
    if (!store) throw new AppError("not_found", "No such store.");
    return { plan: planOf(store.plan), account, period: this.periodOf(account, this.ctx.clock.now()) };
  }

  /** Stripe's current period while it covers `now` (a subscription), else the calendar month (UTC). */
  private periodOf(account: AccountRow | undefined, now: number): Period {
    const start = account?.current_period_start ?? null;
    const end = account?.current_period_end ?? null;
    const live = account?.provider === "stripe" && account.subscription_status !== null && !ENDED.has(account.subscription_status);
    if (live && start !== null && end !== null && start <= now && now < end) return { start, end };
    return calendarMonth(now);
  }

  // --- checkout
  async createCheckout(storeId: string, planName: PlanName, createdBy: string | null): Promise<CheckoutView> {
    if (!this.ctx.config.billing.enabled) throw new AppError("billing_disabled", undefined, { setting: "BILLING_MODE" });
    if (!isPaidPlan(planName)) throw new AppError("plan_not_purchasable", undefined, { plan_name: planName });
    const store = await this.repo.findStore(storeId);
    if (!store) throw new AppError("not_found", "No such store.");
    if (planOf(store.plan).plan_name === planName)
      throw new AppError("plan_unchanged", `The store is already on the ${planName} plan.`, { plan_name: planName });
    return this.gateway.enabled ? this.stripeCheckout(storeId, planName) : this.localCheckout(storeId, planName, createdBy);
  }

  private async stripeCheckout(storeId: string, planName: PaidPlanName): Promise<CheckoutView> {
    const account = await this.repo.findAccount(storeId);
    const base = this.ctx.config.publicBaseUrl;
    const subscriptionId = account?.stripe_subscription_id ?? null;
    const customerId = account?.stripe_customer_id ?? null;
    const status = account?.subscription_status ?? null;
    if (subscriptionId && customerId && status !== null && (LIVE.has(status) || status === "past_due")) {
      const portal = await this.gateway.createPlanChangeSession({
        customerId,
        subscriptionId,
        planName,
        returnUrl: `${base}/billing/return?result=success`,
      });
      return { checkout_url: portal.url, provider: "stripe", session_id: subscriptionId, expires_at: null };
    }
    const session = await this.gateway.createCheckoutSession({
      storeId,
      planName,
      customerId,
      successUrl: `${base}/billing/return?result=success&session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${base}/billing/return?result=cancel`,
    });
    return { checkout_url: session.url, provider: "stripe", session_id: session.id, expires_at: isoOrNull(session.expiresAt) };
  }

  private async localCheckout(storeId: string, planName: PaidPlanName, createdBy: string | null): Promise<CheckoutView> {
    const now = this.ctx.clock.now();
    const sessionId = randomSecret(LOCAL_SESSION_PREFIX, 32);
    const expiresAt = now + CHECKOUT_SESSION_TTL_MS;
    await this.repo.createCheckoutSession(storeId, {
      token_hash: sha256(sessionId),
      plan_name: planName,
      status: "open",
      created_by: createdBy,
      expires_at: expiresAt,
      created_at: now,
      finished_at: null,
    });
    return {
      checkout_url: `${this.ctx.config.publicBaseUrl}/billing/checkout/${sessionId}`,
      provider: "local",
      session_id: sessionId,
      expires_at: iso(expiresAt),
    };
  }

  /** The open session behind a local checkout page. */
  async localCheckoutDetails(sessionId: string): Promise<LocalCheckoutDetails> {
    const row = await this.repo.findCheckoutSessionByHash(sha256(sessionId));
    const session = this.requireOpen(row, this.ctx.clock.now());
    const store = await this.repo.findStore(session.store_id);
    if (!store) throw new AppError("not_found", "No such checkout session.");
    return { sessionId, storeName: store.name, plan: planOf(session.plan_name), expiresAt: session.expires_at };
  }

  /** Completes a local (test-mode) purchase: records a paid invoice and changes the plan, in one transaction. */
  async completeLocalCheckout(sessionId: string): Promise<{ storeName: string; plan: Plan }> {
    const hash = sha256(sessionId);
    return this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      const now = this.ctx.clock.now();
      const session = await repo.finishCheckoutSession(hash, "completed", now);
      if (!session) throw this.closedSessionError(await repo.findCheckoutSessionByHash(hash), now);
      const store = await repo.findStore(session.store_id);
      if (!store) throw new AppError("not_found", "No such checkout session.");
      const plan = planOf(session.plan_name);
      if (planOf(store.plan).plan_name === plan.plan_name) {
        throw new AppError("plan_unchanged", `The store is already on the ${plan.plan_name} plan.`, { plan_name: plan.plan_name });
      }
      const period = calendarMonth(now);
      await repo.insertInvoice(session.store_id, {
        id: prefixedId("inv"),
        provider: "local",
        provider_invoice_id: hash,
        plan_name: plan.plan_name,
        amount_minor: toMinor(plan.price_per_month, PLAN_CURRENCY),
        currency: PLAN_CURRENCY,
        status: "paid",
        hosted_url: null,
        period_start: period.start,
        period_end: period.end,
        issued_at: now,
        created_at: now,
        updated_at: now,
      });
      await this.applyPlanChange(session.store_id, plan.plan_name, "local_checkout", tx);
      await repo.updateAccount(session.store_id, { provider: "local", updated_at: now });
      return { storeName: store.name, plan };
    });
  }

  async cancelLocalCheckout(sessionId: string): Promise<{ storeName: string; plan: Plan }> {
    const hash = sha256(sessionId);
    const now = this.ctx.clock.now();
    const session = await this.repo.finishCheckoutSession(hash, "cancelled", now);
    if (!session) throw this.closedSessionError(await this.repo.findCheckoutSessionByHash(hash), now);
    const store = await this.repo.findStore(session.store_id);
    return { storeName: store?.name ?? "", plan: planOf(session.plan_name) };
  }

  private requireOpen(row: CheckoutSessionRow | undefined, now: number): CheckoutSessionRow {
    if (row && row.status === "open" && row.expires_at > now) return row;
    throw this.closedSessionError(row, now);
  }

  private closedSessionError(row: CheckoutSessionRow | undefined, now: number): AppError {
    if (!row) return new AppError("not_found", "No such checkout session.");
    if (row.status !== "open") return new AppError("checkout_session_used", undefined, { status: row.status });
    if (row.expires_at <= now) return new AppError("checkout_session_expired", undefined, { expired_at: iso(row.expires_at) });
    return new AppError("checkout_session_used");
  }

  // --- Stripe webhook
  /** Verifies and applies one Stripe webhook delivery; a redelivered event is acknowledged and not applied again. */
  async handleStripeWebhook(rawBody: Buffer, signature: string): Promise<{ duplicate: boolean; outcome: string }> {
    const event = this.gateway.constructEvent(rawBody, signature, this.ctx.clock.now());
    return this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      const claimed = await repo.claimStripeEvent(event.id, event.type, event.created * 1000, this.ctx.clock.now());
      if (!claimed) return { duplicate: true, outcome: "already processed" };
      const { storeId, outcome } = await this.applyStripeEvent(tx, event);
      await repo.recordStripeEventOutcome(event.id, storeId, outcome);
      return { duplicate: false, outcome };
    });
  }

  private async applyStripeEvent(tx: Tx, event: StripeEventLike): Promise<{ storeId: string | null; outcome: string }> {
    const o = event.data.object;
    switch (event.type) {
      case "checkout.session.completed":
        return this.onCheckoutCompleted(tx, event, o);
      case "customer.subscription.created":
      case "customer.subscription.updated":
      case "customer.subscription.deleted":
        return this.onSubscription(tx, event, o);
      case "invoice.paid":
      case "invoice.payment_failed":
        return this.onInvoice(tx, event, o);
      default:
        return { storeId: null, outcome: "ignored: event type not handled" };
    }
  }

  /** The store an event is about: our metadata first, then the recorded subscription or customer. */
  private async storeOf(
    tx: Tx,
    hints: { storeId?: string | undefined; subscriptionId?: string | undefined; customerId?: string | undefined },
  ) {
    const repo = this.repo.with(tx);
    const candidates = [
      hints.storeId,
      hints.subscriptionId ? await repo.storeIdOfSubscription(hints.subscriptionId) : undefined,
      hints.customerId ? await repo.storeIdOfCustomer(hints.customerId) : undefined,
    ];
    for (const id of candidates) {
      if (id && (await repo.findStore(id))) return id;
    }
    return undefined;
  }

  private async onCheckoutCompleted(tx: Tx, event: StripeEventLike, s: Obj) {
    if (s.mode !== "subscription") return { storeId: null, outcome: "ignored: not a subscription checkout" };
    const meta = obj(s.metadata);
    const storeId = await this.storeOf(tx, { storeId: str(s.client_reference_id) ?? str(meta?.store_id), customerId: idOf(s.customer) });
    if (!storeId) return { storeId: null, outcome: "ignored: unknown store" };
    const plan = meta?.plan_name;
    if (!isPaidPlan(plan)) return { storeId, outcome: "ignored: no plan in metadata" };
    const repo = this.repo.with(tx);
    const now = this.ctx.clock.now();
    const at = event.created * 1000;
    const account = await repo.ensureAccount(storeId, now);
    if (account.last_event_at !== null && at < account.last_event_at)
      return { storeId, outcome: "ignored: older than the last applied event" };
    const paid = s.payment_status === "paid" || s.payment_status === "no_payment_required";
    await repo.updateAccount(storeId, {
      provider: "stripe",
      stripe_customer_id: idOf(s.customer) ?? account.stripe_customer_id,
      stripe_subscription_id: idOf(s.subscription) ?? account.stripe_subscription_id,
      // Paid at checkout: live. Otherwise (delayed payment methods) invoice.paid completes it.
      subscription_status: paid ? "active" : "incomplete",
      last_event_at: at,
      updated_at: now,
    });
    if (!paid) return { storeId, outcome: "recorded: awaiting payment" };
    const change = await this.applyPlanChange(storeId, plan, `stripe:${event.type}`, tx);
    return { storeId, outcome: `applied: ${change.previous} -> ${change.current}` };
  }

  private async onSubscription(tx: Tx, event: StripeEventLike, sub: Obj) {
    const subscriptionId = str(sub.id);
    const customerId = idOf(sub.customer);
    const meta = obj(sub.metadata);
    const storeId = await this.storeOf(tx, { storeId: str(meta?.store_id), subscriptionId, customerId });
    if (!storeId || !subscriptionId) return { storeId: storeId ?? null, outcome: "ignored: unknown store" };
    const repo = this.repo.with(tx);
    const now = this.ctx.clock.now();
    const at = event.created * 1000;
    const account = await repo.ensureAccount(storeId, now);
    const deleted = event.type === "customer.subscription.deleted";
    const status = deleted ? "canceled" : (str(sub.status) ?? "active");
    if (account.stripe_subscription_id && account.stripe_subscription_id !== subscriptionId && (deleted || !LIVE.has(status))) {
      return { storeId, outcome: "ignored: not the store's current subscription" };
    }
    if (account.last_event_at !== null && at < account.last_event_at)
      return { storeId, outcome: "ignored: older than the last applied event" };

    const items = obj(sub.items)?.data;
    const item = Array.isArray(items) ? obj(items[0]) : undefined;
    const priceId = idOf(item?.price);
    const plan = this.gateway.planOfPrice(priceId) ?? (isPaidPlan(meta?.plan_name) ? meta.plan_name : undefined);
    // Since API version 2025-03-31 the period lives on the subscription item; before, on the subscription.
    const periodStart = secondsToMs(item?.current_period_start ?? sub.current_period_start);
    const periodEnd = secondsToMs(item?.current_period_end ?? sub.current_period_end);
    await repo.updateAccount(storeId, {
      provider: "stripe",
      stripe_customer_id: customerId ?? account.stripe_customer_id,
      stripe_subscription_id: subscriptionId,
      subscription_status: status,
      ...(periodStart !== null && periodEnd !== null ? { current_period_start: periodStart, current_period_end: periodEnd } : {}),
      last_event_at: at,
      updated_at: now,
    });
    if (ENDED.has(status)) {
      const change = await this.applyPlanChange(storeId, "free", `stripe:${event.type}`, tx);
      return { storeId, outcome: `applied: ${change.previous} -> free (${status})` };
    }
    if (LIVE.has(status) && plan) {
      const change = await this.applyPlanChange(storeId, plan, `stripe:${event.type}`, tx);
      return { storeId, outcome: `applied: ${change.previous} -> ${change.current}` };
    }
    // past_due keeps the plan while Stripe retries the payment; incomplete waits for invoice.paid.
    return { storeId, outcome: `recorded: status ${status}` };
  }

  private async onInvoice(tx: Tx, event: StripeEventLike, inv: Obj) {
    const invoiceId = str(inv.id);
    if (!invoiceId) return { storeId: null, outcome: "ignored: invoice without id" };
    const details = obj(obj(inv.parent)?.subscription_details);
    const subscriptionId = idOf(details?.subscription) ?? idOf(inv.subscription);
    const meta = obj(details?.metadata) ?? obj(inv.metadata);
    const storeId = await this.storeOf(tx, { storeId: str(meta?.store_id), subscriptionId, customerId: idOf(inv.customer) });
    if (!storeId) return { storeId: null, outcome: "ignored: unknown store" };

    const lines = obj(inv.lines)?.data;
    const line = Array.isArray(lines) ? obj(lines[0]) : undefined;
    const priceId = str(obj(obj(line?.pricing)?.price_details)?.price) ?? idOf(line?.price);
    const plan = this.gateway.planOfPrice(priceId) ?? (isPaidPlan(meta?.plan_name) ? meta.plan_name : undefined);
    const paid = event.type === "invoice.paid";
    const now = this.ctx.clock.now();
    const currency = (str(inv.currency) ?? PLAN_CURRENCY).toLowerCase();
    const linePeriod = obj(line?.period);
    const repo = this.repo.with(tx);
    await repo.upsertProviderInvoice(storeId, {
      id: prefixedId("inv"),
      provider: "stripe",
      provider_invoice_id: invoiceId,
      plan_name: plan ?? null,
      amount_minor: num(paid ? inv.amount_paid : inv.amount_due) ?? num(inv.total) ?? 0,
      currency,
      status: paid ? "paid" : "failed",
      hosted_url: str(inv.hosted_invoice_url) ?? null,
      period_start: secondsToMs(linePeriod?.start ?? inv.period_start),
      period_end: secondsToMs(linePeriod?.end ?? inv.period_end),
      issued_at: secondsToMs(paid ? obj(inv.status_transitions)?.paid_at : undefined) ?? secondsToMs(inv.created) ?? event.created * 1000,
      created_at: now,
      updated_at: now,
    });
    if (!paid) return { storeId, outcome: "recorded: payment failed (plan unchanged while Stripe retries)" };

    // A paid invoice of the store's subscription puts its plan in force (this completes
    // checkouts paid by delayed methods); older events than the last applied one do not.
    const account = await repo.ensureAccount(storeId, now);
    const at = event.created * 1000;
    const ours =
      subscriptionId !== undefined && (account.stripe_subscription_id === null || account.stripe_subscription_id === subscriptionId);
    const current =
      account.subscription_status === null ||
      LIVE.has(account.subscription_status) ||
      account.subscription_status === "incomplete" ||
      account.subscription_status === "past_due";
    if (!plan || !ours || !current || (account.last_event_at !== null && at < account.last_event_at)) {
      return { storeId, outcome: "recorded: invoice paid" };
    }
    await repo.updateAccount(storeId, {
      provider: "stripe",
      stripe_subscription_id: subscriptionId,
      stripe_customer_id: idOf(inv.customer) ?? account.stripe_customer_id,
      subscription_status: "active",
      last_event_at: at,
      updated_at: now,
    });
    const change = await this.applyPlanChange(storeId, plan, `stripe:${event.type}`, tx);
    return { storeId, outcome: `recorded: invoice paid; applied: ${change.previous} -> ${change.current}` };
  }
}
