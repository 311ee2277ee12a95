// The vector index's contract and options, apart from index.ts (which picks an adapter) so the
// adapters (embedded.ts, postgres.ts) and the repository name them without an import cycle.
import type { Clock } from "../platform/clock.js";
import type { AttributeFilter, ProductAttributes } from "./attributes.js";
import type { Executor } from "../platform/db/index.js";
import type { Candidates } from "./candidates.js";
import type { FilterIndexOptions, FilterIndexReport } from "./filter-indexes.js";

export interface VectorMatch {
  productId: string;
  vectorId: string;
  /** Cosine similarity in [-1, 1]; callers clamp to [0, 1]. */
  score: number;
  /** Returned because the caller asked for its similarity (VectorSearchOptions.also), not as one of the k nearest. */
  also?: true;
}

export interface VectorSearchOptions {
  k: number;
  /**
   * Restrict to these products (already filtered by the caller): ids in hand, or a filter left in
   * the database (PostgreSQL only; see candidates.ts). undefined = no filter.
   */
  candidates?: Candidates | undefined;
  /**
   * How many of the k nearest must carry their similarity from the full vectors, in exact order
   * (default k). A deeper search for fusion only needs its head exact: past it, the PostgreSQL
   * filter-index copies' half-precision similarity (within HALF_PRECISION_SLACK / 2 of the full
   * one) may stand, which saves reading those full vectors. The other adapters are exact throughout.
   */
  exact?: number | undefined;
  /**
   * Products whose similarity the caller wants apart from the nearest, wherever they rank (a text
   * search's lexical hits, which fusion compares by it): the k nearest are taken among the other
   * products, and these follow them, marked `also`, with exact similarities, not checked against
   * `candidates` (the caller has). A caller wanting the page's products that are not hits so asks
   * for a page, not for a page plus the hits. PostgreSQL reads them beside the nearest, on a
   * second connection, so that they cost no round trip after the search, and leaves them out of
   * a filter index's scan, or of an unfiltered one of the store's HNSW index, itself (mergeAlso).
   */
  also?: ReadonlySet<string> | undefined;
}

/** The k nearest (none of them asked for apart), then the `also` matches, marked (VectorSearchOptions.also). */
export function mergeAlso(nearest: VectorMatch[], also: readonly VectorMatch[]): VectorMatch[] {
  const out = nearest.slice();
  // Built field by field: a spread copy costs several times as much, on every text search.
  for (const m of also) out.push({ productId: m.productId, vectorId: m.vectorId, score: m.score, also: true });
  return out;
}

/** The `k` best of `matches` (best first) that are not asked for apart (VectorSearchOptions.also). */
export function nearestApart<M extends { productId: string }>(
  matches: readonly M[],
  k: number,
  apart: ReadonlySet<string> | undefined,
): M[] {
  return (apart && apart.size > 0 ? matches.filter((m) => !apart.has(m.productId)) : matches).slice(0, k);
}

export interface VectorUpsert {
  vectorId: string;
  productId: string;
  /** Fingerprint of the model that produced the vector. */
  model: string;
  vector: Float32Array;
}

export interface VectorChanges {
  upserted?: { vectorId: string; productId: string; vector: Float32Array }[];
  removedProductIds?: string[];
  /** The committed filterable fields of written products (embedded: kept for in-memory filters). */
  attributes?: { productId: string; attributes: ProductAttributes }[];
}

export interface ModelCount {
  model: string;
  dim: number;
  count: number;
}

export interface VectorIndex {
  /** Inside the caller's transaction: insert or replace the vector of a product. */
  upsert(tx: Executor, storeId: string, item: VectorUpsert): Promise<void>;
  remove(tx: Executor, storeId: string, productIds: string[]): Promise<void>;
  /** After the caller's transaction committed: bring the in-memory index in step (no-op on PG). Safe to call twice. */
  afterCommit(storeId: string, changes: VectorChanges): void;
  /**
   * Embedded only: the store's products passing `filter`, evaluated in memory over the fields
   * kept beside the vectors (a bitmap per vector group, cached until the group changes), usable as
   * `candidates`. Undefined when the adapter filters in SQL (PostgreSQL).
   */
  filterCandidates?(storeId: string, filter: AttributeFilter): ReadonlySet<string> | undefined;
  /**
   * Embedded only: the fields kept beside the vectors of those of `productIds` the index holds,
   * read from memory (a search re-ranks by them without reading product rows). Undefined when the
   * adapter keeps none (PostgreSQL) or has not loaded them yet.
   */
  attributes?(storeId: string, productIds: readonly string[]): Map<string, ProductAttributes> | undefined;
  /** The k most similar vectors of the store with the query's dimension, best first. */
  search(storeId: string, query: Float32Array, options: VectorSearchOptions): Promise<VectorMatch[]>;
  /** The stored (unit-length) vector of a product, e.g. for "more like this" and near-duplicate checks. */
  get(storeId: string, productId: string): Promise<Float32Array | undefined>;
  count(storeId: string): Promise<number>;
  /** Vectors of the store per model fingerprint and dimension (to spot vectors of an old model). */
  countByModel(storeId: string): Promise<ModelCount[]>;
  /** Load / rebuild in-memory state from the database at start. */
  init(): Promise<void>;
  /**
   * PostgreSQL: gives large categories and brands filter indexes (compact copies of their
   * vectors) and drops those no longer needed (filter-indexes.ts). Undefined on the embedded index, which filters in memory.
   */
  refreshFilterIndexes?(signal?: AbortSignal): Promise<FilterIndexReport>;
  /** Resolves once background index work (HNSW builds) has finished; for tests and benchmarks. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface VectorIndexOptions {
  clock?: Clock;
  /**
   * A store (per dimension) with at most this many vectors is searched exactly (brute force);
   * above it an HNSW index answers. Default 5,000: an exact scan of 5,000 × 512-d takes about
   * 1 ms natively on this class of machine, and results below the threshold are exact.
   */
  bruteForceThreshold?: number;
  /**
   * Filtered search scans its candidates exactly when candidates × dimension is at most this.
   * Default embedded 1,048,576 (2,048 candidates at 512-d, 16,384 at 64-d: ~2 ms in the JS loop);
   * PostgreSQL 262,144 (512 candidates at 512-d: each costs an index lookup and a row fetch).
   */
  exactBudget?: number;
  /** Filtered search is always exact when the candidates are fewer than this share of the store. Default 0.01. */
  minAnnSelectivity?: number;
  /** Filtered HNSW search asks for k' = k × oversample / selectivity neighbours, then filters. Default 2. */
  oversample?: number;
  /**
   * Cost of one HNSW neighbour in exact candidate comparisons (measured, see plan.ts; default
   * embedded 5, PostgreSQL 3): a filtered search is exact when annCostRatio × k' ≥ candidates.
   */
  annCostRatio?: number;
  /**
   * HNSW parameters: M (default 16), ef_construction (default 128), ef_search (default 64;
   * PostgreSQL 100, growing with the index past 250,000 vectors when not given: docs/operations.md "Sizing
   * notes").
   */
  hnsw?: { connectivity?: number; expansionAdd?: number; expansionSearch?: number };
  /** Embedded: the longest synchronous slice of background HNSW building, in ms. Default 8. */
  sliceMs?: number;
  /**
   * PostgreSQL: index half-precision copies (`halfvec`, pgvector 0.7+) instead of full vectors:
   * half the index size and memory (`product_vectors_hnswh_<dim>`), recall@10 0.997 vs 1.000 at
   * 100,000 × 512-d (docs/operations.md "Sizing notes"); scores are still computed from the full vectors.
   * Default false.
   */
  halfvec?: boolean;
  /** PostgreSQL: how long a store's vector count (used to choose exact or HNSW) is cached, in ms. Default 10,000. */
  countCacheMs?: number;
  /**
   * PostgreSQL: which categories and brands get a filter index, a compact copy of their vectors
   * that filtered searches scan (filter-indexes.ts): those with at least `minRows` products
   * (default 2,000; 0 = none), at most `maxPerStore` (default 128) per store and dimension.
   */
  filterIndexes?: Partial<FilterIndexOptions>;
  /**
   * PostgreSQL: how many more of a filter index's nearest copies than the k wanted are re-scored
   * from the full vectors (half precision may swap near neighbours), as a share of k, and at least
   * 30 more. It also sets how far a value's inverted lists are read: further lists until that many
   * copies are held. Where the copies are scanned exactly or read through a graph, the share is
   * of the head re-scored exactly (VectorSearchOptions.exact) rather than of k. Default 3 (4 × k): on real photos at k = 100 a margin of 1 lost recall@100
   * (0.997 → 0.97) on categories whose probed lists hold fewer (eval:filter-lists --k 100).
   */
  copiesRescoreMargin?: number;
  /**
   * Embedded: how vectors are stored inside the HNSW index — "f16" (default: half the memory of
   * "f32", the same results in eval:search, docs/operations.md "Vector index"), "f32" or "i8" (a quarter).
   * Exact search and the re-scoring of HNSW candidates always use the f32 matrix, so scores stay
   * exact; only which neighbours HNSW finds can change.
   */
  quantization?: "f32" | "f16" | "i8";
  /** Embedded: folder for HNSW snapshots (loaded at start when they match the database). Default none. */
  snapshotDir?: string;
  /** Embedded: how often changed indexes are saved to the snapshot folder, in ms. Default 60,000. */
  snapshotIntervalMs?: number;
}

export interface ResolvedOptions {
  clock: Clock;
  bruteForceThreshold: number;
  exactBudget: number;
  minAnnSelectivity: number;
  oversample: number;
  annCostRatio: number;
  connectivity: number;
  expansionAdd: number;
  expansionSearch: number;
  /**
   * PostgreSQL: expansionSearch was left to its default, so it grows with the index (see
   * PostgresVectorIndex: ×√(vectors / 250,000) above 250,000 vectors).
   */
  expansionSearchScales: boolean;
  sliceMs: number;
  countCacheMs: number;
  filterIndexes: FilterIndexOptions;
  copiesRescoreMargin: number;
  halfvec: boolean;
  quantization: "f32" | "f16" | "i8";
  snapshotDir: string | null;
  snapshotIntervalMs: number;
}
