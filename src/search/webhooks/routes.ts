// /v1/search/webhooks (spec: Webhooks (Bearer); Events).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { WEBHOOK_EVENTS } from "./events.js";
import type { WebhooksService } from "./service.js";
import { DeliveriesQuery, RegisterWebhookBody, Webhook, WebhookDeleted, WebhookDelivery, WebhookParams } from "./schemas.js";

const tags = ["webhooks"];

export async function webhookRoutes(app: App, { webhooks: service }: { webhooks: WebhooksService }) {
  app.post(
    "/v1/search/webhooks",
    storeRoute("webhooks:write", {
      tags,
      summary: "Register a webhook (https URL, events, HMAC secret)",
      description: `Events: ${WEBHOOK_EVENTS.join(", ")}. Deliveries carry X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the secret> and a unique X-Webhook-Delivery id.`,
      body: RegisterWebhookBody,
      response: { 201: Webhook, ...searchErrors(400, 401, 403) },
    }),
    async (request, reply) => reply.status(201).send(await service.register(storeOf(request).id, request.body)),
  );

  app.get(
    "/v1/search/webhooks",
    storeRoute("webhooks:read", {
      tags,
      summary: "The store's webhooks (secrets are never returned)",
      response: { 200: Type.Array(Webhook), ...searchErrors(401, 403) },
    }),
    async (request) => service.list(storeOf(request).id),
  );

  app.delete(
    "/v1/search/webhooks/:webhook_id",
    storeRoute("webhooks:write", {
      tags,
      summary: "Delete a webhook and its pending deliveries",
      params: WebhookParams,
      response: { 200: WebhookDeleted, ...searchErrors(401, 403, 404) },
    }),
    async (request) => {
      await service.remove(storeOf(request).id, request.params.webhook_id);
      return { deleted: true as const, id: request.params.webhook_id };
    },
  );

  app.get(
    "/v1/search/webhooks/:webhook_id/deliveries",
    storeRoute("webhooks:read", {
      tags,
      summary: "Delivery log, newest first: status, attempts with status code, duration, error and next retry",
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: Type.Array(WebhookDelivery), ...searchErrors(401, 403, 404) },
    }),
    async (request) => service.deliveries(storeOf(request).id, request.params.webhook_id, request.query.limit),
  );
}
