// Usage metering: every authenticated /v1/* call (a request whose store was resolved) is counted
// for its store in the UTC hour it finished in, except calls refused by the plan rate limit (429). Nothing is written per request: counts add up in
// memory and are flushed every USAGE_FLUSH_INTERVAL_MS with one multi-row upsert
// (`api_calls = api_calls + n`), and once more when the app closes (SIGTERM/SIGINT, tests).
//
// Loss bound: a crash (kill -9, power loss) loses the calls of at most the last flush interval
// (5 s) of this process; a clean stop loses nothing. A failed flush keeps its counts and retries
// at the next tick. Several processes sharing one database each flush their own counts; the
// additive upsert makes that exact, so no shared counter (Redis) is needed for correctness.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context/context.js";
import type { App } from "../../platform/http/app.js";
import { hourBucket } from "./period.js";
import type { BillingRepository, UsageIncrement } from "./repository.js";

export const USAGE_FLUSH_INTERVAL_MS = 5_000;
const CHUNK = 200;

export interface UsageMeter {
  /** Fastify onResponse hook: counts the call when it was an authenticated /v1/* call of a store. */
  onResponse(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts one call of `storeId` now. */
  record(storeId: string): void;
  /** Writes the pending counts; resolves once every count recorded before the call is stored. */
  flush(): Promise<void>;
  /** Stops the timer and flushes. */
  close(): Promise<void>;
  /** Where failed flushes are reported (the Search API app's logger, once the app exists). */
  setLog(log: UsageMeterLog): void;
}

export interface UsageMeterLog {
  warn(obj: object, msg: string): void;
}

export interface UsageMeterOptions {
  flushIntervalMs?: number;
  log?: UsageMeterLog;
}

const isForeignKeyViolation = (e: unknown): boolean => {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_FOREIGNKEY" || code === "23503";
};

export function createUsageMeter(ctx: Pick<AppContext, "clock">, repo: BillingRepository, options: UsageMeterOptions = {}): UsageMeter {
  let log = options.log;
  let pending = new Map<string, UsageIncrement>();
  let chain: Promise<void> = Promise.resolve();
  let closed = false;

  const add = (inc: UsageIncrement) => {
    const key = `${inc.storeId}\u0000${inc.bucketStart}`;
    const existing = pending.get(key);
    if (existing) existing.calls += inc.calls;
    else pending.set(key, { ...inc });
  };

  async function writeBatch(batch: UsageIncrement[]): Promise<void> {
    for (let i = 0; i < batch.length; i += CHUNK) {
      const chunk = batch.slice(i, i + CHUNK);
      try {
        await repo.addUsage(chunk, ctx.clock.now());
      } catch (error) {
        if (!isForeignKeyViolation(error)) {
          // Database unavailable or similar: keep this and the remaining counts for the next flush.
          for (const inc of batch.slice(i)) add(inc);
          log?.warn({ err: error }, "usage flush failed; counts kept for the next flush");
          return;
        }
        // A store deleted meanwhile: write row by row and drop only that store's counts.
        for (const inc of chunk) {
          try {
            await repo.addUsage([inc], ctx.clock.now());
          } catch (rowError) {
            if (!isForeignKeyViolation(rowError)) add(inc);
          }
        }
      }
    }
  }

  function flush(): Promise<void> {
    const run = async () => {
      if (pending.size === 0) return;
      const batch = [...pending.values()];
      pending = new Map();
      await writeBatch(batch);
    };
    chain = chain.then(run, run);
    return chain;
  }

  const interval = options.flushIntervalMs ?? USAGE_FLUSH_INTERVAL_MS;
  const timer = setInterval(() => void flush().catch(() => undefined), interval);
  timer.unref();

  const record = (storeId: string) => add({ storeId, bucketStart: hourBucket(ctx.clock.now()), calls: 1 });

  return {
    record,
    async onResponse(request, reply) {
      const store = request.store;
      // Calls refused by the plan rate limit (429) are not usage.
      if (!store || !request.url.startsWith("/v1/") || reply.statusCode === 429) return;
      record(store.id);
    },
    flush,
    setLog(next) {
      log = next;
    },
    async close() {
      if (closed) return flush();
      closed = true;
      clearInterval(timer);
      await flush();
    },
  };
}

/** Hooks the composition's usage meter into `app`: counts on response, flushes on close. */
export function installUsageMeter(app: App, meter: UsageMeter): void {
  meter.setLog(app.log);
  app.addHook("onResponse", (request, reply) => meter.onResponse(request, reply));
  app.addHook("onClose", async () => meter.close());
}
