import { test } from "node:test";
import assert from "node:assert/strict";
import { LexicalCache } from "./cache.js";

const hits = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ productId: `${tag}-${i}`, score: n - i }));

test("a ranking is reused at the same version and recomputed at another", async () => {
  const cache = new LexicalCache();
  let calls = 0;
  const compute = (tag: string) => async () => {
    calls++;
    return hits(3, tag);
  };
  const first = await cache.through("s1 red", 1, compute("a"));
  assert.equal(await cache.through("s1 red", 1, compute("b")), first, "same version: the cached ranking");
  assert.equal(calls, 1);
  const second = await cache.through("s1 red", 2, compute("c"));
  assert.equal(calls, 2, "a changed store recomputes");
  assert.equal(second[0]!.productId, "c-0");
  assert.equal((await cache.through("s2 red", 2, compute("d")))[0]!.productId, "d-0", "keys of another store are their own");
  assert.equal(cache.size, 2);
});

test("least recently used rankings go first beyond the hit budget", async () => {
  const cache = new LexicalCache(10);
  let calls = 0;
  const compute = (n: number) => async () => {
    calls++;
    return hits(n, "x");
  };
  await cache.through("a", 1, compute(4));
  await cache.through("b", 1, compute(4));
  await cache.through("a", 1, compute(4)); // a is now the most recently used
  assert.equal(calls, 2);
  await cache.through("c", 1, compute(4)); // 12 hits > 10: b goes
  assert.equal(cache.size, 2);
  await cache.through("a", 1, compute(4));
  assert.equal(calls, 3, "a kept");
  await cache.through("b", 1, compute(4));
  assert.equal(calls, 4, "b was dropped");
  await cache.through("big", 1, compute(50));
  assert.equal(cache.size, 1, "a ranking larger than the budget is kept alone");
  cache.clear();
  assert.equal(cache.size, 0);
});

test("with a maximum age, a ranking older than it is recomputed even at the same version", async () => {
  let now = 0;
  const cache = new LexicalCache(100, () => now);
  let calls = 0;
  const compute = async () => {
    calls++;
    return hits(2, `c${calls}`);
  };
  await cache.through("s1 red", 1, compute, 30_000);
  now = 29_999;
  await cache.through("s1 red", 1, compute, 30_000);
  assert.equal(calls, 1, "younger than the maximum age: reused");
  now = 30_000;
  const fresh = await cache.through("s1 red", 1, compute, 30_000);
  assert.equal(calls, 2, "as old as the maximum age: recomputed");
  assert.equal(fresh[0]!.productId, "c2-0");
  now = 1e9;
  await cache.through("s1 red", 1, compute);
  assert.equal(calls, 2, "without a maximum age only the version counts");
});

test("a key goes through the cache from its second ask; the doorkeeper forgets keys asked once when full", async () => {
  const cache = new LexicalCache(100, () => 0, 2);
  assert.equal(cache.admits("s1 red"), false, "asked once: computed without the cache");
  assert.equal(cache.size, 0, "nothing kept");
  assert.equal(cache.admits("s1 red"), true, "asked again: through the cache");
  await cache.through("s1 red", 1, async () => hits(2, "r"));
  assert.equal(cache.size, 1);
  assert.equal(cache.admits("s1 red"), true, "held");
  assert.equal(cache.admits("s1 blue"), false);
  assert.equal(cache.admits("s1 green"), false, "the doorkeeper holds two keys: full, emptied, then green");
  assert.equal(cache.admits("s1 blue"), false, "blue was forgotten with it");
  assert.equal(cache.admits("s1 red"), true, "a held ranking does not depend on the doorkeeper");
  cache.clear();
  assert.equal(cache.admits("s1 blue"), false, "clear() empties the doorkeeper too");
});
