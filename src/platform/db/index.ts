// Database access: Kysely over embedded SQLite (better-sqlite3, WAL, foreign keys on) by default,
// or PostgreSQL when DATABASE_URL is set. Both dialects share one schema, one set of migrations
// and one set of repositories; the tables and migrations are the product's (src/db), handed in
// by the caller. Portable conventions used everywhere:
//   - ids are text (UUIDs or prefixed ids), timestamps are epoch milliseconds in bigint columns,
//   - flags are integers 0/1, JSON documents are text (jsonb on PostgreSQL, returned as text).
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { RowCountLiterals, statementCache, type WriteCount } from "./statement-cache.js";
export { rowCount } from "./statement-cache.js";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import type { Config } from "../config.js";
import type { Migration } from "kysely";
import { runMigrations } from "./migrate.js";
import { ReplicaRouter } from "./replicas.js";
import { withSessionSettings } from "./session.js";
import { WriteWatch, type WatchedTables } from "./writes.js";

export type { Db, Dialect, Executor, Tx } from "./types.js";
import type { Db, Dialect, Tables, Tx } from "./types.js";

export interface Database {
  db: Db;
  dialect: Dialect;
  /** Runs `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * The executor for a replica-eligible read of a store (search, listing, analytics): a read
   * replica when DATABASE_READ_URLS is set and one is healthy and has replayed the store's last
   * write, else the primary (see replicas.ts). Single statements only, no transactions.
   */
  reader(storeId: string): Db;
  /** Runs `fn` as one request (HTTP apps wrap every request): after a write, its reads use the primary. */
  readScope<T>(fn: () => T): T;
  /** At the end of a request: records the store's write position when the request wrote. */
  afterRequest(storeId: string | undefined): Promise<void>;
  /** The replica router, when DATABASE_READ_URLS is set. */
  replicas: ReplicaRouter | undefined;
  /**
   * Calls `fn` with the table after each committed write to one of `tables` made through this
   * handle (see writes.ts); returns the unsubscribe function.
   */
  watchWrites(tables: WatchedTables, fn: (table: string) => void): () => void;
  /**
   * A number that changes when another connection — another process — has committed to the
   * database since the last call (SQLite's data_version, no table read); undefined where the engine
   * cannot tell without a round trip (PostgreSQL: another process must say so, e.g. through Redis).
   */
  foreignCommits(): number | undefined;
  /**
   * SQLite: a number that is the same on two calls only when nothing was written to the database
   * in between, neither by a statement of this handle nor by another connection's commit
   * (data_version), so that a value read from the database then (a store's lexical version) can be
   * used again without reading it. Appends of this handle to the event logs (OpenOptions.eventTables,
   * which no such value is read from) do not move it: every search appends its history row.
   * undefined on PostgreSQL, which cannot tell without a round trip.
   */
  changeClock(): number | undefined;
  /** A cheap round trip, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// int8 → number (epoch ms and counters fit in 2^53), json/jsonb stay text so both dialects agree.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.JSON, (v) => v);
pg.types.setTypeParser(pg.types.builtins.JSONB, (v) => v);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export interface OpenOptions {
  /** PostgreSQL schema to use (tests isolate themselves in a schema of their own). */
  pgSchema?: string;
  /** Append-only event logs whose writes do not send a request's later reads to the primary (see replicas.ts). */
  eventTables?: readonly string[];
  /** The migrations to apply at open (name → migration, in name order), made for the dialect opened. */
  migrations?: (dialect: Dialect) => Record<string, Migration>;
}

export async function openDatabase(target: Config["database"], options: OpenOptions = {}): Promise<Database> {
  /** The handle without the write watch: its transactions carry their own (WriteWatch.deferredTo). */
  let base: Db;
  let dialect: Dialect;
  let replicas: ReplicaRouter | undefined;
  let foreignCommits: () => number | undefined = () => undefined;
  let changeClock: () => number | undefined = () => undefined;
  const writes = new WriteWatch();
  if (target.kind === "sqlite") {
    dialect = "sqlite";
    if (target.file !== ":memory:") createPrivately(target.file);
    const sqlite = new SQLite(target.file);
    sqlite.pragma("journal_mode = WAL");
    if (target.file !== ":memory:") restrictToOwner(target.file);
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    sqlite.pragma("synchronous = NORMAL");
    // Appends to the event logs do not move the change clock: no cache reads them (see changeClock()).
    const own: WriteCount = { writes: 0, eventTables: new Set(options.eventTables) };
    base = new Kysely<Tables>({
      dialect: new SqliteDialect({ database: statementCache(sqlite, undefined, own) }),
      plugins: [new RowCountLiterals()],
    });
    // Prepared once: pragma() compiles its statement on every call, and this runs on every request.
    const dataVersion = sqlite.prepare("PRAGMA data_version").pluck();
    foreignCommits = () => dataVersion.get() as number;
    // Both counts only grow, so their sum changes whenever either does.
    let foreignSeen = foreignCommits();
    let foreignChanges = 0;
    changeClock = () => {
      const foreign = foreignCommits();
      if (foreign !== foreignSeen) {
        foreignSeen = foreign;
        foreignChanges++;
      }
      return foreignChanges + own.writes;
    };
  } else {
    dialect = "postgres";
    const pgOptions = options.pgSchema ? `-c search_path=${options.pgSchema},public` : undefined;
    const pool = new pg.Pool(withSessionSettings({ connectionString: target.url, max: 10, ...(pgOptions ? { options: pgOptions } : {}) }));
    const pgDialect = new PostgresDialect({ pool });
    if (target.readUrls?.length) {
      replicas = new ReplicaRouter(pool, pgDialect.createDriver(), {
        urls: target.readUrls,
        ...(target.readMaxLagMs ? { maxLagMs: target.readMaxLagMs } : {}),
        ...(options.eventTables ? { eventTables: options.eventTables } : {}),
        pgOptions,
      });
    }
    base = new Kysely<Tables>({ dialect: pgDialect, plugins: replicas ? [replicas.writeWatcher] : [] });
    if (options.pgSchema) {
      await pool.query(`CREATE SCHEMA IF NOT EXISTS "${options.pgSchema.replace(/"/g, "")}"`);
    }
  }
  const db = base.withPlugin(writes);
  const database: Database = {
    db,
    dialect,
    transaction: async (fn) => {
      // The write watch's listeners hear of the transaction's writes once it has committed.
      const committed: (() => void)[] = [];
      const result = await base.transaction().execute((tx) => fn(tx.withPlugin(writes.deferredTo(committed))));
      for (const tell of committed) tell();
      return result;
    },
    reader: (storeId) => (replicas ? replicas.reader(storeId) : db),
    readScope: (fn) => (replicas ? replicas.run(fn) : fn()),
    afterRequest: async (storeId) => replicas?.afterRequest(storeId),
    replicas,
    watchWrites: (tables, fn) => writes.watch(tables, fn),
    foreignCommits: () => foreignCommits(),
    changeClock: () => changeClock(),
    ping: async () => {
      await db.selectNoFrom((eb) => eb.lit(1).as("one")).execute();
    },
    close: async () => {
      await replicas?.close();
      await db.destroy();
    },
  };
  if (options.migrations) await runMigrations(db, dialect, options.migrations(dialect), { pgSchema: options.pgSchema });
  // After migrations, so that a replica has something to replay before the first poll.
  await replicas?.start();
  return database;
}

/**
 * The database file holds password hashes and sealed secrets: it is created readable by its
 * owner only (0600, like the key files), before SQLite opens it. SQLite gives the -wal and -shm
 * files the main file's mode; files left by older versions are tightened too.
 */
function createPrivately(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.closeSync(fs.openSync(file, "a", 0o600));
}

function restrictToOwner(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((fs.statSync(f).mode & 0o077) !== 0) fs.chmodSync(f, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
}
