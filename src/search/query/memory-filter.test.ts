// The in-memory evaluation of search filters (embedded index) selects exactly the products the
// SQL of filters.ts selects, on SQLite and on PostgreSQL, for every operator and the edge cases
// (missing fields, nulls, nested paths, arrays, booleans, case).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql, type KyselyPlugin } from "kysely";
import { describeEachDialect } from "../../../test/support/harness.js";
import { openTestDatabase, type TestDatabase } from "../../vectors/test-support.js";
import { createStores, productRow } from "../../../test/support/database.js";
import { attributeFilter } from "./memory-filter.js";
import { SearchRepository } from "./repository.js";
import type { SearchFilters } from "./filters.js";
import { isDeferred } from "../../vectors/candidates.js";

const PRODUCTS: { id: string; meta: Record<string, unknown>; colors?: { hex: string; share: number }[] }[] = [
  {
    id: "p1",
    meta: {
      category: "Dresses",
      price: 80,
      color_name: "Red",
      brand: "Acme",
      tags: ["Summer", "party"],
      details: { fabric: "Silk", size: { eu: 38 } },
      stock: 5,
      on_sale: true,
    },
    colors: [{ hex: "#d01010", share: 0.8 }],
  },
  {
    id: "p2",
    meta: { category: "tops", price: 30, color_name: "navy blue", brand: "Zed", tags: ["casual"], stock: 0, on_sale: false },
    colors: [{ hex: "#1c2450", share: 0.6 }],
  },
  {
    id: "p3",
    meta: { category: "dresses", price: 95.5, brand: null, tags: "summer dress", details: { fabric: "cotton" } },
    colors: [{ hex: "#10a030", share: 0.9 }],
  },
  { id: "p4", meta: { category: 7, price: "12", brand: "acme", stock: 2.5, details: "plain" } },
  {
    id: "p5",
    meta: { name: "no fields" },
    colors: [
      { hex: "#d81818", share: 0.1 },
      { hex: "#f4f4f4", share: 0.9 },
    ],
  },
  { id: "p6", meta: { category: "Bags", price: 0, brand: "ACME", tags: [1, "Leather"], stock: -1, on_sale: "true", __proto__x: 1 } },
];

const CASES: SearchFilters[] = [
  { category: "dresses" },
  { category: "DRESSES", price_min: 90 },
  { price_min: 0, price_max: 30 },
  { price_max: 80 },
  { color: "red" },
  { color: "#1c2450" },
  { color: "white" },
  { metadata_filters: [{ field: "brand", operator: "eq", value: "ACME" }] },
  { metadata_filters: [{ field: "brand", operator: "ne", value: "acme" }] },
  { metadata_filters: [{ field: "brand", operator: "in", value: ["zed", "Acme"] }] },
  { metadata_filters: [{ field: "brand", operator: "nin", value: ["zed", "Acme"] }] },
  { metadata_filters: [{ field: "stock", operator: "gt", value: 0 }] },
  { metadata_filters: [{ field: "stock", operator: "gte", value: 0 }] },
  { metadata_filters: [{ field: "stock", operator: "lt", value: 2.5 }] },
  { metadata_filters: [{ field: "stock", operator: "lte", value: 2.5 }] },
  { metadata_filters: [{ field: "stock", operator: "eq", value: 5 }] },
  { metadata_filters: [{ field: "on_sale", operator: "eq", value: true }] },
  { metadata_filters: [{ field: "on_sale", operator: "ne", value: true }] },
  { metadata_filters: [{ field: "on_sale", operator: "eq", value: false }] },
  { metadata_filters: [{ field: "tags", operator: "contains", value: "summer" }] },
  { metadata_filters: [{ field: "tags", operator: "contains", value: "leath" }] },
  { metadata_filters: [{ field: "tags", operator: "contains", value: 1 }] },
  { metadata_filters: [{ field: "details.fabric", operator: "eq", value: "silk" }] },
  { metadata_filters: [{ field: "details.size.eu", operator: "gte", value: 38 }] },
  { metadata_filters: [{ field: "details.fabric", operator: "ne", value: "silk" }] },
  { metadata_filters: [{ field: "price", operator: "eq", value: "12" }] },
  { metadata_filters: [{ field: "category", operator: "eq", value: 7 }] },
  // Fields with a column of their own (filters.ts STRING_COLUMNS) where a value is not a string.
  { metadata_filters: [{ field: "category", operator: "ne", value: "dresses" }] },
  { metadata_filters: [{ field: "category", operator: "nin", value: ["tops", "bags"] }] },
  { metadata_filters: [{ field: "name", operator: "eq", value: "NO FIELDS" }] },
  { metadata_filters: [{ field: "color_name", operator: "in", value: ["red", "Navy Blue"] }] },
  { metadata_filters: [{ field: "category", operator: "in", value: [7, "tops"] }] },
  { metadata_filters: [{ field: "category", operator: "nin", value: [7, "tops"] }] },
  { metadata_filters: [{ field: "details.fabric", operator: "in", value: ["silk", "COTTON"] }] },
  { metadata_filters: [{ field: "__proto__", operator: "ne", value: "x" }] },
  {
    category: "dresses",
    metadata_filters: [
      { field: "tags", operator: "contains", value: "summer" },
      { field: "price", operator: "lt", value: 90 },
    ],
  },
];

describeEachDialect("search filters in memory match the SQL", (dialect) => {
  let t: TestDatabase;
  before(async () => {
    t = await openTestDatabase(dialect);
    await createStores(t.database, ["s"]);
    await t.database.db
      .insertInto("products")
      .values(PRODUCTS.map((p) => productRow("s", p.id, p.meta, p.colors)))
      .execute();
  });
  after(async () => t.close());

  test("every operator and edge case selects the same products in memory as in SQL", async () => {
    const repo = new SearchRepository(t.database.db, t.database.dialect);
    const rows = await t.database.db.selectFrom("products").selectAll().where("store_id", "=", "s").execute();
    let nonEmpty = 0;
    for (const f of CASES) {
      const found = await repo.candidates("s", f);
      assert.ok(!isDeferred(found), "a few products are listed");
      const sqlIds = [...found].sort();
      const filter = attributeFilter(f);
      const memIds = rows
        .filter((r) =>
          filter.test({
            category: r.category,
            price: r.price === null ? null : Number(r.price),
            colorName: r.color_name,
            dominantColors: r.dominant_colors,
            metadata: r.metadata,
          }),
        )
        .map((r) => r.product_id)
        .sort();
      assert.deepEqual(memIds, sqlIds, JSON.stringify(f));
      if (sqlIds.length > 0 && sqlIds.length < PRODUCTS.length) nonEmpty++;
    }
    assert.ok(nonEmpty >= CASES.length - 3, `most cases select some but not all products (${nonEmpty} of ${CASES.length})`);
  });

  test("on PostgreSQL a filter keeping more than the listing limit stays in the database and keeps the same products", async () => {
    // Listing limit 2: every case keeping 3 or more products is deferred on PostgreSQL, none on SQLite.
    const repo = new SearchRepository(t.database.db, t.database.dialect, 2);
    const all = (await t.database.db.selectFrom("products").select("product_id").where("store_id", "=", "s").execute()).map(
      (r) => r.product_id,
    );
    let deferred = 0;
    for (const f of CASES) {
      const listed = await new SearchRepository(t.database.db, t.database.dialect).candidates("s", f);
      const found = await repo.candidates("s", f);
      assert.ok(!isDeferred(listed));
      if (!isDeferred(found)) {
        assert.ok(t.database.dialect === "sqlite" || found.size <= 2 || f.color !== undefined, JSON.stringify(f));
        assert.deepEqual([...found].sort(), [...listed].sort(), JSON.stringify(f));
        continue;
      }
      deferred++;
      assert.equal(t.database.dialect, "postgres");
      assert.equal(f.color, undefined, "a colour filter is decided here, never deferred");
      assert.ok(found.size >= 3, `size ${found.size} counts at least the listing limit + 1`);
      assert.deepEqual([...(await found.keep(all))].sort(), [...listed].sort(), JSON.stringify(f));
      // keep() answers for the ids asked about only.
      const half = all.filter((_, i) => i % 2 === 0);
      assert.deepEqual([...(await found.keep(half))].sort(), half.filter((id) => listed.has(id)).sort(), JSON.stringify(f));
    }
    if (t.database.dialect === "postgres") assert.ok(deferred >= 5, `several cases deferred (${deferred})`);
    else assert.equal(deferred, 0);
  });

  test("a filter left in the database is counted when the planner's estimate is implausibly low (a JSON metadata field)", async () => {
    // 40 products, 30 of them "gold": PostgreSQL estimates a JSON field's equality at ~0.5 % of
    // the rows even after ANALYZE, far below the 3 already counted, so the size is counted: 30.
    await createStores(t.database, ["tiers"]);
    await t.database.db
      .insertInto("products")
      .values(Array.from({ length: 40 }, (_, i) => productRow("tiers", `t${i}`, { tier: i < 30 ? "gold" : "tin" })))
      .execute();
    if (t.database.dialect === "postgres") await sql`ANALYZE products`.execute(t.database.db);
    const found = await new SearchRepository(t.database.db, t.database.dialect, 2).candidates("tiers", {
      metadata_filters: [{ field: "tier", operator: "eq", value: "gold" }],
    });
    if (t.database.dialect === "sqlite") {
      assert.ok(!isDeferred(found));
      assert.equal(found.size, 30);
      return;
    }
    assert.ok(isDeferred(found));
    assert.equal(found.size, 30);
  });

  test("a filter the planner estimates wide is left in the database without listing or counting it; one estimated past the listing limit is counted, not listed; the estimates are reused", async () => {
    // 62 products, 50 in one category: after ANALYZE the planner's estimate (~50) is more than
    // twice the listing limit + 1 (3), so only EXPLAIN runs; the second category (10) is
    // estimated past the limit but not twice it, so it is counted without listing its ids; the
    // third (2) is estimated within the limit and listed.
    await createStores(t.database, ["wide"]);
    const categoryOf = (i: number) => (i < 50 ? "coats" : i < 60 ? "hats" : "caps");
    await t.database.db
      .insertInto("products")
      .values(Array.from({ length: 62 }, (_, i) => productRow("wide", `w${i}`, { category: categoryOf(i) })))
      .execute();
    if (t.database.dialect === "postgres") await sql`ANALYZE products`.execute(t.database.db);
    // The kind of each statement executed (a query nested in another, as in EXPLAIN, is
    // transformed but never executed on its own: only executed ones get a result).
    const kinds = new Map<unknown, string>();
    const statements: string[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        kinds.set(args.queryId, args.node.kind);
        return args.node;
      },
      transformResult: async (args) => {
        statements.push(kinds.get(args.queryId) ?? "?");
        return args.result;
      },
    };
    const recorded = t.database.db.withPlugin(recorder);
    const repo = new SearchRepository(recorded, t.database.dialect, 2);
    const coats = await repo.candidates("wide", { category: "coats" });
    const ids = Array.from({ length: 62 }, (_, i) => `w${i}`);
    if (t.database.dialect === "sqlite") {
      assert.ok(!isDeferred(coats));
      assert.equal(coats.size, 50);
      return;
    }
    assert.ok(isDeferred(coats));
    assert.deepEqual(statements, ["RawNode"], "EXPLAIN only: the ids were neither listed nor counted");
    assert.ok(coats.size > 6, `size ${coats.size} is the planner's estimate`);
    assert.equal((await coats.keep(ids)).size, 50);
    statements.length = 0;
    const hats = await repo.candidates("wide", { category: "hats" });
    assert.ok(isDeferred(hats));
    assert.deepEqual(statements, ["RawNode", "SelectQueryNode"], "EXPLAIN, then counted: the ids were not listed");
    assert.equal(hats.size, 10);
    assert.equal((await hats.keep(ids)).size, 10);
    statements.length = 0;
    const caps = await repo.candidates("wide", { category: "caps" });
    assert.ok(!isDeferred(caps));
    assert.deepEqual(statements, ["RawNode", "SelectQueryNode"], "EXPLAIN, then listed");
    assert.deepEqual([...caps].sort(), ["w60", "w61"]);
    // The same filters again: their estimates are reused (the statistics have not changed), so
    // the wide one runs no statement at all and the others only their count or listing.
    statements.length = 0;
    const again = await repo.candidates("wide", { category: "coats" });
    assert.ok(isDeferred(again));
    assert.deepEqual(statements, [], "the estimate reused: no statement");
    assert.equal(again.size, coats.size);
    assert.equal((await again.keep(ids)).size, 50);
    statements.length = 0;
    assert.equal((await repo.candidates("wide", { category: "hats" })).size, 10);
    assert.deepEqual(statements, ["SelectQueryNode"], "counted only");
    statements.length = 0;
    assert.deepEqual([...((await repo.candidates("wide", { category: "caps" })) as ReadonlySet<string>)].sort(), ["w60", "w61"]);
    assert.deepEqual(statements, ["SelectQueryNode"], "listed only");
    // A repository on another handle of the same database (a search reads through `with()` on the
    // handle of its read; a replica's is new on every read) reuses them too.
    statements.length = 0;
    assert.ok(isDeferred(await repo.with(t.database.db.withPlugin(recorder)).candidates("wide", { category: "coats" })));
    assert.deepEqual(statements, [], "the estimate reused through with(): no statement");
  });

  test("a filter pinning a category or brand is left in the database, with its scope, from 2,001 products; another is listed up to 5,000", async () => {
    // 4,400 products: "shirts" 2,200 of them, the rest "socks"; prices 1–4,400. A filter index
    // may hold a category's or brand's vectors from 2,000 products, and a listed set of ids
    // cannot reach it: the category is deferred; a price window of as many products, which no
    // filter index serves, is listed as before (the default limit, 5,000).
    await createStores(t.database, ["scoped"]);
    const rows = Array.from({ length: 4_400 }, (_, i) =>
      productRow("scoped", `s${i}`, { category: i < 2_200 ? "shirts" : "socks", brand: i % 2 === 0 ? "Even" : "Odd", price: i + 1 }),
    );
    for (let at = 0; at < rows.length; at += 500)
      await t.database.db
        .insertInto("products")
        .values(rows.slice(at, at + 500))
        .execute();
    if (t.database.dialect === "postgres") await sql`ANALYZE products`.execute(t.database.db);
    const repo = new SearchRepository(t.database.db, t.database.dialect);
    const shirts = await repo.candidates("scoped", { category: "shirts" });
    const brand = await repo.candidates("scoped", { metadata_filters: [{ field: "brand", operator: "in", value: ["even"] }] });
    const window = await repo.candidates("scoped", { price_min: 1, price_max: 2_200 });
    assert.equal(window.size, 2_200);
    assert.ok(!isDeferred(window), "no category or brand pinned: listed up to 5,000");
    if (t.database.dialect === "sqlite") {
      assert.ok(!isDeferred(shirts) && !isDeferred(brand), "SQLite always lists");
      assert.equal(shirts.size, 2_200);
      return;
    }
    assert.ok(isDeferred(shirts) && isDeferred(brand));
    assert.equal(shirts.size, 2_200, "counted");
    assert.equal(brand.size, 2_200, "counted");
    assert.deepEqual(shirts.scopes, [{ field: "category", values: ["shirts"], whole: true }]);
    assert.deepEqual(brand.scopes, [{ field: "brand", values: ["even"], whole: true }]);
    assert.deepEqual([...(await shirts.keep(["s0", "s2199", "s2200"]))].sort(), ["s0", "s2199"]);
    // A pinned filter of 2,000 products or fewer is listed (it restricts the lexical stage in SQL).
    const few = await repo.candidates("scoped", { category: "shirts", price_max: 2_000 });
    assert.ok(!isDeferred(few));
    assert.equal(few.size, 2_000);
    // The configured filter-index minimum decides: 0 (no filter indexes) lists pinned filters up to
    // 5,000 as any other; 1,000 leaves them in the database past 1,000.
    const noIndexes = new SearchRepository(t.database.db, t.database.dialect, undefined, 0);
    const listed = await noIndexes.candidates("scoped", { category: "shirts" });
    assert.ok(!isDeferred(listed));
    assert.equal(listed.size, 2_200);
    const lower = new SearchRepository(t.database.db, t.database.dialect, undefined, 1_000);
    const fewDeferred = await lower.candidates("scoped", { category: "shirts", price_max: 2_000 });
    assert.ok(isDeferred(fewDeferred));
    assert.equal(fewDeferred.size, 2_000);
  });

  test("filters with equal meaning share a cache key, different ones do not", () => {
    assert.equal(attributeFilter({ category: "a", price_min: 1 }).key, attributeFilter({ price_min: 1, category: "a" }).key);
    assert.notEqual(attributeFilter({ category: "a" }).key, attributeFilter({ category: "b" }).key);
    assert.notEqual(attributeFilter({ price_min: 1 }).key, attributeFilter({ price_max: 1 }).key);
  });
});
