// Fixed-window rate limiting over rate-limiter-flexible: in-process memory for the embedded
// default, Redis when REDIS_URL is set so every process enforces one shared budget.
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { AppError } from "./errors/catalogue.js";

export interface LimitResult {
  allowed: boolean;
  /** Seconds until the window frees a point (0 when allowed). */
  retryAfterSec: number;
  remaining: number;
}

export interface Limiter {
  readonly points: number;
  /** Takes `points` from `key`'s budget. */
  consume(key: string, points?: number): Promise<LimitResult>;
  /** The budget state without consuming. */
  peek(key: string): Promise<LimitResult>;
  reset(key: string): Promise<void>;
}

export interface LimiterSpec {
  name: string;
  points: number;
  durationSec: number;
}

export type LimiterFactory = (spec: LimiterSpec) => Limiter;

const toResult = (res: RateLimiterRes, points: number, allowed: boolean): LimitResult => ({
  allowed,
  retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  remaining: Math.max(0, points - res.consumedPoints),
});

/** The 429 of an exhausted budget: `too_many_requests` with `details.retry_after` and Retry-After (seconds). */
export function tooManyRequests(result: LimitResult, message?: string, details: Record<string, unknown> = {}): AppError {
  const retryAfter = String(result.retryAfterSec);
  return new AppError("too_many_requests", message, { ...details, retry_after: result.retryAfterSec }, { "retry-after": retryAfter });
}

/**
 * Takes one point from each budget in turn (e.g. per client address, then per e-mail); the first
 * exhausted one refuses the request with 429, naming `what` was throttled, its scope and when to retry.
 */
export async function throttle(what: string, budgets: readonly { limiter: Limiter; key: string; scope: string }[]): Promise<void> {
  for (const { limiter, key, scope } of budgets) {
    const result = await limiter.consume(key);
    if (!result.allowed) {
      throw tooManyRequests(result, `Too many ${what} for this ${scope.replace(/_/g, " ")}; try again in ${result.retryAfterSec} s.`, {
        scope,
      });
    }
  }
}

export function createLimiterFactory(redis?: Redis): LimiterFactory {
  return ({ name, points, durationSec }) => {
    const opts = { keyPrefix: `rl:${name}`, points, duration: durationSec };
    const rl: RateLimiterAbstract = redis
      ? new RateLimiterRedis({ ...opts, storeClient: redis, useRedisPackage: false })
      : new RateLimiterMemory(opts);
    return {
      points,
      async consume(key, n = 1) {
        try {
          return toResult(await rl.consume(key, n), points, true);
        } catch (e) {
          if (e instanceof RateLimiterRes) return toResult(e, points, false);
          throw e;
        }
      },
      async peek(key) {
        const res = await rl.get(key);
        if (!res) return { allowed: true, retryAfterSec: 0, remaining: points };
        return toResult(res, points, res.consumedPoints < points);
      },
      async reset(key) {
        await rl.delete(key);
      },
    };
  };
}
