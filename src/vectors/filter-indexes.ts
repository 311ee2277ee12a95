// Filter indexes (PostgreSQL): an HNSW graph of its own for a category or brand of a store that
// holds many products (migration 0021 explains the copies table and the triggers behind it).
//
// Why. The store's HNSW graph serves wide filters well (a 50 % price window at a million
// products: 12 ms), but a narrow one leaves an exact scan of its rows (a 1 % brand, 10,000 rows:
// 100–135 ms, each row a random read), and a filter that follows the vectors — categories follow
// appearance — can exclude the query's whole neighbourhood, so the graph ranks it badly and the
// search falls back to the same exact scan (a 5–10 % category: 450–750 ms). A graph over the
// value's products alone answers both in a few milliseconds (bench:scale).
//
// Which values. refresh() — the worker's maintenance round, or `npm run cli -- vector
// filter-indexes` after a bulk import — gives an index to every category and brand of a store
// (per vector dimension) holding at least `minRows` products and at most MAX_SHARE of the store,
// largest first, at most `maxPerStore` of them. A value keeps its index until it falls below half
// of `minRows` or grows past twice MAX_SHARE, and keeps its place under the cap before any newcomer,
// so indexes do not flap around the thresholds. Each new
// index: the registry row (from then on the triggers keep its copies), the copies of the value's
// vectors, `CREATE INDEX CONCURRENTLY` (product writes go on meanwhile), then `ready`. A build cut
// short (a stop, a crash) leaves the row not ready and perhaps an invalid index: the next round
// drops and rebuilds it. One refresh runs at a time across processes (an advisory lock).
//
// Routing. A filter that requires one field to equal one of some values (`category = x`, a
// `brand` metadata filter with eq or in: search/search/filters.ts) carries them as a scope; when
// every value has a ready index, the adapter walks those indexes (postgres.ts), checks the hits
// against the whole filter as for any HNSW round, and finishes exactly when they fall short.
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../platform/db/index.js";
import type { Schema } from "../platform/db/schema.js";
import type { Clock } from "../platform/clock.js";
import type { VectorScope } from "./candidates.js";

/** A value holding more than this share of its store's vectors gets no index: the store's graph serves it well. */
export const MAX_SHARE = 0.25;
/** pgvector indexes halfvec of up to 4,000 dimensions; the adapter indexes up to 2,000 (postgres.ts). */
const MAX_DIM = 2_000;

export interface FilterIndexOptions {
  /** Products a value needs for an index (0: no filter indexes). Default 5,000. */
  minRows: number;
  /** Indexes per store at most. Default 32. */
  maxPerStore: number;
}

export interface FilterIndexReport {
  /** Another process was refreshing: nothing done. */
  busy: boolean;
  created: string[];
  dropped: string[];
  kept: number;
}

/** The ready indexes serving a scope: their ids and how many copies they hold together. */
export interface ServingIndexes {
  ids: number[];
  rows: number;
}

interface Entry {
  id: number;
  rows: number;
}

interface ValueCount {
  store_id: string;
  dim: number;
  field: "category" | "brand";
  value: string;
  rows: number;
  total: number;
}

export class FilterIndexes {
  private readonly cache = new Map<string, { at: number; entries: Promise<Map<string, Entry>> }>();

  constructor(
    private readonly database: Database,
    private readonly options: FilterIndexOptions & { connectivity: number; expansionAdd: number; clock: Clock; cacheMs: number },
  ) {}

  /**
   * The scope (of those given) whose values all have a ready index in this store and dimension,
   * the one with the fewest copies; undefined when none has. Cached for cacheMs per store.
   */
  async serving(storeId: string, dim: number, scopes: readonly VectorScope[]): Promise<ServingIndexes | undefined> {
    if (scopes.length === 0) return undefined;
    const entries = await this.entries(storeId, dim);
    let best: ServingIndexes | undefined;
    for (const scope of scopes) {
      const found = [...new Set(scope.values.map((v) => v.toLowerCase()))].map((v) => entries.get(`${scope.field}\u0000${v}`));
      if (found.length === 0 || found.some((e) => e === undefined)) continue;
      const serving = { ids: found.map((e) => e!.id), rows: found.reduce((n, e) => n + e!.rows, 0) };
      if (!best || serving.rows < best.rows) best = serving;
    }
    return best;
  }

  /** Forgets what is cached of a store (after its indexes changed). */
  forget(storeId?: string): void {
    if (storeId === undefined) this.cache.clear();
    else for (const key of this.cache.keys()) if (key.startsWith(`${storeId}\u0000`)) this.cache.delete(key);
  }

  private entries(storeId: string, dim: number): Promise<Map<string, Entry>> {
    const key = `${storeId}\u0000${dim}`;
    const now = this.options.clock.now();
    const cached = this.cache.get(key);
    if (cached && now - cached.at < this.options.cacheMs) return cached.entries;
    const entries = this.database
      .reader(storeId)
      .selectFrom("vector_filter_indexes")
      .select(["id", "field", "value", "rows"])
      .where("store_id", "=", storeId)
      .where("dim", "=", dim)
      .where("ready", "=", true)
      .execute()
      .then((rows) => new Map(rows.map((r) => [`${r.field}\u0000${r.value}`, { id: r.id, rows: r.rows }])));
    entries.catch(() => this.cache.delete(key));
    this.cache.set(key, { at: now, entries });
    return entries;
  }

  /**
   * Brings every store's filter indexes in line with its catalogue (see the file header). An
   * aborted `signal` cancels the statement running (a build is then redone by the next round).
   */
  async refresh(signal?: AbortSignal): Promise<FilterIndexReport> {
    signal?.throwIfAborted();
    const report: FilterIndexReport = { busy: false, created: [], dropped: [], kept: 0 };
    // One connection for the whole round: the session lock and the session settings live on it.
    await this.database.db.connection().execute(async (conn) => {
      const lock = sql`hashtext(current_schema() || '.vector_filter_indexes')`;
      const { rows: got } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${lock}) AS ok`.execute(conn);
      if (!got[0]?.ok) {
        report.busy = true;
        return;
      }
      const { rows: pids } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(conn);
      const cancel = () => void sql`SELECT pg_cancel_backend(${pids[0]!.pid})`.execute(this.database.db).catch(() => undefined);
      signal?.addEventListener("abort", cancel);
      try {
        await this.reconcile(conn, report, signal);
      } finally {
        signal?.removeEventListener("abort", cancel);
        await sql`RESET maintenance_work_mem`.execute(conn).catch(() => undefined);
        await sql`SELECT pg_advisory_unlock(${lock})`.execute(conn);
        this.forget();
      }
    });
    return report;
  }

  private async reconcile(conn: Kysely<Schema>, report: FilterIndexReport, signal: AbortSignal | undefined): Promise<void> {
    const { minRows, maxPerStore } = this.options;
    const existing = await conn.selectFrom("vector_filter_indexes").select(["id", "store_id", "field", "value", "dim", "ready"]).execute();
    const keyOf = (r: { store_id: string; dim: number; field: string; value: string }) =>
      `${r.store_id}\u0000${r.dim}\u0000${r.field}\u0000${r.value}`;
    const registered = new Map(existing.map((r) => [keyOf(r), r]));
    // Every value that may keep or get an index (the looser bounds, for the ones that have one).
    const counts =
      minRows > 0 && maxPerStore > 0
        ? (
            await sql<ValueCount>`
              WITH totals AS (
                SELECT store_id, dim, count(*)::int AS total FROM product_vectors WHERE dim <= ${MAX_DIM} GROUP BY store_id, dim
              ), byvalue AS (
                SELECT v.store_id, v.dim, f.field, f.value, count(*)::int AS rows
                FROM product_vectors v
                JOIN products p ON p.store_id = v.store_id AND p.product_id = v.product_id
                CROSS JOIN LATERAL (VALUES ('category', lower(p.category)), ('brand', lower(p.brand))) AS f(field, value)
                WHERE f.value IS NOT NULL AND v.dim <= ${MAX_DIM}
                GROUP BY 1, 2, 3, 4
              )
              SELECT b.store_id, b.dim, b.field, b.value, b.rows, t.total
              FROM byvalue b JOIN totals t ON t.store_id = b.store_id AND t.dim = b.dim
              WHERE b.rows >= ${Math.ceil(minRows / 2)} AND b.rows <= ${2 * MAX_SHARE}::float8 * t.total`.execute(conn)
          ).rows
        : [];
    const eligible = counts.filter((c) => (registered.has(keyOf(c)) ? true : c.rows >= minRows && c.rows <= MAX_SHARE * c.total));
    // Values that have an index first (a slightly larger newcomer does not displace one), then
    // the largest; at most maxPerStore per store and dimension.
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
      await sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.id(copiesIndexName(r.id))}`.execute(conn);
      await conn.deleteFrom("vector_filter_indexes").where("id", "=", r.id).execute();
      report.dropped.push(describe(r));
    }
    await sql`SET maintenance_work_mem = '256MB'`.execute(conn);
    for (const [key, c] of chosen) {
      signal?.throwIfAborted();
      const known = registered.get(key);
      if (known?.ready) {
        await conn.updateTable("vector_filter_indexes").set({ rows: c.rows }).where("id", "=", known.id).execute();
        report.kept += 1;
        continue;
      }
      // New, or a build cut short (its index may be left invalid): build it (again).
      const id =
        known?.id ??
        (
          await conn
            .insertInto("vector_filter_indexes")
            .values({ store_id: c.store_id, field: c.field, value: c.value, dim: c.dim, created_at: this.options.clock.now() })
            .returning("id")
            .executeTakeFirstOrThrow()
        ).id;
      if (known) await sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.id(copiesIndexName(id))}`.execute(conn);
      // From the registry row on, the triggers copy every vector written; this copies the rest.
      // DO NOTHING: a copy a trigger wrote meanwhile is newer than this statement's snapshot.
      await sql`
        INSERT INTO product_vector_copies (index_id, store_id, product_id, vector_id, embedding)
        SELECT ${id}, v.store_id, v.product_id, v.vector_id, v.embedding::halfvec
        FROM product_vectors v JOIN products p ON p.store_id = v.store_id AND p.product_id = v.product_id
        WHERE v.store_id = ${c.store_id} AND v.dim = ${c.dim} AND lower(p.${sql.id(c.field)}) = ${c.value}
        ON CONFLICT (index_id, product_id) DO NOTHING`.execute(conn);
      await copiesIndexDdl(id, c.dim, this.options).execute(conn);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM product_vector_copies WHERE index_id = ${id}`.execute(conn);
      await conn
        .updateTable("vector_filter_indexes")
        .set({ ready: true, rows: rows[0]?.n ?? c.rows })
        .where("id", "=", id)
        .execute();
      report.created.push(describe(c));
    }
  }
}

function describe(r: { store_id: string; field: string; value: string; dim: number }): string {
  return `${r.store_id} ${r.field}=${r.value} (${r.dim}-d)`;
}

/** The HNSW index over a filter index's copies. */
export function copiesIndexName(id: number): string {
  return `product_vector_copies_hnsw_${id}`;
}

function copiesIndexDdl(id: number, dim: number, options: { connectivity: number; expansionAdd: number }): RawBuilder<unknown> {
  const d = sql.raw(String(dim));
  return sql`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${sql.id(copiesIndexName(id))} ON product_vector_copies
    USING hnsw ((embedding::halfvec(${d})) halfvec_cosine_ops)
    WITH (m = ${sql.raw(String(options.connectivity))}, ef_construction = ${sql.raw(String(options.expansionAdd))})
    WHERE index_id = ${sql.raw(String(id))}`;
}

export function copiesAnnFunction(dim: number): string {
  return `product_vector_copies_ann_${dim}`;
}

/**
 * `product_vector_copies_ann_<dim>(indexes, query, wanted, ef)`: the `wanted` nearest copies in
 * each of the filter indexes, with their distance from the full vectors (as the store's own
 * search returns it). The statement is built per index with the index id as a literal, so the
 * planner matches the partial index; the settings are those of the store's search function
 * (postgres.ts, annFunctionDdl).
 */
export function copiesAnnFunctionDdl(dim: number, efDefault: number): RawBuilder<unknown> {
  const d = String(dim);
  return sql`CREATE OR REPLACE FUNCTION ${sql.id(copiesAnnFunction(dim))}(p_indexes integer[], p_query vector, p_wanted integer, p_ef integer)
    RETURNS TABLE (product_id text, vector_id text, distance double precision)
    LANGUAGE plpgsql VOLATILE
    SET search_path FROM CURRENT
    SET enable_sort = off
    SET hnsw.iterative_scan = relaxed_order
    SET hnsw.ef_search = ${sql.raw(String(efDefault))}
    AS $fn$
    DECLARE
      idx integer;
    BEGIN
      PERFORM set_config('hnsw.ef_search', p_ef::text, true);
      FOREACH idx IN ARRAY p_indexes LOOP
        RETURN QUERY EXECUTE format(
          'SELECT c.product_id, c.vector_id, v.embedding::vector(${sql.raw(d)}) <=> $1::vector(${sql.raw(d)})
           FROM (SELECT c.store_id, c.product_id, c.vector_id FROM product_vector_copies c
                 WHERE c.index_id = %s
                 ORDER BY c.embedding::halfvec(${sql.raw(d)}) <=> $1::halfvec(${sql.raw(d)}) LIMIT $2) c
           JOIN product_vectors v ON v.store_id = c.store_id AND v.product_id = c.product_id',
          idx)
        USING p_query, p_wanted;
      END LOOP;
    END
    $fn$`;
}
