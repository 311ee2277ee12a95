// Filter indexes (PostgreSQL): a compact copy of the vectors of one category or brand of a store
// that holds many products, kept together so a search filtered on it reads them in one range
// (migration 0021 explains the copies table and the triggers that keep it in step).
//
// Why. The store's HNSW graph serves wide filters that keep the query's neighbourhood well (a
// 50 % price window at a million products: 12 ms). Otherwise a filtered search ends in an exact
// scan of the filter's rows in `product_vectors`, each a random read of a 2 KB row through two
// indexes: a 1 % brand (10,000 rows) 61–135 ms, a pair of categories that follow the clusters
// (100,000 rows) 460–830 ms (bench:scale). The same scan over a value's half-precision copies,
// stored side by side and reached by one primary-key range, reads a tenth of the pages: 8–10 ms
// for 10,000 rows and ~46 ms for 50,000, warm (the best few dozen are then re-scored from the
// full vectors). An HNSW index per value was tried first (docs/benchmarks.md "Filter indexes"): fast, but a
// graph over a category that follows the clusters ranks a query far from all of them badly
// (recall@10 0.50 for two categories at a million products), where the scan found 0.998.
//
// Which values. refresh() — the worker's maintenance round, or `npm run cli -- vector
// filter-indexes` after a bulk import — gives copies to every category and brand of a store (per
// vector dimension) holding at least `minRows` products and at most MAX_SHARE of the store, those
// that have them first, then the largest, at most `maxPerStore` per store and dimension. A value
// keeps its copies until it falls below half of `minRows` or grows past twice MAX_SHARE, so they do
// not flap around the thresholds. A new value is copied in bulk while the triggers leave it alone
// (so neither the copy nor a writer waits on the other), then made `live` (the triggers keep it
// from then on), then — once every transaction that might have written before that has ended —
// caught up product by product with what was written during the copy, then made `ready`. A copy
// cut short (a stop, a crash, a long transaction) leaves the row not ready: the next round does it
// again. A dropped value leaves searches and triggers before its copies are deleted. One refresh
// runs at a time across processes (an advisory lock).
//
// Inverted lists. A value's copies scanned exactly cost ~0.6 µs each: a pair of categories holding
// 100,000 products at a million takes 150–200 ms. A value with at least `listsMinRows` copies
// therefore also gets, once ready, a partial pgvector IVFFlat index over them (migration 0022:
// ⌈√rows⌉ lists, an eighth of them and at least 8 probed), built CONCURRENTLY after its copies
// are ready (until then, and whenever it has none, its copies are scanned exactly), rebuilt when
// the value has grown or shrunk fourfold since; a build that fails is reported and retried next
// round, and each round first drops list indexes no registry row uses. A graph over a value failed
// where these lists hold: a query far from every vector of a category that follows the clusters
// (docs/benchmarks.md "Inverted lists over large filter indexes").
//
// Graphs. A value with at least `graphMinRows` copies and no lists gets a partial pgvector HNSW
// index over them instead (migration 0030), kept only when a search through it finds, on a
// sample of the store's own vectors as queries, at least GRAPH_MIN_RECALL of the 10 nearest copies
// that an exact scan finds. Lists fail a brand, spread over every cluster of the catalogue (an
// eighth of its lists held two thirds of its nearest products); a graph fails a category that
// follows the clusters; the check tells which a value is. A value whose graph failed is tried again
// once it has doubled or halved. The graph goes below half of `graphMinRows`, or when the value
// gets lists (docs/benchmarks.md "Issue 39: graphs over brands").
//
// Routing (postgres.ts). A filter that requires one field to equal one of some values (`category
// = x`, a `brand` or `category` metadata filter with eq or in: search/query/filters.ts) carries
// them as a scope; when every value has ready copies, the search reads the copies (scanned, or
// through the lists when the scope is the whole filter) instead of the store's rows, and checks
// the hits against the whole filter as for any other path.
import { sql, type Kysely } from "kysely";
import type { Database } from "../platform/db/index.js";
import type { Schema } from "../db/schema.js";
import type { Clock } from "../platform/clock.js";
import type { VectorScope } from "./candidates.js";

/**
 * Values with copies per store and dimension by default. The copies do not grow with it (a product
 * has one category and one brand: at most two copies whatever the number of values); it bounds
 * the registry and a refresh's work. 128 holds a million-product store's 20 categories and 100
 * brands of 10,000 (bench:scale), whose 1 % brand filter scans 10,000 copies in 12–13 ms where,
 * left without, it scans the store's rows in 80–110 ms.
 */
export const DEFAULT_MAX_PER_STORE = 128;
/**
 * Products a value needs for copies by default. An exact scan of a value's rows in
 * `product_vectors` costs ~6 µs each (random 2 KB rows: 5,000 candidates took 30–37 ms at 50,000
 * products), its copies ~0.7 µs; from 2,000 the scan of the rows would pass ~12 ms, so two
 * categories of 2,500 in a 50,000-product store (bench:scale) are served by copies.
 */
export const DEFAULT_MIN_ROWS = 2_000;
/**
 * Copies a value needs for inverted lists by default (VECTOR_FILTER_INDEX_LISTS_MIN_ROWS): below it
 * an exact scan of the copies stays within ~20 ms. Not for brands of 10,000 at a million: they
 * spread over the whole catalogue and an eighth of their lists found recall@10 0.670
 * (docs/benchmarks.md, "Issue 39: huge pages and a fourth build").
 */
export const DEFAULT_LISTS_MIN_ROWS = 20_000;
/**
 * Copies a value without inverted lists needs for a graph by default
 * (VECTOR_FILTER_INDEX_GRAPH_MIN_ROWS): an exact scan of 5,000 copies takes ~3.5 ms, a search
 * through a graph ~1.5–2.5 ms whatever the value's size (a brand of 10,200 at a million: 6–7 ms
 * exact, 1.8–2.6 ms through its graph for 130 copies).
 */
export const DEFAULT_GRAPH_MIN_ROWS = 5_000;
/** Least recall@10 of a value's graph against an exact scan of its copies, on the sampled queries, for it to serve searches. */
export const GRAPH_MIN_RECALL = 0.97;
/**
 * HNSW candidate list of a search through a value's graph, at least (ef_search; a search asking
 * for more copies keeps that many). Brands of 10,200 at a million, k = 10: ef 40 recall@10
 * 0.963–0.990 in 1.5 ms, ef 100 0.980–0.993 in 2.2–2.4 ms.
 */
export const GRAPH_EF = 100;
/** Copies a search through a graph is counted as reading, for the adapter's cost model (~ef × m distances). */
export const GRAPH_READS = 2_000;
/** Queries of a graph's recall check: vectors of the store's products, most of them outside the value. */
const GRAPH_CHECK_QUERIES = 30;
/** The nearest copies the recall check compares; it asks the graph for the copies a k = 10 search asks (copiesRescored). */
const GRAPH_CHECK_K = 10;
/** Stores up to this many vectors (of a dimension) draw the check's queries from all of them; larger ones from a page sample. */
const SAMPLE_SCAN_MAX = 50_000;
/** A value holding more than this share of its store's vectors gets no copies: the store's graph serves it. */
export const MAX_SHARE = 0.25;
/** Cached scope lookups at most (they are per distinct filter value; cleared when full). */
const CACHE_MAX = 1_000;
/** How often refresh() checks whether the transactions older than a value going live have ended, and for how long (ms). */
const WAIT_POLL_MS = 100;
const WAIT_MAX_MS = 60_000;

/**
 * The share of a value's inverted lists a search probes: two categories of 50,000 far from the
 * query (bench:scale) find recall@10 0.96–0.98 with an eighth of their 224 lists; real photos
 * (eval:filter-lists) 0.98 with 8 of 19–30 lists.
 */
const PROBED_SHARE = 1 / 8;
/** Lists probed at least: a query far from the value finds its nearest spread over several lists (eval:filter-lists: 3–4 of 19–30 lists give recall@10 0.84). */
const MIN_PROBES = 8;

/** How many of a value's `lists` a search probes. */
export function probesFor(lists: number): number {
  return Math.min(lists, Math.max(MIN_PROBES, Math.ceil(lists * PROBED_SHARE)));
}

/** Lists at most: pgvector's k-means needs ~200·lists² + 50·lists·(2·dim + 8) bytes, ~250 MB at 1,000 lists and 512-d. */
const MAX_LISTS = 1_000;
/** Memory for one list build (the round's session; the default 64 MB fails past ~200,000 copies at 512-d). */
const LISTS_BUILD_MEMORY = "512MB";
/** pgvector's IVFFlat and HNSW index half-precision vectors of at most this many dimensions. */
const MAX_INDEXED_DIM = 4_000;
/** How long one list build or removal may take, its waits for older transactions included (a later round tries again). */
const LISTS_DDL_TIMEOUT = "15min";

/** The inverted lists for a value of `rows` copies (pgvector's advice for up to a million rows is rows / 1,000; √rows gives smaller lists, so probing a share reads fewer copies: bench:scale). */
function listsFor(rows: number): number {
  return Math.min(MAX_LISTS, Math.max(1, Math.ceil(Math.sqrt(rows))));
}

/** Copies re-scored from the full vectors beyond the k wanted, at least (see copiesRescoreMargin). */
const MIN_RESCORE_MARGIN = 30;

/**
 * How many of a filter index's nearest copies a search for k is read from: k + max(30, ⌈head ×
 * margin⌉). Through inverted lists `head` is k: the margin is also how far the lists are read. An
 * exact scan finds the nearest copies whatever the margin, which then only covers copies failing
 * the filter's check and the half-precision order near the `head` re-scored exactly (the rest of
 * the depth keeps half-precision distances anyway): at k = 100 with a head of 10, 130 copies are
 * checked against the filter instead of 400 (~7.5 µs each at a million products).
 */
export function copiesRescored(k: number, margin: number, head = k): number {
  return k + Math.max(MIN_RESCORE_MARGIN, Math.ceil(Math.min(head, k) * margin));
}

/** The session advisory lock one refresh holds (per schema). */
export const REFRESH_LOCK = sql<number>`hashtext(current_schema() || '.vector_filter_indexes')`;

export interface FilterIndexOptions {
  /** Products a value needs for copies (0: none). Default DEFAULT_MIN_ROWS (2,000). */
  minRows: number;
  /** Values with copies per store and dimension at most (DEFAULT_MAX_PER_STORE). */
  maxPerStore: number;
  /** Copies a value needs for inverted lists (0: none, every scan exact). Default 20,000: below it an exact scan of the copies takes ≤ ~20 ms. */
  listsMinRows: number;
  /** Copies a value without lists needs for a graph (0: none). Default DEFAULT_GRAPH_MIN_ROWS (5,000). */
  graphMinRows: number;
  /** Least recall@10 of a graph's check (default GRAPH_MIN_RECALL). */
  graphMinRecall?: number;
}

export interface FilterIndexReport {
  /** Another process was refreshing: nothing done. */
  busy: boolean;
  created: string[];
  dropped: string[];
  kept: number;
  /** Values whose inverted lists were built (or rebuilt) this round, and whose were removed. */
  listed: string[];
  unlisted: string[];
  /** Values whose graph was built and passed its recall check this round, and whose graph was removed. */
  graphed: string[];
  ungraphed: string[];
  /** Values whose graph failed its recall check this round (and was removed), with the recall. */
  rejected: string[];
  /** Values whose lists or graph could not be built or removed this round, with the reason (the rest of the round went on). */
  failed: string[];
}

/**
 * The ready filter indexes serving a scope: their ids, how many copies they hold together, whether
 * any has inverted lists or a graph and how many copies a search then reads, and whether the scope
 * is the whole filter.
 */
export interface ServingIndexes {
  ids: number[];
  rows: number;
  listed: boolean;
  graphed: boolean;
  reads: number;
  whole: boolean;
}

interface ValueCount {
  store_id: string;
  dim: number;
  field: "category" | "brand";
  value: string;
  rows: number;
  /** The store's vectors of this dimension. */
  total: number;
}

/** What the steps of one refresh round share: its connection (holding the lock), its report, its stop signal, the graph checks' queries. */
interface Round {
  conn: Kysely<Schema>;
  report: FilterIndexReport;
  signal: AbortSignal | undefined;
  queries: (c: ValueCount) => Promise<string[]>;
}

/** What a search needs of a ready value's registry row. */
interface RegistryRow {
  id: number;
  rows: number;
  lists: number | null;
  probes: number | null;
  graph_ef: number | null;
}

/** The serving indexes of a scope whose values are all ready: these rows. */
function summarise(rows: readonly RegistryRow[]): Omit<ServingIndexes, "whole"> {
  return {
    ids: rows.map((r) => r.id),
    rows: rows.reduce((n, r) => n + r.rows, 0),
    listed: rows.some((r) => r.probes !== null),
    graphed: rows.some((r) => r.graph_ef !== null),
    reads: rows.reduce((n, r) => n + readsOf(r), 0),
  };
}

/** The copies a search reads of one value: the probed share of its lists, a graph's walk, or all of them. */
function readsOf(r: RegistryRow): number {
  if (r.lists && r.probes) return Math.ceil((r.rows * r.probes) / r.lists);
  if (r.graph_ef !== null) return Math.min(r.rows, GRAPH_READS);
  return r.rows;
}

/** A registered value's approximate index before a round's change: its lists, its graph, its failed graph check. */
interface Approximate {
  lists: number | null;
  graph_ef: number | null;
  graph_checked: number | null;
}

export class FilterIndexes {
  private readonly cache = new Map<string, { at: number; value: Promise<Omit<ServingIndexes, "whole"> | undefined> }>();
  private readonly registries = new Map<string, { at: number; value: Promise<Map<string, RegistryRow>> }>();

  constructor(
    private readonly database: Database,
    private readonly options: FilterIndexOptions & { clock: Clock; cacheMs: number; rescoreMargin: number },
  ) {}

  /**
   * The scope (of those given) whose values all have ready copies in this store and dimension,
   * the one with the fewest copies; undefined when none has. Values are folded to lower case by
   * the database, as the filter and the registry fold them. The store's ready values are read
   * once per cacheMs (a store's first search on each of 100 brands otherwise paid a statement of
   * 1–2 ms at a million products), and found there when lower-casing here gives the same value;
   * otherwise the database folds them (cached for cacheMs per scope). A value found here that the
   * database would fold otherwise only costs speed: the copies' hits are checked against the filter.
   */
  async serving(storeId: string, dim: number, scopes: readonly VectorScope[]): Promise<ServingIndexes | undefined> {
    let best: ServingIndexes | undefined;
    for (const scope of scopes) {
      const found = await this.lookup(storeId, dim, scope);
      if (found && (!best || found.rows < best.rows)) best = { ...found, whole: scope.whole };
    }
    return best;
  }

  /** Forgets every cached lookup (after a refresh). */
  forget(): void {
    this.cache.clear();
    this.registries.clear();
  }

  private async lookup(storeId: string, dim: number, scope: VectorScope): Promise<Omit<ServingIndexes, "whole"> | undefined> {
    const registry = await this.registry(storeId, dim);
    const found = [...new Set(scope.values.map((v) => v.toLowerCase()))].map((v) => registry.get(`${scope.field}\u0000${v}`));
    if (found.length > 0 && found.every((r) => r !== undefined)) return summarise(found);
    return this.folded(storeId, dim, scope);
  }

  /** The store's ready values in this dimension, by field and value (cached for cacheMs). */
  private registry(storeId: string, dim: number): Promise<Map<string, RegistryRow>> {
    return this.cached(this.registries, JSON.stringify([storeId, dim]), () =>
      this.database
        .reader(storeId)
        .selectFrom("vector_filter_indexes")
        .select(["field", "value", "id", "rows", "lists", "probes", "graph_ef"])
        .where("store_id", "=", storeId)
        .where("dim", "=", dim)
        .where("ready", "=", true)
        .execute()
        .then((rows) => new Map(rows.map((r) => [`${r.field}\u0000${r.value}`, r]))),
    );
  }

  /** The scope's values as the database folds them, looked up in the registry (cached for cacheMs per scope). */
  private folded(storeId: string, dim: number, scope: VectorScope): Promise<Omit<ServingIndexes, "whole"> | undefined> {
    return this.cached(this.cache, JSON.stringify([storeId, dim, scope.field, scope.values]), () =>
      sql<{ id: number | null; rows: number | null; lists: number | null; probes: number | null; graph_ef: number | null }>`
        WITH v AS (SELECT DISTINCT lower(x) AS value FROM unnest(${[...scope.values]}::text[]) AS x)
        SELECT f.id, f.rows, f.lists, f.probes, f.graph_ef FROM v
        LEFT JOIN vector_filter_indexes f
          ON f.store_id = ${storeId} AND f.dim = ${dim} AND f.field = ${scope.field} AND f.value = v.value AND f.ready`
        .execute(this.database.reader(storeId))
        .then(({ rows }) => (rows.length > 0 && rows.every((r) => r.id !== null) ? summarise(rows as RegistryRow[]) : undefined)),
    );
  }

  /** `load()`'s promise, kept in `cache` under `key` for cacheMs (dropped should it fail; the map cleared when full). */
  private cached<T>(cache: Map<string, { at: number; value: Promise<T> }>, key: string, load: () => Promise<T>): Promise<T> {
    const now = this.options.clock.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < this.options.cacheMs) return hit.value;
    const value = load();
    value.catch(() => cache.delete(key));
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, { at: now, value });
    return value;
  }

  /**
   * Brings every store's filter indexes in line with its catalogue (see the file header). An
   * aborted `signal` cancels the statement running; what it was copying is finished by a later round.
   */
  async refresh(signal?: AbortSignal): Promise<FilterIndexReport> {
    signal?.throwIfAborted();
    const report = emptyReport();
    // One connection for the whole round: the session lock lives on it.
    await this.database.db.connection().execute(async (conn) => {
      const { rows: got } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${REFRESH_LOCK}) AS ok`.execute(conn);
      if (!got[0]?.ok) {
        report.busy = true;
        return;
      }
      const { rows: pids } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(conn);
      // A cancel reaches whatever the backend runs when it lands, or nothing when it is idle; it is
      // awaited before the lock is released, and the release is retried once should it land there.
      let cancelling: Promise<unknown> | undefined;
      const cancel = () => {
        cancelling ??= sql`SELECT pg_cancel_backend(${pids[0]!.pid})`.execute(this.database.db).catch(() => undefined);
      };
      signal?.addEventListener("abort", cancel);
      try {
        await this.reconcile(conn, report, signal);
      } finally {
        signal?.removeEventListener("abort", cancel);
        await cancelling;
        const unlock = () => sql`SELECT pg_advisory_unlock(${REFRESH_LOCK})`.execute(conn);
        await unlock().catch(unlock);
        this.forget();
      }
    });
    return report;
  }

  private async reconcile(conn: Kysely<Schema>, report: FilterIndexReport, signal: AbortSignal | undefined): Promise<void> {
    const { minRows, maxPerStore } = this.options;
    const existing = await conn
      .selectFrom("vector_filter_indexes")
      .select(["id", "store_id", "field", "value", "dim", "ready", "lists", "graph_ef", "graph_checked"])
      .execute();
    const keyOf = (r: { store_id: string; dim: number; field: string; value: string }) =>
      `${r.store_id}\u0000${r.dim}\u0000${r.field}\u0000${r.value}`;
    const registered = new Map(existing.map((r) => [keyOf(r), r]));
    await this.sweep(conn, signal);
    // The graphs' recall checks draw their queries once per store and dimension in a round.
    const sampled = new Map<string, Promise<string[]>>();
    const queries = (c: ValueCount) => {
      const key = `${c.store_id}\u0000${c.dim}`;
      if (!sampled.has(key)) sampled.set(key, this.sampleQueries(conn, c));
      return sampled.get(key)!;
    };
    // Every value that may keep or get copies (the looser bounds, for the ones that have them).
    const counts =
      minRows > 0 && maxPerStore > 0
        ? (
            await sql<ValueCount & { total: number }>`
              WITH totals AS (
                SELECT store_id, dim, count(*)::int AS total FROM product_vectors GROUP BY store_id, dim
              ), byvalue AS (
                SELECT v.store_id, v.dim, f.field, f.value, count(*)::int AS rows
                FROM product_vectors v
                JOIN products p ON p.store_id = v.store_id AND p.product_id = v.product_id
                CROSS JOIN LATERAL (VALUES ('category', lower(p.category)), ('brand', lower(p.brand))) AS f(field, value)
                WHERE f.value IS NOT NULL
                GROUP BY 1, 2, 3, 4
                HAVING count(*) >= ${Math.ceil(minRows / 2)}
              )
              SELECT b.store_id, b.dim, b.field, b.value, b.rows, t.total
              FROM byvalue b JOIN totals t ON t.store_id = b.store_id AND t.dim = b.dim
              WHERE b.rows <= ${2 * MAX_SHARE}::float8 * t.total`.execute(conn)
          ).rows
        : [];
    const eligible = counts.filter((c) => registered.has(keyOf(c)) || (c.rows >= minRows && c.rows <= MAX_SHARE * c.total));
    const has = (c: ValueCount) => (registered.has(keyOf(c)) ? 0 : 1);
    eligible.sort((a, b) => has(a) - has(b) || b.rows - a.rows || (a.value < b.value ? -1 : 1));
    const perStore = new Map<string, number>();
    const chosen = new Map<string, ValueCount>();
    for (const c of eligible) {
      const store = `${c.store_id}\u0000${c.dim}`;
      const n = perStore.get(store) ?? 0;
      if (n >= maxPerStore) continue;
      perStore.set(store, n + 1);
      chosen.set(keyOf(c), c);
    }
    for (const [key, r] of registered) {
      if (chosen.has(key)) continue;
      signal?.throwIfAborted();
      // Out of searches and of the triggers first (committed), so a delete that fails leaves a row
      // that the next round copies again; its copies go with it (ON DELETE CASCADE).
      await conn.updateTable("vector_filter_indexes").set({ live: false, ready: false }).where("id", "=", r.id).execute();
      await this.unlist(conn, r.id);
      await this.ungraph(conn, r.id);
      await conn.deleteFrom("vector_filter_indexes").where("id", "=", r.id).execute();
      report.dropped.push(describe(r));
    }
    for (const [key, c] of chosen) {
      signal?.throwIfAborted();
      const known = registered.get(key);
      if (known?.ready) {
        await conn.updateTable("vector_filter_indexes").set({ rows: c.rows }).where("id", "=", known.id).execute();
        report.kept += 1;
        await this.approximate({ conn, report, signal, queries }, { ...c, id: known.id }, known);
        continue;
      }
      // New, or a copy cut short: copy it while no trigger writes its copies (nothing waits on
      // anything), then hand it to the triggers, then catch up with what was written meanwhile.
      const id =
        known?.id ??
        (
          await conn
            .insertInto("vector_filter_indexes")
            .values({ store_id: c.store_id, field: c.field, value: c.value, dim: c.dim, created_at: this.options.clock.now() })
            .returning("id")
            .executeTakeFirstOrThrow()
        ).id;
      await conn.updateTable("vector_filter_indexes").set({ live: false, ready: false }).where("id", "=", id).execute();
      // A graph would be kept in step with every copy written (a fill cut short: built again once ready).
      if (known?.graph_ef != null) await this.ungraph(conn, id);
      await sql`SELECT product_vector_copies_fill(${id})`.execute(conn); // migration 0021
      await conn.updateTable("vector_filter_indexes").set({ live: true }).where("id", "=", id).execute();
      if (!(await this.olderTransactionsEnded(conn, signal))) continue; // a long transaction: next round
      const { rows: stale } = await sql<{ store_id: string; product_id: string }>`
        SELECT store_id, product_id FROM product_vector_copies_stale(${id})`.execute(conn);
      for (const r of stale) {
        signal?.throwIfAborted();
        await sql`SELECT product_vector_copies_sync(${r.store_id}, ${r.product_id})`.execute(conn);
      }
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM product_vector_copies WHERE index_id = ${id}`.execute(conn);
      await conn
        .updateTable("vector_filter_indexes")
        .set({ ready: true, rows: rows[0]?.n ?? c.rows })
        .where("id", "=", id)
        .execute();
      report.created.push(describe(c));
      const before = { lists: known?.lists ?? null, graph_ef: null, graph_checked: known?.graph_checked ?? null };
      await this.approximate({ conn, report, signal, queries }, { ...c, rows: rows[0]?.n ?? c.rows, id }, before);
    }
  }

  /** A ready value's inverted lists, then its graph (which only a value without lists may have). */
  private async approximate(round: Round, c: ValueCount & { id: number }, before: Approximate): Promise<void> {
    const state = { ...before };
    await this.list(round, c, state);
    await this.graph(round, c, state);
  }

  /**
   * Gives a ready value inverted lists when it has enough copies and none yet, or lists of a size
   * grown four times too small or too large (√rows off by twice); takes them away below half of
   * listsMinRows. The value is searched exactly while they are built: the registry learns of them
   * only once the index is valid. A build cut short leaves an invalid index, dropped next round.
   * Updates `state` (its lists, and its graph should the lists replace it).
   */
  private async list({ conn, report, signal }: Round, c: ValueCount & { id: number }, state: Approximate): Promise<void> {
    const { listsMinRows } = this.options;
    const { lists } = state;
    const wanted = listsFor(c.rows);
    const keep = listsMinRows > 0 && c.dim <= MAX_INDEXED_DIM && c.rows >= (lists === null ? listsMinRows : listsMinRows / 2);
    if (keep && lists !== null && wanted <= 2 * lists && wanted >= lists / 2) return;
    if (!keep && lists === null) return;
    signal?.throwIfAborted();
    // One value's failure (memory, a timeout) is reported and leaves the rest of the round going;
    // it is tried again next round. An abort ends the round.
    try {
      await this.unlist(conn, c.id);
      state.lists = null;
      if (!keep) {
        report.unlisted.push(describe(c));
        return;
      }
      signal?.throwIfAborted();
      // A value grown past the bar for lists leaves its graph (two indexes would match its searches).
      if (state.graph_ef !== null) {
        await this.ungraph(conn, c.id);
        state.graph_ef = null;
        report.ungraphed.push(describe(c));
      }
      const index = sql.id(listsIndexName(c.id));
      const d = sql.raw(String(c.dim));
      await this.bounded(conn, LISTS_BUILD_MEMORY, () =>
        sql`CREATE INDEX CONCURRENTLY ${index} ON product_vector_copies
          USING ivfflat ((embedding::halfvec(${d})) halfvec_cosine_ops) WITH (lists = ${sql.raw(String(wanted))})
          WHERE index_id = ${sql.raw(String(c.id))}`.execute(conn),
      );
      await conn
        .updateTable("vector_filter_indexes")
        .set({ lists: wanted, probes: probesFor(wanted) })
        .where("id", "=", c.id)
        .execute();
      state.lists = wanted;
      report.listed.push(describe(c));
    } catch (e) {
      if (signal?.aborted) throw e;
      report.failed.push(`${describe(c)}: ${(e as Error).message}`);
    }
  }

  /**
   * Gives a ready value without lists, and below the bar for them, a graph when it has at least
   * graphMinRows copies and none yet, and keeps it only when its recall check passes (the
   * registry learns of it only then); takes it away below half of graphMinRows. A graph that
   * failed its check is not built again until the value has doubled or halved. Inserts keep a
   * graph in step with the copies, so it is never rebuilt for growth.
   */
  private async graph({ conn, report, signal, queries }: Round, c: ValueCount & { id: number }, before: Approximate): Promise<void> {
    const { graphMinRows, listsMinRows } = this.options;
    const has = before.graph_ef !== null;
    const belowLists = listsMinRows === 0 || c.rows < listsMinRows;
    const keep =
      graphMinRows > 0 &&
      before.lists === null &&
      belowLists &&
      c.dim <= MAX_INDEXED_DIM &&
      c.rows >= (has ? graphMinRows / 2 : graphMinRows);
    if (keep === has) return;
    const checked = before.graph_checked;
    if (keep && checked !== null && c.rows < 2 * checked && c.rows > checked / 2) return;
    signal?.throwIfAborted();
    const index = sql.id(graphIndexName(c.id));
    try {
      await this.ungraph(conn, c.id);
      if (!keep) {
        report.ungraphed.push(describe(c));
        return;
      }
      const d = sql.raw(String(c.dim));
      await this.bounded(conn, LISTS_BUILD_MEMORY, () =>
        sql`CREATE INDEX CONCURRENTLY ${index} ON product_vector_copies
          USING hnsw ((embedding::halfvec(${d})) halfvec_cosine_ops)
          WHERE index_id = ${sql.raw(String(c.id))}`.execute(conn),
      );
      signal?.throwIfAborted();
      const recall = await this.graphRecall(conn, c, await queries(c));
      const bar = this.options.graphMinRecall ?? GRAPH_MIN_RECALL;
      if (recall >= bar) {
        await conn.updateTable("vector_filter_indexes").set({ graph_ef: GRAPH_EF, graph_checked: null }).where("id", "=", c.id).execute();
        report.graphed.push(describe(c));
        return;
      }
      await conn.updateTable("vector_filter_indexes").set({ graph_checked: c.rows }).where("id", "=", c.id).execute();
      await this.bounded(conn, undefined, () => sql`DROP INDEX CONCURRENTLY IF EXISTS ${index}`.execute(conn));
      report.rejected.push(`${describe(c)}: recall@10 ${recall.toFixed(3)} < ${bar}`);
    } catch (e) {
      if (signal?.aborted) throw e;
      report.failed.push(`${describe(c)}: ${(e as Error).message}`);
    }
  }

  /**
   * Recall@10 of a search through the value's new graph (product_vector_copies_nearest, as a
   * k = 10 search asks it) against an exact scan of its copies, over `queries`: the registry row
   * names the graph inside a transaction rolled back after, so no search sees it meanwhile.
   */
  private async graphRecall(conn: Kysely<Schema>, c: ValueCount & { id: number }, queries: string[]): Promise<number> {
    // Counted in whole neighbours and divided once, so that a recall at the bar (291 of 300) is not
    // rounded below it by a sum of fractions.
    let found = 0;
    let wanted = 0;
    const asked = copiesRescored(GRAPH_CHECK_K, this.options.rescoreMargin);
    await sql`BEGIN`.execute(conn);
    try {
      await conn.updateTable("vector_filter_indexes").set({ graph_ef: GRAPH_EF }).where("id", "=", c.id).execute();
      for (const q of queries) {
        const { rows: exact } = await sql<{ product_id: string }>`
          SELECT product_id FROM product_vector_copies WHERE index_id = ${c.id}
          ORDER BY embedding <=> ${q}::halfvec, product_id LIMIT ${GRAPH_CHECK_K}`.execute(conn);
        const { rows: graph } = await sql<{ product_id: string }>`
          SELECT n.product_id FROM product_vector_copies_nearest(${c.store_id}, ${c.dim}, ${[c.id]}::int[], ${q}::halfvec, ${asked}) n
          ORDER BY n.distance, n.product_id LIMIT ${GRAPH_CHECK_K}`.execute(conn);
        const near = new Set(exact.map((r) => r.product_id));
        found += graph.filter((r) => near.has(r.product_id)).length;
        wanted += exact.length;
      }
    } finally {
      await sql`ROLLBACK`.execute(conn);
    }
    return wanted === 0 ? 0 : found / wanted;
  }

  /**
   * The graph check's queries: GRAPH_CHECK_QUERIES vectors of the store's products in the value's
   * dimension, drawn at random (a store of more than SAMPLE_SCAN_MAX from a sample of the table's
   * pages, the same ones each round).
   */
  private async sampleQueries(conn: Kysely<Schema>, c: ValueCount): Promise<string[]> {
    const n = GRAPH_CHECK_QUERIES;
    if (c.total > SAMPLE_SCAN_MAX) {
      const percent = Math.min(100, (100 * 4 * n) / c.total);
      const { rows } = await sql<{ e: string }>`
        SELECT embedding::text AS e FROM product_vectors TABLESAMPLE SYSTEM (${percent}::real) REPEATABLE (1)
        WHERE store_id = ${c.store_id} AND dim = ${c.dim} LIMIT ${n}`.execute(conn);
      if (rows.length >= n / 2) return rows.map((r) => r.e);
    }
    const { rows } = await sql<{ e: string }>`
      SELECT embedding::text AS e FROM product_vectors WHERE store_id = ${c.store_id} AND dim = ${c.dim}
      ORDER BY random() LIMIT ${n}`.execute(conn);
    return rows.map((r) => r.e);
  }

  /** Out of searches (committed), then the graph dropped, or a build's invalid leftover. */
  private async ungraph(conn: Kysely<Schema>, id: number): Promise<void> {
    await conn.updateTable("vector_filter_indexes").set({ graph_ef: null }).where("id", "=", id).execute();
    await this.bounded(conn, undefined, () => sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.id(graphIndexName(id))}`.execute(conn));
  }

  /** Out of searches (committed), then the index dropped, or a build's invalid leftover. */
  private async unlist(conn: Kysely<Schema>, id: number): Promise<void> {
    await conn.updateTable("vector_filter_indexes").set({ lists: null, probes: null }).where("id", "=", id).execute();
    await this.bounded(conn, undefined, () => sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.id(listsIndexName(id))}`.execute(conn));
  }

  /**
   * Drops every list or graph index that no registry row uses (a build cut short, a crash between
   * a build and its registry update, a value deleted with its store), at the start of each round:
   * no build is running then (one round at a time).
   */
  private async sweep(conn: Kysely<Schema>, signal: AbortSignal | undefined): Promise<void> {
    const { rows } = await sql<{ name: string }>`
      SELECT c.relname AS name FROM pg_class c
      WHERE c.relkind = 'i' AND c.relnamespace = current_schema()::regnamespace
        AND (
          c.relname LIKE 'product_vector_copies_ivf\_%' AND NOT EXISTS (
            SELECT 1 FROM vector_filter_indexes f
            WHERE f.lists IS NOT NULL AND c.relname = 'product_vector_copies_ivf_' || f.id)
          OR c.relname LIKE 'product_vector_copies_hnsw\_%' AND NOT EXISTS (
            SELECT 1 FROM vector_filter_indexes f
            WHERE f.graph_ef IS NOT NULL AND c.relname = 'product_vector_copies_hnsw_' || f.id)
        )`.execute(conn);
    for (const { name } of rows) {
      signal?.throwIfAborted();
      await this.bounded(conn, undefined, () => sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.id(name)}`.execute(conn));
    }
  }

  /** Runs one statement of list DDL with a time limit (and build memory), restoring the session's settings after. */
  private async bounded<T>(conn: Kysely<Schema>, memory: string | undefined, run: () => Promise<T>): Promise<T> {
    await sql`SELECT set_config('statement_timeout', ${LISTS_DDL_TIMEOUT}, false)`.execute(conn);
    if (memory) await sql`SELECT set_config('maintenance_work_mem', ${memory}, false)`.execute(conn);
    try {
      return await run();
    } finally {
      await sql`RESET statement_timeout`.execute(conn);
      if (memory) await sql`RESET maintenance_work_mem`.execute(conn);
    }
  }

  /**
   * Waits until every transaction that had a transaction id when the last registry change
   * committed has ended: a write of theirs may have run its trigger before the change, and the
   * catch-up that follows must see it. (A transaction id taken now is later than any such write's;
   * a writer's trigger that runs later sees the change.) False after WAIT_MAX_MS (a long
   * transaction: the value is finished by a later round).
   */
  private async olderTransactionsEnded(conn: Kysely<Schema>, signal: AbortSignal | undefined): Promise<boolean> {
    const { rows } = await sql<{ horizon: string }>`SELECT pg_current_xact_id()::text AS horizon`.execute(conn);
    const horizon = rows[0]!.horizon;
    const deadline = this.options.clock.now() + WAIT_MAX_MS;
    for (;;) {
      signal?.throwIfAborted();
      const { rows: now } = await sql<{ done: boolean }>`
        SELECT pg_snapshot_xmin(pg_current_snapshot()) >= ${horizon}::xid8 AS done`.execute(conn);
      if (now[0]?.done) return true;
      if (this.options.clock.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
  }
}

/** A refresh's report before it has done anything. */
export function emptyReport(): FilterIndexReport {
  return { busy: false, created: [], dropped: [], kept: 0, listed: [], unlisted: [], graphed: [], ungraphed: [], rejected: [], failed: [] };
}

/** How many values a refresh changed: copies made or dropped, lists or graphs built, removed or turned down. */
export function changesOf(r: FilterIndexReport): number {
  return (
    r.created.length + r.dropped.length + r.listed.length + r.unlisted.length + r.graphed.length + r.ungraphed.length + r.rejected.length
  );
}

/** The partial IVFFlat index over a filter index's copies. */
export function listsIndexName(id: number): string {
  return `product_vector_copies_ivf_${id}`;
}

/** The partial HNSW index over a filter index's copies. */
export function graphIndexName(id: number): string {
  return `product_vector_copies_hnsw_${id}`;
}

function describe(r: { store_id: string; field: string; value: string; dim: number }): string {
  return `${r.store_id} ${r.field}=${r.value} (${r.dim}-d)`;
}
