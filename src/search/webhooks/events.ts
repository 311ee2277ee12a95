// Webhook events (spec: Events), their envelope and signature.
import { createHmac } from "node:crypto";

export const WEBHOOK_EVENTS = ["product.indexed", "product.updated", "product.deleted", "product.duplicate_detected"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The bulk-import completion callback is delivered through the same outbox and signature. */
export type DeliveryEvent = WebhookEvent | "bulk.completed";

export interface Envelope {
  event: WebhookEvent;
  timestamp: string;
  webhook_id: string;
  data: Record<string, unknown>;
}

/** `sha256=<hex HMAC-SHA256 of the raw body keyed with the secret>` (header X-Webhook-Signature). */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export const SIGNATURE_HEADER = "x-webhook-signature";
/** Unique per delivery (stable across retries), so receivers can drop duplicates. */
export const DELIVERY_ID_HEADER = "x-webhook-delivery";
export const EVENT_HEADER = "x-webhook-event";
