import { Doorkeeper, DOORKEEPER_KEYS } from "./doorkeeper.js";
/** A product and its lexical score (the engine's own, larger is better). */
export interface LexicalHit {
  productId: string;
  score: number;
  /** The summed weights of the query's groups the product's text holds (query.ts coverageOf()). */
  coverage: number;
  /** How many of the query's groups it holds. */
  matched: number;
}
// Cached lexical rankings (issue 15). An engine scores every product a query matches before it
// can return the best few, so a query whose words are common in a large store (a colour, a product
// type) costs milliseconds however few results are wanted. Rankings are kept per store, query
// words, matching mode (AND / OR) and depth, beside a version of the store's text:
//   SQLite — the store's lexical version (`product_text_versions`, bumped by triggers in the
//            transaction of every change to the store's text rows; migration 0019), which a search
//            reads first: a ranking is only reused while the store's text is exactly the text it
//            was computed from;
//   PostgreSQL — the store's change counter in this process (changes.ts; a shared counter row
//            would serialise a store's concurrent writers), and at most TEXT_CACHE_TTL_MS old: a
//            write through another process shows after at most that long, as the lexicon and the
//            other per-store caches do (a deleted product never shows: results are read by id).
// Least recently used rankings are dropped beyond LEXICAL_CACHE_MAX_HITS hits in all.
//
// Admission (admits()): a ranking is looked up and kept only from the second time its key is
// asked. Many distinct queries are asked only once (the long tail of a search log), and keeping
// their rankings costs every such search the version read before the lookup, the insert, and the
// garbage collector's copying the hits to the old generation only to evict them later; and under
// LRU such rankings evict those of queries asked often (docs/benchmarks.md "Issue 39: rankings
// kept from a query's second ask"). A key asked once is remembered by a doorkeeper
// (doorkeeper.ts); a query asked again within its capacity computes its ranking once more and
// keeps it, and from its third ask on the cache answers.

export const LEXICAL_CACHE_MAX_HITS = 200_000;

interface Entry {
  version: number;
  /** When it was computed (the cache's clock). */
  at: number;
  hits: readonly unknown[];
}

export class LexicalCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;
  /** Keys asked once and not held (see admits()). */
  private readonly doorkeeper: Doorkeeper;

  constructor(
    private readonly maxHits = LEXICAL_CACHE_MAX_HITS,
    private readonly now: () => number = () => performance.now(),
    doorkeeperKeys = DOORKEEPER_KEYS,
  ) {
    this.doorkeeper = new Doorkeeper(doorkeeperKeys);
  }

  /**
   * Whether the ranking of `key` goes through the cache (through()): when it is held, or when its
   * key was asked before since the doorkeeper was last emptied (a hash collision admits a key
   * early, which costs nothing but a kept ranking). Otherwise the key is remembered and the caller
   * computes the ranking without the cache: no version read, nothing kept (see the header).
   */
  admits(key: string): boolean {
    return this.entries.has(key) || this.doorkeeper.askedBefore(key);
  }

  /** The cached ranking for `key` at `version` computed less than `maxAgeMs` ago, else `compute()`'s, kept for next time. */
  async through<T>(key: string, version: number, compute: () => Promise<T[]>, maxAgeMs = Infinity): Promise<T[]> {
    const hit = this.entries.get(key);
    if (hit) {
      this.drop(key, hit);
      if (hit.version === version && this.now() - hit.at < maxAgeMs) {
        this.entries.set(key, hit); // most recently used last
        this.held += hit.hits.length;
        return hit.hits as T[];
      }
    }
    const at = this.now();
    const hits = await compute();
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    this.entries.set(key, { version, at, hits });
    this.held += hits.length;
    for (const [k, e] of this.entries) {
      if (this.held <= this.maxHits || k === key) break;
      this.drop(k, e);
    }
    return hits;
  }

  clear(): void {
    this.entries.clear();
    this.doorkeeper.clear();
    this.held = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.held -= e.hits.length;
  }
}

const caches = new WeakMap<object, LexicalCache>();

/** The cache of one database handle (one per application context). */
export function lexicalCacheOf(db: object): LexicalCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new LexicalCache()));
  return cache;
}
