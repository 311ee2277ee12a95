// Filter indexes on PostgreSQL (filter-indexes.ts, migration 0021): which categories and brands
// get copies of their vectors, that searches filtered on them scan the copies and find what an
// exact scan of the store finds, that the copies follow writes, and that a copy cut short is
// never used and is finished. Through the search repository, as the search service builds its
// filters.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import { testEnv } from "../../test/support/env.js";
import { createStores, writeProducts, type ProductWithVector } from "../../test/support/database.js";
import { SearchRepository } from "../search/query/repository.js";
import type { SearchFilters } from "../search/query/filters.js";
import { isDeferred } from "./candidates.js";
import { copiesRescored, emptyReport, GRAPH_EF, graphIndexName, listsIndexName, probesFor, REFRESH_LOCK } from "./filter-indexes.js";
import { createVectorIndex } from "./index.js";
import { HALF_PRECISION_SLACK, nearestCopiesQuery, type PostgresVectorIndex } from "./postgres.js";
import { dotRow, normalized, toPgVector } from "./math.js";
import { clusteredVectors, exactTopK, queriesLike, recall } from "./synthetic.js";
import { openTestDatabase, type TestDatabase } from "./test-support.js";
import { withPg } from "../../test/support/database.js";

const skip = !testEnv.databaseUrl;
if (skip && testEnv.ci) throw new Error("CI run without TEST_DATABASE_URL: the PostgreSQL filter index tests cannot run");

const pid = (i: number) => `p${String(i).padStart(5, "0")}`;

describe("PostgreSQL filter indexes [postgres]", { skip: skip ? "TEST_DATABASE_URL not set" : false }, () => {
  let t: TestDatabase;
  let index: PostgresVectorIndex;
  // Store "a": 3,000 products in 10 clusters; the category follows the cluster (~300 each, 10 %),
  // the brand is independent of it (20 brands of 150, 5 %).
  const data = clusteredVectors({ count: 3_000, dim: 32, clusters: 10, seed: 31 });
  const category = (r: number) => `Cat-${data.cluster[r]}`;
  const brand = (r: number) => `Brand-${r % 20}`;
  // Store "b": 600 products, 120 of them (20 %) in a category of the same name as one of a's.
  const other = clusteredVectors({ count: 600, dim: 32, clusters: 4, seed: 32 });
  let repo: SearchRepository;

  const write = (storeId: string, rows: ProductWithVector[]) => writeProducts(t.database, index, storeId, rows, "m@32");
  const copies = async (storeId: string, field: string, value: string) =>
    (
      await sql<{ product_id: string }>`
        SELECT c.product_id FROM product_vector_copies c JOIN vector_filter_indexes f ON f.id = c.index_id
        WHERE f.store_id = ${storeId} AND f.field = ${field} AND f.value = ${value} ORDER BY 1`.execute(t.database.db)
    ).rows.map((r) => r.product_id);
  const registry = async () =>
    (
      await t.database.db
        .selectFrom("vector_filter_indexes")
        .select(["id", "store_id", "field", "value", "ready", "rows"])
        .orderBy("store_id")
        .orderBy("field")
        .orderBy("value")
        .execute()
    ).map((r) => ({ ...r, key: `${r.store_id} ${r.field}=${r.value}` }));
  /** The access method of the index of that name in the test schema, and whether it is valid; undefined when there is none. */
  const indexNamed = async (name: string) =>
    (
      await sql<{ am: string; valid: boolean }>`
        SELECT a.amname AS am, i.indisvalid AS valid FROM pg_class c
        JOIN pg_index i ON i.indexrelid = c.oid JOIN pg_am a ON a.oid = c.relam
        WHERE c.relname = ${name} AND c.relnamespace = current_schema()::regnamespace`.execute(t.database.db)
    ).rows[0];
  /**
   * Searches store a with `filters` as the search service does; the path taken and the products
   * (the nearest: not those asked for by id, `also`, which follow them). The products asked for by
   * id come with their exact similarity, whatever the filter, and those without a vector in the
   * store not at all (checked here).
   */
  const search = async (query: Float32Array, filters: SearchFilters, storeId = "a", also?: ReadonlySet<string>) => {
    const candidates = await repo.candidates(storeId, filters);
    assert.ok(isDeferred(candidates), "more products than the listed maximum: the filter stays in the database");
    const found = await index.search(storeId, query, { k: 10, candidates, also });
    const byId = found.filter((m) => m.also);
    const asked = [...(also ?? [])];
    const known = (
      await sql<{
        product_id: string;
      }>`SELECT product_id FROM product_vectors WHERE store_id = ${storeId} AND product_id = ANY(${asked}::text[])`.execute(t.database.db)
    ).rows
      .map((r) => r.product_id)
      .sort();
    assert.deepEqual(byId.map((m) => m.productId).sort(), known, "the products asked for by id");
    for (const m of byId) {
      assert.ok(
        Math.abs(m.score - dotRow(data.matrix, Number(m.productId.slice(1)), query)) < 1e-5,
        `${m.productId}: its exact similarity`,
      );
    }
    return { path: index.lastPath, ids: found.filter((m) => !m.also).map((m) => m.productId) };
  };
  /** Two of `ids` (the 1st and 4th) and a product of no store, to be asked for apart (VectorSearchOptions.also). */
  const apartOf = (ids: readonly string[]) => new Set([ids[0]!, ids[3]!, "nope"]);

  before(async () => {
    t = await openTestDatabase("postgres");
    await createStores(t.database, ["a", "b"]);
    // Counts never cached, so registry changes show at once; no exact budget, so the cost model decides.
    index = createVectorIndex(t.database, {
      bruteForceThreshold: 500,
      exactBudget: 0,
      countCacheMs: 0,
      filterIndexes: { minRows: 100, maxPerStore: 12 },
    }) as PostgresVectorIndex;
    await index.init();
    repo = new SearchRepository(t.database.db, "postgres", 50);
    await write(
      "a",
      Array.from({ length: data.count }, (_, r) => ({
        id: pid(r),
        vector: data.row(r),
        meta: { category: category(r), brand: brand(r), price: (r % 100) + 1 },
      })),
    );
    await write(
      "b",
      Array.from({ length: other.count }, (_, r) => ({
        id: `b${r}`,
        vector: other.row(r),
        meta: { category: r < 120 ? "cat-0" : `other-${r % 8}`, brand: "solo" },
      })),
    );
    await index.settled();
    await sql`ANALYZE products`.execute(t.database.db);
  });

  after(async () => {
    await index?.close();
    await t?.close();
  });

  test("refresh gives each store's large categories and brands copies, largest first, within the per-store cap", async () => {
    const report = await index.refreshFilterIndexes();
    assert.equal(report.busy, false);
    const entries = await registry();
    const a = entries.filter((e) => e.store_id === "a");
    // Ten categories of ~300, then the two first brands of 150 (a tie broken by value): 12.
    assert.deepEqual(
      a.map((e) => e.key),
      ["a brand=brand-0", "a brand=brand-1", ...Array.from({ length: 10 }, (_, c) => `a category=cat-${c}`)],
    );
    // Store b: its 20 % category; "solo" holds the whole store, which its own graph serves.
    assert.deepEqual(
      entries.filter((e) => e.store_id === "b").map((e) => e.key),
      ["b category=cat-0"],
    );
    assert.ok(entries.every((e) => e.ready));
    assert.equal(report.created.length, 13);
    // Each index holds its own store's products only.
    const aCat0 = Array.from({ length: data.count }, (_, r) => r)
      .filter((r) => category(r) === "Cat-0")
      .map(pid);
    assert.deepEqual(await copies("a", "category", "cat-0"), aCat0);
    assert.deepEqual(await copies("b", "category", "cat-0"), Array.from({ length: 120 }, (_, r) => `b${r}`).sort());
    assert.equal(a.find((e) => e.value === "cat-0")!.rows, aCat0.length);
    // A second round changes nothing.
    const again = await index.refreshFilterIndexes();
    assert.deepEqual([again.created, again.dropped, again.kept], [[], [], 13]);
  });

  test("a search filtered on an indexed category or brand scans its copies and finds what an exact scan of the store finds", async () => {
    const queries = queriesLike(data, 20, 33);
    for (const [qi, query] of queries.entries()) {
      const nearest = data.cluster[Number(exactTopK(data, query, 1)[0])]!;
      // The query's own category, one far from it (which excludes its whole neighbourhood), a
      // brand (in either case), and a category narrowed by a price bound.
      const far = (nearest + 3) % 10;
      const cases: [SearchFilters, (r: number) => boolean][] = [
        [{ category: `cat-${nearest}` }, (r) => data.cluster[r] === nearest],
        [{ category: `CAT-${far}` }, (r) => data.cluster[r] === far],
        [{ metadata_filters: [{ field: "brand", operator: "eq", value: `BRAND-${qi % 2}` }] }, (r) => r % 20 === qi % 2],
        [{ category: `cat-${far}`, price_max: 30 }, (r) => data.cluster[r] === far && (r % 100) + 1 <= 30],
      ];
      for (const [filters, keep] of cases) {
        const { path, ids } = await search(query, filters);
        assert.equal(path, "exact-filter-index", JSON.stringify(filters));
        assert.deepEqual(ids, exactTopK(data, query, 10, keep).map(pid), JSON.stringify(filters));
        // Two of them asked for apart: the ten nearest of the others, whole filter or narrower.
        const apart = apartOf(ids);
        const others = await search(query, filters, "a", apart);
        assert.equal(others.path, "exact-filter-index", JSON.stringify(filters));
        assert.deepEqual(
          others.ids,
          exactTopK(data, query, 12, keep)
            .map(pid)
            .filter((id) => !apart.has(id)),
          JSON.stringify(filters),
        );
      }
    }
  });

  test("a deep search exact only at its head: the head is the exact answer, the rest within half precision's bound", async () => {
    const brand0 = (r: number) => r % 20 === 0;
    const candidates = await repo.candidates("a", { metadata_filters: [{ field: "brand", operator: "eq", value: "brand-0" }] });
    assert.ok(isDeferred(candidates));
    for (const query of queriesLike(data, 5, 35)) {
      const deep = await index.search("a", query, { k: 60, candidates, exact: 10 });
      assert.equal(index.lastPath, "exact-filter-index");
      assert.equal(deep.length, 60);
      const similarity = (id: string) => dotRow(data.matrix, Number(id.slice(1)), query);
      // The head: the exact answer, with the full vectors' similarities.
      const head = exactTopK(data, query, 10, brand0).map(pid);
      assert.deepEqual(
        deep.slice(0, 10).map((m) => m.productId),
        head,
      );
      for (const m of deep.slice(0, 10)) assert.ok(Math.abs(m.score - similarity(m.productId)) < 1e-5, m.productId);
      // Past it: half-precision similarities, off by less than half the slack, and no product that
      // could not be among the 60 nearest.
      const sixtieth = similarity(pid(exactTopK(data, query, 60, brand0)[59]!));
      for (const m of deep) {
        assert.ok(Math.abs(m.score - similarity(m.productId)) <= HALF_PRECISION_SLACK / 2, m.productId);
        assert.ok(similarity(m.productId) >= sixtieth - HALF_PRECISION_SLACK, m.productId);
      }
      // … and read from the copies, not the full vectors, for most of it.
      assert.ok(
        deep.slice(10).some((m) => Math.abs(m.score - similarity(m.productId)) > 1e-6),
        "past the head, similarities come from the half-precision copies",
      );
      // Asked exact throughout, the same head.
      const exact = await index.search("a", query, { k: 60, candidates });
      assert.deepEqual(
        exact.slice(0, 10).map((m) => m.productId),
        head,
      );
    }
  });

  test("a deep search looks up each head copy's full vector once", async () => {
    const candidates = await repo.candidates("a", { metadata_filters: [{ field: "brand", operator: "eq", value: "brand-0" }] });
    assert.ok(isDeferred(candidates));
    const [brandIndex] = (await registry()).filter((r) => r.key === "a brand=brand-0");
    assert.ok(brandIndex);
    /** Every plan node below `node` (itself included). */
    const nodes = (node: Record<string, unknown>): Record<string, unknown>[] => [
      node,
      ...((node["Plans"] as Record<string, unknown>[] | undefined) ?? []).flatMap(nodes),
    ];
    for (const query of queriesLike(data, 3, 36)) {
      const statement = nearestCopiesQuery(
        "a",
        toPgVector(normalized(query)),
        32,
        [brandIndex.id],
        60,
        copiesRescored(60, 3),
        candidates,
        false,
        10,
      );
      const { rows } = await sql<{ "QUERY PLAN": string }>`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`.execute(t.database.db);
      const plan = (JSON.parse(rows[0]!["QUERY PLAN"]) as [{ Plan: Record<string, unknown> }])[0].Plan;
      // The full vectors are read by primary key, once per head copy: the head of 10 and the few
      // copies within the slack of its 10th (a plan that copies the CASE into a filter reads twice).
      const lookups = nodes(plan)
        .filter((n) => n["Relation Name"] === "product_vectors")
        .reduce((sum, n) => sum + Number(n["Actual Loops"]), 0);
      assert.ok(lookups >= 10 && lookups <= 14, `${lookups} full-vector lookups for a head of 10`);
    }
  });

  test("a brand without copies, or a filter that pins no category or brand, takes the store's own paths", async () => {
    const [query] = queriesLike(data, 1, 34);
    const brandWithout = await search(query!, { metadata_filters: [{ field: "brand", operator: "eq", value: "brand-7" }] });
    assert.notEqual(brandWithout.path, "exact-filter-index");
    const priceOnly = await search(query!, { price_max: 30 });
    assert.notEqual(priceOnly.path, "exact-filter-index");
    // `in` over two categories with copies scans both.
    const two = await search(query!, { metadata_filters: [{ field: "category", operator: "in", value: ["cat-1", "cat-2"] }] });
    assert.equal(two.path, "exact-filter-index");
    assert.deepEqual(two.ids, exactTopK(data, query!, 10, (r) => data.cluster[r] === 1 || data.cluster[r] === 2).map(pid));
    // One of them without copies: the store's own paths.
    const partly = await search(query!, { metadata_filters: [{ field: "category", operator: "in", value: ["cat-1", "nothing"] }] });
    assert.notEqual(partly.path, "exact-filter-index");
  });

  test("another store's index of the same category name never answers for this store", async () => {
    const [query] = queriesLike(other, 1, 35);
    const { path, ids } = await search(query!, { category: "cat-0" }, "b");
    assert.equal(path, "exact-filter-index");
    assert.ok(ids.length === 10 && ids.every((id) => /^b\d+$/.test(id) && Number(id.slice(1)) < 120), ids.join(","));
  });

  test("the copies follow writes: a changed category, a replaced vector, a removed product, a new one", async () => {
    // p00000's category moves to another cluster's.
    const from = category(0).toLowerCase();
    const to = `cat-${(data.cluster[0]! + 1) % 10}`;
    await t.database.db
      .updateTable("products")
      .set({ category: to })
      .where("store_id", "=", "a")
      .where("product_id", "=", pid(0))
      .execute();
    assert.ok(!(await copies("a", "category", from)).includes(pid(0)));
    assert.ok((await copies("a", "category", to)).includes(pid(0)));
    // A new vector for p00000 replaces its copies.
    const replacement = data.row(1);
    await t.database.transaction((tx) =>
      index.upsert(tx, "a", { vectorId: "v-new", productId: pid(0), model: "m@32", vector: replacement }),
    );
    const stored = await sql<{ vector_id: string; same: boolean }>`
      SELECT c.vector_id, c.embedding = v.embedding::halfvec AS same
      FROM product_vector_copies c JOIN product_vectors v ON v.store_id = c.store_id AND v.product_id = c.product_id
      WHERE c.store_id = 'a' AND c.product_id = ${pid(0)}`.execute(t.database.db);
    assert.ok(stored.rows.length === 2 && stored.rows.every((r) => r.vector_id === "v-new" && r.same), JSON.stringify(stored.rows));
    // Removing the vector removes its copies.
    await t.database.transaction((tx) => index.remove(tx, "a", [pid(0)]));
    assert.ok(!(await copies("a", "category", to)).includes(pid(0)));
    assert.ok(!(await copies("a", "brand", "brand-0")).includes(pid(0)));
    // A new product of an indexed category gets its copy, in this store's index only.
    await write("a", [{ id: "fresh", vector: data.row(5), meta: { category: "CAT-0", brand: "none" } }]);
    assert.ok((await copies("a", "category", "cat-0")).includes("fresh"));
    assert.ok(!(await copies("b", "category", "cat-0")).includes("fresh"));
  });

  test("a copy cut short is never searched and is finished by the next round; a shrunk value loses its copies", async () => {
    const target = (await registry()).find((e) => e.key === "a category=cat-4")!;
    // As after a crash mid-copy: the registry row not ready, part of the copies missing.
    await t.database.db.updateTable("vector_filter_indexes").set({ ready: false }).where("id", "=", target.id).execute();
    await sql`DELETE FROM product_vector_copies WHERE index_id = ${target.id} AND product_id < 'p01000'`.execute(t.database.db);
    const [query] = queriesLike(data, 1, 36);
    assert.notEqual((await search(query!, { category: "cat-4" })).path, "exact-filter-index");
    const report = await index.refreshFilterIndexes();
    assert.deepEqual(report.created, [`a category=cat-4 (32-d)`]);
    const redone = (await registry()).find((e) => e.id === target.id)!;
    assert.equal(redone.ready, true);
    assert.equal(redone.rows, target.rows);
    const found = await search(query!, { category: "cat-4" });
    assert.equal(found.path, "exact-filter-index");
    assert.deepEqual(found.ids, exactTopK(data, query!, 10, (r) => data.cluster[r] === 4).map(pid));

    // brand-1 falls to 40 products (below half of minRows): its copies go.
    const brand1 = Array.from({ length: data.count }, (_, r) => r).filter((r) => r % 20 === 1 && r >= 800);
    await t.database.db
      .updateTable("products")
      .set({ brand: "gone" })
      .where("store_id", "=", "a")
      .where("product_id", "in", brand1.map(pid))
      .execute();
    const shrunk = await index.refreshFilterIndexes();
    // Its place under the per-store cap goes to the next brand.
    assert.deepEqual([shrunk.dropped, shrunk.created], [["a brand=brand-1 (32-d)"], ["a brand=brand-10 (32-d)"]]);
    assert.ok(!(await registry()).some((e) => e.key === "a brand=brand-1"));
    assert.deepEqual(await copies("a", "brand", "brand-1"), []);
  });

  test("what is written while a value is being copied (the triggers leave it alone) is caught up before it is ready", async () => {
    const target = (await registry()).find((e) => e.key === "a category=cat-6")!;
    const members = () =>
      Array.from({ length: data.count }, (_, r) => r)
        .filter((r) => data.cluster[r] === 6)
        .map(pid);
    // As mid-copy: neither live nor ready. Writes now leave its copies alone.
    await t.database.db.updateTable("vector_filter_indexes").set({ live: false, ready: false }).where("id", "=", target.id).execute();
    const [moved, outdated, missing] = members();
    await t.database.db
      .updateTable("products")
      .set({ category: "cat-7" })
      .where("store_id", "=", "a")
      .where("product_id", "=", moved!)
      .execute();
    const foreign = Array.from({ length: data.count }, (_, r) => r).find((r) => data.cluster[r] === 8)!;
    await t.database.db
      .updateTable("products")
      .set({ category: "CAT-6" })
      .where("store_id", "=", "a")
      .where("product_id", "=", pid(foreign))
      .execute();
    assert.ok((await copies("a", "category", "cat-6")).includes(moved!), "not live: the trigger left the old copy");
    assert.ok(!(await copies("a", "category", "cat-6")).includes(pid(foreign)), "not live: no copy for the newcomer");
    // Copies the bulk copy keeps as they are (it only adds what is missing): an outdated one, and one gone.
    await sql`UPDATE product_vector_copies SET vector_id = 'old' WHERE index_id = ${target.id} AND product_id = ${outdated!}`.execute(
      t.database.db,
    );
    await sql`DELETE FROM product_vector_copies WHERE index_id = ${target.id} AND product_id = ${missing!}`.execute(t.database.db);
    const report = await index.refreshFilterIndexes();
    assert.ok(report.created.includes("a category=cat-6 (32-d)"), JSON.stringify(report));
    const expected = [...members().filter((id) => id !== moved), pid(foreign)].sort();
    assert.deepEqual(await copies("a", "category", "cat-6"), expected);
    const { rows } = await sql<{ vector_id: string }>`
      SELECT vector_id FROM product_vector_copies WHERE index_id = ${target.id} AND product_id = ${outdated!}`.execute(t.database.db);
    assert.deepEqual(rows, [{ vector_id: `v-${outdated!}` }]);
    const entry = (await registry()).find((e) => e.id === target.id)!;
    assert.deepEqual([entry.ready, entry.rows], [true, expected.length]);
  });

  test("a value dropped by another process is not scanned from a stale cache of its id", async () => {
    // An API process caching the registry (10 s by default).
    const api = createVectorIndex(t.database, {
      bruteForceThreshold: 500,
      exactBudget: 0,
      filterIndexes: { minRows: 100, maxPerStore: 12 },
    }) as PostgresVectorIndex;
    try {
      const [query] = queriesLike(data, 1, 37);
      const filters: SearchFilters = { metadata_filters: [{ field: "category", operator: "in", value: ["cat-2", "cat-3"] }] };
      const searchWith = async () => {
        const found = await api.search("a", query!, { k: 10, candidates: await repo.candidates("a", filters) });
        return { path: api.lastPath, ids: found.map((m) => m.productId) };
      };
      assert.equal((await searchWith()).path, "exact-filter-index");
      // The worker drops cat-3 as refresh() does: out of searches and triggers, then deleted.
      await t.database.db
        .updateTable("vector_filter_indexes")
        .set({ live: false, ready: false })
        .where("store_id", "=", "a")
        .where("value", "=", "cat-3")
        .execute();
      await t.database.db.deleteFrom("vector_filter_indexes").where("store_id", "=", "a").where("value", "=", "cat-3").execute();
      const after = await searchWith();
      assert.notEqual(after.path, "exact-filter-index", "the cached ids are checked against the registry in the scan itself");
      assert.deepEqual(after.ids, exactTopK(data, query!, 10, (r) => data.cluster[r] === 2 || data.cluster[r] === 3).map(pid));
    } finally {
      await api.close();
      assert.deepEqual((await index.refreshFilterIndexes()).created, ["a category=cat-3 (32-d)"]);
    }
  });

  test("one refresh at a time across processes; a stop aborts one waiting for older transactions, and frees the lock", async () => {
    // Another process holding the lock (a session of its own in the same schema).
    await t.database.db.connection().execute(async (other) => {
      await sql`SELECT pg_advisory_lock(${REFRESH_LOCK})`.execute(other);
      try {
        assert.deepEqual(await index.refreshFilterIndexes(), { ...emptyReport(), busy: true }, "nothing done");
      } finally {
        await sql`SELECT pg_advisory_unlock(${REFRESH_LOCK})`.execute(other);
      }
    });
    // A writing transaction older than a value's new registry row: the copy waits for it to end.
    const target = (await registry()).find((e) => e.key === "a category=cat-5")!;
    await t.database.db.updateTable("vector_filter_indexes").set({ ready: false }).where("id", "=", target.id).execute();
    await t.database.db.transaction().execute(async (older) => {
      await sql`SELECT pg_current_xact_id()`.execute(older); // holds a transaction id, as a writer does
      const stopping = new AbortController();
      const refreshing = index.refreshFilterIndexes(stopping.signal);
      await new Promise((r) => setTimeout(r, 500));
      stopping.abort();
      const started = Date.now();
      await assert.rejects(refreshing);
      assert.ok(Date.now() - started < 2_000, "the abort ended the wait");
    });
    // The lock was released; with the older transaction over, the copy is finished.
    const report = await index.refreshFilterIndexes();
    assert.equal(report.busy, false);
    assert.deepEqual(report.created, ["a category=cat-5 (32-d)"]);
  });

  test("a large value gets inverted lists, searched through them; a narrower filter scans exactly; they go when the value shrinks", async (ctx) => {
    // The worker with a lower bar for lists than the default 20,000: a's categories (~300 copies) get them.
    const worker = createVectorIndex(t.database, {
      bruteForceThreshold: 500,
      exactBudget: 0,
      countCacheMs: 0,
      filterIndexes: { minRows: 100, maxPerStore: 12, listsMinRows: 200 },
    }) as PostgresVectorIndex;
    const lists = async () =>
      (
        await t.database.db
          .selectFrom("vector_filter_indexes")
          .select(["id", "store_id", "field", "value", "rows", "lists", "probes"])
          .where("store_id", "=", "a")
          .where("field", "=", "category")
          .orderBy("value")
          .execute()
      ).map((r) => ({ ...r, key: `a ${r.field}=${r.value} (32-d)` }));
    const indexOf = (id: number) => indexNamed(listsIndexName(id));
    // The reference: the store's own rows of those products, scanned exactly by the database.
    const members = async (values: number[], priceMax = Infinity) =>
      (
        await sql<{ product_id: string }>`
          SELECT p.product_id FROM products p JOIN product_vectors v ON v.store_id = p.store_id AND v.product_id = p.product_id
          WHERE p.store_id = 'a' AND lower(p.category) = ANY(${values.map((c) => `cat-${c}`)}::text[])
            AND (${priceMax === Infinity} OR p.price <= ${Number.isFinite(priceMax) ? priceMax : 0})`.execute(t.database.db)
      ).rows.map((r) => r.product_id);
    const exactAmong = async (query: Float32Array, ids: string[]) =>
      (
        await sql<{ product_id: string }>`
          SELECT product_id FROM product_vectors WHERE store_id = 'a' AND product_id = ANY(${ids}::text[])
          ORDER BY embedding <=> ${`[${[...query].join(",")}]`}::vector, product_id LIMIT 10`.execute(t.database.db)
      ).rows.map((r) => r.product_id);
    try {
      const categories = await lists();
      // A build cut short leaves an index of that name behind: the next round replaces it.
      const leftover = categories.find((e) => e.value === "cat-0")!;
      await sql`CREATE INDEX ${sql.id(listsIndexName(leftover.id))} ON product_vector_copies (product_id) WHERE index_id = ${sql.raw(String(leftover.id))}`.execute(
        t.database.db,
      );
      // An orphan (its registry row gone with its store) is dropped.
      await sql`CREATE INDEX ${sql.id(listsIndexName(999_999))} ON product_vector_copies (product_id) WHERE index_id = 999999`.execute(
        t.database.db,
      );
      // One value whose build fails (here a table holds its index's name) is reported; the others are built.
      const blocked = categories.find((e) => e.value === "cat-2")!;
      await sql`CREATE TABLE ${sql.id(listsIndexName(blocked.id))} (x int)`.execute(t.database.db);
      const report = await worker.refreshFilterIndexes();
      assert.deepEqual(
        [...report.listed].sort(),
        categories.filter((e) => e !== blocked).map((e) => e.key),
      );
      assert.equal(report.failed.length, 1);
      assert.ok(report.failed[0]!.startsWith(`${blocked.key}: `), report.failed[0]);
      assert.equal(await indexOf(999_999), undefined);
      await sql`DROP TABLE ${sql.id(listsIndexName(blocked.id))}`.execute(t.database.db);
      assert.deepEqual((await worker.refreshFilterIndexes()).listed, [blocked.key], "built by the next round");
      for (const e of await lists()) {
        assert.equal(e.lists, Math.ceil(Math.sqrt(e.rows)), e.key);
        assert.equal(e.probes, probesFor(e.lists!), e.key);
        assert.deepEqual(await indexOf(e.id), { am: "ivfflat", valid: true }, e.key);
      }
      assert.deepEqual((await worker.refreshFilterIndexes()).listed, [], "a second round keeps them");

      // Searches on one or two whole categories go through the lists, and find nearly what an exact
      // scan finds. (Here each category is one round cluster of ~300 in 18 lists, 8 probed: the
      // hardest shape for lists, a query far from it finding its nearest spread over many of them;
      // bench:scale measures the default sizes.)
      const queries = queriesLike(data, 20, 38);
      const cases: [Float32Array, SearchFilters, number[]][] = queries.flatMap((query) => {
        const nearest = data.cluster[Number(exactTopK(data, query, 1)[0])]!;
        const far = (nearest + 3) % 10;
        return [
          [query, { category: `cat-${nearest}` }, [nearest]],
          [query, { category: `CAT-${far}` }, [far]],
          [query, { metadata_filters: [{ field: "category", operator: "in", value: [`cat-${nearest}`, `cat-${far}`] }] }, [nearest, far]],
        ] as [Float32Array, SearchFilters, number[]][];
      });
      let total = 0;
      for (const [query, filters, values] of cases) {
        const { path, ids } = await search(query, filters);
        assert.equal(path, "ivf-filter-index", JSON.stringify(filters));
        const allowed = await members(values);
        assert.ok(
          ids.length === 10 && ids.every((id) => allowed.includes(id)),
          `${JSON.stringify(filters)}: ${ids.filter((id) => !allowed.includes(id)).join(",")} not in it`,
        );
        total += recall(ids, await exactAmong(query, allowed));
      }
      ctx.diagnostic(`recall@10 through inverted lists: ${(total / cases.length).toFixed(3)} over ${cases.length} searches`);
      assert.ok(total / cases.length >= 0.75, `recall@10 ${(total / cases.length).toFixed(3)}`);
      // A copy that lags a write (a product of cat-2 still copied under cat-1, as a write racing the
      // refresh's catch-up could leave it) is never returned for cat-1: the hits are checked.
      const cat1 = categories.find((e) => e.value === "cat-1")!;
      const [stray] = await members([2]);
      await sql`INSERT INTO product_vector_copies (index_id, store_id, product_id, vector_id, embedding)
        SELECT ${cat1.id}, store_id, product_id, vector_id, embedding::halfvec FROM product_vectors
        WHERE store_id = 'a' AND product_id = ${stray!}`.execute(t.database.db);
      const strayVector = (
        await sql<{ e: string }>`SELECT embedding::text AS e FROM product_vectors WHERE store_id = 'a' AND product_id = ${stray!}`.execute(
          t.database.db,
        )
      ).rows[0]!.e;
      const strayQuery = Float32Array.from(JSON.parse(strayVector) as number[]);
      const notStray = await search(strayQuery, { category: "cat-1" });
      assert.equal(notStray.path, "ivf-filter-index");
      assert.ok(!notStray.ids.includes(stray!), "the stray copy is the nearest, yet not a hit");
      const cat1Members = await members([1]);
      assert.ok(notStray.ids.length === 10 && notStray.ids.every((id) => cat1Members.includes(id)), notStray.ids.join(","));
      await sql`DELETE FROM product_vector_copies WHERE index_id = ${cat1.id} AND product_id = ${stray!}`.execute(t.database.db);
      // Probing every list reads every copy: the searches then find exactly what an exact scan finds.
      await sql`UPDATE vector_filter_indexes SET probes = lists WHERE lists IS NOT NULL`.execute(t.database.db);
      for (const [query, filters, values] of cases) {
        const { path, ids } = await search(query, filters);
        assert.equal(path, "ivf-filter-index", JSON.stringify(filters));
        assert.deepEqual(ids, await exactAmong(query, await members(values)), JSON.stringify(filters));
        // Two of them asked for apart: the lists are read on past them, inside the index scan.
        const apart = apartOf(ids);
        const others = await search(query, filters, "a", apart);
        assert.equal(others.path, "ivf-filter-index", JSON.stringify(filters));
        assert.deepEqual(
          others.ids,
          await exactAmong(
            query,
            (await members(values)).filter((id) => !apart.has(id)),
          ),
          JSON.stringify(filters),
        );
      }
      // Two values through their lists are read by one statement each, side by side, and each
      // statement checks that its value is still ready: an API process that cached both ids (10 s
      // by default) while another process drops one of them does not rank the other's copies alone.
      const [pairQuery, pairFilters, pairValues] = cases[2]!;
      const api = createVectorIndex(t.database, {
        bruteForceThreshold: 500,
        exactBudget: 0,
        filterIndexes: { minRows: 100, maxPerStore: 12 },
      });
      const dropped = categories.find((e) => e.value === `cat-${pairValues[1]}`)!;
      try {
        const searchWith = async () => {
          const found = await api.search("a", pairQuery, { k: 10, candidates: await repo.candidates("a", pairFilters) });
          return { path: (api as PostgresVectorIndex).lastPath, ids: found.map((m) => m.productId) };
        };
        assert.equal((await searchWith()).path, "ivf-filter-index");
        await t.database.db.updateTable("vector_filter_indexes").set({ ready: false }).where("id", "=", dropped.id).execute();
        const withoutOne = await searchWith();
        assert.notEqual(withoutOne.path, "ivf-filter-index", "each statement checks its value against the registry");
        assert.deepEqual(withoutOne.ids, await exactAmong(pairQuery, await members(pairValues)));
      } finally {
        await api.close();
        await t.database.db.updateTable("vector_filter_indexes").set({ ready: true }).where("id", "=", dropped.id).execute();
      }
      // The function reads a value's copies through its index (the plan of its nested statement).
      const target = categories.find((e) => e.value === "cat-1")!;
      const plans = await withPg(async (client) => {
        const notices: string[] = [];
        client.on("notice", (n: { message?: string }) => notices.push(n.message ?? ""));
        await client.query(`SET search_path TO "${t.pgSchema}", public`);
        await client.query("LOAD 'auto_explain'");
        await client.query(
          "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET client_min_messages = log",
        );
        await client.query("SELECT * FROM product_vector_copies_nearest('a', 32, $1::int[], $2::halfvec, 40)", [
          [target.id],
          `[${[...queries[0]!].join(",")}]`,
        ]);
        return notices.join("\n");
      });
      assert.match(plans, new RegExp(`Index Scan using ${listsIndexName(target.id)}`));
      // A category narrowed by a price: an exact scan of its copies, as without lists.
      const [query] = queries;
      const narrowed = await search(query!, { category: "cat-1", price_max: 30 });
      assert.equal(narrowed.path, "exact-filter-index");
      assert.deepEqual(narrowed.ids, await exactAmong(query!, await members([1], 30)));

      // Back to the default bar (20,000; kept down to 10,000): the lists go, the searches are exact again.
      const back = await index.refreshFilterIndexes();
      assert.deepEqual(
        [...back.unlisted].sort(),
        categories.map((e) => e.key),
      );
      for (const e of await lists()) {
        assert.deepEqual([e.lists, e.probes], [null, null], e.key);
        assert.equal(await indexOf(e.id), undefined, e.key);
      }
      const exact = await search(query!, { category: "cat-1" });
      assert.equal(exact.path, "exact-filter-index");
      assert.deepEqual(exact.ids, await exactAmong(query!, await members([1])));
    } finally {
      await worker.close();
    }
  });

  test("a value spread over the store gets a graph once its recall check holds, searched through it; lists replace it; a graph failing the check is dropped and not built again at that size", async (ctx) => {
    const worker = (filterIndexes: { graphMinRows: number; listsMinRows?: number; graphMinRecall?: number }) =>
      createVectorIndex(t.database, {
        bruteForceThreshold: 500,
        exactBudget: 0,
        countCacheMs: 0,
        filterIndexes: { minRows: 100, maxPerStore: 12, ...filterIndexes },
      }) as PostgresVectorIndex;
    const values = async () =>
      (
        await t.database.db
          .selectFrom("vector_filter_indexes")
          .select(["id", "store_id", "field", "value", "rows", "lists", "graph_ef", "graph_checked"])
          .where("ready", "=", true)
          .orderBy("store_id")
          .orderBy("field")
          .orderBy("value")
          .execute()
      ).map((r) => ({ ...r, key: `${r.store_id} ${r.field}=${r.value} (32-d)` }));
    const keys = (list: { key: string }[]) => list.map((e) => e.key).sort();
    const brandMembers = async (b: string) =>
      (
        await sql<{ product_id: string }>`
          SELECT product_id FROM products WHERE store_id = 'a' AND lower(brand) = ${b}`.execute(t.database.db)
      ).rows.map((r) => r.product_id);
    const exactAmong = async (query: Float32Array, ids: string[]) =>
      (
        await sql<{ product_id: string }>`
          SELECT product_id FROM product_vectors WHERE store_id = 'a' AND product_id = ANY(${ids}::text[])
          ORDER BY embedding <=> ${toPgVector(query)}::vector, product_id LIMIT 10`.execute(t.database.db)
      ).rows.map((r) => r.product_id);
    const all = await values();
    const workers: PostgresVectorIndex[] = [];
    try {
      // Every value of ≥ 100 copies without lists gets a graph and a check; a brand (spread over
      // the store's clusters) passes it.
      const graphs = worker({ graphMinRows: 100 });
      workers.push(graphs);
      const report = await graphs.refreshFilterIndexes();
      ctx.diagnostic(`graphs kept: ${report.graphed.length}; failing the check: ${report.rejected.join("; ") || "none"}`);
      assert.deepEqual([...report.graphed, ...report.rejected.map((r) => r.split(": ")[0]!)].sort(), keys(all));
      const brands = all.filter((e) => e.store_id === "a" && e.field === "brand");
      assert.equal(brands.length, 2);
      for (const e of brands) assert.ok(report.graphed.includes(e.key), `${e.key}: ${report.rejected.join("; ")}`);
      for (const e of await values()) {
        const kept = report.graphed.includes(e.key);
        assert.equal(e.graph_ef, kept ? GRAPH_EF : null, e.key);
        assert.deepEqual(await indexNamed(graphIndexName(e.id)), kept ? { am: "hnsw", valid: true } : undefined, e.key);
      }

      // Searches on the brand go through its graph, and find nearly what an exact scan finds.
      const brand = brands[0]!;
      const members = await brandMembers(brand.value);
      let total = 0;
      let totalApart = 0;
      const queries = queriesLike(data, 8, 41);
      for (const query of queries) {
        const { path, ids } = await search(query, { metadata_filters: [{ field: "brand", operator: "eq", value: brand.value }] });
        assert.equal(path, "hnsw-filter-index");
        assert.ok(ids.length === 10 && ids.every((id) => members.includes(id)), ids.join(","));
        total += recall(ids, await exactAmong(query, members));
        // Two of them asked for apart: the graph's walk goes on past them, inside the index scan.
        const apart = apartOf(ids);
        const others = await search(query, { metadata_filters: [{ field: "brand", operator: "eq", value: brand.value }] }, "a", apart);
        assert.equal(others.path, "hnsw-filter-index");
        assert.ok(others.ids.length === 10 && others.ids.every((id) => members.includes(id) && !apart.has(id)), others.ids.join(","));
        totalApart += recall(
          others.ids,
          await exactAmong(
            query,
            members.filter((id) => !apart.has(id)),
          ),
        );
      }
      ctx.diagnostic(
        `recall@10 through a brand's graph: ${(total / queries.length).toFixed(3)}; with two of them apart ${(totalApart / queries.length).toFixed(3)}`,
      );
      assert.ok(total / queries.length >= 0.9, `recall@10 ${(total / queries.length).toFixed(3)}`);
      assert.ok(totalApart / queries.length >= 0.9, `recall@10 apart ${(totalApart / queries.length).toFixed(3)}`);
      // The brand's 60 nearest apart, more than the 40 copies its graph is asked for: the walk goes
      // on past them (pgvector's iterative scan) and still answers ten others, through the graph.
      const deepApart = new Set(exactTopK(data, queries[0]!, 60, (r) => members.includes(pid(r))).map(pid));
      const past = await search(
        queries[0]!,
        { metadata_filters: [{ field: "brand", operator: "eq", value: brand.value }] },
        "a",
        deepApart,
      );
      assert.equal(past.path, "hnsw-filter-index");
      assert.ok(past.ids.length === 10 && past.ids.every((id) => members.includes(id) && !deepApart.has(id)), past.ids.join(","));
      // A copy lagging its product (another brand's product still copied under this one) is the
      // nearest through the graph, and still no hit: the hits are checked.
      const stray = pid(data.count - 1);
      assert.ok(!members.includes(stray));
      await sql`INSERT INTO product_vector_copies (index_id, store_id, product_id, vector_id, embedding)
        SELECT ${brand.id}, store_id, product_id, vector_id, embedding::halfvec FROM product_vectors
        WHERE store_id = 'a' AND product_id = ${stray}`.execute(t.database.db);
      try {
        const strayQuery = data.row(data.count - 1);
        const notStray = await search(strayQuery, { metadata_filters: [{ field: "brand", operator: "eq", value: brand.value }] });
        assert.equal(notStray.path, "hnsw-filter-index");
        assert.ok(!notStray.ids.includes(stray), "the stray copy is the nearest, yet not a hit");
        assert.ok(notStray.ids.length === 10 && notStray.ids.every((id) => members.includes(id)), notStray.ids.join(","));
      } finally {
        await sql`DELETE FROM product_vector_copies WHERE index_id = ${brand.id} AND product_id = ${stray}`.execute(t.database.db);
      }
      // The brand narrowed by a price (3 of its 5 prices): an exact scan of its copies.
      const narrowed = await search(queries[0]!, {
        price_max: 60,
        metadata_filters: [{ field: "brand", operator: "eq", value: brand.value }],
      });
      assert.equal(narrowed.path, "exact-filter-index");

      // A second round keeps them; an orphan graph (its registry row gone) is dropped.
      await sql`CREATE INDEX ${sql.id(graphIndexName(999_999))} ON product_vector_copies (product_id) WHERE index_id = 999999`.execute(
        t.database.db,
      );
      const again = await graphs.refreshFilterIndexes();
      assert.deepEqual([again.graphed, again.ungraphed, again.rejected], [[], [], []]);
      assert.equal(await indexNamed(graphIndexName(999_999)), undefined);

      // Lists for the categories of ≥ 200 (two indexes would match their searches): their graphs go, the brands' stay.
      const listing = worker({ graphMinRows: 100, listsMinRows: 200 });
      workers.push(listing);
      const listed = await listing.refreshFilterIndexes();
      const categories = all.filter((e) => e.store_id === "a" && e.field === "category");
      assert.deepEqual([...listed.listed].sort(), keys(categories));
      assert.deepEqual([...listed.ungraphed].sort(), keys(categories.filter((e) => report.graphed.includes(e.key))));
      for (const e of await values()) {
        assert.ok(e.lists === null || e.graph_ef === null, e.key);
        if (e.lists !== null) assert.equal(await indexNamed(graphIndexName(e.id)), undefined, e.key);
      }
      assert.equal(
        (await search(queries[0]!, { metadata_filters: [{ field: "brand", operator: "eq", value: brand.value }] })).path,
        "hnsw-filter-index",
      );

      // Back to the defaults (graphs from 5,000, kept down to 2,500): lists and graphs go, the searches are exact again.
      const back = await index.refreshFilterIndexes();
      assert.deepEqual([...back.unlisted].sort(), keys(categories));
      assert.deepEqual([...back.ungraphed].sort(), keys(all.filter((e) => report.graphed.includes(e.key) && !categories.includes(e))));
      for (const e of await values()) {
        assert.deepEqual([e.lists, e.graph_ef], [null, null], e.key);
        assert.equal(await indexNamed(graphIndexName(e.id)), undefined, e.key);
      }
      assert.equal(
        (await search(queries[0]!, { metadata_filters: [{ field: "brand", operator: "eq", value: brand.value }] })).path,
        "exact-filter-index",
      );

      // A bar no graph can reach: each is built, checked, dropped, and remembered at its size.
      const strict = worker({ graphMinRows: 100, graphMinRecall: 1.01 });
      workers.push(strict);
      const failing = await strict.refreshFilterIndexes();
      assert.deepEqual(failing.graphed, []);
      assert.deepEqual(failing.rejected.map((r) => r.split(": ")[0]!).sort(), keys(all));
      assert.ok(
        failing.rejected.every((r) => / recall@10 \d\.\d{3} < 1\.01$/.test(r)),
        failing.rejected.join("; "),
      );
      for (const e of await values()) {
        assert.deepEqual([e.graph_ef, e.graph_checked], [null, e.rows], e.key);
        assert.equal(await indexNamed(graphIndexName(e.id)), undefined, e.key);
      }
      const later = await strict.refreshFilterIndexes();
      assert.deepEqual([later.graphed, later.rejected], [[], []], "not built again until the value doubles or halves");
    } finally {
      for (const w of workers) await w.close();
      await t.database.db.updateTable("vector_filter_indexes").set({ graph_checked: null }).execute();
    }
  });

  test("writers running while values are copied and caught up leave every value's copies exact", async (ctx) => {
    // Products of cat-8 and cat-9 move between the two and get new vectors, in short transactions
    // from two writers (each its own products, so the writers never wait on each other), while
    // cat-8's copies are made anew five times. Each time, once ready, nothing may be stale.
    const pool = Array.from({ length: data.count }, (_, r) => r).filter((r) => data.cluster[r] === 8 || data.cluster[r] === 9);
    let stopped = false;
    let committed = 0;
    const writer = async (w: number) => {
      let writes = 0;
      for (let i = w; !stopped; i += 2) {
        const r = pool[i % pool.length]!;
        const upserted = [{ vectorId: `v-w${writes}-${r}`, productId: pid(r), model: "m@32", vector: data.row((r + writes) % data.count) }];
        await t.database.transaction(async (tx) => {
          await tx
            .updateTable("products")
            .set({ category: writes % 2 === 0 ? "cat-9" : "cat-8" })
            .where("store_id", "=", "a")
            .where("product_id", "=", pid(r))
            .execute();
          await index.upsert(tx, "a", upserted[0]!);
        });
        index.afterCommit("a", { upserted });
        writes += 1;
        committed += 1;
      }
      return writes;
    };
    const writers = [writer(0), writer(1)];
    /** Writes committed while a refresh ran, per round. */
    const during: number[] = [];
    try {
      for (let round = 0; round < 5; round++) {
        await t.database.db.deleteFrom("vector_filter_indexes").where("store_id", "=", "a").where("value", "=", "cat-8").execute();
        const before = committed;
        const report = await index.refreshFilterIndexes();
        during.push(committed - before);
        assert.ok(report.created.includes("a category=cat-8 (32-d)"), JSON.stringify(report));
        // Checked in one statement per value, each against the data as it stood then.
        for (const e of (await registry()).filter((x) => x.store_id === "a" && x.ready)) {
          const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM product_vector_copies_stale(${e.id})`.execute(
            t.database.db,
          );
          assert.equal(rows[0]!.n, 0, `round ${round}: ${e.key}`);
        }
      }
    } finally {
      stopped = true;
    }
    const writes = await Promise.all(writers);
    ctx.diagnostic(`writes: ${writes.join(" + ")}; during each refresh: ${during.join(", ")}`);
    assert.ok(
      during.some((n) => n > 0),
      `the refreshes overlapped writes: ${during.join(", ")}`,
    );
  });
});
