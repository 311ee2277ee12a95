// Response schemas of the billing routes; the service's views are their static types.
import { Type } from "typebox";
import { PlanNameSchema } from "../../tenancy/plans.js";

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: "date-time" });

/** A plan's row of the plan table (GET /v1/billing/plans and the current plan share it). */
const planFields = {
  plan_name: PlanNameSchema,
  price_per_month: Type.Number({ description: "Monthly price in `currency`" }),
  currency: Type.String({ description: "ISO 4217, lower case (usd)" }),
  max_products: Nullable(Type.Integer({ description: "null: unlimited" })),
  requests_per_minute: Nullable(Type.Integer({ description: "null: unlimited" })),
};

export const CurrentPlan = Type.Object({
  ...planFields,
  period_start: DateTime,
  period_end: DateTime,
  billing_provider: Type.Union([Type.Literal("none"), Type.Literal("local"), Type.Literal("stripe")]),
  subscription_status: Nullable(Type.String({ description: "Stripe subscription status; null without a subscription" })),
});

export const PlanRow = Type.Object({
  ...planFields,
  purchasable: Type.Boolean({ description: "Can be bought through POST /v1/billing/checkout" }),
});

export const Usage = Type.Object({
  plan_name: PlanNameSchema,
  period_start: DateTime,
  period_end: DateTime,
  api_calls: Type.Integer({ description: "Authenticated /v1/* calls of the store in the current period" }),
  products_count: Type.Integer(),
  max_products: Nullable(Type.Integer()),
  requests_per_minute: Nullable(Type.Integer()),
  products_percent: Type.Union([Type.Number(), Type.Null()], {
    description: "products_count / max_products in percent (one decimal); null when unlimited",
  }),
  over_product_limit: Type.Boolean({ description: "true after a downgrade below the product count: products are kept, new ones refused" }),
});

export const Invoice = Type.Object({
  id: Type.String(),
  date: DateTime,
  amount: Type.Number({ description: "In the currency's major unit (29.99)" }),
  currency: Type.String(),
  status: Type.Union([
    Type.Literal("paid"),
    Type.Literal("open"),
    Type.Literal("failed"),
    Type.Literal("void"),
    Type.Literal("uncollectible"),
  ]),
  url: Type.Union([Type.String(), Type.Null()], { description: "Stripe's hosted invoice page; null for local test purchases" }),
  plan_name: Type.Union([Type.String(), Type.Null()]),
  period_start: Type.Union([DateTime, Type.Null()]),
  period_end: Type.Union([DateTime, Type.Null()]),
});

export const Checkout = Type.Object({
  checkout_url: Type.String({ description: "Open in the browser: Stripe Checkout, or the local TEST MODE page" }),
  provider: Type.Union([Type.Literal("stripe"), Type.Literal("local")]),
  session_id: Type.String(),
  expires_at: Type.Union([DateTime, Type.Null()]),
});
