// Counting semaphores with leases: "at most N of these at once per key" (e.g. concurrent chat
// turns per store). In-process for the embedded default; through Redis when REDIS_URL is set so
// every process shares one count. Selected like src/platform/rate-limit.ts.
//
// A slot is a lease with an expiry (now + leaseMs, time from the injected clock). Expired leases
// are dropped before every count, so a process that crashed while holding slots frees them after
// at most leaseMs. Bursts beyond the limit are refused, never queued.
//
// Redis layout: one sorted set per key (`cc:<name>:<key>`), member = lease id, score = expiry in
// epoch ms. Acquire is one Lua script (drop expired, count, add) so it is atomic across
// processes; the set itself carries a PEXPIRE of leaseMs so idle keys disappear.
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { Clock } from "./clock.js";

export interface Lease {
  readonly id: string;
  /** Frees the slot (idempotent). */
  release(): Promise<void>;
}

export type AcquireResult =
  | { acquired: true; lease: Lease; inFlight: number }
  | { acquired: false; inFlight: number; /** Seconds after which a retry may succeed (at least 1). */ retryAfterSec: number };

export interface Semaphore {
  readonly name: string;
  /** Takes one of `limit` slots of `key`, or refuses at once when all are taken. */
  acquire(key: string, limit: number): Promise<AcquireResult>;
  /** Slots of `key` currently held (unexpired leases). */
  inFlight(key: string): Promise<number>;
}

export interface SemaphoreSpec {
  name: string;
  /** Lease lifetime: longer than the longest guarded operation; the bound on a crashed holder. */
  leaseMs: number;
}

export type ConcurrencyFactory = (spec: SemaphoreSpec) => Semaphore;

const leaseId = (): string => randomBytes(12).toString("hex");

/** Retry hint for a refused slot: slots free when running work finishes, typically within a second. */
const RETRY_AFTER_SEC = 1;

function memorySemaphore(spec: SemaphoreSpec, clock: Clock): Semaphore {
  const keys = new Map<string, Map<string, number>>();
  const live = (key: string): Map<string, number> => {
    const leases = keys.get(key) ?? new Map<string, number>();
    const now = clock.now();
    for (const [id, expiry] of leases) if (expiry <= now) leases.delete(id);
    if (leases.size === 0) keys.delete(key);
    return leases;
  };
  return {
    name: spec.name,
    async acquire(key, limit) {
      const leases = live(key);
      if (leases.size >= limit) return { acquired: false, inFlight: leases.size, retryAfterSec: RETRY_AFTER_SEC };
      const id = leaseId();
      leases.set(id, clock.now() + spec.leaseMs);
      keys.set(key, leases);
      return {
        acquired: true,
        inFlight: leases.size,
        lease: {
          id,
          async release() {
            const current = keys.get(key);
            current?.delete(id);
            if (current && current.size === 0) keys.delete(key);
          },
        },
      };
    },
    async inFlight(key) {
      return live(key).size;
    },
  };
}

// KEYS[1] = set; ARGV = now, expiry, limit, lease id, lease ms. Returns {acquired 0/1, in flight}.
const ACQUIRE_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[3]) then
  return {0, n}
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, n + 1}
`;

// KEYS[1] = set; ARGV = now. Returns the count of unexpired leases.
const COUNT_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
`;

function redisSemaphore(spec: SemaphoreSpec, redis: Redis, clock: Clock): Semaphore {
  const redisKey = (key: string) => `cc:${spec.name}:${key}`;
  return {
    name: spec.name,
    async acquire(key, limit) {
      const k = redisKey(key);
      const id = leaseId();
      const now = clock.now();
      const [ok, n] = (await redis.eval(ACQUIRE_LUA, 1, k, now, now + spec.leaseMs, limit, id, spec.leaseMs)) as [number, number];
      if (ok !== 1) return { acquired: false, inFlight: n, retryAfterSec: RETRY_AFTER_SEC };
      let released = false;
      return {
        acquired: true,
        inFlight: n,
        lease: {
          id,
          async release() {
            if (released) return;
            released = true;
            await redis.zrem(k, id);
          },
        },
      };
    },
    async inFlight(key) {
      return Number(await redis.eval(COUNT_LUA, 1, redisKey(key), clock.now()));
    },
  };
}

/** One factory per context; the same name gives the same semaphore (shared counts in-process too). */
export function createConcurrencyFactory(redis: Redis | undefined, clock: Clock): ConcurrencyFactory {
  const byName = new Map<string, Semaphore>();
  return (spec) => {
    const existing = byName.get(spec.name);
    if (existing) return existing;
    const made = redis ? redisSemaphore(spec, redis, clock) : memorySemaphore(spec, clock);
    byName.set(spec.name, made);
    return made;
  };
}
