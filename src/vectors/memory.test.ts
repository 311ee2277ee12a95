// Unit tests of the in-memory structures behind the embedded adapter (no database): the top-k
// heap, and a VectorGroup kept consistent while its HNSW index is built, rebuilt and dropped in
// the background.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TopK, dotRow, fromBlob, fromPgVector, normalized, toBlob, toPgVector } from "./math.js";
import { VectorGroup, type GroupHit, type GroupOptions } from "./memory.js";
import { MAX_ROUNDS, planFiltered, replanFiltered } from "./plan.js";
import { clusteredVectors, exactTopK, prng, queriesLike, recall } from "./synthetic.js";

const OPTIONS: GroupOptions = {
  bruteForceThreshold: 100,
  exactBudget: 0,
  minAnnSelectivity: 0.01,
  oversample: 2,
  annCostRatio: 5,
  connectivity: 16,
  expansionAdd: 128,
  expansionSearch: 64,
  sliceMs: 2,
};

const pid = (i: number) => `p${i}`;

describe("TopK", () => {
  test("keeps the k best scores, best first", () => {
    const random = prng(5);
    const scores = Array.from({ length: 1_000 }, () => random() * 2 - 1);
    const top = new TopK(7);
    scores.forEach((s, i) => top.offer(i, s));
    const expected = scores
      .map((score, item) => ({ item, score }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 7);
    assert.deepEqual(top.drain(), expected);
  });

  test("returns fewer than k when fewer were offered, and nothing for k = 0", () => {
    const top = new TopK(5);
    top.offer(1, 0.5);
    top.offer(2, 0.9);
    assert.deepEqual(top.drain(), [
      { item: 2, score: 0.9 },
      { item: 1, score: 0.5 },
    ]);
    const none = new TopK(0);
    none.offer(1, 1);
    assert.deepEqual(none.drain(), []);
  });
});

describe("vector encodings", () => {
  test("round-trip float32 values bit for bit through the SQLite blob and pgvector text forms", () => {
    const v = Float32Array.from([0.1, -2.5e-8, 3.4028234663852886e38, 0, 1 / 3]);
    assert.deepEqual(fromBlob(toBlob(v)), v);
    assert.deepEqual(fromPgVector(toPgVector(v)), v);
    assert.equal(toPgVector(Float32Array.from([1, 0.5])), "[1,0.5]");
    const random = prng(6);
    const wide = Float32Array.from({ length: 5_000 }, () => (random() - 0.5) * Math.exp((random() - 0.5) * 60));
    assert.deepEqual(fromPgVector(toPgVector(wide)), wide);
  });

  test("normalises to unit length and rejects vectors without a direction", () => {
    const u = normalized(Float32Array.from([3, 4]));
    assert.deepEqual([...u], [0.6000000238418579, 0.800000011920929]);
    assert.throws(() => normalized(new Float32Array(3)), RangeError);
    assert.throws(() => normalized(Float32Array.from([1, Number.POSITIVE_INFINITY])), RangeError);
    assert.throws(() => normalized(new Float32Array(0)), RangeError);
  });
});

describe("filtered search plan", () => {
  const o = { exactBudget: 1_048_576, minAnnSelectivity: 0.01, oversample: 2, annCostRatio: 5 };
  const base = { k: 10, dim: 512, annReady: true };

  test("scans few, rare or cheap candidates exactly and oversamples broad ones", () => {
    assert.deepEqual(planFiltered({ ...base, candidates: 5_000, selectivity: 0.1, annReady: false }, o), { kind: "exact" });
    assert.deepEqual(planFiltered({ ...base, candidates: 2_000, selectivity: 0.04 }, o), { kind: "exact" }, "within the exact budget");
    assert.deepEqual(planFiltered({ ...base, candidates: 9_000, selectivity: 0.009 }, o), { kind: "exact" }, "below minAnnSelectivity");
    assert.deepEqual(planFiltered({ ...base, candidates: 5_000, selectivity: 0.1 }, o), { kind: "ann", wanted: 200 });
    assert.deepEqual(
      planFiltered({ ...base, k: 100, candidates: 5_000, selectivity: 0.1 }, o),
      { kind: "exact" },
      "k' = 2,000 costs more than 5,000 exact",
    );
  });

  test("sizes the next round from the hit rate, and finishes exactly when that costs more", () => {
    const round = { k: 10, candidates: 25_000, wanted: 200, returned: 200, exhausted: false, round: 0 };
    assert.deepEqual(replanFiltered({ ...round, hits: 5 }, o), { kind: "ann", wanted: 800 }, "2.5% locally → 800");
    assert.deepEqual(replanFiltered({ ...round, hits: 9 }, o), { kind: "ann", wanted: 445 });
    assert.deepEqual(replanFiltered({ ...round, hits: 0 }, o), { kind: "exact" }, "none near the query");
    assert.deepEqual(replanFiltered({ ...round, hits: 5, exhausted: true }, o), { kind: "exact" });
    assert.deepEqual(replanFiltered({ ...round, hits: 5, round: MAX_ROUNDS - 1 }, o), { kind: "exact" });
  });
});

describe("VectorGroup", () => {
  const data = clusteredVectors({ count: 1_200, dim: 32, clusters: 12, seed: 31 });
  const queries = queriesLike(data, 20, 32);

  function meanRecall(group: VectorGroup, live: (row: number) => boolean, candidates?: (row: number) => boolean): number {
    let total = 0;
    for (const q of queries) {
      const allowed = candidates
        ? new Set(
            Array.from({ length: data.count }, (_, i) => i)
              .filter((i) => live(i) && candidates(i))
              .map(pid),
          )
        : undefined;
      const found = group.search(q, 10, allowed).map((h) => h.productId);
      for (const id of found) assert.ok(live(Number(id.slice(1))), `${id} was removed`);
      total += recall(found, exactTopK(data, q, 10, (r) => live(r) && (!candidates || candidates(r))).map(pid));
    }
    return total / queries.length;
  }

  test("answers correctly while its HNSW index fills in the background, and while rows are removed", async () => {
    const group = new VectorGroup(32, OPTIONS);
    for (let i = 0; i < data.count; i++) group.upsert(pid(i), `v${i}`, data.row(i));
    // Nothing indexed yet: exact answers.
    assert.equal(group.stats().indexSize, 0);
    assert.equal(
      meanRecall(group, () => true),
      1,
    );
    assert.equal(group.lastPath, "exact");
    // Remove every fifth product while the build is under way.
    const removed = (r: number) => r % 5 === 0;
    let checks = 0;
    for (let i = 0; i < data.count; i += 5) {
      group.remove(pid(i));
      if (i % 100 === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        assert.ok(meanRecall(group, (r) => !removed(r) || r > i) >= 0.95);
        checks++;
      }
    }
    assert.ok(checks > 5);
    await group.idle();
    const stats = group.stats();
    assert.equal(stats.size, data.count * 0.8);
    assert.equal(stats.indexSize, data.count * 0.8);
    assert.equal(stats.pending, 0);
    assert.ok(group.indexed);
    assert.ok(meanRecall(group, (r) => !removed(r)) >= 0.95);
    assert.equal(group.lastPath, "hnsw");
    assert.ok(
      meanRecall(
        group,
        (r) => !removed(r),
        (r) => data.cluster[r]! < 6,
      ) >= 0.95,
    );
    assert.equal(group.lastPath, "hnsw-filtered");
    // Every remaining product still maps to its own vector after the row moves.
    for (let i = 1; i < data.count; i += 97) {
      if (removed(i)) continue;
      assert.deepEqual(group.vectorOf(pid(i)), data.row(i));
    }
    group.close();
  });

  test("the search depth (expansionSearch) is what an unfiltered HNSW search walks: deeper finds more of the true neighbours", async () => {
    // A sparse graph (connectivity 8, small build depth) over hard data, so that depth matters.
    const hard = clusteredVectors({ count: 4_000, dim: 32, clusters: 4, seed: 41, spread: 0.9 });
    const hardQueries = queriesLike(hard, 30, 42);
    const build = { ...OPTIONS, connectivity: 8, expansionAdd: 32 };
    const meanRecallAt = async (expansionSearch: number) => {
      const group = new VectorGroup(32, { ...build, expansionSearch });
      for (let i = 0; i < hard.count; i++) group.upsert(pid(i), `v${i}`, hard.row(i));
      await group.idle();
      let total = 0;
      for (const q of hardQueries) {
        total += recall(
          group.search(q, 10).map((h) => h.productId),
          exactTopK(hard, q, 10).map(pid),
        );
      }
      assert.equal(group.lastPath, "hnsw");
      group.close();
      return total / hardQueries.length;
    };
    const shallow = await meanRecallAt(10);
    const deep = await meanRecallAt(400);
    assert.ok(deep > shallow, `depth 400 recall ${deep} should beat depth 10 recall ${shallow}`);
    assert.ok(deep >= 0.95, `depth 400 recall ${deep} (depth 10: ${shallow})`);
  });

  test("rebuilds the index once removals leave too many tombstones, and drops it when the group shrinks", async () => {
    const group = new VectorGroup(32, OPTIONS);
    for (let i = 0; i < data.count; i++) group.upsert(pid(i), `v${i}`, data.row(i));
    await group.idle();
    assert.deepEqual(group.stats(), { size: 1_200, indexSize: 1_200, pending: 0, tombstones: 0, rebuilding: false });
    // 1,050 removals: more than max(1,000, half the 150 left) tombstones → a fresh index.
    for (let i = 0; i < 1_050; i++) group.remove(pid(i));
    assert.ok(group.stats().rebuilding);
    await group.idle();
    assert.deepEqual(group.stats(), { size: 150, indexSize: 150, pending: 0, tombstones: 0, rebuilding: false });
    assert.ok(meanRecall(group, (r) => r >= 1_050) >= 0.95);
    // At most half the threshold left: exact search, no index.
    for (let i = 1_050; i < 1_160; i++) group.remove(pid(i));
    await group.idle();
    assert.equal(group.stats().indexSize, 0);
    assert.equal(
      meanRecall(group, (r) => r >= 1_160),
      1,
    );
    assert.equal(group.lastPath, "exact");
    group.close();
  });

  test("exact search, over all rows and over candidates gathered in one batch or several, is the brute-force top k with its similarities", () => {
    // No HNSW index: every search is exact. 2,500 candidates are more than one gathered batch (2,048 rows).
    const big = clusteredVectors({ count: 3_000, dim: 16, clusters: 8, seed: 41 });
    const group = new VectorGroup(16, { ...OPTIONS, bruteForceThreshold: 10_000 });
    for (let i = 0; i < big.count; i++) group.upsert(pid(i), `v${i}`, big.row(i));
    const wide = (row: number) => row % 6 !== 0;
    const narrow = (row: number) => row % 50 === 0;
    const idsOf = (allowed: (row: number) => boolean) =>
      new Set([
        ...Array.from({ length: big.count }, (_, i) => i)
          .filter(allowed)
          .map(pid),
        "not-in-this-group",
      ]);
    for (const q of queriesLike(big, 5, 42)) {
      for (const [allowed, path] of [
        [undefined, "exact"],
        [wide, "exact-candidates"],
        [narrow, "exact-candidates"],
      ] as const) {
        const found = group.search(q, 25, allowed ? idsOf(allowed) : undefined);
        assert.equal(group.lastPath, path);
        assert.deepEqual(
          found.map((h) => h.productId),
          exactTopK(big, q, 25, allowed).map(pid),
        );
        for (const h of found) {
          const row = Number(h.productId.slice(1));
          assert.ok(Math.abs(h.score - dotRow(big.matrix, row, q)) < 1e-6, `${h.productId}: ${h.score} is its similarity`);
          assert.equal(h.vectorId, `v${row}`);
        }
      }
    }
    group.close();
  });

  test("the exact scan of every row leaves out the products apart and orders equal similarities by product id", () => {
    const few = clusteredVectors({ count: 200, dim: 16, clusters: 4, seed: 43 });
    const group = new VectorGroup(16, { ...OPTIONS, bruteForceThreshold: 10_000 });
    for (let i = 0; i < few.count; i++) group.upsert(pid(i), `v${i}`, few.row(i));
    for (const q of queriesLike(few, 4, 44)) {
      // Five products with the query's own vector (equal similarities), added in reverse id order.
      for (const id of ["dup-e", "dup-d", "dup-c", "dup-b", "dup-a"]) group.upsert(id, `v-${id}`, q);
      const similarity = (id: string) => (id.startsWith("dup-") ? dotRow(q, 0, q) : dotRow(few.matrix, Number(id.slice(1)), q));
      const everyId = [...Array.from({ length: few.count }, (_, i) => pid(i)), "dup-a", "dup-b", "dup-c", "dup-d", "dup-e"];
      const byRank = everyId.sort((a, b) => similarity(b) - similarity(a) || (a < b ? -1 : 1));
      // Apart: one of the equal five, two of the nearest others, one far product and an unknown id.
      const apart = new Set(["dup-c", byRank[6]!, byRank[8]!, byRank.at(-1)!, "not-in-this-group"]);
      for (const k of [1, 3, 12, 40]) {
        const found = group.search(q, k, undefined, apart);
        assert.equal(group.lastPath, "exact");
        assert.deepEqual(
          found.map((h) => h.productId),
          byRank.filter((id) => !apart.has(id)).slice(0, k),
          `k = ${k}`,
        );
        for (const h of found) assert.ok(Math.abs(h.score - similarity(h.productId)) < 1e-6);
      }
      for (const id of ["dup-a", "dup-b", "dup-c", "dup-d", "dup-e"]) group.remove(id);
    }
    group.close();
  });

  test("one scan answers the nearest apart and the products asked by id as the two searches do, when they are a large share of the rows", async () => {
    const few = clusteredVectors({ count: 200, dim: 16, clusters: 4, seed: 45 });
    const group = new VectorGroup(16, { ...OPTIONS, bruteForceThreshold: 10_000 });
    for (let i = 0; i < few.count; i++) group.upsert(pid(i), `v${i}`, few.row(i));
    const ids = (hits: readonly GroupHit[]) => hits.map((h) => `${h.productId} ${h.vectorId} ${h.score}`);
    for (const q of queriesLike(few, 4, 46)) {
      // Equal similarities among the products asked and among the others.
      for (const id of ["dup-e", "dup-d", "dup-c", "dup-b", "dup-a"]) group.upsert(id, `v-${id}`, q);
      const asked = new Set(["dup-b", "dup-d", "not-in-this-group", ...Array.from({ length: 30 }, (_, i) => pid(i * 6))]);
      for (const k of [0, 1, 3, 12]) {
        const both = group.nearestAndAsked(q, k, asked);
        assert.ok(both, `k = ${k}: 33 of 205 rows asked is above the share`);
        assert.equal(group.lastPath, "exact");
        assert.deepEqual(ids(both.nearest), k > 0 ? ids(group.search(q, k, undefined, asked)) : [], `k = ${k}: the nearest apart`);
        assert.deepEqual(ids(both.asked), ids(group.search(q, asked.size, asked)), `k = ${k}: the products asked, best first`);
        assert.equal(both.asked.length, 32, "every product asked that the group holds, once");
      }
      // Few products asked: two searches cost less (the scan of every row sorts them all).
      assert.equal(group.nearestAndAsked(q, 3, new Set([pid(1), pid(2)])), undefined);
      for (const id of ["dup-a", "dup-b", "dup-c", "dup-d", "dup-e"]) group.remove(id);
    }
    group.close();
    // A group its HNSW index answers is not scanned whole.
    const indexed = new VectorGroup(16, { ...OPTIONS, bruteForceThreshold: 100 });
    for (let i = 0; i < few.count; i++) indexed.upsert(pid(i), `v${i}`, few.row(i));
    await indexed.idle();
    assert.equal(indexed.indexed, true);
    assert.equal(indexed.nearestAndAsked(few.row(0), 3, new Set(Array.from({ length: 100 }, (_, i) => pid(i)))), undefined);
    indexed.close();
  });

  test("treats a repeated upsert as a no-op and a new vector id as a replacement", () => {
    const group = new VectorGroup(32, OPTIONS);
    assert.equal(group.upsert("a", "v1", data.row(0)), true);
    assert.equal(group.upsert("a", "v1", data.row(0)), false);
    assert.equal(group.upsert("a", "v2", data.row(1)), true);
    assert.equal(group.size, 1);
    assert.deepEqual(group.search(data.row(1), 5), [{ productId: "a", vectorId: "v2", score: group.search(data.row(1), 1)[0]!.score }]);
    assert.equal(group.remove("a"), true);
    assert.equal(group.remove("a"), false);
    assert.deepEqual(group.search(data.row(1), 5), []);
    assert.throws(() => group.loadRow("b", "v3", new Uint8Array(12)), /dimensions/);
    group.close();
  });
});
