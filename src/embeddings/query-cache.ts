// An LRU cache of query (text) embeddings, one per model: a store's popular queries repeat, and
// a repeated query then costs no model time. Keys are the exact query text under the embedding
// space of the model that made the vector (fingerprintKey), so a changed model never serves an
// old vector. Concurrent misses on the same text share one model call.
//
// Size: QUERY_CACHE_ENTRIES (1,000) texts per model by default. A 512-d vector is 2 KiB, so the
// default holds ~2 MiB of vectors (plus the texts, at most 1,000 characters each).
//
// Metrics (prom-client, when registered): shopsight_query_embedding_cache_lookups_total{result}
// (hit, miss) and shopsight_query_embedding_cache_hit_ratio (hits / lookups since start).
import { Counter, Gauge, type Registry } from "prom-client";

export const QUERY_CACHE_ENTRIES = 1_000;

export interface QueryCacheStats {
  hits: number;
  misses: number;
  size: number;
  capacity: number;
}

export class QueryEmbeddingCache {
  /** Per model key: text → vector (or the promise of it while the model works). Map order = recency. */
  private readonly models = new Map<string, Map<string, Promise<Float32Array>>>();
  private hits = 0;
  private misses = 0;
  private lookups: Counter<"result"> | undefined;

  constructor(readonly capacity: number = QUERY_CACHE_ENTRIES) {}

  /**
   * The vectors of `texts` under `model`, embedding only the texts not cached (in one call).
   * Every returned vector is the caller's own copy.
   */
  async embed(model: string, texts: readonly string[], embed: (missing: string[]) => Promise<Float32Array[]>): Promise<Float32Array[]> {
    if (this.capacity <= 0) return embed([...texts]);
    let entries = this.models.get(model);
    if (!entries) {
      entries = new Map();
      this.models.set(model, entries);
    }
    const missing: string[] = [];
    const waiting = new Map<string, { resolve: (v: Float32Array) => void; reject: (e: unknown) => void }>();
    const promises = texts.map((text) => {
      const cached = entries.get(text);
      if (cached) {
        this.count("hit");
        entries.delete(text); // refresh recency
        entries.set(text, cached);
        return cached;
      }
      this.count("miss");
      const promise = new Promise<Float32Array>((resolve, reject) => waiting.set(text, { resolve, reject }));
      promise.catch(() => undefined);
      missing.push(text);
      entries.set(text, promise);
      return promise;
    });
    while (entries.size > this.capacity) entries.delete(entries.keys().next().value!);
    if (missing.length > 0) {
      try {
        const vectors = await embed(missing);
        missing.forEach((text, i) => waiting.get(text)!.resolve(vectors[i]!));
      } catch (error) {
        // A failed call is not cached: the next lookup tries the model again.
        for (const text of missing) {
          if (entries.get(text) !== undefined) entries.delete(text);
          waiting.get(text)!.reject(error);
        }
      }
    }
    return (await Promise.all(promises)).map((v) => v.slice());
  }

  /** Forgets every cached vector (benchmarks measuring queries never seen before). */
  clear(): void {
    this.models.clear();
  }

  stats(): QueryCacheStats {
    let size = 0;
    for (const entries of this.models.values()) size += entries.size;
    return { hits: this.hits, misses: this.misses, size, capacity: this.capacity };
  }

  /** Adds the cache's counters to a Prometheus registry (GET /metrics). */
  register(registry: Registry): void {
    this.lookups = new Counter({
      name: "shopsight_query_embedding_cache_lookups_total",
      help: "Text-query embedding cache lookups by result (hit: no model time spent; miss: the model embedded the text).",
      labelNames: ["result"] as const,
      registers: [registry],
    });
    this.lookups.inc({ result: "hit" }, this.hits);
    this.lookups.inc({ result: "miss" }, this.misses);
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const cache = this;
    new Gauge({
      name: "shopsight_query_embedding_cache_hit_ratio",
      help: "Share of text-query embedding lookups answered from the cache since start (0 when none yet).",
      registers: [registry],
      collect() {
        const total = cache.hits + cache.misses;
        this.set(total === 0 ? 0 : cache.hits / total);
      },
    });
  }

  private count(result: "hit" | "miss"): void {
    if (result === "hit") this.hits++;
    else this.misses++;
    this.lookups?.inc({ result });
  }
}
