// POST /billing/webhooks/stripe (spec: Billing): Stripe events, raw body, signature verified.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import type { BillingService } from "./service.js";
import { StripeSignatureHeaders, WebhookReceipt } from "./schemas.js";

export async function stripeWebhookRoutes(app: App, { billing: service }: { billing: BillingService }) {
  // The signature covers the exact bytes, so this scope keeps the raw body.
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
          headers: StripeSignatureHeaders,
          response: { 200: WebhookReceipt, ...searchErrors(400, 409, 415, 503) },
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
