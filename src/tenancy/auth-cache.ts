// What authentication reads — a store's row and IP allow-list, an API key by its hash, whether a
// token id is revoked, a user's memberships and permissions — kept in memory per process, so that
// a request whose credential was seen recently runs no authentication statement (issue 39, item 2).
//
// Invalidation, not expiry, keeps it right:
//   - every committed write to the tables these reads come from (AUTH_TABLES: stores, memberships,
//     groups, API keys, the allow-list, revoked tokens, users), by any process with a context — an
//     API, a worker, a CLI command — is published (announceAuthChanges: Database.watchWrites, told
//     after the commit, then ctx.invalidations, over Redis pub/sub), and every process's cache
//     empties. A key's or membership's
//     last-used time is not a change. Emptying all of it is coarse on purpose: such writes are
//     rare (a sign-in refresh, an admin's change), and no change can be missed by a narrower rule.
//   - SQLite: a commit by another process (e.g. `npm run cli -- plan set` beside the server) is
//     seen from the file's data_version, read once per request (sync()).
//   - a lookup that started before an invalidation does not store its (possibly older) answer.
//   - entries also expire after AUTH_CACHE_TTL_MS, a bound for what no one announced (a write by
//     raw SQL, a Redis message lost during a disconnection).
// The cache is off (every lookup reads) when AUTH_CACHE_ENTRIES is 0, and on PostgreSQL without
// REDIS_URL, where another process could change a credential without telling this one.
import { LRUCache } from "lru-cache";
import { Counter } from "prom-client";
import type { Config } from "../platform/config.js";
import type { Database } from "../platform/db/index.js";
import type { Invalidations } from "../platform/invalidation.js";
import type { Metrics } from "../platform/metrics.js";

/** Tables whose writes change what authentication reads → columns whose updates alone do not. */
export const AUTH_TABLES = {
  stores: [],
  users: [],
  memberships: ["last_used_at"],
  user_groups: [],
  user_group_permissions: [],
  user_group_members: [],
  api_keys: ["last_used_at"],
  ip_allowlist: [],
  revoked_tokens: [],
} as const satisfies Record<string, readonly string[]>;

/** What the cache needs of the context (src/context/context.ts). */
export interface CacheContext {
  config: Pick<Config, "authCacheEntries">;
  database: Database;
  invalidations: Invalidations;
  metrics: Pick<Metrics, "registry">;
}

/** The publication topic of a change to AUTH_TABLES. */
const TOPIC = "auth";

/**
 * Publishes every committed write to AUTH_TABLES made through this context, for the caches of this
 * process and of the others. Every context does it (a CLI's too), whether or not it caches.
 */
export function announceAuthChanges(ctx: Pick<CacheContext, "database" | "invalidations">): () => void {
  return ctx.database.watchWrites(AUTH_TABLES, () => ctx.invalidations.publish(TOPIC));
}

/** The longest an entry is used without being re-read. */
export const AUTH_CACHE_TTL_MS = 5 * 60_000;

export interface AuthCacheStats {
  enabled: boolean;
  hits: number;
  misses: number;
}

export class AuthCache {
  private readonly entries: LRUCache<string, { value: unknown }> | undefined;
  private generation = 0;
  private foreign: number | undefined;
  readonly stats: AuthCacheStats;
  /** shopsight_auth_cache_lookups_total's children, one per result (no label object per lookup). */
  private readonly counted: Record<"hit" | "miss" | "off", { inc(): void }>;

  constructor(private readonly ctx: CacheContext) {
    const { config, database, invalidations, metrics } = ctx;
    const enabled = config.authCacheEntries > 0 && (database.dialect === "sqlite" || invalidations.shared);
    this.stats = { enabled, hits: 0, misses: 0 };
    const name = "shopsight_auth_cache_lookups_total";
    const lookups =
      (metrics.registry.getSingleMetric(name) as Counter<"result"> | undefined) ??
      new Counter({
        name,
        help: "Authentication reads by result: hit (from this process's cache, no statement), miss (read from the database), off (cache disabled).",
        labelNames: ["result"] as const,
        registers: [metrics.registry],
      });
    this.counted = { hit: lookups.labels("hit"), miss: lookups.labels("miss"), off: lookups.labels("off") };
    if (!enabled) return;
    this.entries = new LRUCache({ max: config.authCacheEntries, ttl: AUTH_CACHE_TTL_MS });
    this.foreign = database.foreignCommits();
    invalidations.subscribe(TOPIC, () => this.clear()); // announceAuthChanges publishes
  }

  /**
   * Once per request, before its lookups: empties the cache when another process has committed to
   * the database since the last check (SQLite's data_version; PostgreSQL relies on publications).
   */
  sync(): void {
    if (!this.entries) return;
    const foreign = this.ctx.database.foreignCommits();
    if (foreign !== this.foreign) {
      this.foreign = foreign;
      this.clear();
    }
  }

  /** The cached answer of `key`, or `load()`'s (kept unless an invalidation came meanwhile). */
  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const entries = this.entries;
    if (!entries) {
      this.counted.off.inc();
      return load();
    }
    const hit = entries.get(key);
    if (hit) {
      this.stats.hits++;
      this.counted.hit.inc();
      return hit.value as T;
    }
    this.stats.misses++;
    this.counted.miss.inc();
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) entries.set(key, { value });
    return value;
  }

  private clear(): void {
    this.generation++;
    this.entries?.clear();
  }
}

const caches = new WeakMap<object, AuthCache>();

/** The one authentication cache of a database handle (both APIs of a process, and contexts derived from one, share it). */
export function authCacheOf(ctx: CacheContext): AuthCache {
  let cache = caches.get(ctx.database);
  if (!cache) caches.set(ctx.database, (cache = new AuthCache(ctx)));
  return cache;
}
