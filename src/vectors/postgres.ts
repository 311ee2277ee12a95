// PostgreSQL adapter: pgvector 0.8, no in-process state.
//
// `product_vectors.embedding` is a `vector` without a fixed dimension (a store may move to a model
// of another size), and HNSW needs one: for every dimension in use there is a partial expression
// index `product_vectors_hnsw_<dim>` on `(embedding::vector(<dim>)) vector_cosine_ops WHERE
// dim = <dim>` (m = 16, ef_construction = 64), created idempotently at init() and when a vector
// of a new dimension is written. Queries that should use it repeat the cast and the predicate
// with literal values, so the planner can match them.
//
// Choosing a plan. The index spans all stores; a store's rows are found in it by filtering on
// store_id, which pgvector 0.8's iterative index scans (`hnsw.iterative_scan = relaxed_order`)
// make work. Per query:
//   - store (of this dimension) ≤ bruteForceThreshold vectors → exact: ordered scan of the
//     store's rows through the (store_id, dim) index, no HNSW (the uncast expression cannot
//     match it);
//   - unfiltered → HNSW (ef_search = max(64, k')), relaxed order re-sorted here;
//   - with candidates: plan.ts decides — exact over `product_id = ANY(candidates)` when that is
//     cheaper (few candidates, or an HNSW round shows the filter keeps little near the query),
//     otherwise HNSW with oversampling (k' = k × oversample / selectivity) and filtering here.
// The store's HNSW index spans all stores, so the store itself is a filter on it: its share of
// the vectors of that dimension multiplies into the selectivity above (and a store below
// minAnnSelectivity of the index is always searched exactly). The counts behind these choices
// are cached for countCacheMs.
import { sql } from "kysely";
import type { Database, Executor, Tx } from "../platform/db/index.js";
import type { ModelCount, ResolvedOptions, VectorChanges, VectorIndex, VectorMatch, VectorSearchOptions, VectorUpsert } from "./index.js";
import { normalized, toPgVector } from "./math.js";
import { planFiltered, replanFiltered } from "./plan.js";
import type { SearchPath } from "./memory.js";
import { VectorRepository } from "./repository.js";

/** pgvector cannot index `vector` columns of more than 2,000 dimensions with HNSW. */
const MAX_HNSW_DIM = 2_000;
/** pgvector's upper bound for hnsw.ef_search. */
const MAX_EF_SEARCH = 1_000;

interface Row {
  product_id: string;
  vector_id: string;
  distance: number;
}

export class PostgresVectorIndex implements VectorIndex {
  private readonly repo: VectorRepository;
  private readonly ensured = new Map<number, Promise<boolean>>();
  private readonly counts = new Map<string, { count: number; at: number }>();
  /** The path the last search took (tests and the benchmark look at it). */
  lastPath: SearchPath | "none" = "none";

  constructor(
    private readonly database: Database,
    private readonly options: ResolvedOptions,
  ) {
    this.repo = new VectorRepository(database);
  }

  async upsert(tx: Executor, storeId: string, item: VectorUpsert): Promise<void> {
    const unit = normalized(item.vector);
    await this.repo.upsert(tx, storeId, { vectorId: item.vectorId, productId: item.productId, model: item.model, unit }, this.options.clock.now());
  }

  async remove(tx: Executor, storeId: string, productIds: string[]): Promise<void> {
    await this.repo.remove(tx, storeId, productIds);
  }

  /** Nothing to keep in step; forgets the cached counts and prepares an index for a new dimension. */
  afterCommit(storeId: string, changes: VectorChanges): void {
    for (const key of this.counts.keys()) if (key.startsWith(`${storeId}\u0000`)) this.counts.delete(key);
    for (const item of changes.upserted ?? []) {
      void this.ensureIndex(item.vector.length).catch(() => undefined);
    }
  }

  async search(storeId: string, query: Float32Array, options: VectorSearchOptions): Promise<VectorMatch[]> {
    const unit = normalized(query);
    const dim = unit.length;
    const k = Math.floor(options.k);
    const candidates = options.candidates;
    this.lastPath = "none";
    if (k <= 0 || candidates?.size === 0) return [];
    const n = await this.cachedCount(storeId, dim);
    if (n === 0) return [];
    // The HNSW index spans every store: the store is itself a filter on it, of this share.
    const storeShare = n / Math.max(n, await this.cachedCount(undefined, dim));
    const annPossible =
      n > this.options.bruteForceThreshold && storeShare >= this.options.minAnnSelectivity && (await this.ensureIndex(dim).catch(() => false));
    if (!candidates) {
      if (annPossible) {
        const wanted = storeShare >= 1 ? k : Math.min(n, Math.ceil((k * this.options.oversample) / storeShare));
        const hits = await this.ann(storeId, unit, wanted);
        if (hits.length >= Math.min(k, n)) return this.finish("hnsw", hits, k);
      }
      return this.finish("exact", await this.exact(storeId, unit, k, undefined), k);
    }
    // The selectivity within the HNSW index: the store's share times the candidates' share.
    const size = candidates.size;
    const share = storeShare * Math.min(1, size / n);
    let plan = planFiltered({ k, candidates: size, selectivity: share, dim, annReady: annPossible }, this.options);
    for (let round = 0; plan.kind === "ann"; round++) {
      const wanted = Math.min(plan.wanted, n);
      const rows = await this.ann(storeId, unit, wanted);
      const hits = rows.filter((r) => candidates.has(r.product_id));
      if (hits.length >= k) return this.finish("hnsw-filtered", hits, k);
      // Exhausted: the store has no more rows, or the scan stopped at hnsw.max_scan_tuples.
      const exhausted = wanted >= n || rows.length < wanted;
      // Re-planned in store rows (the hit rate is measured among them), then over-asked by the
      // store's share again as above.
      const inStore = Math.ceil(wanted * storeShare);
      plan = replanFiltered({ k, candidates: size, wanted: inStore, returned: rows.length, hits: hits.length, exhausted, round }, this.options);
      if (plan.kind === "ann") plan = { kind: "ann", wanted: Math.ceil(plan.wanted / storeShare) };
    }
    return this.finish("exact-candidates", await this.exact(storeId, unit, k, candidates), k);
  }

  get(storeId: string, productId: string): Promise<Float32Array | undefined> {
    return this.repo.get(storeId, productId);
  }

  count(storeId: string): Promise<number> {
    return this.repo.count(storeId);
  }

  countByModel(storeId: string): Promise<ModelCount[]> {
    return this.repo.countByModel(storeId);
  }

  /** Makes sure every dimension in use has its HNSW index. */
  async init(): Promise<void> {
    for (const dim of await this.repo.dims()) await this.ensureIndex(dim);
  }

  async settled(): Promise<void> {
    await Promise.all([...this.ensured.values()].map((p) => p.catch(() => false)));
  }

  async close(): Promise<void> {
    await this.settled();
    this.counts.clear();
  }

  /**
   * Creates `product_vectors_hnsw_<dim>` if missing (once per process and dimension). Resolves
   * false when the dimension cannot have an HNSW index. The advisory lock keeps two processes from
   * building the same index at once.
   */
  ensureIndex(dim: number): Promise<boolean> {
    if (!Number.isInteger(dim) || dim < 1) return Promise.resolve(false);
    if (dim > MAX_HNSW_DIM) return Promise.resolve(false);
    let pending = this.ensured.get(dim);
    if (!pending) {
      pending = this.database
        .transaction(async (tx) => {
          const name = sql.id(`product_vectors_hnsw_${dim}`);
          const d = sql.raw(String(dim));
          await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ${`.product_vectors_hnsw_${dim}`}))`.execute(tx);
          // Building over existing rows is faster with room for the graph in memory.
          await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(tx);
          await sql`CREATE INDEX IF NOT EXISTS ${name} ON product_vectors USING hnsw ((embedding::vector(${d})) vector_cosine_ops)
            WITH (m = ${sql.raw(String(this.options.connectivity))}, ef_construction = ${sql.raw(String(this.options.expansionAdd))})
            WHERE dim = ${d}`.execute(tx);
          return true;
        })
        .catch((error: unknown) => {
          this.ensured.delete(dim);
          throw error;
        });
      this.ensured.set(dim, pending);
    }
    return pending;
  }

  // ---------------------------------------------------------------- queries ---

  /** Vectors of this dimension in the store (or, without a store, in all stores), cached. */
  private async cachedCount(storeId: string | undefined, dim: number): Promise<number> {
    const key = `${storeId ?? ""}\u0000${dim}`;
    const now = this.options.clock.now();
    const cached = this.counts.get(key);
    if (cached && now - cached.at < this.options.countCacheMs) return cached.count;
    const count = storeId === undefined ? await this.repo.countDim(dim) : await this.repo.count(storeId, dim);
    // An empty store is not cached: another process may be filling it.
    if (count > 0) this.counts.set(key, { count, at: now });
    else this.counts.delete(key);
    return count;
  }

  /** Exact: every vector of the store (or of the candidates) is compared; no HNSW. */
  private async exact(storeId: string, unit: Float32Array, k: number, candidates: ReadonlySet<string> | undefined): Promise<Row[]> {
    const q = toPgVector(unit);
    const restrict = candidates ? sql`AND product_id = ANY(${[...candidates]}::text[])` : sql``;
    const { rows } = await sql<Row>`
      SELECT product_id, vector_id, embedding <=> ${q}::vector AS distance
      FROM product_vectors
      WHERE store_id = ${storeId} AND dim = ${unit.length} ${restrict}
      ORDER BY distance, product_id
      LIMIT ${k}`.execute(this.database.db);
    return rows;
  }

  /**
   * HNSW: the `wanted` nearest vectors of the store through `product_vectors_hnsw_<dim>`
   * (iterative scan, relaxed order: finish() re-sorts).
   */
  private ann(storeId: string, unit: Float32Array, wanted: number): Promise<Row[]> {
    return this.withAnnSettings(wanted, async (tx) => (await annQuery(storeId, unit, wanted).execute(tx)).rows);
  }

  /** The plan of the HNSW query (tests check that it scans the HNSW index). */
  async explainAnn(storeId: string, query: Float32Array, wanted: number): Promise<string> {
    const unit = normalized(query);
    await this.ensureIndex(unit.length);
    return this.withAnnSettings(wanted, async (tx) => {
      const { rows } = await sql<{ "QUERY PLAN": string }>`EXPLAIN ${annQuery(storeId, unit, wanted)}`.execute(tx);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
  }

  private withAnnSettings<T>(wanted: number, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const ef = Math.min(MAX_EF_SEARCH, Math.max(this.options.expansionSearch, wanted));
    return this.database.transaction(async (tx) => {
      // Settings for this transaction only. enable_sort = off: the adapter has decided that an
      // index-ordered scan is right; without it the planner may prefer sorting the store's rows.
      await sql`SELECT set_config('hnsw.ef_search', ${String(ef)}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('enable_sort', 'off', true)`.execute(tx);
      return fn(tx);
    });
  }

  private finish(path: SearchPath, rows: Row[], k: number): VectorMatch[] {
    this.lastPath = path;
    return rows
      .map((r) => ({ productId: r.product_id, vectorId: r.vector_id, score: 1 - Number(r.distance) }))
      .sort((a, b) => b.score - a.score || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0))
      .slice(0, k);
  }
}

/** The HNSW query: the cast and the `dim` predicate are literals so the partial index matches. */
function annQuery(storeId: string, unit: Float32Array, wanted: number) {
  const q = toPgVector(unit);
  const d = sql.raw(String(unit.length));
  return sql<Row>`
    SELECT product_id, vector_id, embedding::vector(${d}) <=> ${q}::vector(${d}) AS distance
    FROM product_vectors
    WHERE store_id = ${storeId} AND dim = ${d}
    ORDER BY distance
    LIMIT ${wanted}`;
}
