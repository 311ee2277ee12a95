// In-memory filters of the embedded index: filterable fields kept beside the vectors become a
// bitmap per group, searched through HNSW with oversampling or exactly when selective, with
// recall@10 ≥ 0.95 against exact filtered search; attribute changes, removals and restarts keep
// the bitmaps right.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AttributeFilter, ProductAttributes } from "./attributes.js";
import { EmbeddedVectorIndex } from "./embedded.js";
import { resolveOptions, type VectorIndexOptions } from "./index.js";
import { clusteredVectors, exactTopK, queriesLike, recall, type ClusteredData } from "./synthetic.js";
import { openTestDatabase, type TestDatabase } from "./test-support.js";
import { createStores } from "../../test/support/database.js";

const pid = (i: number) => `p${String(i).padStart(5, "0")}`;
const rowOf = (id: string) => Number(id.slice(1));
const CATEGORIES = ["tops", "dresses", "bags", "shoes", "coats"];

function attributes(category: string, price: number | null, metadata: Record<string, unknown> = {}): ProductAttributes {
  return { category, price, colorName: null, dominantColors: "[]", metadata: JSON.stringify(metadata) };
}

const byCategory = (c: string): AttributeFilter => ({ key: `cat:${c}`, test: (a) => a.category === c });

describe("embedded index: in-memory filters", () => {
  let t: TestDatabase;
  let index: EmbeddedVectorIndex;
  let data: ClusteredData;
  /** Category of each row: random but fixed (20% each), not tied to the clusters. */
  const category: string[] = [];

  async function open(options: VectorIndexOptions = {}): Promise<EmbeddedVectorIndex> {
    const i = new EmbeddedVectorIndex(t.database, resolveOptions(options, "sqlite"));
    await i.init();
    return i;
  }

  before(async () => {
    t = await openTestDatabase("sqlite");
    await createStores(t.database, ["f", "other"]);
    index = await open({ bruteForceThreshold: 1_000, exactBudget: 500 * 64 });
    data = clusteredVectors({ count: 4_000, dim: 64, clusters: 40, seed: 11 });
    for (let i = 0; i < data.count; i++) category.push(CATEGORIES[(i * 7919) % 5]!);
    for (let start = 0; start < data.count; start += 500) {
      const upserted: { vectorId: string; productId: string; vector: Float32Array }[] = [];
      const attrs: { productId: string; attributes: ProductAttributes }[] = [];
      await t.database.transaction(async (tx) => {
        for (let i = start; i < start + 500; i++) {
          const item = { vectorId: `v${i}`, productId: pid(i), model: "m", vector: data.row(i) };
          await index.upsert(tx, "f", item);
          upserted.push(item);
          attrs.push({ productId: pid(i), attributes: attributes(category[i]!, i % 100) });
        }
      });
      index.afterCommit("f", { upserted, attributes: attrs });
    }
    await index.settled();
  });
  after(async () => {
    await index.close();
    await t.close();
  });

  test("a 20% category filter keeps recall@10 ≥ 0.95 through HNSW, and a 1% filter is scanned exactly", async (ctx) => {
    const queries = queriesLike(data, 40, 5);
    const cases = [
      { name: "category 20%", filter: byCategory("dresses"), keep: (r: number) => category[r] === "dresses", path: "hnsw-filtered" },
      {
        name: "category + price 1%",
        filter: { key: "shoes<5", test: (a: ProductAttributes) => a.category === "shoes" && a.price !== null && a.price < 5 },
        keep: (r: number) => category[r] === "shoes" && r % 100 < 5,
        path: "exact-candidates",
      },
    ];
    for (const c of cases) {
      const candidates = index.filterCandidates("f", c.filter)!;
      assert.equal(candidates.size, Array.from({ length: data.count }, (_, i) => i).filter(c.keep).length, c.name);
      let total = 0;
      for (const query of queries) {
        const found = await index.search("f", query, { k: 10, candidates });
        assert.equal(index.lastPath, c.path, c.name);
        assert.equal(found.length, 10);
        for (const m of found) assert.ok(c.keep(rowOf(m.productId)), `${c.name}: ${m.productId} does not pass the filter`);
        total += recall(
          found.map((m) => m.productId),
          exactTopK(data, query, 10, c.keep).map(pid),
        );
      }
      ctx.diagnostic(`recall@10 ${c.name} (${c.path}): ${(total / queries.length).toFixed(3)}`);
      assert.ok(total / queries.length >= 0.95, `${c.name}: recall@10 ${(total / queries.length).toFixed(3)}`);
    }
  });

  test("the filtered set answers has/size/iteration like the product ids it stands for, and knows no other store", () => {
    const set = index.filterCandidates("f", byCategory("bags"))!;
    const expected = Array.from({ length: data.count }, (_, i) => i)
      .filter((i) => category[i] === "bags")
      .map(pid);
    assert.deepEqual([...set].sort(), expected);
    assert.ok(set.has(expected[0]!));
    assert.equal(set.has(pid(data.count + 1)), false);
    assert.equal(index.filterCandidates("other", byCategory("bags"))!.size, 0);
  });

  test("a product's kept fields are read from memory for the products the store's index holds, never another store's", () => {
    const held = index.attributes("f", [pid(0), pid(1), "unknown"])!;
    assert.deepEqual([...held.keys()], [pid(0), pid(1)]);
    assert.equal(held.get(pid(1))!.category, category[1]);
    assert.equal(index.attributes("other", [pid(0)])!.size, 0);
  });

  test("attribute changes, removals and rows moved by a removal are seen by the next filtered search", async () => {
    const query = data.row(3);
    const before = index.filterCandidates("f", byCategory("coats"))!;
    const outsider = Array.from({ length: data.count }, (_, i) => i).find((i) => category[i] !== "coats")!;
    assert.equal(before.has(pid(outsider)), false);
    // Recategorise one product (metadata-only write) and remove another.
    index.afterCommit("f", { attributes: [{ productId: pid(outsider), attributes: attributes("coats", 1) }] });
    const removed = Array.from({ length: data.count }, (_, i) => i).find((i) => category[i] === "coats")!;
    await t.database.transaction((tx) => index.remove(tx, "f", [pid(removed)]));
    index.afterCommit("f", { removedProductIds: [pid(removed)] });
    const after = index.filterCandidates("f", byCategory("coats"))!;
    assert.ok(after.has(pid(outsider)));
    assert.equal(after.has(pid(removed)), false);
    assert.equal(after.size, before.size, "one in, one out");
    // The set made before the change follows the group (rows moved when one was removed).
    assert.ok(before.has(pid(outsider)));
    const found = await index.search("f", data.row(outsider), { k: 1, candidates: after });
    assert.equal(found[0]!.productId, pid(outsider));
    for (const m of await index.search("f", query, { k: 50, candidates: after })) {
      assert.ok(rowOf(m.productId) === outsider || category[rowOf(m.productId)] === "coats");
    }
    // Put them back as they were for the other tests.
    index.afterCommit("f", { attributes: [{ productId: pid(outsider), attributes: attributes(category[outsider]!, outsider % 100) }] });
  });

  test("a product's fields are kept once, beside its vector: a new vector keeps them, one of another dimension takes them along", async () => {
    const [same, moved] = [7, 8];
    const cat = (i: number) => index.filterCandidates("f", byCategory(category[i]!))!;
    assert.ok(cat(same).has(pid(same)) && cat(moved).has(pid(moved)));
    const held = index.memoryStats("f")[0]!.size;
    const other = clusteredVectors({ count: 1, dim: 32, clusters: 1, seed: 5 }).row(0);
    await t.database.transaction(async (tx) => {
      await index.upsert(tx, "f", { vectorId: "v-same-2", productId: pid(same), model: "m", vector: data.row(same + 1) });
      await index.upsert(tx, "f", { vectorId: "v-moved-2", productId: pid(moved), model: "m2", vector: other });
    });
    // Re-embedded without passing the fields again (they did not change).
    index.afterCommit("f", {
      upserted: [
        { vectorId: "v-same-2", productId: pid(same), vector: data.row(same + 1) },
        { vectorId: "v-moved-2", productId: pid(moved), vector: other },
      ],
    });
    assert.ok(cat(same).has(pid(same)), "the replaced vector kept its row's fields");
    assert.ok(cat(moved).has(pid(moved)), "the fields moved to the 32-d group with the vector");
    assert.deepEqual(
      index
        .memoryStats("f")
        .map((g) => [g.dim, g.size])
        .sort(),
      [
        [32, 1],
        [64, held - 1],
      ],
    );
    // Back as they were for the other tests.
    await t.database.transaction(async (tx) => {
      await index.upsert(tx, "f", { vectorId: `v${same}`, productId: pid(same), model: "m", vector: data.row(same) });
      await index.upsert(tx, "f", { vectorId: `v${moved}`, productId: pid(moved), model: "m", vector: data.row(moved) });
    });
    index.afterCommit("f", { upserted: [same, moved].map((i) => ({ vectorId: `v${i}`, productId: pid(i), vector: data.row(i) })) });
    assert.ok(cat(moved).has(pid(moved)));
    await index.settled();
  });

  test("after a restart the fields are loaded from the products table", async () => {
    const now = 0;
    await t.database.db
      .insertInto("products")
      .values(
        ["a", "b", "c"].map((id, i) => ({
          store_id: "other",
          product_id: id,
          vector_id: `ov-${id}`,
          image_url: `https://img.example/${id}.png`,
          image_sha256: "0".repeat(64),
          name: null,
          category: i === 1 ? "Dresses" : "tops",
          brand: null,
          price: 10 * (i + 1),
          color_name: null,
          metadata: JSON.stringify({ category: i === 1 ? "Dresses" : "tops", price: 10 * (i + 1) }),
          dominant_colors: "[]",
          model: "m",
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    await t.database.transaction(async (tx) => {
      for (const [i, id] of ["a", "b", "c"].entries())
        await index.upsert(tx, "other", { vectorId: `ov-${id}`, productId: id, model: "m", vector: data.row(i) });
    });
    const restarted = await open();
    try {
      const set = restarted.filterCandidates("other", { key: "dresses-ci", test: (a) => a.category?.toLowerCase() === "dresses" })!;
      assert.deepEqual([...set], ["b"]);
      const cheap = restarted.filterCandidates("other", { key: "price<=20", test: (a) => a.price !== null && a.price <= 20 })!;
      assert.deepEqual([...cheap].sort(), ["a", "b"]);
    } finally {
      await restarted.close();
    }
  });
});
