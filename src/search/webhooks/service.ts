// Webhook registrations and the outbox. Events are written as delivery rows in the caller's
// transaction (`emit`), so a delivery exists exactly when the change it reports committed; the
// dispatcher (dispatcher.ts) sends them. Secrets are the caller's HMAC keys and are never echoed.
import type { AppContext } from "../../context/context.js";
import type { Executor } from "../../platform/db/index.js";
import { secretAad } from "../../db/sealed-columns.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, uuid } from "../../platform/ids.js";
import { checkTargetUrl } from "../../platform/outbound/target.js";
import { WEBHOOK_EVENTS, type Envelope, type WebhookEvent } from "./events.js";
import { WebhooksRepository, type AttemptRow, type DeliveryRow, type WebhookRow } from "./repository.js";
import { iso } from "../../platform/clock.js";
import type { Webhook } from "./schemas.js";
import type { Static } from "typebox";

let seqCounter = 0;
/** Monotonic within a process and ordered by time across processes (ordering is per product). */
const nextSeq = (now: number) => now * 1000 + (seqCounter = (seqCounter + 1) % 1000);

export type WebhookView = Static<typeof Webhook>;

const view = (w: WebhookRow): WebhookView => ({
  id: w.id,
  url: w.url,
  events: JSON.parse(w.events) as WebhookEvent[],
  status: w.status,
  disabled_reason: w.disabled_reason,
  created_at: iso(w.created_at),
});

export class WebhooksService {
  private readonly repo: WebhooksRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: WebhooksRepository },
  ) {
    this.repo = deps.repo;
  }

  async register(storeId: string, input: { url: string; events: string[]; secret: string }): Promise<WebhookView> {
    checkTargetUrl(input.url, this.ctx.config.outbound.allowPrivate);
    const unknown = input.events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
    if (unknown.length > 0) {
      throw new AppError("validation_failed", `Unknown event(s): ${unknown.join(", ")}.`, {
        errors: unknown.map((e) => ({ field: "events", message: `${e} is not one of ${WEBHOOK_EVENTS.join(", ")}` })),
      });
    }
    const now = this.ctx.clock.now();
    const id = prefixedId("wh");
    const row: WebhookRow = {
      id,
      store_id: storeId,
      url: input.url,
      events: JSON.stringify([...new Set(input.events)]),
      secret: this.ctx.secrets.seal(input.secret, secretAad.webhook(id)),
      status: "active",
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    };
    await this.repo.create(storeId, row);
    return view(row);
  }

  async list(storeId: string): Promise<WebhookView[]> {
    return (await this.repo.list(storeId)).map(view);
  }

  async remove(storeId: string, id: string): Promise<void> {
    if (!(await this.repo.delete(storeId, id))) throw new AppError("not_found", "No such webhook.");
  }

  async deliveries(storeId: string, webhookId: string, limit: number) {
    if (!(await this.repo.find(storeId, webhookId))) throw new AppError("not_found", "No such webhook.");
    const rows = await this.repo.deliveries(storeId, webhookId, limit);
    const attempts = await this.repo.attemptsOf(
      storeId,
      rows.map((r) => r.id),
    );
    const byDelivery = new Map<string, AttemptRow[]>();
    for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
    return rows.map((d: DeliveryRow) => ({
      id: d.id,
      event: d.event,
      status: d.status,
      attempts: d.attempts,
      created_at: iso(d.created_at),
      delivered_at: iso(d.delivered_at),
      next_retry_at: d.status === "pending" ? iso(d.next_attempt_at) : null,
      last_status_code: d.last_status_code,
      last_error: d.last_error,
      attempt_log: (byDelivery.get(d.id) ?? []).map((a) => ({
        attempt: a.attempt,
        status_code: a.status_code,
        duration_ms: a.duration_ms,
        error: a.error,
        at: iso(a.created_at),
        next_retry_at: iso(a.next_attempt_at),
      })),
    }));
  }

  /**
   * Writes one delivery per active webhook of the store subscribed to `event`, inside `tx`.
   * `orderingKey` (the product id) keeps deliveries of one product in order.
   */
  async emit(tx: Executor, storeId: string, event: WebhookEvent, data: Record<string, unknown>, orderingKey: string): Promise<number> {
    const repo = this.repo.with(tx);
    const hooks = (await repo.active(storeId)).filter((w) => (JSON.parse(w.events) as string[]).includes(event));
    const now = this.ctx.clock.now();
    const box = this.ctx.secrets;
    for (const w of hooks) {
      const envelope: Envelope = { event, timestamp: iso(now), webhook_id: w.id, data };
      const deliveryId = uuid();
      await repo.addDelivery(storeId, {
        id: deliveryId,
        webhook_id: w.id,
        target_url: w.url,
        // Each delivery keeps its own sealed copy (the webhook may be deleted before it is sent).
        secret: box.seal(box.open(w.secret, secretAad.webhook(w.id)), secretAad.delivery(deliveryId)),
        event,
        ordering_key: orderingKey,
        seq: nextSeq(now),
        body: JSON.stringify(envelope),
        status: "pending",
        next_attempt_at: now,
        locked_until: null,
        last_status_code: null,
        last_error: null,
        created_at: now,
        delivered_at: null,
      });
    }
    return hooks.length;
  }

  /** Queues a signed callback to a caller-given URL (bulk jobs), inside `tx`; `secret` is in clear and sealed here. */
  async emitCallback(
    tx: Executor,
    storeId: string,
    url: string,
    secret: string,
    body: Record<string, unknown>,
    orderingKey: string,
  ): Promise<void> {
    const now = this.ctx.clock.now();
    const deliveryId = uuid();
    await this.repo.with(tx).addDelivery(storeId, {
      id: deliveryId,
      webhook_id: null,
      target_url: url,
      secret: this.ctx.secrets.seal(secret, secretAad.delivery(deliveryId)),
      event: String(body.event),
      ordering_key: orderingKey,
      seq: nextSeq(now),
      body: JSON.stringify(body),
      status: "pending",
      next_attempt_at: now,
      locked_until: null,
      last_status_code: null,
      last_error: null,
      created_at: now,
      delivered_at: null,
    });
  }
}
