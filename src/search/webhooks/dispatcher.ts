// Delivers the outbox: at-least-once, in order per (target, product), 10 s per attempt, retried
// with exponential backoff and ±20 % jitter for about 22 hours (13 attempts), 2xx = delivered,
// 410 from the receiver disables the webhook and cancels its pending deliveries. Every attempt
// is logged (status code, duration, error, next retry). Safe to run in several processes.
import type { AppContext } from "../../context/context.js";
import { uuid } from "../../platform/ids.js";
import { secretAad } from "../../db/sealed-columns.js";
import { OutboundError, type SafeFetch } from "../../platform/outbound/safe-fetch.js";
import { DELIVERY_ID_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signBody } from "./events.js";
import { WebhooksRepository, type DeliveryRow } from "./repository.js";

/** Delay before retry n (1-based), in seconds: 10 s … 8 h; 12 retries span about 22 hours. */
export const RETRY_DELAYS_S = [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 21600, 28800];
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface DispatcherOptions {
  pollMs?: number;
  batch?: number;
  /** Jitter source in [0, 1); tests pass a fixed one. */
  random?: () => number;
}

export class WebhookDispatcher {
  private readonly repo: WebhooksRepository;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private current: Promise<number> | undefined;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: WebhooksRepository },
    private readonly fetch: SafeFetch,
    private readonly options: DispatcherOptions = {},
  ) {
    this.repo = deps.repo;
  }

  /** Sends every delivery due now (one claim round); returns how many attempts were made. */
  async runOnce(): Promise<number> {
    const now = this.ctx.clock.now();
    const due = await this.repo.claimDue(
      now,
      now + ATTEMPT_TIMEOUT_MS * 3,
      this.options.batch ?? 20,
      this.ctx.database.dialect === "postgres",
    );
    await Promise.all(due.map((d) => this.attempt(d)));
    return due.length;
  }

  /** Runs rounds until nothing is due (tests). */
  async drain(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  start(): void {
    this.stopped = false;
    const tick = async () => {
      if (this.stopped) return;
      try {
        this.current = this.runOnce();
        const n = await this.current;
        this.timer = setTimeout(next, n > 0 ? 0 : (this.options.pollMs ?? 500));
      } catch {
        this.timer = setTimeout(next, this.options.pollMs ?? 500);
      }
    };
    // tick never rejects (its errors are caught): the timer callback only starts it.
    const next = () => void tick();
    this.timer = setTimeout(next, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
  }

  private async attempt(d: DeliveryRow): Promise<void> {
    const attempt = d.attempts + 1;
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await this.fetch(d.target_url, {
        method: "POST",
        body: d.body,
        timeoutMs: ATTEMPT_TIMEOUT_MS,
        maxBytes: 64 * 1024,
        followRedirects: false,
        headers: {
          "content-type": "application/json",
          "user-agent": "Shopsight-Webhooks/1",
          [SIGNATURE_HEADER]: signBody(this.ctx.secrets.open(d.secret, secretAad.delivery(d.id)), d.body),
          [DELIVERY_ID_HEADER]: d.id,
          [EVENT_HEADER]: d.event,
          "x-webhook-attempt": String(attempt),
        },
      });
      statusCode = res.status;
      if (res.status < 200 || res.status >= 300) error = `receiver answered ${res.status}`;
    } catch (e) {
      error = e instanceof OutboundError ? `${e.kind}: ${e.message}` : e instanceof Error ? e.message : String(e);
    }
    const durationMs = Math.round(performance.now() - started);
    const now = this.ctx.clock.now();
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const gone = statusCode === 410 && d.webhook_id !== null;
    const delayS = RETRY_DELAYS_S[attempt - 1];
    const retryAt =
      delivered || gone || delayS === undefined
        ? null
        : now + Math.round(delayS * 1000 * (0.8 + 0.4 * (this.options.random ?? Math.random)()));

    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      await repo.recordAttempt(d.store_id, {
        id: uuid(),
        delivery_id: d.id,
        attempt,
        status_code: statusCode,
        duration_ms: durationMs,
        error,
        next_attempt_at: retryAt,
        created_at: now,
      });
      await repo.updateDelivery(d.store_id, d.id, {
        attempts: attempt,
        status: delivered ? "delivered" : gone ? "cancelled" : retryAt === null ? "failed" : "pending",
        next_attempt_at: retryAt ?? d.next_attempt_at,
        locked_until: null,
        last_status_code: statusCode,
        last_error: error,
        delivered_at: delivered ? now : null,
      });
      if (gone) await repo.disable(d.store_id, d.webhook_id!, "receiver answered 410 Gone", now);
    });
    this.ctx.metrics.webhookDelivery(delivered ? "delivered" : gone ? "cancelled" : retryAt === null ? "failed" : "retry");
  }
}
