// Request and response schemas of the billing routes and pages; the service's views are the
// response schemas' static types.
import { Type } from "typebox";
import { DateTime } from "../../platform/http/schemas.js";
import { PlanNameSchema } from "../../tenancy/plans.js";

const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

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

export const PlansResponse = Type.Object({ plans: Type.Array(PlanRow) });

export const BillingMode = Type.Object({
  billing_enabled: Type.Boolean({
    description: "false with BILLING_MODE=off: no prices, POST /v1/billing/checkout answers 409 billing_disabled",
  }),
  checkout: Type.Union([Type.Literal("stripe"), Type.Literal("local"), Type.Literal("off")], {
    description: "stripe (STRIPE_SECRET_KEY set), local (the TEST MODE page) or off (BILLING_MODE=off)",
  }),
  default_plan: PlanNameSchema,
});

export const InvoicesQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })) },
  { additionalProperties: false },
);
export const InvoiceList = Type.Array(Invoice);

export const CheckoutBody = Type.Object({ plan_name: PlanNameSchema }, { additionalProperties: false });

// --- pages (local TEST MODE checkout, Stripe's return page) and the Stripe webhook

export const SessionParams = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 200 }) });
export const Html = Type.String({ description: "HTML page" });

export const ReturnQuery = Type.Object(
  {
    result: Type.Union([Type.Literal("success"), Type.Literal("cancel")]),
    session_id: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const StripeSignatureHeaders = Type.Object({ "stripe-signature": Type.String({ minLength: 1, maxLength: 4096 }) });
export const WebhookReceipt = Type.Object({ received: Type.Boolean(), duplicate: Type.Boolean(), outcome: Type.String() });
