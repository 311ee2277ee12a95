// /v1/search/webhooks (spec: Webhooks (Bearer); Events).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { WEBHOOK_EVENTS } from "./events.js";
import type { WebhooksService } from "./service.js";
import { Webhook } from "./schemas.js";

const tags = ["webhooks"];
const idParams = Type.Object({ webhook_id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export async function webhookRoutes(app: App, { webhooks: service }: { webhooks: WebhooksService }) {
  app.post(
    "/v1/search/webhooks",
    storeRoute("webhooks:write", {
      tags,
      summary: "Register a webhook (https URL, events, HMAC secret)",
      description: `Events: ${WEBHOOK_EVENTS.join(", ")}. Deliveries carry X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body keyed with the secret> and a unique X-Webhook-Delivery id.`,
      body: Type.Object(
        {
          url: Type.String({ minLength: 1, maxLength: 2048 }),
          events: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 10 }),
          secret: Type.String({ minLength: 16, maxLength: 200, description: "HMAC key chosen by the caller (at least 16 characters)" }),
        },
        { additionalProperties: false },
      ),
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
      params: idParams,
      response: { 200: Type.Object({ deleted: Type.Literal(true), id: Type.String() }), ...searchErrors(401, 403, 404) },
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
      params: idParams,
      querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) }, { additionalProperties: false }),
      response: {
        200: Type.Array(
          Type.Object({
            id: Type.String(),
            event: Type.String(),
            status: Type.String(),
            attempts: Type.Integer(),
            created_at: Type.String(),
            delivered_at: Type.Union([Type.String(), Type.Null()]),
            next_retry_at: Type.Union([Type.String(), Type.Null()]),
            last_status_code: Type.Union([Type.Integer(), Type.Null()]),
            last_error: Type.Union([Type.String(), Type.Null()]),
            attempt_log: Type.Array(
              Type.Object({
                attempt: Type.Integer(),
                status_code: Type.Union([Type.Integer(), Type.Null()]),
                duration_ms: Type.Integer(),
                error: Type.Union([Type.String(), Type.Null()]),
                at: Type.String(),
                next_retry_at: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
          }),
        ),
        ...searchErrors(401, 403, 404),
      },
    }),
    async (request) => service.deliveries(storeOf(request).id, request.params.webhook_id, request.query.limit),
  );
}
