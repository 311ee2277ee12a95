// Billing (spec: Billing; Team, users, groups, billing):
//   GET  /v1/billing/plans                                 public: the plan table
//   GET  /v1/billing/mode                                  public: BILLING_MODE and DEFAULT_PLAN (the portal hides prices when off)
//   GET  /v1/billing/current-plan, /usage, /invoices       permission billing:read (every role by default)
//   POST /v1/billing/checkout                              permission billing:write (owner and admin by default)
// The checkout and return pages are in page-routes.ts, the Stripe webhook in webhook-routes.ts.
import type { AppContext } from "../../context/context.js";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { PLANS, PLAN_CURRENCY, isPaidPlan } from "../../tenancy/plans.js";
import type { BillingService } from "./service.js";
import type { StripeGateway } from "./stripe.js";
import { BillingMode, Checkout, CheckoutBody, CurrentPlan, InvoiceList, InvoicesQuery, PlansResponse, Usage } from "./schemas.js";

export async function billingRoutes(
  app: App,
  ctx: AppContext,
  { billing: service, stripe }: { billing: BillingService; stripe: StripeGateway },
) {
  const testMode = !stripe.enabled;
  if (testMode && ctx.config.env === "production" && ctx.config.billing.enabled) {
    app.log.warn(
      "STRIPE_SECRET_KEY is not set: POST /v1/billing/checkout uses the local TEST MODE page, so store owners can change plans without paying",
    );
  }

  app.get(
    "/v1/billing/plans",
    {
      config: { auth: "none" },
      schema: {
        tags: ["billing"],
        summary: "The plan table: price, product limit and requests per minute of every plan",
        response: { 200: PlansResponse },
      },
    },
    async () => ({
      plans: Object.values(PLANS).map((p) => ({
        ...p,
        currency: PLAN_CURRENCY,
        purchasable: ctx.config.billing.enabled && isPaidPlan(p.plan_name),
      })),
    }),
  );

  app.get(
    "/v1/billing/mode",
    {
      config: { auth: "none" },
      schema: {
        tags: ["billing"],
        summary: "Whether this server sells plans (BILLING_MODE) and the plan a new store starts on (DEFAULT_PLAN)",
        response: { 200: BillingMode },
      },
    },
    async () => ({
      billing_enabled: ctx.config.billing.enabled,
      checkout: !ctx.config.billing.enabled ? ("off" as const) : testMode ? ("local" as const) : ("stripe" as const),
      default_plan: ctx.config.billing.defaultPlan,
    }),
  );

  app.get(
    "/v1/billing/current-plan",
    storeRoute("billing:read", {
      tags: ["billing"],
      summary: "The store's plan, its limits and the current billing period",
      response: { 200: CurrentPlan, ...searchErrors(401, 403) },
    }),
    async (request) => service.currentPlan(storeOf(request).id),
  );

  app.get(
    "/v1/billing/usage",
    storeRoute("billing:read", {
      tags: ["billing"],
      summary: "API calls in the current period, product count, limits and percentages",
      response: { 200: Usage, ...searchErrors(401, 403) },
    }),
    async (request) => service.usage(storeOf(request).id),
  );

  app.get(
    "/v1/billing/invoices",
    storeRoute("billing:read", {
      tags: ["billing"],
      summary: "Invoices of the store, newest first",
      querystring: InvoicesQuery,
      response: { 200: InvoiceList, ...searchErrors(400, 401, 403) },
    }),
    async (request) => service.invoices(storeOf(request).id, request.query.limit ?? 100),
  );

  app.post(
    "/v1/billing/checkout",
    storeRoute("billing:write", {
      tags: ["billing"],
      summary:
        "Start buying a plan (permission billing:write): returns the hosted checkout URL (Stripe, or the local TEST MODE page without STRIPE_SECRET_KEY)",
      body: CheckoutBody,
      description: "With BILLING_MODE=off the server sells nothing and this answers 409 billing_disabled.",
      response: { 200: Checkout, ...searchErrors(400, 401, 403, 409, 502, 503) },
    }),
    async (request) => {
      const store = storeOf(request);
      const actor = request.principal?.kind === "user" ? request.principal.userId : null;
      return service.createCheckout(store.id, request.body.plan_name, actor);
    },
  );
}
