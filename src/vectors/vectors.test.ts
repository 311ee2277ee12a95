// The vector index against real engines: SQLite + in-process usearch, and PostgreSQL + pgvector.
// Exactness at small sizes, recall of the HNSW paths against exact search, write semantics
// (replace, remove, rollback, repeated afterCommit), tenant isolation and rebuild at start.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pg from "pg";
import { describeEachDialect } from "../../test/support/harness.js";
import { withPg } from "../../test/support/database.js";
import type { Database } from "../platform/db/index.js";
import { createVectorIndex, type VectorIndex, type VectorIndexOptions, type VectorMatch } from "./index.js";
import type { EmbeddedVectorIndex } from "./embedded.js";
import type { PostgresVectorIndex } from "./postgres.js";
import { normalized } from "./math.js";
import { clusteredVectors, exactTopK, queriesLike, recall, type ClusteredData } from "./synthetic.js";
import { openTestDatabase, type TestDatabase } from "./test-support.js";
import { createStores } from "../../test/support/database.js";

const MODEL = "test-model@1";

type AnyIndex = VectorIndex & { lastPath: string };

function pid(i: number): string {
  return `p${String(i).padStart(5, "0")}`;
}

async function load(database: Database, index: VectorIndex, storeId: string, data: ClusteredData, prefix = "v"): Promise<void> {
  const batch = 500;
  for (let start = 0; start < data.count; start += batch) {
    const upserted: { vectorId: string; productId: string; vector: Float32Array }[] = [];
    await database.transaction(async (tx) => {
      for (let i = start; i < Math.min(data.count, start + batch); i++) {
        const item = { vectorId: `${prefix}-${storeId}-${i}`, productId: pid(i), model: MODEL, vector: data.row(i) };
        await index.upsert(tx, storeId, item);
        upserted.push(item);
      }
    });
    index.afterCommit(storeId, { upserted });
  }
}

function ids(matches: VectorMatch[]): string[] {
  return matches.map((m) => m.productId);
}

function unit(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describeEachDialect("vector index", (dialect) => {
  let t: TestDatabase;
  const opened: VectorIndex[] = [];

  async function open(options: VectorIndexOptions = {}, database: Database = t.database): Promise<AnyIndex> {
    const index = createVectorIndex(database, options);
    await index.init();
    opened.push(index);
    return index as AnyIndex;
  }

  before(async () => {
    t = await openTestDatabase(dialect);
    await createStores(t.database, [
      "exact",
      "recall",
      "halfvec",
      "writes",
      "store-a",
      "store-b",
      "restart",
      "rollback",
      "dims",
      "also",
      "bits",
    ]);
  });

  after(async () => {
    for (const index of opened) await index.close();
    await t.close();
  });

  test("ranks exactly like a brute-force cosine scan below the threshold, with and without candidates", async () => {
    const index = await open();
    const data = clusteredVectors({ count: 400, dim: 16, clusters: 8, seed: 1 });
    await load(t.database, index, "exact", data);
    const rowOf = (id: string) => Number(id.slice(1));
    for (const query of queriesLike(data, 10, 2)) {
      const found = await index.search("exact", query, { k: 10 });
      assert.equal(index.lastPath, "exact");
      assert.deepEqual(ids(found), exactTopK(data, query, 10).map(pid));
      for (const match of found) {
        const row = data.row(rowOf(match.productId));
        const cosine = row.reduce((s, x, i) => s + x * query[i]!, 0);
        assert.ok(Math.abs(match.score - cosine) < 1e-5, `score ${match.score} vs ${cosine}`);
        assert.equal(match.vectorId, `v-exact-${rowOf(match.productId)}`);
      }
      const allowed = new Set(
        Array.from({ length: 400 }, (_, i) => i)
          .filter((i) => i % 3 === 0)
          .map(pid),
      );
      const filtered = await index.search("exact", query, { k: 10, candidates: allowed });
      assert.equal(index.lastPath, "exact-candidates");
      assert.deepEqual(ids(filtered), exactTopK(data, query, 10, (r) => r % 3 === 0).map(pid));
    }
    // k larger than the store, an empty candidate set, candidates without vectors, k = 0.
    assert.equal((await index.search("exact", data.row(0), { k: 1_000 })).length, 400);
    assert.deepEqual(await index.search("exact", data.row(0), { k: 10, candidates: new Set() }), []);
    assert.deepEqual(await index.search("exact", data.row(0), { k: 10, candidates: new Set(["nope"]) }), []);
    assert.deepEqual(await index.search("exact", data.row(0), { k: 0 }), []);
    // A query of another dimension meets no vectors.
    assert.deepEqual(await index.search("exact", new Float32Array(8).fill(1), { k: 5 }), []);
  });

  test("returns the k nearest apart from the products asked for by id (also), then those, marked, exact, whatever the filter or k", async () => {
    const index = await open();
    const data = clusteredVectors({ count: 300, dim: 16, clusters: 6, seed: 21 });
    await load(t.database, index, "also", data);
    const cosine = (id: string, query: Float32Array) => data.row(Number(id.slice(1))).reduce((s, x, i) => s + x * query[i]!, 0);
    const evens = new Set(Array.from({ length: 150 }, (_, i) => pid(2 * i)));
    for (const query of queriesLike(data, 5, 22)) {
      const nearest = exactTopK(data, query, 7, (r) => r % 2 === 0).map(pid);
      // Two of the nearest, three far odd products the filter excludes, and one without a vector.
      const farthest = exactTopK(
        data,
        Float32Array.from(query, (x) => -x),
        3,
        (r) => r % 2 === 1,
      ).map(pid);
      const also = new Set([nearest[0]!, nearest[3]!, ...farthest, "nope"]);
      const found = await index.search("also", query, { k: 5, candidates: evens, also });
      assert.equal(index.lastPath, "exact-candidates", "the path of the nearest");
      const apart = nearest.filter((id) => !also.has(id));
      assert.deepEqual(ids(found.filter((m) => !m.also)), apart, "the 5 nearest that were not asked for by id");
      assert.deepEqual(
        found.slice(0, 5).map((m) => m.also),
        [undefined, undefined, undefined, undefined, undefined],
      );
      assert.deepEqual(
        ids(found.slice(5)).sort(),
        [nearest[0]!, nearest[3]!, ...farthest].sort(),
        "then every product asked for that has a vector in the store, once each, near or far",
      );
      assert.ok(
        found.slice(5).every((m) => m.also === true),
        "marked",
      );
      for (const m of found) {
        assert.ok(Math.abs(m.score - cosine(m.productId, query)) < 1e-5, `${m.productId}: exact similarity`);
        assert.equal(m.vectorId, `v-also-${Number(m.productId.slice(1))}`);
      }
      // Unfiltered, with a fifth of the store asked for (the embedded index ranks every row in one
      // scan for both: VectorGroup.nearestAndAsked).
      const ranked = exactTopK(data, query, 300).map(pid);
      const many = new Set(ranked.filter((_, i) => i % 5 === 0));
      const unfiltered = await index.search("also", query, { k: 5, also: many });
      assert.deepEqual(ids(unfiltered.filter((m) => !m.also)), ranked.filter((id) => !many.has(id)).slice(0, 5));
      assert.deepEqual(ids(unfiltered.filter((m) => m.also)).sort(), [...many].sort());
      for (const m of unfiltered) assert.ok(Math.abs(m.score - cosine(m.productId, query)) < 1e-5, `${m.productId}: exact similarity`);
      // k = 0: only the products asked for.
      const alone = await index.search("also", query, { k: 0, also: new Set(farthest) });
      assert.deepEqual(ids(alone).sort(), [...farthest].sort());
      assert.ok(alone.every((m) => m.also === true));
    }
    // Ids are read in the store searched only: p00350 is a product of the store "exact", not of this one.
    assert.deepEqual(await index.search("also", data.row(0), { k: 0, also: new Set([pid(350)]) }), []);
  });

  test("keeps recall@10 ≥ 0.95 against exact search through HNSW, unfiltered and filtered (5% and 50%)", async (ctx) => {
    // Threshold 1,000 puts the 4,000 vectors on the HNSW path; exactBudget = 500 × 64 keeps the
    // 5% candidate set (200) exact and sends the 50% set (2,000) through HNSW with oversampling.
    const index = await open({ bruteForceThreshold: 1_000, exactBudget: 500 * 64 });
    const data = clusteredVectors({ count: 4_000, dim: 64, clusters: 40, seed: 3 });
    await load(t.database, index, "recall", data);
    await index.settled();
    const queries = queriesLike(data, 40, 4);
    const selective = (r: number) => r % 20 === 7; // 5%
    const broad = (r: number) => data.cluster[r]! % 2 === 0 || r % 7 === 0; // ~50%, correlated with clusters
    const setOf = (keep: (r: number) => boolean) =>
      new Set(
        Array.from({ length: data.count }, (_, i) => i)
          .filter(keep)
          .map(pid),
      );
    const cases = [
      { name: "unfiltered", keep: undefined, path: "hnsw", options: {} },
      { name: "5%", keep: selective, path: "exact-candidates", options: {} },
      { name: "50%", keep: broad, path: "hnsw-filtered", options: {} },
    ] as const;
    for (const c of cases) {
      const candidates = c.keep ? setOf(c.keep) : undefined;
      let total = 0;
      for (const query of queries) {
        const found = await index.search("recall", query, { k: 10, candidates });
        assert.equal(index.lastPath, c.path, c.name);
        assert.equal(found.length, 10, c.name);
        if (candidates) for (const id of ids(found)) assert.ok(candidates.has(id), `${c.name}: ${id} is not a candidate`);
        total += recall(ids(found), exactTopK(data, query, 10, c.keep).map(pid));
      }
      const mean = total / queries.length;
      ctx.diagnostic(`recall@10 ${c.name} (${c.path}): ${mean.toFixed(3)}`);
      assert.ok(mean >= 0.95, `${c.name}: recall@10 ${mean.toFixed(3)} < 0.95`);
    }
    // The selective set forced through HNSW (no exact budget, HNSW deemed free) still keeps
    // recall by oversampling.
    const forced = await open({ bruteForceThreshold: 1_000, exactBudget: 0, annCostRatio: 0 });
    await forced.settled();
    const candidates = setOf(selective);
    let total = 0;
    for (const query of queries) {
      const found = await forced.search("recall", query, { k: 10, candidates });
      assert.equal(forced.lastPath, "hnsw-filtered");
      total += recall(ids(found), exactTopK(data, query, 10, selective).map(pid));
    }
    ctx.diagnostic(`recall@10 5% (hnsw-filtered, forced): ${(total / queries.length).toFixed(3)}`);
    assert.ok(total / queries.length >= 0.95, `5% through HNSW: recall@10 ${(total / queries.length).toFixed(3)}`);
    if (dialect === "postgres") {
      const pgIndex = index as unknown as PostgresVectorIndex;
      const plan = await withPg(async (client) => {
        await client.query(`SET search_path TO "${t.pgSchema}", public`);
        return pgIndex.explainAnn(client, "recall", queries[0]!, 10);
      });
      assert.match(plan, /Index Scan using product_vectors_hnsw_64/);
      // One round trip per search: count the statements sent once the store's counts are cached.
      await index.search("recall", queries[1]!, { k: 10 });
      const sent: string[] = [];
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        sent.push(typeof args[0] === "string" ? args[0] : String((args[0] as { text?: string }).text));
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        await index.search("recall", queries[2]!, { k: 10 });
        assert.equal(index.lastPath, "hnsw");
      } finally {
        pg.Client.prototype.query = query;
      }
      assert.equal(sent.length, 1, `one statement per search, sent: ${sent.join(" | ")}`);
    } else {
      const stats = (index as unknown as EmbeddedVectorIndex).memoryStats("recall");
      assert.deepEqual(stats, [{ dim: 64, size: 4_000, indexed: true }]);
    }
  });

  test(
    "PostgreSQL halfvec index: recall@10 ≥ 0.95 unfiltered and filtered, scores from the full vectors",
    { skip: dialect === "sqlite" ? "halfvec is a pgvector option" : false },
    async (ctx) => {
      const index = await open({ halfvec: true, bruteForceThreshold: 500, exactBudget: 0 });
      const data = clusteredVectors({ count: 2_000, dim: 64, clusters: 20, seed: 41 });
      await load(t.database, index, "halfvec", data);
      await index.settled();
      const queries = queriesLike(data, 25, 42);
      const half = (r: number) => r % 2 === 0;
      const candidates = new Set(
        Array.from({ length: data.count }, (_, r) => r)
          .filter(half)
          .map(pid),
      );
      for (const [name, filter] of [
        ["unfiltered", undefined],
        ["50%", half],
      ] as const) {
        let total = 0;
        for (const query of queries) {
          const found = await index.search("halfvec", query, { k: 10, candidates: filter ? candidates : undefined });
          assert.equal(index.lastPath, filter ? "hnsw-filtered" : "hnsw");
          for (const m of found) {
            const cosine = data.row(Number(m.productId.slice(1))).reduce((sum, x, i) => sum + x * query[i]!, 0);
            assert.ok(Math.abs(m.score - cosine) < 1e-5, "the score is the full-precision cosine");
          }
          total += recall(ids(found), exactTopK(data, query, 10, filter).map(pid));
        }
        ctx.diagnostic(`halfvec recall@10 ${name}: ${(total / queries.length).toFixed(3)}`);
        assert.ok(total / queries.length >= 0.95, `halfvec ${name}: recall@10 ${(total / queries.length).toFixed(3)}`);
      }
      const pgIndex = index as unknown as PostgresVectorIndex;
      const plan = await withPg(async (client) => {
        await client.query(`SET search_path TO "${t.pgSchema}", public`);
        return pgIndex.explainAnn(client, "halfvec", queries[0]!, 10);
      });
      assert.match(plan, /Index Scan using product_vectors_hnswh_64/);
    },
  );

  test("a vector is stored bit for bit and a search scores it exactly: every float32 component, tiny or wide", async () => {
    const index = await open();
    // Components no short decimal holds (thirds, sevenths, 0.1, which no float32 is), over a wide
    // range of magnitudes, both signs.
    const vector = Float32Array.from({ length: 16 }, (_, i) => [1 / 3, 0.1, -2.5e-8, 1e-30][i % 4]! * (i % 3 === 0 ? -1 : 1) * (1 + i / 7));
    const stored = { vectorId: "bits", productId: "bits", model: MODEL, vector };
    await t.database.transaction((tx) => index.upsert(tx, "bits", stored));
    index.afterCommit("bits", { upserted: [stored] });
    const back = (await index.get("bits", "bits"))!;
    const expected = normalized(vector);
    assert.deepEqual(
      [...back].map((x) => x.toString()),
      [...expected].map((x) => x.toString()),
      "bit-identical components",
    );
    const [match] = await index.search("bits", expected, { k: 1 });
    assert.ok(Math.abs(match!.score - 1) < 1e-6, `self-similarity ${match!.score}`);
  });

  test("upsert replaces a product's vector and remove deletes it; a repeated afterCommit changes nothing", async () => {
    const index = await open();
    const a = unit([1, 0, 0, 0]);
    const b = unit([0, 1, 0, 0]);
    const c = unit([0, 0, 1, 0]);
    const first = { vectorId: "w1", productId: "shoe", model: MODEL, vector: a };
    const other = { vectorId: "w2", productId: "hat", model: MODEL, vector: c };
    await t.database.transaction(async (tx) => {
      await index.upsert(tx, "writes", first);
      await index.upsert(tx, "writes", other);
    });
    index.afterCommit("writes", { upserted: [first, other] });
    index.afterCommit("writes", { upserted: [first, other] });
    assert.equal(await index.count("writes"), 2);
    assert.deepEqual(ids(await index.search("writes", a, { k: 5 })), ["shoe", "hat"]);

    const replaced = { vectorId: "w3", productId: "shoe", model: MODEL, vector: Float32Array.from([0, 3, 0, 0]) };
    await t.database.transaction((tx) => index.upsert(tx, "writes", replaced));
    index.afterCommit("writes", { upserted: [replaced] });
    index.afterCommit("writes", { upserted: [replaced] });
    assert.equal(await index.count("writes"), 2);
    const top = await index.search("writes", b, { k: 5 });
    assert.equal(top.length, 2);
    assert.deepEqual(top[0], { productId: "shoe", vectorId: "w3", score: top[0]!.score });
    assert.ok(Math.abs(top[0]!.score - 1) < 1e-6);
    assert.deepEqual(await index.get("writes", "shoe"), b, "stored normalised");

    await t.database.transaction((tx) => index.remove(tx, "writes", ["shoe", "not-there"]));
    index.afterCommit("writes", { removedProductIds: ["shoe", "not-there"] });
    index.afterCommit("writes", { removedProductIds: ["shoe", "not-there"] });
    assert.equal(await index.count("writes"), 1);
    assert.equal(await index.get("writes", "shoe"), undefined);
    assert.deepEqual(ids(await index.search("writes", b, { k: 5 })), ["hat"]);
    if (dialect === "sqlite")
      assert.deepEqual((index as unknown as EmbeddedVectorIndex).memoryStats("writes"), [{ dim: 4, size: 1, indexed: false }]);
  });

  test("a rolled-back transaction leaves no vector behind", async () => {
    const index = await open();
    await assert.rejects(
      t.database.transaction(async (tx) => {
        await index.upsert(tx, "rollback", { vectorId: "r1", productId: "ghost", model: MODEL, vector: unit([1, 2, 3]) });
        throw new Error("product write failed");
      }),
      /product write failed/,
    );
    assert.equal(await index.count("rollback"), 0);
    assert.equal(await index.get("rollback", "ghost"), undefined);
    assert.deepEqual(await index.search("rollback", unit([1, 2, 3]), { k: 3 }), []);
  });

  test("rejects zero, non-finite and empty vectors", async () => {
    const index = await open();
    for (const vector of [new Float32Array(4), Float32Array.from([1, Number.NaN, 0]), new Float32Array(0)]) {
      await assert.rejects(
        t.database.transaction((tx) => index.upsert(tx, "rollback", { vectorId: "bad", productId: "bad", model: MODEL, vector })),
        RangeError,
      );
      await assert.rejects(index.search("rollback", vector, { k: 1 }), RangeError);
    }
    assert.equal(await index.count("rollback"), 0);
  });

  test("never returns a second store's vectors, even for the same product ids", async (ctx) => {
    // Small threshold: both the exact and the HNSW paths are checked.
    const index = await open({ bruteForceThreshold: 200, exactBudget: 0 });
    const dataA = clusteredVectors({ count: 600, dim: 32, clusters: 6, seed: 11 });
    const dataB = clusteredVectors({ count: 600, dim: 32, clusters: 6, seed: 12 });
    await load(t.database, index, "store-a", dataA, "a");
    await load(t.database, index, "store-b", dataB, "b");
    await index.settled();
    const all = new Set(Array.from({ length: 600 }, (_, i) => pid(i)));
    // Queries like B's vectors (where B's same-id products would win) and like A's.
    const queries = [...queriesLike(dataB, 10, 13), ...queriesLike(dataA, 5, 14)];
    for (const candidates of [undefined, all]) {
      let total = 0;
      for (const query of queries) {
        const found = await index.search("store-a", query, { k: 20, candidates });
        assert.equal(index.lastPath, candidates ? "hnsw-filtered" : "hnsw");
        assert.equal(found.length, 20);
        for (const m of found) {
          assert.match(m.vectorId, /^a-store-a-/, "only store A's vectors");
          const cosine = dataA.row(Number(m.productId.slice(1))).reduce((sum, x, i) => sum + x * query[i]!, 0);
          assert.ok(Math.abs(m.score - cosine) < 1e-5, "the score is that of A's vector");
        }
        total += recall(ids(found), exactTopK(dataA, query, 20).map(pid));
      }
      ctx.diagnostic(`recall@20 in store A, ${candidates ? "with" : "without"} candidates: ${(total / queries.length).toFixed(3)}`);
      assert.ok(total / queries.length >= 0.95, `recall@20 in store A ${(total / queries.length).toFixed(3)}`);
    }
    assert.equal(await index.count("store-a"), 600);
    assert.equal(await index.get("store-a", "p00001").then((v) => v?.length), 32);
    const stored = (await index.get("store-a", pid(3)))!;
    dataA.row(3).forEach((x, i) => assert.ok(Math.abs(stored[i]! - x) < 1e-6, "A's vector, not B's"));
    assert.deepEqual(await index.search("store-c", dataA.row(0), { k: 5 }), [], "unknown store");
  });

  test("rebuilds from the database at start with the same results as before the restart", async () => {
    const options = { bruteForceThreshold: 300 };
    const index = await open(options);
    const data = clusteredVectors({ count: 900, dim: 24, clusters: 9, seed: 21 });
    await load(t.database, index, "restart", data);
    // Some churn before the "restart": replacements and removals.
    const churn = clusteredVectors({ count: 50, dim: 24, clusters: 3, seed: 22 });
    const replaced = Array.from({ length: 50 }, (_, i) => ({
      vectorId: `n-${i}`,
      productId: pid(i * 7),
      model: MODEL,
      vector: churn.row(i),
    }));
    const removed = Array.from({ length: 40 }, (_, i) => pid(i * 11 + 3));
    await t.database.transaction(async (tx) => {
      for (const item of replaced) await index.upsert(tx, "restart", item);
      await index.remove(tx, "restart", removed);
    });
    index.afterCommit("restart", { upserted: replaced, removedProductIds: removed });
    await index.settled();
    const queries = queriesLike(data, 15, 23);
    const earlier: VectorMatch[][] = [];
    for (const q of queries) earlier.push(await index.search("restart", q, { k: 10 }));

    const database = await t.reopen();
    const restarted = await open(options, database);
    await restarted.settled();
    // Removal came after replacement in the transaction, so replaced-then-removed products are gone.
    assert.ok(
      replaced.some((r) => removed.includes(r.productId)),
      "the churn has products both replaced and removed",
    );
    const expectedCount = 900 - removed.length;
    assert.equal(await index.count("restart"), expectedCount);
    if (dialect === "sqlite") {
      // In memory too, once afterCommit has asked the database about those products.
      await index.settled();
      assert.deepEqual((index as unknown as EmbeddedVectorIndex).memoryStats("restart"), [{ dim: 24, size: expectedCount, indexed: true }]);
    }
    assert.equal(await restarted.count("restart"), expectedCount);
    for (const [i, q] of queries.entries()) {
      const found = await restarted.search("restart", q, { k: 10 });
      assert.deepEqual(ids(found), ids(earlier[i]!));
      assert.deepEqual(
        found.map((m) => m.vectorId),
        earlier[i]!.map((m) => m.vectorId),
      );
      found.forEach((m, j) => assert.ok(Math.abs(m.score - earlier[i]![j]!.score) < 1e-6));
    }
    if (dialect === "sqlite") {
      assert.deepEqual((restarted as unknown as EmbeddedVectorIndex).memoryStats("restart"), [
        { dim: 24, size: expectedCount, indexed: true },
      ]);
    }
  });

  test("a product moved to a model of another dimension keeps one vector, and counts show both models", async () => {
    const index = await open();
    const old = { vectorId: "d1", productId: "lamp", model: "old@8", vector: unit([1, 1, 1, 1, 1, 1, 1, 1]) };
    const stays = { vectorId: "d2", productId: "sofa", model: "old@8", vector: unit([1, 0, 0, 0, 0, 0, 0, 1]) };
    await t.database.transaction(async (tx) => {
      await index.upsert(tx, "dims", old);
      await index.upsert(tx, "dims", stays);
    });
    index.afterCommit("dims", { upserted: [old, stays] });
    const moved = { vectorId: "d3", productId: "lamp", model: "new@4", vector: unit([1, 2, 3, 4]) };
    await t.database.transaction((tx) => index.upsert(tx, "dims", moved));
    index.afterCommit("dims", { upserted: [moved] });
    assert.equal(await index.count("dims"), 2);
    assert.deepEqual(await index.countByModel("dims"), [
      { model: "new@4", dim: 4, count: 1 },
      { model: "old@8", dim: 8, count: 1 },
    ]);
    assert.deepEqual(ids(await index.search("dims", old.vector, { k: 5 })), ["sofa"]);
    assert.deepEqual(ids(await index.search("dims", moved.vector, { k: 5 })), ["lamp"]);
  });
});
