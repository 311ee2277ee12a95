// The in-memory side of the embedded adapter: one VectorGroup per (store, dimension).
//
// A group keeps every vector of its store and dimension in one contiguous, row-major
// Float32Array of unit vectors (exact search is usearch's native SIMD scan of it, or of the
// candidates' rows gathered into a scratch matrix), plus id maps. Past `bruteForceThreshold`
// vectors it also keeps a usearch HNSW index (cosine, M=16, efConstruction=128, ef=64). The index
// is a cache: it is (re)built from the matrix, never persisted, and kept in step with every change.
//
// Keys. Every stored vector gets a fresh numeric key (a per-group counter) that never changes and
// is never reused; HNSW entries are addressed by it. Rows move (removal swaps the last row into the
// hole), keys do not. Replacing a product's vector is "remove old key, add new key".
//
// Work off the request path. Adding to HNSW costs ~0.3–0.5 ms per 512-d vector, so a rebuild of
// 50k vectors is seconds of CPU. Keys waiting to enter the index sit in `pending`; a background
// worker drains them in slices of at most `sliceMs` (then yields with setImmediate), so no
// synchronous call is long. Searches stay exact meanwhile: the HNSW answer is merged with an
// exact scan of the pending rows, and while most of the group is pending the whole search is an
// exact scan. Removed keys leave tombstones in the HNSW graph; once they outnumber half the live
// vectors a fresh index is built the same way in the background and swapped in when complete.
import { Index, MetricKind, ScalarKind, exactSearch } from "usearch";
import { createHash } from "node:crypto";
import os from "node:os";
import { TopK, dotRow, vectorsEqual } from "./math.js";
import { planFiltered, replanFiltered } from "./plan.js";
import { FilteredProducts, type AttributeFilter, type FilterableGroup, type ProductAttributes, type RowBitmap } from "./attributes.js";
import { nearestApart } from "./types.js";

/** Rows passing a search filter, however the filter was given. */
interface RowFilter {
  /** Rows passing (an upper bound for a product-id set that names products of other groups). */
  size: number;
  hasRow(row: number): boolean;
  forEachRow(fn: (row: number) => void): void;
}

/** Bitmaps kept per group (distinct filters); the oldest is dropped beyond this. */
const FILTER_CACHE = 32;

/** Bytes gathered per hash call in digestOf(). */
const GATHER_BYTES = 4 << 20;

export interface GroupOptions {
  /** Groups of at most this many vectors are searched exactly and hold no HNSW index. */
  bruteForceThreshold: number;
  /** Filtered search is exact when candidates × dim is at most this. */
  exactBudget: number;
  /** Filtered search is exact when fewer than this share of the group are candidates. */
  minAnnSelectivity: number;
  /** Filtered HNSW search asks for k × oversample / selectivity neighbours, then filters. */
  oversample: number;
  /** Cost of one HNSW neighbour in exact comparisons (see plan.ts). */
  annCostRatio: number;
  connectivity: number;
  expansionAdd: number;
  expansionSearch: number;
  /** Longest synchronous slice of background index work, in milliseconds. */
  sliceMs: number;
  /** Storage of vectors inside the HNSW index (the matrix for exact search stays f32). Default f32. */
  quantization?: ScalarKind;
}

export interface GroupHit {
  productId: string;
  vectorId: string;
  score: number;
}

/**
 * Best first; equal scores in a stable, deterministic order by product id. Hits already best first
 * without equal scores (a native scan's, most often) are returned as they are: no comparator runs.
 */
function sortHits(hits: GroupHit[]): GroupHit[] {
  for (let i = 1; i < hits.length; i++)
    if (hits[i]!.score >= hits[i - 1]!.score)
      return hits.sort((a, b) => b.score - a.score || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));
  return hits;
}

/** Which path answered a search (for tests and the benchmark). */
export type SearchPath = "exact" | "exact-candidates" | "hnsw" | "hnsw-filtered";

const LITTLE_ENDIAN = os.endianness() === "LE";

/**
 * A native scan's 64-bit keys (row positions, below 2^32) as numbers: on a little-endian machine
 * their low words, read through a 32-bit view, so no BigInt is made per key.
 */
function keyNumbers(keys: BigUint64Array): (i: number) => number {
  if (!LITTLE_ENDIAN) return (i) => Number(keys[i]!);
  const words = new Uint32Array(keys.buffer, keys.byteOffset, keys.length * 2);
  return (i) => words[2 * i]!;
}
/** Candidate rows copied per native scan (exactCandidates): a 4 MB scratch matrix at 512 dimensions. */
const GATHER_ROWS = 2048;
/**
 * The scratch matrix of exactCandidates, one for the process (searches are synchronous, so no two
 * use it at once; one per group would hold up to 4 MB for each store), grown on demand.
 */
let gathered = new Float32Array(0);
const CHUNK = 32;
/**
 * Least share of a group's rows that a search's k and its products asked by id (nearestAndAsked)
 * must make up for one scan of every row to serve both. Measured at 512 dimensions, k = 10
 * (`npm run bench:also`): one scan cost less at 300 rows from 30 asked (a share of 0.13) up (at
 * 10, 0.07, warm only), at 1,000 from 150 (0.16) but not at 75 (0.085), at 3,000 and 5,000 at
 * none of 10–150 (its sort of every row grows faster than the gathered rows' scan).
 */
const ONE_SCAN_SHARE = 0.125;

interface Hnsw {
  index: Index;
  /** Live keys not yet added to `index`. */
  pending: Set<number>;
  /** Removals applied to `index` since it was built. */
  tombstones: number;
}

export class VectorGroup implements FilterableGroup {
  private matrix: Float32Array;
  private capacity: number;
  private n = 0;
  private rowKey: number[] = [];
  private rowProduct: string[] = [];
  private rowVector: string[] = [];
  /** Filterable fields per row (undefined: not known, passes no attribute filter). */
  private rowAttrs: (ProductAttributes | undefined)[] = [];
  /** Changes whenever a row moves or its attributes change (invalidates filter bitmaps). */
  version = 0;
  private readonly filterCache = new Map<string, { version: number; bitmap: RowBitmap }>();
  private readonly byProduct = new Map<string, number>();
  private readonly keyRow = new Map<number, number>();
  private nextKey = 1;
  /** The index searches use (possibly still filling: see `pending`). */
  private live: Hnsw | null = null;
  /** A replacement being built because `live` holds too many tombstones. */
  private next: Hnsw | null = null;
  private workerScheduled = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  lastPath: SearchPath = "exact";

  constructor(
    readonly dim: number,
    private readonly options: GroupOptions,
  ) {
    this.capacity = 64;
    this.matrix = new Float32Array(this.capacity * dim);
  }

  get size(): number {
    return this.n;
  }

  /** True while background index work is queued. */
  get busy(): boolean {
    return this.workerScheduled;
  }

  /** Whether an HNSW index exists and holds every live vector. */
  get indexed(): boolean {
    return this.live !== null && this.live.pending.size === 0;
  }

  /** For tests: vectors, HNSW entries (live index), pending keys and tombstones. */
  stats(): { size: number; indexSize: number; pending: number; tombstones: number; rebuilding: boolean } {
    return {
      size: this.n,
      indexSize: this.live?.index.size() ?? 0,
      pending: this.live?.pending.size ?? 0,
      tombstones: this.live?.tombstones ?? 0,
      rebuilding: this.next !== null,
    };
  }

  has(productId: string): boolean {
    return this.byProduct.has(productId);
  }

  /**
   * Inserts or replaces the vector of a product. `unit` must be normalised and of length `dim`;
   * the group copies it. Returns false when the same vector id with the same data is already
   * there (a repeated afterCommit).
   */
  /** Inserts or replaces a product's vector; a replaced row keeps its attributes unless `attributes` are given. */
  upsert(productId: string, vectorId: string, unit: Float32Array, attributes?: ProductAttributes): boolean {
    const existing = this.byProduct.get(productId);
    let kept = attributes;
    if (existing !== undefined) {
      if (this.rowVector[existing] === vectorId && vectorsEqual(this.rowData(existing), unit)) return false;
      kept ??= this.rowAttrs[existing];
      this.removeRow(existing);
    }
    this.ensureCapacity(this.n + 1);
    const row = this.n++;
    this.matrix.set(unit, row * this.dim);
    this.placeRow(row, productId, vectorId, kept);
    this.schedule();
    return true;
  }

  /** Appends a row from raw float32-LE bytes (startup load); the caller vouches for normalisation. */
  loadRow(productId: string, vectorId: string, bytes: Uint8Array): void {
    if (bytes.byteLength !== this.dim * 4)
      throw new Error(`Stored vector of ${productId} has ${bytes.byteLength / 4} dimensions, expected ${this.dim}.`);
    const existing = this.byProduct.get(productId);
    const kept = existing === undefined ? undefined : this.rowAttrs[existing];
    if (existing !== undefined) this.removeRow(existing);
    this.ensureCapacity(this.n + 1);
    const row = this.n++;
    if (LITTLE_ENDIAN) {
      new Uint8Array(this.matrix.buffer, row * this.dim * 4, this.dim * 4).set(bytes);
    } else {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let i = 0; i < this.dim; i++) this.matrix[row * this.dim + i] = view.getFloat32(i * 4, true);
    }
    this.placeRow(row, productId, vectorId, kept);
  }

  remove(productId: string): boolean {
    const row = this.byProduct.get(productId);
    if (row === undefined) return false;
    this.removeRow(row);
    this.schedule();
    return true;
  }

  /** A copy of the stored (unit) vector of a product. */
  vectorOf(productId: string): Float32Array | undefined {
    const row = this.byProduct.get(productId);
    return row === undefined ? undefined : this.rowData(row).slice();
  }

  /** Starts or continues background index work if the group needs it. */
  schedule(): void {
    if (this.closed) return;
    const { bruteForceThreshold } = this.options;
    if (this.n > bruteForceThreshold && !this.live) {
      this.live = this.freshIndex();
    } else if (this.live && this.n <= bruteForceThreshold / 2) {
      // Shrunk well below the threshold: exact search is cheap again, drop the index.
      this.live = null;
      this.next = null;
    } else if (this.live && !this.next && this.live.tombstones > Math.max(1_000, this.n / 2)) {
      this.next = this.freshIndex();
    }
    const work = (this.live?.pending.size ?? 0) + (this.next?.pending.size ?? 0);
    if (work > 0 && !this.workerScheduled) {
      this.workerScheduled = true;
      setImmediate(() => this.work());
    } else if (work === 0 && !this.workerScheduled) {
      this.notifyIdle();
    }
  }

  /** Resolves once no background index work is queued. */
  idle(): Promise<void> {
    if (!this.workerScheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.live = null;
    this.next = null;
    this.workerScheduled = false;
    this.notifyIdle();
  }

  /**
   * The k nearest vectors by cosine similarity, optionally restricted to `filter` (product ids),
   * apart from the products of `apart` (VectorSearchOptions.also). `unit` is the normalised query.
   * Results are best first; ties keep product-id order.
   */
  search(unit: Float32Array, k: number, filter?: ReadonlySet<string>, apart?: ReadonlySet<string>): GroupHit[] {
    if (k <= 0 || this.n === 0) return [];
    const live = this.live;
    const usable = this.indexUsable();
    // The exact scan of every row leaves out the products apart as it reads its answer; the other
    // paths find k + those, then drop them.
    if (!filter && !usable) return this.exactAll(unit, k, apart);
    const extra = apart?.size ?? 0;
    const found = this.searchPaths(live, usable, unit, k + extra, filter);
    return extra > 0 ? nearestApart(found, k, apart) : found;
  }

  /**
   * search() apart from the products of `asked`, and those products' own matches (any score),
   * from one exact scan of every row, or undefined when two searches cost less: one scan serves
   * both only when the group is scanned exactly anyway (no usable index) and the rows it must
   * rank (k + asked) are at least `minShare` of the group (ONE_SCAN_SHARE; bench:also compares
   * both at any share). Otherwise the nearest
   * apart is one scan and the products asked another, of their rows gathered (search() with
   * them as the filter); in a group of 300 rows of 512 dimensions with 75 asked and k = 10, the
   * two cost 54–57 µs (80–106 with the caches cold), one scan ranking every row 35–41 (56–73)
   * (docs/benchmarks.md, "Issue 39: the lexical hits' similarities from the nearest's scan").
   */
  nearestAndAsked(
    unit: Float32Array,
    k: number,
    asked: ReadonlySet<string>,
    minShare = ONE_SCAN_SHARE,
  ): { nearest: GroupHit[]; asked: GroupHit[] } | undefined {
    if (this.n === 0 || this.indexUsable() || (Math.max(k, 0) + asked.size) / this.n < minShare) return undefined;
    this.lastPath = "exact";
    const found = this.nativeScan(this.matrix.subarray(0, this.n * this.dim), unit, this.n);
    return {
      nearest:
        k > 0
          ? this.scannedHits(
              found,
              (i) => i,
              k,
              (id) => !asked.has(id),
            )
          : [],
      asked: this.scannedHits(
        found,
        (i) => i,
        Infinity,
        (id) => asked.has(id),
      ),
    };
  }

  /** Whether the HNSW index answers: only when most of the group is in it; otherwise exact is as fast. */
  private indexUsable(): boolean {
    const live = this.live;
    return live !== null && live.pending.size <= this.n / 4 && this.n > this.options.bruteForceThreshold;
  }

  /** search() by HNSW, or by an exact scan of a filter's candidates. */
  private searchPaths(live: Hnsw | null, usable: boolean, unit: Float32Array, k: number, filter?: ReadonlySet<string>): GroupHit[] {
    if (!filter) return this.annAll(live!, unit, k) ?? this.exactAll(unit, k);
    const candidates = this.rowFilter(filter);
    if (candidates.size === 0) return [];
    const size = candidates.size;
    let plan = planFiltered({ k, candidates: size, selectivity: size / this.n, dim: this.dim, annReady: usable }, this.options);
    for (let round = 0; plan.kind === "ann"; round++) {
      const got = this.annFiltered(live!, unit, k, candidates, plan.wanted);
      if (got.result) return got.result;
      plan = replanFiltered(
        { k, candidates: size, wanted: plan.wanted, returned: got.returned, hits: got.hits, exhausted: got.exhausted, round },
        this.options,
      );
    }
    return this.exactCandidates(unit, k, candidates);
  }

  // ---------------------------------------------------------------- search paths ---

  private exactAll(unit: Float32Array, k: number, apart?: ReadonlySet<string>): GroupHit[] {
    this.lastPath = "exact";
    const found = this.nativeScan(this.matrix.subarray(0, this.n * this.dim), unit, k + (apart?.size ?? 0));
    return this.scannedHits(found, (i) => i, k, apart && ((id) => !apart.has(id)));
  }

  private exactCandidates(unit: Float32Array, k: number, candidates: RowFilter): GroupHit[] {
    this.lastPath = "exact-candidates";
    // The candidates' rows are gathered, GATHER_ROWS at a time, and scanned natively: copying a
    // row and scanning it costs about a third of the JS dot product. More than one batch of them
    // meet in a TopK.
    const batch = Math.max(1, Math.min(GATHER_ROWS, candidates.size));
    if (gathered.length < batch * this.dim) gathered = new Float32Array(batch * this.dim);
    const rows = new Int32Array(batch);
    const top = candidates.size > batch ? new TopK(k) : undefined;
    let hits: GroupHit[] = [];
    let m = 0;
    const flush = () => {
      const found = this.nativeScan(gathered.subarray(0, m * this.dim), unit, k);
      if (!top) hits = this.scannedHits(found, (i) => rows[i]!);
      else {
        const key = keyNumbers(found.keys);
        for (let i = 0; i < found.keys.length; i++) top.offer(rows[key(i)]!, 1 - found.distances[i]!);
      }
      m = 0;
    };
    candidates.forEachRow((row) => {
      gathered.set(this.matrix.subarray(row * this.dim, (row + 1) * this.dim), m * this.dim);
      rows[m++] = row;
      if (m === batch) flush();
    });
    if (m > 0) flush();
    return top ? this.hits(top) : hits;
  }

  /**
   * usearch's native SIMD scan of `data` (unit rows, at least one; k ≥ 1): its `k` best, nearest
   * first. Its inner-product distance is 1 − similarity in float32, within 1e-7 of the JS dot
   * product (dotRow) that the HNSW paths re-score with (their index may hold quantised vectors).
   */
  private nativeScan(data: Float32Array, unit: Float32Array, k: number): { keys: BigUint64Array; distances: Float32Array } {
    return exactSearch(data, unit, this.dim, Math.min(k, data.length / this.dim), MetricKind.IP, 1);
  }

  /**
   * A native scan's answer (best first) as hits, `rowOf` mapping its keys (positions in the scanned
   * data) to rows: its first `k` of the products `keep` keeps (all when not given), and those
   * equal in score to the last of them (so that ties keep product-id order).
   */
  private scannedHits(
    found: { keys: BigUint64Array; distances: Float32Array },
    rowOf: (key: number) => number,
    k = Infinity,
    keep?: (productId: string) => boolean,
  ): GroupHit[] {
    const key = keyNumbers(found.keys);
    const out: GroupHit[] = [];
    for (let i = 0; i < found.distances.length; i++) {
      const score = 1 - found.distances[i]!;
      if (out.length >= k && score !== out[out.length - 1]!.score) break;
      const row = rowOf(key(i));
      const productId = this.rowProduct[row]!;
      if (keep && !keep(productId)) continue;
      out.push({ productId, vectorId: this.rowVector[row]!, score });
    }
    const sorted = sortHits(out);
    return sorted.length > k ? sorted.slice(0, k) : sorted;
  }

  /** A product-id set (from SQL) or a bitmap-backed FilteredProducts, as row tests. */
  private rowFilter(filter: ReadonlySet<string>): RowFilter {
    const bitmap = filter instanceof FilteredProducts ? filter.bitmapOf(this) : undefined;
    if (bitmap) {
      const { bits, count } = bitmap;
      return {
        size: count,
        hasRow: (row) => bits[row] === 1,
        forEachRow: (fn) => {
          for (let row = 0; row < bits.length; row++) if (bits[row] === 1) fn(row);
        },
      };
    }
    return {
      size: filter.size,
      hasRow: (row) => filter.has(this.rowProduct[row]!),
      forEachRow: (fn) => {
        for (const productId of filter) {
          const row = this.byProduct.get(productId);
          if (row !== undefined) fn(row);
        }
      },
    };
  }

  // ---------------------------------------------------------------- snapshots (see snapshot.ts) ---

  /**
   * The complete HNSW index with the key, product and vector id of every row (row order) and the
   * rows' vector bytes, or undefined while the index is missing, filling or being rebuilt.
   */
  snapshotSource():
    { index: Index; keys: number[]; products: string[]; vectors: string[]; tombstones: number; bytes: Uint8Array } | undefined {
    const live = this.live;
    if (!live || live.pending.size > 0 || this.next) return undefined;
    return {
      index: live.index,
      keys: this.rowKey.slice(0, this.n),
      products: this.rowProduct.slice(0, this.n),
      vectors: this.rowVector.slice(0, this.n),
      tombstones: live.tombstones,
      bytes: new Uint8Array(this.matrix.buffer, 0, this.n * this.dim * 4),
    };
  }

  /**
   * SHA-256 of the vectors of `products`, in that order, when the group holds exactly these
   * products (each once) under these vector ids; undefined otherwise (snapshot checks). The rows
   * are gathered a few MB at a time and hashed per gather: one hash call per row cost ~1 s per
   * million rows.
   */
  digestOf(products: readonly string[], vectors: readonly string[]): string | undefined {
    if (products.length !== this.n || vectors.length !== this.n) return undefined;
    const rowBytes = this.dim * 4;
    const all = new Uint8Array(this.matrix.buffer, this.matrix.byteOffset, this.n * rowBytes);
    const perGather = Math.max(1, Math.floor(GATHER_BYTES / rowBytes));
    const gather = new Uint8Array(perGather * rowBytes);
    const seen = new Uint8Array(this.n);
    const hash = createHash("sha256");
    let filled = 0;
    for (let i = 0; i < products.length; i++) {
      const row = this.byProduct.get(products[i]!);
      if (row === undefined || seen[row] === 1 || this.rowVector[row] !== vectors[i]) return undefined;
      seen[row] = 1;
      gather.set(all.subarray(row * rowBytes, (row + 1) * rowBytes), filled * rowBytes);
      if (++filled === perGather) {
        hash.update(gather);
        filled = 0;
      }
    }
    if (filled > 0) hash.update(gather.subarray(0, filled * rowBytes));
    return hash.digest("hex");
  }

  /**
   * Room for `rows` vectors and some more (start-up knows the count before loading): growing
   * copies the whole matrix, ~1 s of blocked event loop at a million 512-d rows, so the first
   * writes after a start should not pay it.
   */
  reserve(rows: number): void {
    this.ensureCapacity(rows + Math.ceil(rows / 16), true);
  }

  /**
   * Installs a loaded HNSW index whose entries (key → product) the caller checked against the
   * rows: every row gets its snapshot key and nothing is pending.
   */
  adoptIndex(index: Index, keys: readonly number[], products: readonly string[], tombstones: number): void {
    this.keyRow.clear();
    let max = 0;
    for (let i = 0; i < keys.length; i++) {
      const row = this.byProduct.get(products[i]!)!;
      this.rowKey[row] = keys[i]!;
      this.keyRow.set(keys[i]!, row);
      if (keys[i]! > max) max = keys[i]!;
    }
    this.nextKey = max + 1;
    this.live = { index, pending: new Set(), tombstones };
    this.next = null;
  }

  /** A new, empty HNSW index with this group's parameters. */
  emptyIndex(): Index {
    return this.freshIndex().index;
  }

  // ---------------------------------------------------------------- attributes and filters ---

  rowOf(productId: string): number | undefined {
    return this.byProduct.get(productId);
  }

  productAt(row: number): string {
    return this.rowProduct[row]!;
  }

  /** The filterable fields of a product held by this group (undefined: not held, or not known). */
  attributesOf(productId: string): ProductAttributes | undefined {
    const row = this.byProduct.get(productId);
    return row === undefined ? undefined : this.rowAttrs[row];
  }

  /** Replaces the filterable fields of a product held by this group. */
  setAttributes(productId: string, attributes: ProductAttributes | undefined): void {
    const row = this.byProduct.get(productId);
    if (row === undefined) return;
    this.rowAttrs[row] = attributes;
    this.version++;
  }

  /** The rows passing `filter`, cached until a row or attribute of the group changes. */
  bitmap(filter: AttributeFilter): RowBitmap {
    const cached = this.filterCache.get(filter.key);
    if (cached && cached.version === this.version) return cached.bitmap;
    const bits = new Uint8Array(this.n);
    let count = 0;
    for (let row = 0; row < this.n; row++) {
      const attributes = this.rowAttrs[row];
      if (attributes !== undefined && filter.test(attributes)) {
        bits[row] = 1;
        count++;
      }
    }
    const bitmap = { bits, count };
    this.filterCache.delete(filter.key);
    if (this.filterCache.size >= FILTER_CACHE) this.filterCache.delete(this.filterCache.keys().next().value!);
    this.filterCache.set(filter.key, { version: this.version, bitmap });
    return bitmap;
  }

  /** Rows not yet in the index (and passing the filter), scored exactly. */
  private pendingTop(live: Hnsw, unit: Float32Array, k: number, candidates: RowFilter | undefined): { top: TopK; count: number } {
    const top = new TopK(k);
    let count = 0;
    for (const key of live.pending) {
      const row = this.keyRow.get(key)!;
      if (candidates && !candidates.hasRow(row)) continue;
      top.offer(row, dotRow(this.matrix, row, unit));
      count++;
    }
    return { top, count };
  }

  /** Unfiltered HNSW search merged with the pending rows; undefined if the index answers short. */
  private annAll(live: Hnsw, unit: Float32Array, k: number): GroupHit[] | undefined {
    this.lastPath = "hnsw";
    const { top } = this.pendingTop(live, unit, k, undefined);
    const indexSize = live.index.size();
    if (indexSize === 0) return this.hits(top);
    // At least the search depth: asking usearch for more results than its ef widens its search.
    const found = live.index.search(unit, Math.min(Math.max(k, this.options.expansionSearch), indexSize), 1);
    let hits = 0;
    for (let i = 0; i < found.keys.length; i++) {
      const row = this.keyRow.get(Number(found.keys[i]!));
      if (row === undefined) continue;
      top.offer(row, dotRow(this.matrix, row, unit));
      hits++;
    }
    // An HNSW answer shorter than asked for is unexpected: exact search answers instead.
    return hits < Math.min(k, indexSize) ? undefined : this.hits(top);
  }

  /**
   * One filtered HNSW round: `wanted` neighbours, filtered by `candidates`, merged with the
   * pending rows. `result` is set when k matches were found.
   */
  private annFiltered(
    live: Hnsw,
    unit: Float32Array,
    k: number,
    candidates: RowFilter,
    wanted: number,
  ): { result?: GroupHit[]; returned: number; hits: number; exhausted: boolean } {
    this.lastPath = "hnsw-filtered";
    const indexSize = live.index.size();
    const pending = this.pendingTop(live, unit, k, candidates);
    const top = pending.top;
    let hits = 0;
    let returned = 0;
    if (indexSize > 0) {
      const found = live.index.search(unit, Math.min(Math.max(wanted, this.options.expansionSearch), indexSize), 1);
      returned = found.keys.length;
      for (let i = 0; i < found.keys.length; i++) {
        const row = this.keyRow.get(Number(found.keys[i]!));
        if (row === undefined || !candidates.hasRow(row)) continue;
        top.offer(row, dotRow(this.matrix, row, unit));
        hits++;
      }
    }
    const exhausted = wanted >= indexSize;
    if (hits + pending.count >= k) return { result: this.hits(top), returned, hits, exhausted };
    return { returned, hits, exhausted };
  }

  private hits(top: TopK): GroupHit[] {
    const ranked = top.drain();
    return sortHits(ranked.map(({ item, score }) => ({ productId: this.rowProduct[item]!, vectorId: this.rowVector[item]!, score })));
  }

  // ---------------------------------------------------------------- rows and keys ---

  private rowData(row: number): Float32Array {
    return this.matrix.subarray(row * this.dim, (row + 1) * this.dim);
  }

  private placeRow(row: number, productId: string, vectorId: string, attributes: ProductAttributes | undefined): void {
    const key = this.nextKey++;
    this.rowKey[row] = key;
    this.rowProduct[row] = productId;
    this.rowVector[row] = vectorId;
    this.rowAttrs[row] = attributes;
    this.version++;
    this.byProduct.set(productId, row);
    this.keyRow.set(key, row);
    this.live?.pending.add(key);
    this.next?.pending.add(key);
  }

  private removeRow(row: number): void {
    const key = this.rowKey[row]!;
    this.byProduct.delete(this.rowProduct[row]!);
    this.keyRow.delete(key);
    for (const hnsw of [this.live, this.next]) {
      if (!hnsw) continue;
      if (!hnsw.pending.delete(key)) {
        hnsw.index.remove(BigInt(key));
        hnsw.tombstones++;
      }
    }
    const last = --this.n;
    if (row !== last) {
      this.matrix.copyWithin(row * this.dim, last * this.dim, (last + 1) * this.dim);
      const movedKey = this.rowKey[last]!;
      const movedProduct = this.rowProduct[last]!;
      this.rowKey[row] = movedKey;
      this.rowProduct[row] = movedProduct;
      this.rowVector[row] = this.rowVector[last]!;
      this.rowAttrs[row] = this.rowAttrs[last];
      this.byProduct.set(movedProduct, row);
      this.keyRow.set(movedKey, row);
    }
    this.rowKey.length = last;
    this.rowProduct.length = last;
    this.rowVector.length = last;
    this.rowAttrs.length = last;
    this.version++;
  }

  /** Grows the matrix to hold `rows` (by 1.5× steps, or to exactly `rows` when `exact`). */
  private ensureCapacity(rows: number, exact = false): void {
    if (rows <= this.capacity) return;
    let capacity = exact ? rows : this.capacity;
    while (capacity < rows) capacity = Math.ceil(capacity * 1.5);
    const grown = new Float32Array(capacity * this.dim);
    grown.set(this.matrix.subarray(0, this.n * this.dim));
    this.matrix = grown;
    this.capacity = capacity;
  }

  // ---------------------------------------------------------------- background index work ---

  private freshIndex(): Hnsw {
    const index = new Index({
      dimensions: this.dim,
      metric: MetricKind.Cos,
      quantization: this.options.quantization ?? ScalarKind.F32,
      connectivity: this.options.connectivity,
      expansion_add: this.options.expansionAdd,
      expansion_search: this.options.expansionSearch,
      multi: false,
    });
    return { index, pending: new Set(this.keyRow.keys()), tombstones: 0 };
  }

  private work(): void {
    if (this.closed) return;
    const deadline = performance.now() + this.options.sliceMs;
    while (performance.now() < deadline) {
      const target = this.live && this.live.pending.size > 0 ? this.live : this.next && this.next.pending.size > 0 ? this.next : null;
      if (!target) break;
      this.addChunk(target);
    }
    if (this.next && this.next.pending.size === 0) {
      this.live = this.next;
      this.next = null;
    }
    const remaining = (this.live?.pending.size ?? 0) + (this.next?.pending.size ?? 0);
    if (remaining > 0) {
      setImmediate(() => this.work());
    } else {
      this.workerScheduled = false;
      this.notifyIdle();
    }
  }

  private addChunk(target: Hnsw): void {
    const keys: number[] = [];
    for (const key of target.pending) {
      keys.push(key);
      if (keys.length === CHUNK) break;
    }
    const block = new Float32Array(keys.length * this.dim);
    const ids = new BigUint64Array(keys.length);
    keys.forEach((key, i) => {
      const row = this.keyRow.get(key)!;
      block.set(this.rowData(row), i * this.dim);
      ids[i] = BigInt(key);
      target.pending.delete(key);
    });
    target.index.add(ids, block, 1);
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
