// PostgreSQL adapter: pgvector 0.8, no in-process state.
//
// `product_vectors.embedding` is a `vector` without a fixed dimension (a store may move to a model
// of another size), and HNSW needs one: for every dimension in use there is a partial expression
// index `product_vectors_hnsw_<dim>` on `(embedding::vector(<dim>)) vector_cosine_ops WHERE
// dim = <dim>` (m = 16, ef_construction = 128), created idempotently at init() and when a vector
// of a new dimension is written. Queries that should use it repeat the cast and the predicate
// with literal values, so the planner can match them.
//
// Choosing a plan. The index spans all stores; a store's rows are found in it by filtering on
// store_id, which pgvector 0.8's iterative index scans (`hnsw.iterative_scan = relaxed_order`)
// make work. Per query:
//   - store (of this dimension) ≤ bruteForceThreshold vectors → exact: ordered scan of the
//     store's rows through the (store_id, dim) index, no HNSW (the uncast expression cannot
//     match it);
//   - unfiltered → HNSW (ef_search = max(depth, k'): see efSearch()), relaxed order re-sorted here;
//   - with candidates: plan.ts decides — exact over the candidates (`product_id = ANY(ids)`, or
//     `IN (subquery)` for a filter left in the database: candidates.ts) when that is
//     cheaper (few candidates, or an HNSW round shows the filter keeps little near the query),
//     otherwise HNSW with oversampling (k' = k × oversample / selectivity) and filtering here,
//     unless the first round shows the filter excludes the query's neighbourhood (below), or the
//     round would reach past ef_search's ceiling while the candidates are few (beyondGraphWalk).
// A filter that pins a category or brand with a filter index (filter-indexes.ts) scans that
// value's compact copies instead of the store's rows wherever an exact scan is due, and the cost
// model weighs HNSW rounds against that cheaper scan (COPIES_SPEEDUP). A large value's copies are
// read through its inverted lists (PROBED_SHARE of them) when the filter is that value or values
// as a whole; a filter narrower than them (a category and a price) scans them exactly.
// The store's HNSW index spans all stores, so the store itself is a filter on it: its share of
// the vectors of that dimension multiplies into the selectivity above (and a store below
// minAnnSelectivity of the index is always searched exactly). The counts behind these choices
// are cached for countCacheMs.
//
// A filter against the query's neighbourhood. HNSW ranks the query's own neighbourhood well and
// the rest of the store badly: far from the query many vectors are nearly equidistant, and the
// graph reaches an arbitrary part of them. A filter that follows the vectors (categories follow
// appearance) can exclude the whole neighbourhood; the k hits an HNSW round then finds come from
// that badly ranked remainder (bench:scale, 100k products, a 10 % category filter: recall@10
// 0.86–0.89; HNSW alone needs ~2,000 neighbours for 0.94, slower than the exact scan; pushing the
// filter into pgvector's iterative scan gets 0.69–0.75 even with ef_search 400 and
// hnsw.max_scan_tuples 100,000, relaxed or strict order, because it walks the same graph). The
// first round measures it: among the query's ⌈k / s⌉ nearest rows (s = the candidates' share of
// the store) an independent filter keeps about k; when it keeps none of them, the filter is taken
// to exclude the neighbourhood and the search is exact over the candidates (an independent filter
// keeps none with probability ≈ e^-k: 0.005 % at k = 10; with fewer than 4 hits expected, k < 4,
// there is no judgement). A filter that only thins the neighbourhood (keeps 1 in 7 of it where it
// keeps half the store) still finds its hits there, well ranked, and stays on HNSW.
import { sql } from "kysely";
import type pg from "pg";
import type { Database, Executor } from "../platform/db/index.js";
import type { ModelCount, ResolvedOptions, VectorChanges, VectorIndex, VectorMatch, VectorSearchOptions, VectorUpsert } from "./types.js";
import { mergeAlso, nearestApart } from "./types.js";
import { normalized, toPgVector } from "./math.js";
import { isDeferred, passing, type Candidates, type DeferredCandidates } from "./candidates.js";
import { planFiltered, replanFiltered, type Plan } from "./plan.js";
import type { SearchPath } from "./memory.js";
import { VectorRepository } from "./repository.js";
import { copiesRescored, FilterIndexes, type FilterIndexReport, type ServingIndexes } from "./filter-indexes.js";

/** pgvector cannot index `vector` columns of more than 2,000 dimensions with HNSW. */
const MAX_HNSW_DIM = 2_000;
/** pgvector's upper bound for hnsw.ef_search. */
const MAX_EF_SEARCH = 1_000;
/** Index size (vectors of a dimension, all stores) at which the default ef_search is the configured base (100). */
const EF_REFERENCE_SIZE = 250_000;
/**
 * How the default ef_search follows the index size: base × (vectors / 250,000)^0.8. Measured
 * (bench:scale, 512-d, recall@10): at 1,000,000 the square root's 200 found 0.954–0.956 on two
 * builds of the graph of three, 300 found 0.996 (+0.5 ms); at 50,000 and 100,000 a depth of 40
 * finds 1.000 where 100 cost 2–3 ms more per search.
 */
const EF_GROWTH = 0.8;
/** The default ef_search of a small index at least. */
const MIN_DEFAULT_EF_SEARCH = 40;
/** Hits expected among the query's nearest rows below which a filter is not judged by them. */
const MIN_EXPECTED_HITS = 4;
/**
 * How many times cheaper an exact scan over a filter index's copies (filter-indexes.ts) is than
 * over the store's rows, per candidate: bench:scale at a million products, 10,000 candidates, 8–10
 * vs 79–100 ms warm. The cost model weighs HNSW rounds against the scan with it.
 */
const COPIES_SPEEDUP = 10;
/** Copies read through inverted lists up to which a whole filter skips HNSW rounds (~20 ms of reading: 12,500 took ~12 ms in bench:scale). */
const LISTS_DIRECT_COPIES = 25_000;
/**
 * How far past the k-th nearest copy's half-precision distance a copy can still be among the k
 * nearest by the full vectors. Rounding to half precision (11-bit significand, u = 2⁻¹¹) moves
 * the cosine of two unit vectors by at most about 4u ≈ 0.002 (the product of each pair of
 * components and both norms rounded once; the sum of |xᵢ·qᵢ| is at most 1), so two distances
 * compared may each be off by that much: copies beyond the k-th distance + 2 × 4u cannot reach the
 * k nearest and are not read again from the full vectors. Measured at a million products on a
 * brand's 10,000 copies: 121–133 of the 400 nearest copies lie within it at k = 100, 10–12 at k = 10.
 */
export const HALF_PRECISION_SLACK = 8 * 2 ** -11;

/** The paths a search takes here: the embedded index's, and a filter index's copies scanned exactly, through inverted lists or through a graph. */
export type PostgresPath = SearchPath | "exact-filter-index" | "ivf-filter-index" | "hnsw-filter-index";

interface Row {
  product_id: string;
  vector_id: string;
  distance: number;
}

export class PostgresVectorIndex implements VectorIndex {
  private readonly repo: VectorRepository;
  private readonly ensured = new Map<number, Promise<boolean>>();
  private readonly counts = new Map<string, { count: number; at: number }>();
  private readonly filterIndexes: FilterIndexes;
  /** The path the last search took (tests and the benchmark look at it). */
  lastPath: PostgresPath | "none" = "none";

  constructor(
    private readonly database: Database,
    private readonly options: ResolvedOptions,
  ) {
    this.repo = new VectorRepository(database);
    this.filterIndexes = new FilterIndexes(database, {
      ...options.filterIndexes,
      clock: options.clock,
      cacheMs: options.countCacheMs,
      rescoreMargin: options.copiesRescoreMargin,
    });
  }

  async upsert(tx: Executor, storeId: string, item: VectorUpsert): Promise<void> {
    await this.repo.upsert(tx, storeId, item, this.options.clock.now());
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
    const also = options.also;
    if (!also || also.size === 0) return this.nearest(storeId, unit, options);
    // The products asked for by id on a connection of their own, beside the nearest.
    const [nearest, rows] = await Promise.all([this.nearest(storeId, unit, options, also), this.exact(storeId, unit, also.size, also)]);
    return mergeAlso(nearest, matchesOf(rows));
  }

  /**
   * The k nearest of `unit` (a unit vector) under the options' candidates, none of them `apart`:
   * a scan of filter-index copies, and one of the store's HNSW index, leave those out themselves;
   * an exact scan of the store's rows reads k + their number.
   */
  private async nearest(
    storeId: string,
    unit: Float32Array,
    options: VectorSearchOptions,
    apart?: ReadonlySet<string>,
  ): Promise<VectorMatch[]> {
    const dim = unit.length;
    const asked = Math.floor(options.k);
    // What an exact scan of the store's rows, which cannot leave the products apart out, reads: as many more.
    const k = asked + (apart?.size ?? 0);
    const candidates = options.candidates;
    const finish = (path: PostgresPath, rows: Row[]) => this.finish(path, rows, asked, apart);
    this.lastPath = "none";
    if (asked <= 0 || candidates?.size === 0) return [];
    const n = await this.cachedCount(storeId, dim);
    if (n === 0) return [];
    // The HNSW index spans every store: the store is itself a filter on it, of this share.
    const total = Math.max(n, await this.cachedCount(undefined, dim));
    const storeShare = n / total;
    // The function leaves the products apart out as its scan goes (annFunctionDdl): a page apart
    // from 100 hits reads 10 rows' full vectors, not 110 (bench:scale's build 9, a million
    // products, unfiltered: +0.3 ms p50 over the same search with none apart, against +1.8 ms
    // reading 110). So the HNSW rounds below count in the rows asked for.
    const ann = (wanted: number) => this.ann(storeId, unit, wanted, total, apart);
    const annPossible =
      n > this.options.bruteForceThreshold &&
      storeShare >= this.options.minAnnSelectivity &&
      (await this.ensureIndex(dim).catch(() => false));
    if (!candidates) {
      const wanted = storeShare >= 1 ? asked : Math.min(n, Math.ceil((asked * this.options.oversample) / storeShare));
      // A small store in a large index is itself a selective filter: the same limit applies.
      if (annPossible && beyondGraphWalk({ kind: "ann", wanted }, n, this.options.annCostRatio).kind === "ann") {
        const hits = await ann(wanted);
        if (hits.length >= Math.min(asked, n - (apart?.size ?? 0))) return finish("hnsw", hits);
      }
      return finish("exact", await this.exact(storeId, unit, k, undefined));
    }
    // A filter pinning a category or brand with a filter index: its copies stand in for the
    // store's rows in exact scans.
    const serving =
      isDeferred(candidates) && candidates.scopes ? await this.filterIndexes.serving(storeId, dim, candidates.scopes) : undefined;
    // A filter of more than the values (a category and a price): the copies scanned exactly, the
    // rest of the filter applied in the scan. Otherwise inverted lists or a graph, if any.
    const narrower = serving !== undefined && !serving.whole;
    const listed = serving !== undefined && !narrower && serving.listed;
    const graphed = serving !== undefined && !narrower && serving.graphed;
    const approximate = listed || graphed;
    const exactly = async (): Promise<VectorMatch[]> => {
      const exactHead = Math.max(1, Math.min(asked, Math.floor(options.exact ?? asked)));
      const copied =
        serving && isDeferred(candidates)
          ? await this.copies(storeId, unit, asked, exactHead, candidates, serving, narrower, apart)
          : undefined;
      if (copied) return finish(listed ? "ivf-filter-index" : graphed ? "hnsw-filter-index" : "exact-filter-index", copied);
      return finish("exact-candidates", await this.exact(storeId, unit, k, candidates));
    };
    // Through inverted lists (or a value's graph) a search costs about the same wherever the query
    // lies, while an HNSW round that finds the query's neighbourhood excluded is paid on top of
    // the scan that follows (bench:scale, two categories: rounds of 70–130 ms, the lists 15 ms): a
    // whole filter whose lists or graphs read few copies goes to them at once.
    if (approximate && serving.reads <= LISTS_DIRECT_COPIES) return exactly();
    // An HNSW row weighed against a scan of copies, when there are copies to scan (those it reads,
    // fewer through inverted lists or a graph).
    const speedup = approximate ? (COPIES_SPEEDUP * serving.rows) / Math.max(1, serving.reads) : COPIES_SPEEDUP;
    const costs = serving ? { ...this.options, annCostRatio: this.options.annCostRatio * speedup } : this.options;
    // The selectivity within the HNSW index: the store's share times the candidates' share.
    const size = candidates.size;
    const share = storeShare * Math.min(1, size / n);
    const deep = (p: Plan) => beyondGraphWalk(p, size, costs.annCostRatio);
    let plan = deep(planFiltered({ k: asked, candidates: size, selectivity: share, dim, annReady: annPossible }, costs));
    for (let round = 0; plan.kind === "ann"; round++) {
      const wanted = Math.min(plan.wanted, n);
      const rows = await ann(wanted);
      const passed = await passing(
        candidates,
        rows.map((r) => r.product_id),
      );
      if (round === 0 && excludesNeighbourhood(rows, passed, asked, Math.min(1, size / n))) break;
      const hits = rows.filter((r) => passed.has(r.product_id));
      if (hits.length >= asked) return finish("hnsw-filtered", hits);
      // Exhausted: the store has no more rows, or the scan stopped at hnsw.max_scan_tuples.
      const exhausted = wanted >= n || rows.length < wanted;
      // Re-planned in store rows (the hit rate is measured among them), then over-asked by the
      // store's share again as above.
      const inStore = Math.ceil(wanted * storeShare);
      plan = replanFiltered(
        { k: asked, candidates: size, wanted: inStore, returned: rows.length, hits: hits.length, exhausted, round },
        costs,
      );
      if (plan.kind === "ann") plan = deep({ kind: "ann", wanted: Math.ceil(plan.wanted / storeShare) });
    }
    return exactly();
  }

  refreshFilterIndexes(signal?: AbortSignal): Promise<FilterIndexReport> {
    return this.filterIndexes.refresh(signal);
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
          await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ${`.${hnswIndexName(dim, this.options.halfvec)}`}))`.execute(
            tx,
          );
          // Building over existing rows is faster with room for the graph in memory.
          await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(tx);
          await hnswIndexDdl(dim, this.options).execute(tx);
          await annFunctionDdl(dim, this.options.expansionSearch, this.options.halfvec).execute(tx);
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

  /**
   * Exact: every vector of the store (or of the candidates) is compared; no HNSW. Candidates left
   * in the database join as a subquery: at a million products the planner walks the filter's index
   * and looks each product up (1 % brand 135 ms, 10 % two categories 630 ms), as for a list of ids.
   */
  private async exact(storeId: string, unit: Float32Array, k: number, candidates: Candidates | undefined): Promise<Row[]> {
    const { rows } = await exactQuery(storeId, unit, k, candidates).execute(this.database.reader(storeId));
    return rows;
  }

  /**
   * The k + margin copies (copiesRescoreMargin) of the filter indexes `serving` (filter-indexes.ts)
   * nearest by half precision, the `exactHead` nearest of them re-scored from the full vectors. A
   * filter narrower than the values is applied in an exact scan of their copies (one primary-key
   * range per value); otherwise each value's nearest come through its inverted lists or its
   * graph, or an exact scan where it has neither
   * (product_vector_copies_nearest, migration 0022), and are checked against the filter in the
   * same statement (a copy may lag a write that raced the refresh's catch-up). Undefined — the
   * caller then scans the store's rows — when a value is no longer ready or fewer than k pass.
   */
  private async copies(
    storeId: string,
    unit: Float32Array,
    k: number,
    exactHead: number,
    candidates: DeferredCandidates,
    serving: ServingIndexes,
    narrower: boolean,
    apart: ReadonlySet<string> | undefined,
  ): Promise<Row[] | undefined> {
    const q = toPgVector(unit);
    const apartIds = apart ? [...apart] : [];
    const wanted = copiesRescored(k, this.options.copiesRescoreMargin, !narrower && serving.listed ? k : exactHead);
    // Values read through their inverted lists are asked at once, one statement each on a
    // connection of its own, so that their scans run side by side in as many server processes
    // (bench:scale, two categories of 50,000 at a million: p50 ~20 ms one after the other inside
    // one statement). Each statement checks its own values' readiness.
    const groups = !narrower && serving.listed && serving.ids.length > 1 ? serving.ids.map((id) => [id]) : [serving.ids];
    const answers = await Promise.all(
      groups.map((ids) => this.nearestCopies(storeId, q, unit.length, ids, k, exactHead, wanted, candidates, narrower, apartIds)),
    );
    if (answers.some((a) => a === undefined)) return undefined;
    const hits = answers.flatMap((a) => a!);
    return hits.length >= Math.min(k, candidates.size) ? hits : undefined;
  }

  /**
   * The `wanted` copies of the filter indexes `ids` nearest by half precision, of which those that
   * can be among the k nearest (HALF_PRECISION_SLACK) and pass the filter are returned, the ones
   * that can be among the `exactHead` nearest re-scored from the full vectors; undefined when one
   * of the values is no longer ready, or when none is left (a value no longer ready, or no copy
   * passing: the exact scan decides).
   */
  private async nearestCopies(
    storeId: string,
    q: string,
    dim: number,
    ids: number[],
    k: number,
    exactHead: number,
    wanted: number,
    candidates: DeferredCandidates,
    narrower: boolean,
    apart: readonly string[],
  ): Promise<Row[] | undefined> {
    const { rows } = await nearestCopiesQuery(storeId, q, dim, ids, k, wanted, candidates, narrower, exactHead, apart).execute(
      this.database.reader(storeId),
    );
    // No row at all carries no verdict: the function skips a value that is no longer ready, and a
    // copy lagging its product fails the check; the exact scan decides.
    return rows.length === 0 || rows.some((r) => r.ready < ids.length) ? undefined : rows;
  }

  /**
   * HNSW: the `wanted` nearest vectors of the store through `product_vectors_hnsw_<dim>`, none of
   * them `apart` (iterative scan, relaxed order: finish() re-sorts). One statement, one round
   * trip: the per-dimension function `product_vectors_nearest_<dim>` carries the settings (see
   * ensureIndex).
   */
  private async ann(storeId: string, unit: Float32Array, wanted: number, indexSize: number, apart?: ReadonlySet<string>): Promise<Row[]> {
    const ef = this.efSearch(wanted, indexSize);
    const without = apart ? [...apart] : [];
    return (await annQuery(storeId, unit, wanted, ef, this.options.halfvec, without).execute(this.database.reader(storeId))).rows;
  }

  /**
   * The plan the search's own statement runs inside the function, captured with auto_explain
   * (nested statements, logged to `client` as notices): tests check that it scans the HNSW index.
   * `client` is a connection of its own to the same database and schema.
   */
  async explainAnn(client: pg.ClientBase, storeId: string, query: Float32Array, wanted: number): Promise<string> {
    const unit = normalized(query);
    await this.ensureIndex(unit.length);
    const indexSize = await this.cachedCount(undefined, unit.length);
    const compiled = annQuery(storeId, unit, wanted, this.efSearch(wanted, indexSize), this.options.halfvec).compile(this.database.db);
    const plans: string[] = [];
    const onNotice = (notice: { message?: string }) => plans.push(notice.message ?? "");
    client.on("notice", onNotice);
    try {
      await client.query("LOAD 'auto_explain'");
      await client.query(
        "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET client_min_messages = log",
      );
      await client.query(compiled.sql, [...compiled.parameters]);
      await client.query("RESET client_min_messages; RESET auto_explain.log_min_duration");
    } finally {
      client.off("notice", onNotice);
    }
    return plans.join("\n");
  }

  /**
   * hnsw.ef_search for a round asking for `wanted` rows of an index of `indexSize` vectors: at
   * least `wanted`; the configured depth, or by default 100 at 250,000 vectors, following the
   * index's size (EF_GROWTH: HNSW finds fewer true neighbours at a fixed depth as the graph grows,
   * and a small graph needs less; docs/operations.md "Sizing notes") and at least 40; at most pgvector's 1,000.
   */
  efSearch(wanted: number, indexSize: number): number {
    const base = this.options.expansionSearch;
    const depth = this.options.expansionSearchScales
      ? Math.max(MIN_DEFAULT_EF_SEARCH, Math.ceil(base * (Math.max(1, indexSize) / EF_REFERENCE_SIZE) ** EF_GROWTH))
      : base;
    return Math.min(MAX_EF_SEARCH, Math.max(depth, wanted));
  }

  private finish(path: PostgresPath, rows: Row[], k: number, apart: ReadonlySet<string> | undefined): VectorMatch[] {
    this.lastPath = path;
    return nearestApart(matchesOf(rows), k, apart);
  }
}

/** Rows as matches, best first (ties by product id). */
function matchesOf(rows: Row[]): VectorMatch[] {
  return rows
    .map((r) => ({ productId: r.product_id, vectorId: r.vector_id, score: 1 - Number(r.distance) }))
    .sort((a, b) => b.score - a.score || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));
}

/**
 * A round asking for more rows than one graph walk can hold (ef_search is at most 1,000) gets the
 * rest from pgvector's iterative scan, which ranks them worse and costs about twice as much per
 * row as a regular round (annCostRatio): measured in bench:scale at a million products with a 1 %
 * filter (10,000 candidates), 2,000-row rounds took 92.6 ms p50 at recall@10 0.978 where the
 * exact scan of the candidates took 78.7 ms at 1.000, ~6 exact candidates per row. Such a round
 * becomes exact when that costs less (annCostRatio 0, as tests use to force HNSW, never does).
 */
export function beyondGraphWalk(plan: Plan, candidates: number, annCostRatio: number): Plan {
  return plan.kind === "ann" && plan.wanted > MAX_EF_SEARCH && 2 * annCostRatio * plan.wanted >= candidates ? { kind: "exact" } : plan;
}

/**
 * Whether none of the query's ⌈k / s⌉ nearest `rows` is a candidate, where a filter keeping a share
 * `s` of the store independently of the vectors would keep about k of them (see the header).
 */
export function excludesNeighbourhood(rows: readonly Row[], candidates: ReadonlySet<string>, k: number, s: number): boolean {
  const head = [...rows].sort((a, b) => Number(a.distance) - Number(b.distance)).slice(0, Math.ceil(k / s));
  const expected = head.length * s;
  // Too few expected hits to tell (k < 4): no judgement.
  if (expected < MIN_EXPECTED_HITS) return false;
  return !head.some((r) => candidates.has(r.product_id));
}

/** The index of a dimension: `product_vectors_hnsw_<dim>` (vector) or `product_vectors_hnswh_<dim>` (halfvec). */
export function hnswIndexName(dim: number, halfvec: boolean): string {
  return `product_vectors_hnsw${halfvec ? "h" : ""}_${dim}`;
}

/**
 * The partial HNSW index of one dimension (cosine), over the vectors or over half-precision copies
 * of them. bench/scale.ts builds it with the same statement after a bulk load.
 */
export function hnswIndexDdl(dim: number, options: Pick<ResolvedOptions, "connectivity" | "expansionAdd" | "halfvec">) {
  const d = sql.raw(String(dim));
  const type = sql.raw(options.halfvec ? "halfvec" : "vector");
  return sql`CREATE INDEX IF NOT EXISTS ${sql.id(hnswIndexName(dim, options.halfvec))} ON product_vectors USING hnsw ((embedding::${type}(${d})) ${sql.raw(options.halfvec ? "halfvec_cosine_ops" : "vector_cosine_ops")})
    WITH (m = ${sql.raw(String(options.connectivity))}, ef_construction = ${sql.raw(String(options.expansionAdd))})
    WHERE dim = ${d}`;
}

/**
 * The exact scan of PostgresVectorIndex.exact(): every vector of the store (or of the candidates)
 * compared, no HNSW; candidates left in the database join as a subquery.
 */
export function exactQuery(storeId: string, unit: Float32Array, k: number, candidates: Candidates | undefined) {
  const q = toPgVector(unit);
  const restrict = !candidates
    ? sql``
    : isDeferred(candidates)
      ? sql`AND product_id IN ${candidates.subquery}` // kysely parenthesises a nested query
      : sql`AND product_id = ANY(${[...candidates]}::text[])`;
  return sql<Row>`
      SELECT product_id, vector_id, embedding <=> ${q}::vector AS distance
      FROM product_vectors
      WHERE store_id = ${storeId} AND dim = ${unit.length} ${restrict}
      ORDER BY distance, product_id
      LIMIT ${k}`;
}

/**
 * The statement of PostgresVectorIndex.nearestCopies(): the `wanted` copies of the filter indexes
 * `ids` nearest to `q` (the query vector's text form) by half precision, re-scored from the full
 * vectors, with how many of the values are still ready; `narrower`: the filter applied in an exact
 * scan of the copies, else each value's nearest through product_vector_copies_nearest. Only the
 * copies that can be among the `exactHead` nearest (default k) are re-scored; the others that can
 * be among the k nearest keep their half-precision distance. None of the products `apart` is among
 * the copies (VectorSearchOptions.also): the function leaves them out of a value's scan itself, so
 * that its graph or lists walk on past them; an exact scan under a narrower filter reads as many
 * more and drops them.
 */
export function nearestCopiesQuery(
  storeId: string,
  q: string,
  dim: number,
  ids: number[],
  k: number,
  wanted: number,
  candidates: Pick<DeferredCandidates, "subquery">,
  narrower: boolean,
  exactHead = k,
  apart: readonly string[] = [],
) {
  const nearest = narrower
    ? sql`SELECT c.product_id, c.vector_id, c.embedding <=> ${q}::halfvec AS distance FROM product_vector_copies c
          WHERE c.index_id = ANY(${ids}::int[]) AND c.store_id = ${storeId} AND c.product_id IN ${candidates.subquery}
          ORDER BY c.embedding <=> ${q}::halfvec
          LIMIT ${wanted + apart.length}`
    : sql`SELECT n.product_id, n.vector_id, n.distance
          FROM product_vector_copies_nearest(${storeId}, ${dim}, ${ids}::int[], ${q}::halfvec, ${wanted}, ${apart}::text[]) n
          ORDER BY n.distance
          LIMIT ${wanted}`;
  // The registry is read in the same statement: another process may have dropped one of the
  // values since this one cached their ids, and a scan missing a value's products is wrong. The
  // nearest copies are checked against the whole filter here too (a semi-join looking each of
  // them up by primary key), which saves the round trip of a check afterwards (two categories at
  // a million, both statements side by side, interleaved with the old form: p50 12.5–14.0 →
  // 11.1–12.8 ms).
  // Of the copies that pass the filter, only those that can be among the k nearest by the full
  // vectors are returned: those within HALF_PRECISION_SLACK of the k-th half-precision distance
  // (all of them when fewer than k passed). Of those, the ones that can be among the `exactHead`
  // nearest (within the slack of the exactHead-th) are read again from the full vectors, each
  // looked up by primary key only in that branch of the CASE; the rest keep the half-precision
  // distance. At a million products, a brand's 10,000 copies and k = 100, the join this replaces
  // looked up all 400 copies' full vectors (~20 ms of a 49 ms statement); a head of 10 reads 11
  // (docs/benchmarks.md, "the fused depth re-scored only at its head").
  const check = !narrower
    ? sql`WHERE n.product_id IN ${candidates.subquery}`
    : apart.length > 0
      ? sql`WHERE NOT (n.product_id = ANY(${apart}::text[]))`
      : sql``;
  const bar = (rank: number) =>
    sql`coalesce((SELECT distance FROM passed ORDER BY distance OFFSET ${rank - 1} LIMIT 1), 'Infinity') + ${HALF_PRECISION_SLACK}`;
  // (A head copy whose product's vector is gone meanwhile has no distance and is left out. The
  // re-scored rows are materialised before that test: as a subquery, the planner copied the CASE
  // into its filter and looked each head copy up twice.)
  return sql<Row & { ready: number }>`
      WITH passed AS MATERIALIZED (SELECT * FROM (${nearest}) n ${check}),
        bars AS MATERIALIZED (SELECT ${bar(exactHead)} AS head, ${bar(k)} AS depth),
        scored AS MATERIALIZED (
        SELECT c.product_id, c.vector_id,
          CASE WHEN c.distance <= bars.head
            THEN (SELECT v.embedding <=> ${q}::vector FROM product_vectors v
                  WHERE v.store_id = ${storeId} AND v.product_id = c.product_id AND v.dim = ${dim})
            ELSE c.distance END AS distance,
          (SELECT count(*)::int FROM vector_filter_indexes f WHERE f.id = ANY(${ids}::int[]) AND f.ready) AS ready
        FROM passed c, bars
        WHERE c.distance <= bars.depth)
      SELECT * FROM scored WHERE distance IS NOT NULL`;
}

/** The HNSW query: one call of the dimension's function (created with its index), none of the products `apart` among the rows. */
export function annQuery(storeId: string, unit: Float32Array, wanted: number, ef: number, halfvec: boolean, apart: readonly string[] = []) {
  return sql<Row>`SELECT product_id, vector_id, distance FROM ${sql.id(annFunction(unit.length, halfvec))}(${storeId}, ${toPgVector(unit)}::vector, ${wanted}, ${ef}, ${apart}::text[])`;
}

/**
 * `product_vectors_nearest[h]_<dim>`. Processes of an older version call `product_vectors_ann[h]_<dim>`
 * (four arguments, no products apart), which they create themselves; a new name leaves them both
 * callable side by side during an upgrade or a rollback (an overload with a fifth, defaulted
 * argument would make the older calls ambiguous).
 */
function annFunction(dim: number, halfvec: boolean): string {
  return `product_vectors_nearest${halfvec ? "h" : ""}_${dim}`;
}

/**
 * `product_vectors_nearest[h]_<dim>(store, query, wanted, ef, apart)`: the store's `wanted`
 * nearest vectors through the partial HNSW index of that dimension, none of the products `apart`.
 * The cast and the `dim` predicate are literals so the partial index matches. Its SET clauses
 * apply for the call only (PostgreSQL restores them at function exit, and the set_config inside
 * is undone with them): relaxed-order iterative scans (a store is a filter on an index that spans
 * all stores), ef_search as asked, and enable_sort = off (the adapter has decided that an
 * index-ordered scan is right; without it the planner may prefer sorting the store's rows through
 * the btree). search_path is fixed at creation, so the function finds this schema's table
 * whatever the caller's path. With halfvec the order comes from the half-precision index and the
 * distance returned from the full vectors. The products apart are left out above the scan, behind
 * `OFFSET 0` (as in product_vector_copies_nearest, migration 0032), so that the scan walks on past
 * them and only the rows kept are counted against `wanted`.
 */
function annFunctionDdl(dim: number, efDefault: number, halfvec: boolean) {
  const d = sql.raw(String(dim));
  const order = halfvec ? sql`v.embedding::halfvec(${d}) <=> p_query::halfvec(${d})` : sql`3`;
  return sql`CREATE OR REPLACE FUNCTION ${sql.id(annFunction(dim, halfvec))}(p_store text, p_query vector, p_wanted integer, p_ef integer, p_apart text[])
    RETURNS TABLE (product_id text, vector_id text, distance double precision)
    LANGUAGE plpgsql VOLATILE
    SET search_path FROM CURRENT
    SET enable_sort = off
    SET hnsw.iterative_scan = relaxed_order
    SET hnsw.ef_search = ${sql.raw(String(efDefault))}
    AS $fn$
    #variable_conflict use_column
    BEGIN
      PERFORM set_config('hnsw.ef_search', p_ef::text, true);
      RETURN QUERY
        SELECT s.product_id, s.vector_id, s.distance FROM (
          SELECT v.product_id, v.vector_id, v.embedding::vector(${d}) <=> p_query::vector(${d}) AS distance
          FROM product_vectors v
          WHERE v.store_id = p_store AND v.dim = ${d}
          ORDER BY ${order}
          OFFSET 0) s
        WHERE s.product_id <> ALL(coalesce(p_apart, '{}'))
        LIMIT p_wanted;
    END
    $fn$`;
}
