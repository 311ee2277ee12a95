// Request and response schemas of /v1/search/webhooks; a webhook subscription as the routes answer
// it (the service's view is its static type).
import { Type } from "typebox";

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.Union([Type.Literal("active"), Type.Literal("disabled")]),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: "date-time" }),
});

export const RegisterWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    events: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 10 }),
    secret: Type.String({ minLength: 16, maxLength: 200, description: "HMAC key chosen by the caller (at least 16 characters)" }),
  },
  { additionalProperties: false },
);

export const WebhookParams = Type.Object({ webhook_id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

export const WebhookDeleted = Type.Object({ deleted: Type.Literal(true), id: Type.String() });

export const DeliveriesQuery = Type.Object(
  { limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }) },
  { additionalProperties: false },
);

/** One delivery of the log, with its attempts. */
export const WebhookDelivery = Type.Object({
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
});
