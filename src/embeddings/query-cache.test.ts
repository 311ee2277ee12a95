// The LRU cache of text-query embeddings: repeated texts cost no model call, entries are kept per
// model, the least recently used entry goes first, failures are not cached, and the hit rate is
// exported to Prometheus.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Registry } from "prom-client";
import { QueryEmbeddingCache } from "./query-cache.js";

/** A stand-in model call that records what it was asked (the cache's own logic is under test). */
function recorder() {
  const calls: string[][] = [];
  const embed = async (texts: string[]) => {
    calls.push(texts);
    return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0)]));
  };
  return { calls, embed };
}

describe("QueryEmbeddingCache", () => {
  test("a repeated text costs no model call and returns the same vector, as the caller's own copy", async () => {
    const cache = new QueryEmbeddingCache(10);
    const { calls, embed } = recorder();
    const [a] = await cache.embed("m1", ["red dress"], embed);
    const [b] = await cache.embed("m1", ["red dress"], embed);
    assert.deepEqual(calls, [["red dress"]]);
    assert.deepEqual(b, a);
    b![0] = 99;
    const [c] = await cache.embed("m1", ["red dress"], embed);
    assert.equal(c![0], 9, "mutating a returned vector does not change the cache");
    assert.deepEqual(cache.stats(), { hits: 2, misses: 1, size: 1, capacity: 10 });
  });

  test("embeds only the missing texts of a call, in one model call, keeping the input order", async () => {
    const cache = new QueryEmbeddingCache(10);
    const { calls, embed } = recorder();
    await cache.embed("m1", ["b"], embed);
    const out = await cache.embed("m1", ["a", "b", "cc", "a"], embed);
    assert.deepEqual(calls, [["b"], ["a", "cc"]]);
    assert.deepEqual(
      out.map((v) => [...v]),
      [
        [1, 97],
        [1, 98],
        [2, 99],
        [1, 97],
      ],
    );
  });

  test("keeps entries per model and evicts the least recently used", async () => {
    const cache = new QueryEmbeddingCache(2);
    const { calls, embed } = recorder();
    await cache.embed("m1", ["x"], embed);
    await cache.embed("m2", ["x"], embed);
    assert.equal(calls.length, 2, "another model's vector is never reused");
    await cache.embed("m1", ["y"], embed);
    await cache.embed("m1", ["x"], embed); // x is now the most recent in m1
    await cache.embed("m1", ["z"], embed); // evicts y
    calls.length = 0;
    await cache.embed("m1", ["x", "z"], embed);
    assert.deepEqual(calls, []);
    await cache.embed("m1", ["y"], embed);
    assert.deepEqual(calls, [["y"]]);
  });

  test("concurrent misses on one text share one model call; a failed call is not cached", async () => {
    const cache = new QueryEmbeddingCache(10);
    const { calls, embed } = recorder();
    await Promise.all([cache.embed("m", ["same"], embed), cache.embed("m", ["same"], embed)]);
    assert.deepEqual(calls, [["same"]]);
    const failing = async () => {
      throw new Error("model busy");
    };
    await assert.rejects(cache.embed("m", ["other"], failing), /model busy/);
    await cache.embed("m", ["other"], embed);
    assert.deepEqual(calls, [["same"], ["other"]]);
  });

  test("exports lookups by result and the hit ratio to Prometheus", async () => {
    const cache = new QueryEmbeddingCache(10);
    const registry = new Registry();
    cache.register(registry);
    const { embed } = recorder();
    await cache.embed("m", ["a", "a", "a", "b"], embed);
    const text = await registry.metrics();
    assert.match(text, /shopsight_query_embedding_cache_lookups_total\{result="hit"\} 2/);
    assert.match(text, /shopsight_query_embedding_cache_lookups_total\{result="miss"\} 2/);
    assert.match(text, /shopsight_query_embedding_cache_hit_ratio 0\.5/);
  });

  test("capacity 0 turns the cache off", async () => {
    const cache = new QueryEmbeddingCache(0);
    const { calls, embed } = recorder();
    await cache.embed("m", ["a"], embed);
    await cache.embed("m", ["a"], embed);
    assert.equal(calls.length, 2);
  });
});
