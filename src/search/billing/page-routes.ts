// Billing pages (HTML, rendered by pages.ts), public: the session id in the URL is the capability,
// as with Stripe Checkout.
//   GET  /billing/checkout/{session_id} (+ POST …/complete, …/cancel)  local TEST MODE checkout page
//   GET  /billing/return                                  page Stripe Checkout returns the browser to
import type { FastifyReply } from "fastify";
import type { App } from "../../platform/http/app.js";
import { toAppError } from "../../platform/errors/map.js";
import type { BillingService } from "./service.js";
import type { StripeGateway } from "./stripe.js";
import { Html, ReturnQuery, SessionParams } from "./schemas.js";
import { PAGE_HEADERS, cancelledPage, checkoutPage, completedPage, errorPage, returnPage } from "./pages.js";

export async function billingPageRoutes(app: App, { billing: service, stripe }: { billing: BillingService; stripe: StripeGateway }) {
  const testMode = !stripe.enabled;
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

  // --- local hosted checkout (TEST MODE)
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
        querystring: ReturnQuery,
        produces: ["text/html"],
        response: { 200: Html },
      },
    },
    async (request, reply) => page(reply, 200, returnPage(request.query.result)),
  );
}
