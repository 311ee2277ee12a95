// Read replicas (PostgreSQL, DATABASE_READ_URLS): which connection a replica-eligible read uses.
//
// Only reads that ask for it go to a replica: `database.reader(storeId)` (vector search, product
// listing, search analytics). Everything else — authentication, writes, transactions, reads that
// decide a write — uses `database.db`, the primary. A read through the reader goes to the primary
// instead of a replica when
//   1. the current request has already written (in-request consistency: everything after a write
//      in the same request reads the primary). A request is a scope (`readScope`, entered by the
//      HTTP apps for every request); a write is any statement through `database.db` or a
//      transaction that is not a SELECT, except inserts and updates of the append-only event logs
//      named in `eventTables` (the product's search history and usage counters: every search
//      writes them, and reads after them need not see them);
//   2. the store has written recently and no replica has replayed that write yet
//      (read-your-writes across requests): when a request that wrote ends, the primary's WAL
//      insert position (`pg_current_wal_insert_lsn()`, one round trip per writing request, only
//      with replicas configured) is recorded for its store, and a replica is used for that store
//      again only once its replay position (`pg_last_wal_replay_lsn()`, polled) has passed it.
//      This holds per API process: with several API processes behind a load balancer, route a
//      store's requests to one process (sticky by token or host) for read-your-writes across
//      requests, or leave DATABASE_READ_URLS unset;
//   3. no replica is healthy: each replica is polled every `pollMs` (default 200 ms); a replica is
//      skipped while its last poll failed, or while it lags more than `maxLagMs` behind the
//      primary (the lag is how long ago the primary was at the position the replica has replayed);
//   4. the replica fails the statement (down, connection refused, a query cancelled by a
//      recovery conflict, …): the replica is marked down until its next good poll, and the same
//      statement runs on the primary — the client sees no error. This includes a read that waits
//      more than `lockTimeoutMs` (default 1,000 ms; the replica's connections start with
//      `lock_timeout`) for a lock: on a hot standby the only locks a read can wait for are the
//      ACCESS EXCLUSIVE locks that replay holds for a DDL statement, a TRUNCATE or a VACUUM that
//      shortens a table (autovacuum does it to the system catalogs too) until it replays that
//      transaction's end. Without the limit such a read waits as long as the primary's
//      transaction, and for ever while replay is paused (pg_wal_replay_pause).
// Replicas are used round-robin among the healthy ones.
import { AsyncLocalStorage } from "node:async_hooks";
import {
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";
import pg from "pg";
import { writtenTable } from "./writes.js";
import type { Tables } from "./types.js";
import { withSessionSettings } from "./session.js";

export interface ReplicaOptions {
  urls: string[];
  /** Replicas lagging more than this behind the primary are skipped. Default 5,000 ms. */
  maxLagMs?: number;
  /** How often each replica (and the primary's WAL position) is polled. Default 200 ms. */
  pollMs?: number;
  /** Startup options of every connection (the same search_path as the primary's pool). */
  pgOptions?: string | undefined;
  /** Clock for the lag measure (tests). */
  now?: () => number;
  /** Append-only event logs: writing them does not send the request's later reads to the primary. */
  eventTables?: readonly string[];
  /** How long a read on a replica waits for a lock (held by replay) before it goes to the primary. Default 1,000 ms. */
  lockTimeoutMs?: number;
}

interface Scope {
  wrote: boolean;
}

interface Replica {
  url: string;
  pool: pg.Pool;
  driver: Driver;
  healthy: boolean;
  /** Replayed WAL position (bytes), as of the last poll. */
  replayLsn: bigint;
  lagMs: number;
}

/** Where reads went (tests and metrics). */
export interface ReadStats {
  replica: number;
  primary: number;
  fallbacks: number;
}

export function parseLsn(text: string | null | undefined): bigint {
  if (!text) return 0n;
  const [hi, lo] = text.split("/");
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

export class ReplicaRouter {
  private readonly scopes = new AsyncLocalStorage<Scope>();
  private readonly replicas: Replica[];
  private readonly storeWrites = new Map<string, bigint>();
  /** Recent (time, primary WAL position) samples, newest last, for the lag measure. */
  private readonly primarySamples: { at: number; lsn: bigint }[] = [];
  private readonly maxLagMs: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private next = 0;
  readonly stats: ReadStats = { replica: 0, primary: 0, fallbacks: 0 };

  private readonly eventTables: ReadonlySet<string>;

  constructor(
    private readonly primaryPool: pg.Pool,
    private readonly primaryDriver: Driver,
    options: ReplicaOptions,
  ) {
    this.maxLagMs = options.maxLagMs ?? 5_000;
    this.pollMs = options.pollMs ?? 200;
    this.now = options.now ?? Date.now;
    this.eventTables = new Set(options.eventTables ?? []);
    const lockTimeoutMs = Math.max(1, Math.floor(options.lockTimeoutMs ?? 1_000));
    this.replicas = options.urls.map((url) => {
      const pool = new pg.Pool(
        withSessionSettings(
          {
            connectionString: url,
            max: 10,
            connectionTimeoutMillis: 2_000,
            ...(options.pgOptions ? { options: options.pgOptions } : {}),
          },
          [`SET lock_timeout = ${lockTimeoutMs}`],
        ),
      );
      // An idle replica connection that dies (replica stopped) must not crash the process.
      pool.on("error", () => undefined);
      return {
        url,
        pool,
        driver: new PostgresDialect({ pool }).createDriver(),
        healthy: false,
        replayLsn: 0n,
        lagMs: Number.POSITIVE_INFINITY,
      };
    });
  }

  /** Polls once (so the first reads can use replicas) and then every pollMs. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.polling;
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => undefined)));
  }

  /** Runs `fn` as one request: writes inside it send its later reader() reads to the primary. */
  run<T>(fn: () => T): T {
    return this.scopes.run({ wrote: false }, fn);
  }

  /** Whether the current request has written (see ReplicaOptions.eventTables). */
  get wrote(): boolean {
    return this.scopes.getStore()?.wrote ?? false;
  }

  /** The plugin on the primary's Kysely that notices writes. */
  readonly writeWatcher: KyselyPlugin = {
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => {
      const scope = this.scopes.getStore();
      if (scope && !scope.wrote && isWrite(args.node, this.eventTables)) scope.wrote = true;
      return args.node;
    },
    transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
  };

  /**
   * At the end of a request: when it wrote, records the primary's WAL position for the store, so
   * that the store's next reads skip replicas that have not replayed it.
   */
  async afterRequest(storeId: string | undefined): Promise<void> {
    const scope = this.scopes.getStore();
    if (!scope?.wrote || storeId === undefined) return;
    const { rows } = await this.primaryPool.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn");
    const lsn = parseLsn(rows[0]?.lsn);
    if (lsn > (this.storeWrites.get(storeId) ?? 0n)) this.storeWrites.set(storeId, lsn);
  }

  /** The Kysely for a replica-eligible read of a store. */
  reader(storeId: string): Kysely<Tables> {
    const driver: Driver = {
      init: async () => undefined,
      acquireConnection: async () => this.connectionFor(storeId),
      beginTransaction: async () => {
        throw new Error("database.reader() is for single reads; use database.transaction() on the primary");
      },
      commitTransaction: async () => undefined,
      rollbackTransaction: async () => undefined,
      releaseConnection: async () => undefined,
      destroy: async () => undefined,
    };
    return new Kysely<Tables>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => driver,
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
  }

  /** Health of each replica (tests, `cli`). */
  status(): { url: string; healthy: boolean; lagMs: number; replayLsn: string }[] {
    return this.replicas.map((r) => ({
      url: r.url.replace(/\/\/[^@]*@/, "//"),
      healthy: r.healthy,
      lagMs: r.lagMs,
      replayLsn: r.replayLsn.toString(),
    }));
  }

  /** Polls now (tests use it instead of waiting for the timer). */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    const at = this.now();
    try {
      const { rows } = await this.primaryPool.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn");
      this.primarySamples.push({ at, lsn: parseLsn(rows[0]?.lsn) });
    } catch {
      // The primary is down: nothing to compare against; replicas keep their last state.
    }
    // Keep a few seconds more than maxLagMs of samples.
    while (this.primarySamples.length > 2 && this.primarySamples[1]!.at < at - this.maxLagMs - 2 * this.pollMs) this.primarySamples.shift();
    await Promise.all(
      this.replicas.map(async (r) => {
        try {
          const { rows } = await r.pool.query<{ lsn: string | null; recovery: boolean }>(
            "SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS recovery",
          );
          const row = rows[0];
          // A server that is not in recovery (promoted, or a primary given by mistake) is not a replica.
          if (!row?.recovery) throw new Error(`${r.url} is not a replica (not in recovery)`);
          r.replayLsn = parseLsn(row.lsn);
          r.lagMs = this.lagOf(r.replayLsn, at);
          r.healthy = r.lagMs <= this.maxLagMs;
        } catch {
          r.healthy = false;
        }
      }),
    );
  }

  /** How long ago the primary was at `lsn`: 0 when the replica has replayed the newest sample. */
  private lagOf(lsn: bigint, at: number): number {
    const samples = this.primarySamples;
    if (samples.length === 0 || lsn >= samples[samples.length - 1]!.lsn) return 0;
    // The oldest sample the replica has not reached: the primary moved past `lsn` before it.
    for (let i = samples.length - 1; i >= 0; i--) {
      if (samples[i]!.lsn <= lsn) return at - samples[Math.min(i + 1, samples.length - 1)]!.at;
    }
    return at - samples[0]!.at;
  }

  private pick(storeId: string): Replica | undefined {
    if (this.wrote) return undefined;
    const needed = this.storeWrites.get(storeId) ?? 0n;
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n]!;
      if (r.healthy && r.replayLsn >= needed) {
        this.next = (this.next + i + 1) % n;
        // The store's write is replayed everywhere we look: forget it.
        if (needed > 0n && this.replicas.every((x) => x.replayLsn >= needed)) this.storeWrites.delete(storeId);
        return r;
      }
    }
    return undefined;
  }

  private async connectionFor(storeId: string): Promise<DatabaseConnection> {
    return {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        const replica = this.pick(storeId);
        if (replica) {
          try {
            const result = await runOn<R>(replica.driver, query);
            this.stats.replica++;
            return result;
          } catch (error) {
            if (!isServerSideFailure(error)) throw error;
            // Down or conflicting with recovery: this replica sits out until its next good poll.
            replica.healthy = false;
            this.stats.fallbacks++;
          }
        }
        this.stats.primary++;
        return runOn<R>(this.primaryDriver, query);
      },

      async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
        throw new Error("database.reader() does not stream");
      },
    };
  }
}

const initialised = new WeakMap<Driver, Promise<void>>();

async function runOn<R>(driver: Driver, query: CompiledQuery): Promise<QueryResult<R>> {
  let init = initialised.get(driver);
  if (!init) initialised.set(driver, (init = driver.init()));
  await init;
  const connection = await driver.acquireConnection();
  try {
    return await connection.executeQuery<R>(query);
  } finally {
    await driver.releaseConnection(connection);
  }
}

/**
 * Errors that are the replica's, not the statement's: a connection that failed, or SQLSTATE
 * classes 08 (connection), 40001 (serialization failure: recovery conflicts), 55P03 (lock not
 * available: the lock timeout, waiting behind replay), 57 (operator intervention: admin shutdown,
 * query cancelled), 53 (insufficient resources), 58 (system error). A statement error (syntax,
 * constraint) would fail on the primary too and is thrown as is.
 */
function isServerSideFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return true;
  if (/^[A-Z]+$/.test(code) || code.startsWith("E")) return true; // ECONNREFUSED, ETIMEDOUT, …
  return code === "40001" || code === "55P03" || /^(08|53|57|58)/.test(code);
}

/** Any statement but a SELECT (or a raw `SELECT …` / `WITH … SELECT` text) counts as a write, except appends to the event logs. */
function isWrite(node: RootOperationNode, eventTables: ReadonlySet<string>): boolean {
  switch (node.kind) {
    case "SelectQueryNode":
      return false;
    case "InsertQueryNode":
    case "UpdateQueryNode": {
      const table = writtenTable(node);
      return !(table && eventTables.has(table));
    }
    case "RawNode": {
      const text = node.sqlFragments.join("?").trimStart().toLowerCase();
      return !(text.startsWith("select") || text.startsWith("explain"));
    }
    default:
      return true;
  }
}
