// The vector index: one interface, two adapters, picked by the database dialect.
//
//   - SQLite (embedded default): `product_vectors` in SQLite is the source of truth; each store
//     (per dimension) is mirrored in memory as a contiguous matrix of unit vectors, plus a usearch
//     HNSW index once it holds more than `bruteForceThreshold` vectors. Rebuilt from SQLite by
//     init(), kept in step by afterCommit(). See embedded.ts and memory.ts.
//   - PostgreSQL: pgvector, one partial HNSW index per dimension, iterative index scans. No
//     in-process state. See postgres.ts.
//
// Vectors are compared by cosine similarity and stored L2-normalised. A store holds one vector
// per product; a store may hold vectors of several dimensions while it moves to a new model, and a
// query only ever meets vectors of its own dimension.
import { systemClock } from "../platform/clock.js";
import type { Database } from "../platform/db/index.js";
import { EmbeddedVectorIndex } from "./embedded.js";
import { PostgresVectorIndex } from "./postgres.js";
import { DEFAULT_GRAPH_MIN_ROWS, DEFAULT_LISTS_MIN_ROWS, DEFAULT_MAX_PER_STORE, DEFAULT_MIN_ROWS } from "./filter-indexes.js";

export type {
  VectorMatch,
  VectorSearchOptions,
  VectorUpsert,
  VectorChanges,
  ModelCount,
  VectorIndex,
  VectorIndexOptions,
  ResolvedOptions,
} from "./types.js";
import type { VectorIndex, VectorIndexOptions, ResolvedOptions } from "./types.js";

export function resolveOptions(options: VectorIndexOptions, dialect: Database["dialect"]): ResolvedOptions {
  return {
    clock: options.clock ?? systemClock,
    bruteForceThreshold: options.bruteForceThreshold ?? 5_000,
    exactBudget: options.exactBudget ?? (dialect === "postgres" ? 262_144 : 1_048_576),
    minAnnSelectivity: options.minAnnSelectivity ?? 0.01,
    oversample: options.oversample ?? 2,
    annCostRatio: options.annCostRatio ?? (dialect === "postgres" ? 3 : 5),
    connectivity: options.hnsw?.connectivity ?? 16,
    expansionAdd: options.hnsw?.expansionAdd ?? 128,
    expansionSearch: options.hnsw?.expansionSearch ?? (dialect === "postgres" ? 100 : 64),
    expansionSearchScales: dialect === "postgres" && options.hnsw?.expansionSearch === undefined,
    sliceMs: options.sliceMs ?? 8,
    countCacheMs: options.countCacheMs ?? 10_000,
    filterIndexes: {
      minRows: options.filterIndexes?.minRows ?? DEFAULT_MIN_ROWS,
      maxPerStore: options.filterIndexes?.maxPerStore ?? DEFAULT_MAX_PER_STORE,
      listsMinRows: options.filterIndexes?.listsMinRows ?? DEFAULT_LISTS_MIN_ROWS,
      graphMinRows: options.filterIndexes?.graphMinRows ?? DEFAULT_GRAPH_MIN_ROWS,
      ...(options.filterIndexes?.graphMinRecall !== undefined ? { graphMinRecall: options.filterIndexes.graphMinRecall } : {}),
    },
    copiesRescoreMargin: options.copiesRescoreMargin ?? 3,
    halfvec: options.halfvec ?? false,
    quantization: options.quantization ?? "f16",
    snapshotDir: options.snapshotDir ?? null,
    snapshotIntervalMs: options.snapshotIntervalMs ?? 60_000,
  };
}

export function createVectorIndex(database: Database, options: VectorIndexOptions = {}): VectorIndex {
  const resolved = resolveOptions(options, database.dialect);
  return database.dialect === "postgres" ? new PostgresVectorIndex(database, resolved) : new EmbeddedVectorIndex(database, resolved);
}
