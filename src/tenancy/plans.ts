// The plan table of the spec (Billing): price per month, product limit, requests per minute.
// `null` means unlimited.
import { Type } from "typebox";

export interface Plan {
  plan_name: "free" | "basic" | "premium" | "enterprise";
  price_per_month: number;
  max_products: number | null;
  requests_per_minute: number | null;
}

export const PLANS: Record<Plan["plan_name"], Plan> = {
  free: { plan_name: "free", price_per_month: 0, max_products: 50, requests_per_minute: 10 },
  basic: { plan_name: "basic", price_per_month: 29.99, max_products: 5000, requests_per_minute: 60 },
  premium: { plan_name: "premium", price_per_month: 99.99, max_products: 50000, requests_per_minute: 200 },
  enterprise: { plan_name: "enterprise", price_per_month: 299.99, max_products: null, requests_per_minute: null },
};

/**
 * Bulk-import items a store may have waiting (pending in unfinished jobs) per plan: more is refused
 * with 429 queue_limit_reached, so one store cannot fill the shared job queue. Not part of the
 * spec's plan table (so not in /v1/billing/plans); documented in docs/api-search.md (Jobs are shared fairly).
 */
export const QUEUED_BULK_ITEMS: Record<Plan["plan_name"], number> = {
  free: 2_000,
  basic: 10_000,
  premium: 50_000,
  enterprise: 200_000,
};

// The plan a new store starts on is the setting DEFAULT_PLAN (config.billing.defaultPlan): free
// with billing on, enterprise (no limits) on a self-hosted install with BILLING_MODE=off.

export function planOf(name: string): Plan {
  return isPlanName(name) ? PLANS[name] : PLANS.free;
}

/** Prices in the plan table are in US dollars. */
export const PLAN_CURRENCY = "usd";

export type PlanName = Plan["plan_name"];

/** A plan name in request and response schemas (both APIs). */
export const PlanNameSchema = Type.Union(
  [Type.Literal("free"), Type.Literal("basic"), Type.Literal("premium"), Type.Literal("enterprise")],
  {
    description: "free, basic, premium or enterprise",
  },
);

/** Plans that can be bought through checkout (free is the default, never purchased). */
export const PAID_PLANS = ["basic", "premium", "enterprise"] as const satisfies readonly PlanName[];
export type PaidPlanName = (typeof PAID_PLANS)[number];

export const isPlanName = (name: unknown): name is PlanName => typeof name === "string" && Object.hasOwn(PLANS, name);
export const isPaidPlan = (name: unknown): name is PaidPlanName =>
  typeof name === "string" && (PAID_PLANS as readonly string[]).includes(name);
