// Billing (spec: Billing; Team, users, groups, billing):
//   GET  /v1/billing/plans                                 public: the plan table
//   GET  /v1/billing/mode                                  public: BILLING_MODE and DEFAULT_PLAN (the portal hides prices when off)
//   GET  /v1/billing/current-plan, /usage, /invoices       permission billing:read (every role by default)
//   POST /v1/billing/checkout                              permission billing:write (owner and admin by default)
//   GET  /billing/checkout/{session_id} (+ POST …/complete, …/cancel)  local TEST MODE checkout page
//   GET  /billing/return                                  page Stripe Checkout returns the browser to
//   POST /billing/webhooks/stripe                         Stripe events (raw body, signature verified)
import { Type } from "typebox";
import type { FastifyReply } from "fastify";
import type { AppContext } from "../../context/context.js";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { toAppError } from "../../platform/errors/map.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { PLANS, PLAN_CURRENCY, PlanNameSchema, isPaidPlan } from "../../tenancy/plans.js";
import type { UsageMeter } from "./usage-meter.js";
import type { BillingService } from "./service.js";
import type { StripeGateway } from "./stripe.js";
import { Checkout, CurrentPlan, Invoice, PlanRow, Usage } from "./schemas.js";

import { PAGE_HEADERS, cancelledPage, checkoutPage, completedPage, errorPage, returnPage } from "./pages.js";

const SessionParams = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 200 }) });
const Html = Type.String({ description: "HTML page" });

/** Registers the usage meter's onResponse hook and its flush on close; returns the meter. */
/** Hooks the composition's usage meter into `app`: counts on response, flushes on close. */
export function installUsageMeter(app: App, meter: UsageMeter): void {
  meter.setLog(app.log);
  app.addHook("onResponse", (request, reply) => meter.onResponse(request, reply));
  app.addHook("onClose", async () => meter.close());
}

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

  const page = (reply: FastifyReply, status: number, html: string) => reply.code(status).headers(PAGE_HEADERS).send(html);
  /** Renders a checkout page, or the error page (same status as the API would give) when `render` throws. */
  const checkoutPageOf = async (reply: FastifyReply, render: () => Promise<string>) => {
    let html: string;
    try {
      html = await render();
    } catch (error) {
      const e = toAppError(error);
      if (e.status >= 500) reply.log.error({ err: error }, "checkout page failed");
      return page(reply, e.status, errorPage(e.status, e.code, e.message, testMode));
    }
    return page(reply, 200, html);
  };

  app.get(
    "/v1/billing/plans",
    {
      config: { auth: "none" },
      schema: {
        tags: ["billing"],
        summary: "The plan table: price, product limit and requests per minute of every plan",
        response: { 200: Type.Object({ plans: Type.Array(PlanRow) }) },
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
        response: {
          200: Type.Object({
            billing_enabled: Type.Boolean({
              description: "false with BILLING_MODE=off: no prices, POST /v1/billing/checkout answers 409 billing_disabled",
            }),
            checkout: Type.Union([Type.Literal("stripe"), Type.Literal("local"), Type.Literal("off")], {
              description: "stripe (STRIPE_SECRET_KEY set), local (the TEST MODE page) or off (BILLING_MODE=off)",
            }),
            default_plan: PlanNameSchema,
          }),
        },
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
      querystring: Type.Object(
        { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })) },
        { additionalProperties: false },
      ),
      response: { 200: Type.Array(Invoice), ...searchErrors(400, 401, 403) },
    }),
    async (request) => service.invoices(storeOf(request).id, request.query.limit ?? 100),
  );

  app.post(
    "/v1/billing/checkout",
    storeRoute("billing:write", {
      tags: ["billing"],
      summary:
        "Start buying a plan (permission billing:write): returns the hosted checkout URL (Stripe, or the local TEST MODE page without STRIPE_SECRET_KEY)",
      body: Type.Object({ plan_name: PlanNameSchema }, { additionalProperties: false }),
      description: "With BILLING_MODE=off the server sells nothing and this answers 409 billing_disabled.",
      response: { 200: Checkout, ...searchErrors(400, 401, 403, 409, 502, 503) },
    }),
    async (request) => {
      const store = storeOf(request);
      const actor = request.principal?.kind === "user" ? request.principal.userId : null;
      return service.createCheckout(store.id, request.body.plan_name, actor);
    },
  );

  // --- local hosted checkout (TEST MODE): the session id in the URL is the capability, as with Stripe Checkout.
  app.get(
    "/billing/checkout/:session_id",
    {
      config: { auth: "none" },
      schema: {
        tags: ["billing"],
        summary: "Local TEST MODE checkout page with Complete purchase and Cancel buttons",
        params: SessionParams,
        produces: ["text/html"],
        response: { 200: Html, 404: Html, 409: Html, 410: Html },
      },
    },
    async (request, reply) =>
      checkoutPageOf(reply, async () => checkoutPage(await service.localCheckoutDetails(request.params.session_id))),
  );

  app.post(
    "/billing/checkout/:session_id/complete",
    {
      config: { auth: "none" },
      schema: {
        tags: ["billing"],
        summary: "Complete a local TEST MODE purchase: records a paid invoice and changes the plan at once",
        params: SessionParams,
        produces: ["text/html"],
        response: { 200: Html, 404: Html, 409: Html, 410: Html },
      },
    },
    async (request, reply) =>
      checkoutPageOf(reply, async () => {
        const done = await service.completeLocalCheckout(request.params.session_id);
        return completedPage(done.storeName, done.plan);
      }),
  );

  app.post(
    "/billing/checkout/:session_id/cancel",
    {
      config: { auth: "none" },
      schema: {
        tags: ["billing"],
        summary: "Cancel a local TEST MODE checkout; nothing changes",
        params: SessionParams,
        produces: ["text/html"],
        response: { 200: Html, 404: Html, 409: Html, 410: Html },
      },
    },
    async (request, reply) =>
      checkoutPageOf(reply, async () => cancelledPage((await service.cancelLocalCheckout(request.params.session_id)).plan)),
  );

  app.get(
    "/billing/return",
    {
      config: { auth: "none" },
      schema: {
        tags: ["billing"],
        summary: "Page Stripe Checkout returns the browser to (the plan changes when the webhook arrives)",
        querystring: Type.Object(
          {
            result: Type.Union([Type.Literal("success"), Type.Literal("cancel")]),
            session_id: Type.Optional(Type.String({ maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        produces: ["text/html"],
        response: { 200: Html },
      },
    },
    async (request, reply) => page(reply, 200, returnPage(request.query.result)),
  );

  // --- Stripe webhook: the signature covers the exact bytes, so this scope keeps the raw body.
  await app.register(async (scope: App) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    scope.post(
      "/billing/webhooks/stripe",
      {
        config: { auth: "none" },
        schema: {
          tags: ["billing"],
          summary:
            "Stripe webhook: checkout.session.completed, customer.subscription.*, invoice.paid, invoice.payment_failed; each event applied once",
          headers: Type.Object({ "stripe-signature": Type.String({ minLength: 1, maxLength: 4096 }) }),
          response: {
            200: Type.Object({ received: Type.Boolean(), duplicate: Type.Boolean(), outcome: Type.String() }),
            ...searchErrors(400, 409, 415, 503),
          },
        },
      },
      async (request) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const result = await service.handleStripeWebhook(raw, request.headers["stripe-signature"]);
        return { received: true, ...result };
      },
    );
  });
}
