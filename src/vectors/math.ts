// Small numeric helpers shared by both adapters: validation and L2 normalisation, the SQLite blob
// and pgvector text encodings, dot products and a bounded top-k selection. Loops are written for
// speed (typed arrays, no allocation per element); `noUncheckedIndexedAccess` is satisfied with
// non-null assertions inside them.

/** Largest dimension accepted (pgvector's limit for the `vector` type). */
export const MAX_DIM = 16_000;

/**
 * Returns a unit-length copy of `vector` (cosine similarity is then a plain dot product).
 * Throws a RangeError for an empty, oversized, non-finite or all-zero vector: those are caller
 * bugs (an embedding model never produces them), not client mistakes.
 */
export function normalized(vector: Float32Array): Float32Array {
  const dim = vector.length;
  if (dim === 0 || dim > MAX_DIM) throw new RangeError(`Vector dimension ${dim} is outside 1..${MAX_DIM}.`);
  let sum = 0;
  for (let i = 0; i < dim; i++) {
    const v = vector[i]!;
    if (!Number.isFinite(v)) throw new RangeError("Vector has a non-finite component.");
    sum += v * v;
  }
  if (sum === 0) throw new RangeError("Vector has zero length; cosine similarity is undefined.");
  const scale = 1 / Math.sqrt(sum);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = vector[i]! * scale;
  return out;
}

/** Dot product of `query` with row `row` of a row-major matrix of width `query.length`. */
export function dotRow(matrix: Float32Array, row: number, query: Float32Array): number {
  const dim = query.length;
  const o = row * dim;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < dim; j += 4) {
    s0 += matrix[o + j]! * query[j]!;
    s1 += matrix[o + j + 1]! * query[j + 1]!;
    s2 += matrix[o + j + 2]! * query[j + 2]!;
    s3 += matrix[o + j + 3]! * query[j + 3]!;
  }
  for (; j < dim; j++) s0 += matrix[o + j]! * query[j]!;
  return s0 + s1 + s2 + s3;
}

export function vectorsEqual(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** float32 little-endian bytes, as stored in SQLite's `embedding` blob. */
export function toBlob(vector: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i]!, i * 4);
  return out;
}

export function fromBlob(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) throw new Error("Vector blob length is not a multiple of 4.");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * pgvector's text form `[x,y,…]`, each component JavaScript's shortest form of the float32's exact
 * value as a double: pgvector's strtof reads it back as the same float32 (the decimal lies within
 * half a double's step of it), so the stored value is bit-identical. The shortest decimal of the
 * float32 itself, tried digit by digit, makes a text ~40 % shorter but cost 0.26 ms per
 * 512-component vector on the event loop, twice per PostgreSQL text search with lexical hits
 * (the nearest, and the hits by id), against 0.02 ms; pgvector parses the longer text in ~16 µs
 * more (docs/benchmarks.md, "the vector's text form").
 */
export function toPgVector(vector: Float32Array): string {
  const parts = new Array<string>(vector.length);
  for (let i = 0; i < vector.length; i++) parts[i] = String(vector[i]!);
  return `[${parts.join(",")}]`;
}

export function fromPgVector(text: string): Float32Array {
  const body = text.trim().replace(/^\[/, "").replace(/\]$/, "");
  if (body === "") return new Float32Array(0);
  const parts = body.split(",");
  const out = new Float32Array(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = Number(parts[i]);
  return out;
}

/**
 * Keeps the `k` largest scores seen (a binary min-heap keyed by score; ties keep the first
 * offered). `drain()` returns them best first.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly items: Int32Array;
  private n = 0;

  constructor(private readonly k: number) {
    this.scores = new Float64Array(Math.max(1, k));
    this.items = new Int32Array(Math.max(1, k));
  }

  /** The score an item must beat to enter (−Infinity until full). */
  get floor(): number {
    return this.n < this.k ? -Infinity : this.scores[0]!;
  }

  offer(item: number, score: number): void {
    if (this.k <= 0) return;
    const { scores, items } = this;
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (scores[parent]! <= score) break;
        scores[i] = scores[parent]!;
        items[i] = items[parent]!;
        i = parent;
      }
      scores[i] = score;
      items[i] = item;
      return;
    }
    if (score <= scores[0]!) return;
    let i = 0;
    const n = this.n;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && scores[r]! < scores[l]! ? r : l;
      if (scores[c]! >= score) break;
      scores[i] = scores[c]!;
      items[i] = items[c]!;
      i = c;
    }
    scores[i] = score;
    items[i] = item;
  }

  drain(): { item: number; score: number }[] {
    const out: { item: number; score: number }[] = [];
    for (let i = 0; i < this.n; i++) out.push({ item: this.items[i]!, score: this.scores[i]! });
    out.sort((a, b) => b.score - a.score);
    this.n = 0;
    return out;
  }
}
