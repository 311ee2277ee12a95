// The payment-provider adapter: the official `stripe` package for Checkout Sessions, billing-
// portal sessions (plan changes of an existing subscription) and webhook signature checks. The
// only module that talks to Stripe; services receive it, so tests can point it at a fake API
// (STRIPE_API_BASE) and sign webhook payloads with the package's own test helper.
import Stripe from "stripe";
import { ConfigError, type Config } from "../../platform/config.js";
import { AppError } from "../../platform/errors/catalogue.js";
import type { PaidPlanName } from "../../tenancy/plans.js";
import "../errors/codes.js"; // registers the error codes thrown here

/** The fields of a Stripe event this service reads; objects are read defensively (API versions differ). */
export interface StripeEventLike {
  id: string;
  type: string;
  /** Epoch seconds. */
  created: number;
  data: { object: Record<string, unknown> };
}

export interface CheckoutInput {
  storeId: string;
  planName: PaidPlanName;
  customerId: string | null;
  successUrl: string;
  cancelUrl: string;
}

export interface PlanChangeInput {
  customerId: string;
  subscriptionId: string;
  planName: PaidPlanName;
  returnUrl: string;
}

/** Signature tolerance: events signed more than this many seconds before arrival are refused. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export class StripeGateway {
  private readonly client: Stripe | undefined;
  private readonly prices: Record<PaidPlanName, string | undefined>;
  private readonly webhookSecret: string | undefined;

  constructor(config: Pick<Config, "billing" | "env" | "outbound">) {
    const s = config.billing.stripe;
    this.prices = { basic: s.prices.basic, premium: s.prices.premium, enterprise: s.prices.enterprise };
    this.webhookSecret = s.webhookSecret;
    if (s.apiBase && config.env === "production") {
      throw new ConfigError("Invalid configuration:\n  STRIPE_API_BASE: is for tests only and refused when NODE_ENV=production");
    }
    if (s.secretKey) {
      const missing = [
        ["STRIPE_WEBHOOK_SECRET", s.webhookSecret],
        ["STRIPE_PRICE_BASIC", s.prices.basic],
        ["STRIPE_PRICE_PREMIUM", s.prices.premium],
        ["STRIPE_PRICE_ENTERPRISE", s.prices.enterprise],
      ].filter(([, v]) => !v);
      if (missing.length > 0) {
        throw new ConfigError(
          `Invalid configuration:\n${missing.map(([k]) => `  ${k}: required when STRIPE_SECRET_KEY is set`).join("\n")}`,
        );
      }
      const base = s.apiBase ? new URL(s.apiBase) : undefined;
      this.client = new Stripe(s.secretKey, {
        maxNetworkRetries: 1,
        timeout: config.outbound.timeoutMs,
        telemetry: false,
        appInfo: { name: "Shopsight" },
        ...(base
          ? {
              host: base.hostname,
              port: base.port || (base.protocol === "http:" ? 80 : 443),
              protocol: base.protocol === "http:" ? "http" : "https",
            }
          : {}),
      });
    }
  }

  /** Whether checkout goes to Stripe (STRIPE_SECRET_KEY set) instead of the local test page. */
  get enabled(): boolean {
    return this.client !== undefined;
  }

  get webhooksEnabled(): boolean {
    return this.webhookSecret !== undefined;
  }

  /** The plan sold under a Stripe price id, when it is one of ours. */
  planOfPrice(priceId: string | undefined): PaidPlanName | undefined {
    if (!priceId) return undefined;
    return (Object.keys(this.prices) as PaidPlanName[]).find((p) => this.prices[p] === priceId);
  }

  /** A Checkout Session in subscription mode for the plan's price; the store travels in client_reference_id and metadata. */
  async createCheckoutSession(input: CheckoutInput): Promise<{ id: string; url: string; expiresAt: number | null }> {
    const client = this.requireClient();
    const metadata = { store_id: input.storeId, plan_name: input.planName };
    const session = await this.call(() =>
      client.checkout.sessions.create({
        mode: "subscription",
        line_items: [{ price: this.prices[input.planName]!, quantity: 1 }],
        client_reference_id: input.storeId,
        metadata,
        subscription_data: { metadata },
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        ...(input.customerId ? { customer: input.customerId } : {}),
      }),
    );
    if (!session.url) throw new AppError("payment_provider_error", "Stripe returned a checkout session without a URL.");
    return { id: session.id, url: session.url, expiresAt: typeof session.expires_at === "number" ? session.expires_at * 1000 : null };
  }

  /**
   * A plan change of an existing subscription: Checkout cannot modify a subscription (it would
   * open a second one), so the customer confirms the new price in a billing-portal session.
   */
  async createPlanChangeSession(input: PlanChangeInput): Promise<{ url: string }> {
    const client = this.requireClient();
    const subscription = await this.call(() => client.subscriptions.retrieve(input.subscriptionId));
    const item = subscription.items.data[0];
    if (!item) throw new AppError("payment_provider_error", "The Stripe subscription has no items.");
    const portal = await this.call(() =>
      client.billingPortal.sessions.create({
        customer: input.customerId,
        return_url: input.returnUrl,
        flow_data: {
          type: "subscription_update_confirm",
          subscription_update_confirm: {
            subscription: input.subscriptionId,
            items: [{ id: item.id, price: this.prices[input.planName]!, quantity: 1 }],
          },
          after_completion: { type: "redirect", redirect: { return_url: input.returnUrl } },
        },
      }),
    );
    return { url: portal.url };
  }

  /** Verifies the Stripe-Signature header over the raw body (at `receivedAtMs`, the service clock) and parses the event. */
  constructEvent(rawBody: Buffer, signature: string, receivedAtMs: number): StripeEventLike {
    if (!this.webhookSecret) throw new AppError("stripe_not_configured", "Stripe webhooks are not configured: set STRIPE_WEBHOOK_SECRET.");
    let event: unknown;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret, WEBHOOK_TOLERANCE_SECONDS, undefined, receivedAtMs);
    } catch (e) {
      const reason = e instanceof Error ? e.message : "invalid signature";
      throw new AppError("invalid_signature", undefined, { reason: reason.split("\n")[0] });
    }
    // A parsed JSON body: nothing is known of its shape until checked.
    const ev = event as { id?: unknown; type?: unknown; created?: unknown; data?: { object?: unknown } | null };
    if (
      typeof ev.id !== "string" ||
      typeof ev.type !== "string" ||
      typeof ev.created !== "number" ||
      typeof ev.data?.object !== "object" ||
      ev.data.object === null
    ) {
      throw new AppError("validation_failed", "The Stripe event is missing id, type, created or data.object.");
    }
    return ev as StripeEventLike;
  }

  private requireClient(): Stripe {
    if (!this.client) throw new AppError("stripe_not_configured");
    return this.client;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof AppError) throw e;
      // StripeError: `rawType` is Stripe's error type (invalid_request_error, api_error, …).
      const err = e as { rawType?: string; code?: string; statusCode?: number };
      const wrapped = new AppError("payment_provider_error", undefined, {
        provider: "stripe",
        ...(err.rawType ? { type: err.rawType } : {}),
        ...(err.code ? { code: err.code } : {}),
        ...(typeof err.statusCode === "number" ? { status: err.statusCode } : {}),
      });
      // Logged by the error handler (5xx); never sent to the client.
      (wrapped as Error).cause = e;
      throw wrapped;
    }
  }
}
