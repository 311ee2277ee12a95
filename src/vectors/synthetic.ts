// Deterministic synthetic data for the vector tests and the benchmark: clustered unit vectors
// (like image embeddings of a catalogue: groups of similar products) and an exact reference
// search to measure recall against.
import { TopK, dotRow } from "./math.js";
import { mulberry32 } from "../platform/prng.js";

/** A small seeded PRNG in [0, 1) (mulberry32). */
export const prng = mulberry32;

function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function normalizeInPlace(v: Float32Array, offset: number, dim: number): void {
  let s = 0;
  for (let i = 0; i < dim; i++) s += v[offset + i]! ** 2;
  const scale = 1 / Math.sqrt(s);
  for (let i = 0; i < dim; i++) v[offset + i]! *= scale;
}

export interface ClusteredData {
  dim: number;
  count: number;
  /** Row-major unit vectors. */
  matrix: Float32Array;
  /** Cluster of each row. */
  cluster: Int32Array;
  row(i: number): Float32Array;
}

/**
 * `count` unit vectors around `clusters` random centres. `spread` is the noise per component
 * relative to a centre component (1 ≈ noise as large as the centre: clusters overlap).
 */
export function clusteredVectors(options: { count: number; dim: number; clusters: number; seed: number; spread?: number }): ClusteredData {
  const { count, dim, clusters, seed } = options;
  const spread = options.spread ?? 0.8;
  const random = prng(seed);
  const centres = new Float32Array(clusters * dim);
  for (let i = 0; i < centres.length; i++) centres[i] = gaussian(random);
  for (let c = 0; c < clusters; c++) normalizeInPlace(centres, c * dim, dim);
  const matrix = new Float32Array(count * dim);
  const cluster = new Int32Array(count);
  const noise = spread / Math.sqrt(dim);
  for (let r = 0; r < count; r++) {
    const c = Math.floor(random() * clusters);
    cluster[r] = c;
    for (let i = 0; i < dim; i++) matrix[r * dim + i] = centres[c * dim + i]! + noise * gaussian(random);
    normalizeInPlace(matrix, r * dim, dim);
  }
  return { dim, count, matrix, cluster, row: (i) => matrix.slice(i * dim, (i + 1) * dim) };
}

/** Queries drawn like the data (near a random centre), from their own seed. */
export function queriesLike(data: ClusteredData, count: number, seed: number): Float32Array[] {
  const random = prng(seed);
  const out: Float32Array[] = [];
  for (let q = 0; q < count; q++) {
    // A perturbed copy of a random data row: near a cluster, not identical to any vector.
    const base = data.row(Math.floor(random() * data.count));
    const noise = 0.5 / Math.sqrt(data.dim);
    for (let i = 0; i < data.dim; i++) base[i]! += noise * gaussian(random);
    normalizeInPlace(base, 0, data.dim);
    out.push(base);
  }
  return out;
}

/** Exact top-k row indices by cosine (rows and query are unit vectors), optionally among `allowed` rows. */
export function exactTopK(data: ClusteredData, query: Float32Array, k: number, allowed?: (row: number) => boolean): number[] {
  const top = new TopK(k);
  for (let r = 0; r < data.count; r++) {
    if (allowed && !allowed(r)) continue;
    top.offer(r, dotRow(data.matrix, r, query));
  }
  return top.drain().map((h) => h.item);
}

/** |found ∩ expected| / |expected|, averaged by the caller. */
export function recall(found: readonly string[], expected: readonly string[]): number {
  if (expected.length === 0) return 1;
  const set = new Set(found);
  return expected.filter((id) => set.has(id)).length / expected.length;
}
