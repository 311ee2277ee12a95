// Merchandising rules (/v1/search/rules): pins, hides, boosts and buries for exact and contains
// query conditions, applied to text search (and hybrid, fusion and filtered searches with a
// query), the widget's text search and the assistant's catalogue search (text search and the scan
// without a model), on both engines; hit counts in the rule list and in analytics; bad input named;
// another store's token never reads, changes or meets a rule.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { createApiKey } from "../../../test/support/members.js";
import { solidImage } from "../../../test/support/servers.js";
import type { AppContext } from "../../context/context.js";
import { SearchCatalog } from "../catalog/port.js";
import { arrange, combine, conditionMet, queryText, StoreRules, type ActiveRule } from "./apply.js";
import { STORE_CACHE_TTL_MS } from "../cache/store-cache.js";

const CATALOGUE = [
  { id: "red-dress", hex: "#c02020", meta: { name: "Red Summer Dress", category: "Dresses", brand: "Acme", tags: ["sale"], price: 50 } },
  { id: "blue-dress", hex: "#2040c0", meta: { name: "Blue Summer Dress", category: "Dresses", brand: "Zeta", price: 60 } },
  { id: "green-dress", hex: "#20a040", meta: { name: "Green Dress", category: "Dresses", brand: "Zeta", tags: ["Clearance"], price: 30 } },
  { id: "oxford-shirt", hex: "#e0e0e0", meta: { name: "Oxford Shirt", category: "Shirts", brand: "Acme", price: 40 } },
  { id: "silk-scarf", hex: "#d0a020", meta: { name: "Silk Scarf", category: "Accessories", brand: "Acme", price: 20 } },
  { id: "draft-hat", hex: "#502010", meta: { name: "Sun Hat", category: "Accessories", status: "draft", price: 25 } },
];
const DRESSES = ["red-dress", "blue-dress", "green-dress"];
const ORIGIN = "https://shop.example";

interface Rule {
  id: string;
  match: string;
  query: string;
  pins: { product_id: string; position: number }[];
  hide: string[];
  boost: { field: string; value: unknown }[];
  bury: { field: string; value: unknown }[];
  enabled: boolean;
  description: string | null;
  hits: number;
  created_at: string;
  updated_at: string;
}
interface SearchBody {
  results: { product_id: string; similarity_score: number; pinned?: true }[];
  applied_rules?: string[];
}

describeEachDialect("merchandising rules", (dialect) => {
  let t: TestApp;
  let store: RegisteredStore;
  let other: RegisteredStore;
  let token: string;
  let otherToken: string;
  let offset = 0;
  /** The ranking of "summer dress" / "dress" without rules, for comparisons. */
  let baseline: string[];

  const call = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: object, tok = token) =>
    t.search.inject({ method, url, headers: bearer(tok), ...(payload ? { payload } : {}) });
  const search = async (query: string, extra: object = {}, tok = token, mode = "text") => {
    const body = mode === "text" ? { query, limit: 10, semantic_weight: 0, ...extra } : { query, limit: 10, ...extra };
    const res = await call("POST", `/v1/search/${mode}`, body, tok);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as SearchBody;
  };
  const ids = async (query: string, extra: object = {}, tok = token) => (await search(query, extra, tok)).results.map((r) => r.product_id);
  const add = async (payload: object, tok = token) => {
    const res = await call("POST", "/v1/search/rules", payload, tok);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as Rule;
  };
  const remove = async (id: string) => assert.equal((await call("DELETE", `/v1/search/rules/${id}`)).statusCode, 200);
  const rules = async (tok = token) => {
    const res = await call("GET", "/v1/search/rules", undefined, tok);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Rule[];
  };

  before(async () => {
    t = await createTestApp({ dialect, model: true, clock: { now: () => Date.now() + offset } });
    store = await registerStore(t, { name: "Rules Shop" });
    other = await registerStore(t, { name: "Other Rules Shop", email: "other-rules@example.com" });
    token = await machineToken(t.search, store);
    otherToken = await machineToken(t.search, other);
    for (const [i, p] of CATALOGUE.entries()) {
      const image = await t.ctx.images.fromBytes(await solidImage(p.hex, { seed: i + 1 }));
      const [vector] = await t.ctx.images.embed([image.decoded]);
      for (const s of [store, other]) {
        await t.services.products.write(s.clientId, {
          productId: p.id,
          imageUrl: `https://cdn.example.com/${p.id}.png`,
          metadata: p.meta,
          embedded: { image, vector: vector! },
        });
      }
    }
    // A product only the other store holds.
    const image = await t.ctx.images.fromBytes(await solidImage("#101010", { seed: 99 }));
    const [vector] = await t.ctx.images.embed([image.decoded]);
    await t.services.products.write(other.clientId, {
      productId: "only-other",
      imageUrl: "https://cdn.example.com/only-other.png",
      metadata: { name: "Other Dress", category: "Dresses" },
      embedded: { image, vector: vector! },
    });
    baseline = await ids("dress");
    assert.deepEqual([...baseline].sort(), [...DRESSES].sort(), `the three dresses: ${baseline.join(", ")}`);
  });
  after(() => t.close());

  test("pins place products at their positions, from the ranking or outside it; the response names the rule", async () => {
    const rule = await add({
      match: "exact",
      query: "Dress",
      pins: [
        { product_id: "oxford-shirt", position: 3 },
        { product_id: "silk-scarf", position: 1 },
        { product_id: baseline[2]!, position: 2 },
      ],
      description: "Accessories first",
    });
    assert.match(rule.id, /^rule_[0-9a-f]{32}$/);
    assert.equal(rule.query, "dress");
    assert.deepEqual(
      rule.pins.map((p) => p.position),
      [1, 2, 3],
      "pins kept by position",
    );
    assert.equal(rule.enabled, true);
    assert.equal(rule.hits, 0);
    try {
      const res = await search("dress");
      assert.deepEqual(
        res.results.map((r) => r.product_id),
        ["silk-scarf", baseline[2], "oxford-shirt", baseline[0], baseline[1]],
      );
      assert.deepEqual(
        res.results.map((r) => r.pinned ?? false),
        [true, true, true, false, false],
      );
      assert.equal(res.results[0]!.similarity_score, 0, "the ranking did not return the scarf");
      assert.deepEqual(res.applied_rules, [rule.id]);

      // A short page: a pin beyond it is not shown; one beyond the ranking's results follows them.
      assert.deepEqual(await ids("dress", { limit: 2 }), ["silk-scarf", baseline[2]]);
      const far = await add({ match: "exact", query: "green dress", pins: [{ product_id: "silk-scarf", position: 50 }] });
      const green = await ids("green dress");
      assert.equal(green.at(-1), "silk-scarf", `appended after the ranking: ${green.join(", ")}`);
      await remove(far.id);

      // A pinned product must pass the request's filters, and be published in the assistant's search.
      assert.deepEqual(await ids("dress", { category: "dresses" }), [baseline[0], baseline[2], baseline[1]], "the scarf and shirt fail it");
      assert.deepEqual(await ids("dress", { price_max: 25 }), ["silk-scarf"]);

      // Hybrid, fusion-free text modes with a query apply rules too; an image search has no query.
      const hybrid = await search("dress", { semantic_weight: 0 }, token, "hybrid");
      assert.equal(hybrid.results[0]?.product_id, "silk-scarf");
      assert.deepEqual(hybrid.applied_rules, [rule.id]);
      const filtered = await search("dress", { filters: [{ field: "brand", operator: "in", value: ["acme", "zeta"] }] }, token, "filtered");
      assert.deepEqual(
        filtered.results.slice(0, 3).map((r) => r.product_id),
        ["silk-scarf", baseline[2], "oxford-shirt"],
      );
    } finally {
      await remove(rule.id);
    }
    const after = await search("dress");
    assert.deepEqual(
      after.results.map((r) => r.product_id),
      baseline,
      "deleted: in force no more",
    );
    assert.equal(after.applied_rules, undefined);
  });

  test("hide removes products; boost and bury reorder the results without adding any; disabled rules do nothing", async () => {
    const hide = await add({ match: "contains", query: "dress", hide: [baseline[0]!, "not-a-product"] });
    assert.deepEqual(await ids("dress"), baseline.slice(1));
    const summer = await search("summer dress");
    assert.deepEqual(summer.applied_rules, [hide.id]);
    assert.ok(summer.results.length > 0 && !summer.results.some((r) => r.product_id === baseline[0]), JSON.stringify(summer.results));
    await remove(hide.id);

    // red: brand Acme (+1); blue: neither (0); green: tag Clearance (−1). Case is ignored; a list (tags) holds the value.
    const reorder = await add({
      match: "exact",
      query: "dress",
      boost: [{ field: "brand", value: "ACME" }],
      bury: [{ field: "tags", value: "clearance" }],
    });
    assert.deepEqual(await ids("dress"), ["red-dress", "blue-dress", "green-dress"]);
    const flipped = await call("PUT", `/v1/search/rules/${reorder.id}`, {
      match: "exact",
      query: "dress",
      boost: [{ field: "tags", value: "clearance" }],
      bury: [{ field: "brand", value: "acme" }],
    });
    assert.equal(flipped.statusCode, 200, flipped.body);
    assert.equal(flipped.json().created_at, reorder.created_at);
    assert.deepEqual(await ids("dress"), ["green-dress", "blue-dress", "red-dress"], "the replaced rule is in force at once");
    assert.deepEqual(await ids("dress", { category: "Shirts" }), [], "boost adds nothing the ranking did not return");

    const disabled = await call("PUT", `/v1/search/rules/${reorder.id}`, {
      match: "exact",
      query: "dress",
      boost: [{ field: "tags", value: "clearance" }],
      enabled: false,
    });
    assert.equal(disabled.statusCode, 200, disabled.body);
    assert.equal(disabled.json().enabled, false);
    const res = await search("dress");
    assert.deepEqual(
      res.results.map((r) => r.product_id),
      baseline,
    );
    assert.equal(res.applied_rules, undefined);
    await remove(reorder.id);
  });

  test("exact matches the whole normalised query, contains its words in a row; exact rules apply before contains rules", async () => {
    const exact = await add({ match: "exact", query: "summer dress", pins: [{ product_id: "silk-scarf", position: 1 }] });
    const contains = await add({ match: "contains", query: "dress", pins: [{ product_id: "oxford-shirt", position: 1 }] });
    try {
      const both = await search("  Summer DRESS! ");
      assert.deepEqual(both.applied_rules, [exact.id, contains.id], "case, spaces and punctuation do not count");
      assert.deepEqual(
        both.results.slice(0, 2).map((r) => r.product_id),
        ["silk-scarf", "oxford-shirt"],
        "two pins on position 1: the exact rule's first",
      );
      assert.deepEqual((await search("red summer dress")).applied_rules, [contains.id], "exact needs the whole query");
      assert.deepEqual((await search("dress red")).applied_rules, [contains.id], "contains: anywhere in the query");
      assert.equal((await search("dresses")).applied_rules, undefined, "contains: whole words only");
      assert.equal((await search("summer")).applied_rules, undefined);
    } finally {
      await remove(exact.id);
      await remove(contains.id);
    }
  });

  test("the widget's text search and the assistant's catalogue search (text search and the scan) apply the rules", async () => {
    const rule = await add({
      match: "contains",
      query: "dress",
      pins: [
        { product_id: "silk-scarf", position: 1 },
        { product_id: "draft-hat", position: 2 },
      ],
      hide: [baseline[1]!],
    });
    try {
      const key = await call("POST", "/v1/widget/keys", { name: "shop", allowed_origins: [ORIGIN] });
      assert.equal(key.statusCode, 201, key.body);
      const widget = await t.search.inject({
        method: "POST",
        url: "/v1/widget/search/text",
        headers: { "x-service-key": key.json().key, origin: ORIGIN },
        payload: { query: "dress", semantic_weight: 0 },
      });
      assert.equal(widget.statusCode, 200, widget.body);
      assert.deepEqual(
        widget.json().results.map((r: { product_id: string }) => r.product_id),
        ["silk-scarf", "draft-hat", baseline[0], baseline[2]],
      );

      // The assistant's catalogue: published products only (the draft hat is left out).
      const viaSearch = await t.services.catalog.match(store.clientId, { q: "summer dress" }, 10);
      assert.equal(viaSearch[0]?.product_id, "silk-scarf");
      assert.ok(!viaSearch.some((p) => p.product_id === "draft-hat" || p.product_id === baseline[1]), JSON.stringify(viaSearch));
      // Several colours: one search per colour, merged, the rules applied to the merged list again
      // (a boost by name decides the order; the yellow scarf passes neither colour, so no pin).
      const shown = [baseline[0]!, baseline[2]!].map((id) => CATALOGUE.find((p) => p.id === id)!);
      for (const first of shown) {
        const boost = await add({ match: "exact", query: "dress", boost: [{ field: "name", value: first.meta.name }] });
        try {
          const colours = await t.services.catalog.match(store.clientId, { q: "dress", colors: shown.map((p) => p.hex) }, 10);
          assert.deepEqual(
            colours.map((p) => p.product_id),
            [first.id, ...shown.filter((p) => p !== first).map((p) => p.id)],
          );
        } finally {
          await remove(boost.id);
        }
      }
      // Without a model the catalogue scans; the rules still apply.
      const ctx = { ...t.ctx, model: undefined } as unknown as AppContext;
      const scan = new SearchCatalog(ctx, t.services.search, t.services.repositories.catalog, t.services.rules);
      const scanned = (await scan.match(store.clientId, { q: "dress" }, 10)).map((p) => p.product_id);
      assert.equal(scanned[0], "silk-scarf");
      assert.ok(!scanned.includes(baseline[1]!) && !scanned.includes("draft-hat"), scanned.join(", "));
      assert.deepEqual([...scanned.slice(1)].sort(), [baseline[0], baseline[2]].sort());
      const unknownWords = (await scan.match(store.clientId, { q: "dress zzqx" }, 10)).map((p) => p.product_id);
      assert.equal(unknownWords[0], "silk-scarf", "pinned whatever the scan finds");
      const otherScan = (await scan.match(other.clientId, { q: "dress" }, 10)).map((p) => p.product_id);
      assert.ok(!otherScan.includes("silk-scarf"), "not in the other store's scan");
    } finally {
      await remove(rule.id);
    }
  });

  test("hits: each search a rule applies to counts once, in the rule list and in analytics (by day)", async () => {
    const counted = await add({ match: "contains", query: "dress", boost: [{ field: "brand", value: "acme" }] });
    const idle = await add({ match: "exact", query: "scarf", hide: ["silk-scarf"] });
    try {
      for (const q of ["dress", "red dress", "shirt", "summer dress"]) await search(q);
      await t.services.catalog.match(store.clientId, { q: "dress", colors: ["#c02020", "#20a040"] }, 10); // one search, two runs
      const listed = await rules();
      assert.equal(listed.find((r) => r.id === counted.id)?.hits, 4, "three text searches and one assistant search with two colours");
      assert.equal(listed.find((r) => r.id === idle.id)?.hits, 0);
      const analytics = await call("GET", "/v1/search/analytics?days=7");
      assert.equal(analytics.statusCode, 200, analytics.body);
      assert.deepEqual(analytics.json().rules, [
        { id: counted.id, match: "contains", query: "dress", enabled: true, hits: 4 },
        { id: idle.id, match: "exact", query: "scarf", enabled: true, hits: 0 },
      ]);
      // Hits of forty days ago: outside a 30-day window, in the rule's total.
      const today = Math.floor(Date.now() / 86_400_000);
      await t.ctx.database.db
        .insertInto("search_rule_hits")
        .values({ rule_id: counted.id, store_id: store.clientId, day: today - 40, hits: 7 })
        .execute();
      const month = (await call("GET", "/v1/search/analytics?days=30")).json().rules as { id: string; hits: number }[];
      assert.equal(month.find((r) => r.id === counted.id)?.hits, 4);
      const quarter = (await call("GET", "/v1/search/analytics?days=90")).json().rules as { id: string; hits: number }[];
      assert.equal(quarter.find((r) => r.id === counted.id)?.hits, 11);
      assert.equal((await rules()).find((r) => r.id === counted.id)?.hits, 11);
      const otherAnalytics = await call("GET", "/v1/search/analytics", undefined, otherToken);
      assert.deepEqual(otherAnalytics.json().rules, [], "the other store has no rules and sees none");
    } finally {
      await remove(counted.id);
      await remove(idle.id);
    }
  });

  test("another store's token never reads, changes or meets a rule; a pin never shows another store's product", async () => {
    const rule = await add({
      match: "exact",
      query: "dress",
      pins: [
        { product_id: "silk-scarf", position: 1 },
        { product_id: "only-other", position: 2 },
      ],
      description: "RULES-MARKER",
    });
    try {
      assert.deepEqual(await ids("dress"), ["silk-scarf", ...baseline], "only-other is not this store's");
      const theirs = await search("dress", {}, otherToken);
      assert.equal(theirs.applied_rules, undefined);
      assert.ok(!theirs.results.some((r) => r.product_id === "silk-scarf"), "the other store's ranking, untouched");
      assert.deepEqual(await rules(otherToken), []);
      const put = await call("PUT", `/v1/search/rules/${rule.id}`, { match: "exact", query: "hat", hide: ["red-dress"] }, otherToken);
      assert.equal(put.statusCode, 404, put.body);
      assert.equal(put.json().error, "not_found");
      const del = await call("DELETE", `/v1/search/rules/${rule.id}`, undefined, otherToken);
      assert.equal(del.statusCode, 404, del.body);
      // The other store may hold a rule with the same condition (uniqueness is per store).
      const own = await add({ match: "exact", query: "dress", pins: [{ product_id: "only-other", position: 1 }] }, otherToken);
      assert.deepEqual((await search("dress", {}, otherToken)).results[0]?.product_id, "only-other");
      assert.deepEqual((await search("dress")).applied_rules, [rule.id], "each store its own rule");
      assert.equal((await call("DELETE", `/v1/search/rules/${own.id}`, undefined, otherToken)).statusCode, 200);
      assert.equal((await rules()).length, 1, "still in force for its own store");
    } finally {
      await remove(rule.id);
    }
  });

  test("another process's change is seen within the cache's time-to-live", async () => {
    assert.equal((await search("dress")).applied_rules, undefined); // the store's rules are cached: none
    const now = Date.now() + offset;
    await t.ctx.database.db
      .insertInto("search_rules")
      .values({
        id: "rule_elsewhere",
        store_id: store.clientId,
        match: "exact",
        query: "dress",
        pins: JSON.stringify([{ product_id: "silk-scarf", position: 1 }]),
        hide: "[]",
        boost: "[]",
        bury: "[]",
        enabled: 1,
        description: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    try {
      assert.equal((await search("dress")).applied_rules, undefined, "not yet: written by another process");
      offset += STORE_CACHE_TTL_MS + 1;
      assert.deepEqual((await search("dress")).applied_rules, ["rule_elsewhere"]);
    } finally {
      offset = 0;
      await remove("rule_elsewhere");
    }
  });

  test("bad input names the field and the fix; the same condition twice is 409; reading needs search:read, changing products:write", async () => {
    const cases: [object, string][] = [
      [{ match: "exact", query: "!!!", hide: ["a"] }, "query"],
      [{ match: "exact", query: "one two three four five six seven eight nine ten eleven", hide: ["a"] }, "query"],
      [{ match: "exact", query: "dress" }, "pins"],
      [{ match: "exact", query: "dress", pins: [], hide: [], boost: [], bury: [] }, "pins"],
      [
        {
          match: "exact",
          query: "dress",
          pins: [
            { product_id: "a", position: 1 },
            { product_id: "a", position: 2 },
          ],
        },
        "pins.1.product_id",
      ],
      [
        {
          match: "exact",
          query: "dress",
          pins: [
            { product_id: "a", position: 1 },
            { product_id: "b", position: 1 },
          ],
        },
        "pins.1.position",
      ],
      [{ match: "exact", query: "dress", pins: [{ product_id: "a", position: 1 }], hide: ["b", "a"] }, "hide.1"],
      [{ match: "exact", query: "dress", boost: [{ field: "brand", value: "x" }], bury: [{ field: "brand", value: "X" }] }, "bury.0"],
      [{ match: "starts_with", query: "dress", hide: ["a"] }, "match"],
      [{ match: "exact", query: "dress", pins: [{ product_id: "a", position: 0 }] }, "pins.0.position"],
      [{ match: "exact", query: "dress", boost: [{ field: "bad field", value: "x" }] }, "boost.0.field"],
      [{ match: "exact", query: "dress", hide: ["a"], colour: "red" }, "colour"],
    ];
    for (const [payload, field] of cases) {
      const res = await call("POST", "/v1/search/rules", payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json().error, "validation_failed");
      assert.ok(
        (res.json().details.errors as { field: string }[]).some((e) => e.field === field),
        `${JSON.stringify(payload)} names ${field}: ${res.body}`,
      );
    }
    const first = await add({ match: "contains", query: "Silk scarf", hide: ["silk-scarf"] });
    // A replacement is checked as a new rule is, and a refused one leaves the rule as it was.
    for (const [payload, field] of cases) {
      const res = await call("PUT", `/v1/search/rules/${first.id}`, payload);
      assert.equal(res.statusCode, 400, `PUT ${JSON.stringify(payload)}: ${res.body}`);
      assert.ok(
        (res.json().details.errors as { field: string }[]).some((e) => e.field === field),
        `PUT names ${field}: ${res.body}`,
      );
    }
    assert.deepEqual((await call("GET", "/v1/search/rules")).json().find((r: { id: string }) => r.id === first.id).hide, ["silk-scarf"]);
    try {
      const again = await call("POST", "/v1/search/rules", {
        match: "contains",
        query: "silk  SCARF",
        bury: [{ field: "brand", value: "x" }],
      });
      assert.equal(again.statusCode, 409, again.body);
      assert.equal(again.json().error, "conflict");
      assert.match(again.json().message, new RegExp(first.id));
      const exact = await add({ match: "exact", query: "silk scarf", hide: ["silk-scarf"] });
      const clash = await call("PUT", `/v1/search/rules/${exact.id}`, { match: "contains", query: "silk scarf", hide: ["x"] });
      assert.equal(clash.statusCode, 409, clash.body);
      await remove(exact.id);
      assert.equal((await call("PUT", "/v1/search/rules/rule_nope", { match: "exact", query: "x", hide: ["x"] })).statusCode, 404);

      const reader = await createApiKey(t, token, { search: ["read"] });
      const list = await call("GET", "/v1/search/rules", undefined, reader.key);
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        (list.json() as Rule[]).map((r) => r.id),
        [first.id],
      );
      const denied = await call("POST", "/v1/search/rules", { match: "exact", query: "hat", hide: ["x"] }, reader.key);
      assert.equal(denied.statusCode, 403, denied.body);
      assert.equal(denied.json().details.missing_permission, "products:write");
      const writer = await createApiKey(t, token, { products: ["write"] });
      assert.equal((await call("GET", "/v1/search/rules", undefined, writer.key)).json().details.missing_permission, "search:read");
      assert.equal((await t.search.inject({ method: "GET", url: "/v1/search/rules" })).statusCode, 401);
    } finally {
      await remove(first.id);
    }
  });
});

describe("merchandising rules: matching and arranging (pure)", () => {
  const rule = (over: Partial<ActiveRule>): ActiveRule => ({
    id: "r",
    match: "exact",
    query: "dress",
    pins: [],
    hide: [],
    boost: [],
    bury: [],
    created_at: 0,
    ...over,
  });
  const items = (...ids: string[]) => ids.map((productId) => ({ productId }));

  test("queries are compared as lower-case words; contains needs whole words in a row", () => {
    assert.equal(queryText("  Summer-DRESS! "), "summer dress");
    const rules = new StoreRules([
      rule({ id: "c1", match: "contains", query: "summer dress", created_at: 2 }),
      rule({ id: "c2", match: "contains", query: "dress", created_at: 1 }),
      rule({ id: "e", match: "exact", query: "red summer dress", created_at: 3 }),
    ]);
    assert.deepEqual(
      rules.matching("Red summer dress").map((r) => r.id),
      ["e", "c1", "c2"],
    );
    assert.deepEqual(
      rules.matching("dress summer").map((r) => r.id),
      ["c2"],
    );
    assert.deepEqual(rules.matching("redress"), []);
  });

  test("pins: first rule wins a product; a taken position goes to the next; hiding wins over pinning", () => {
    const m = combine([
      rule({ id: "a", pins: [{ product_id: "p", position: 2 }], hide: ["h"] }),
      rule({
        id: "b",
        pins: [
          { product_id: "p", position: 1 },
          { product_id: "q", position: 2 },
          { product_id: "h", position: 1 },
        ],
      }),
    ]);
    assert.deepEqual(m.pins, [
      { product_id: "p", position: 2 },
      { product_id: "q", position: 2 },
    ]);
    const ranked = items("x", "h", "y", "q");
    const page = arrange(ranked, m, {
      limit: 10,
      pinnable: new Map([
        ["p", { productId: "p" }],
        ["q", ranked[3]!],
      ]),
      metaOf: () => ({}),
    });
    assert.deepEqual(
      page.map((a) => a.item.productId),
      ["x", "p", "q", "y"],
    );
  });

  test("conditions: case ignored for strings, lists hold the value, nested keys, numbers and booleans exactly", () => {
    const meta = { brand: "Acme", tags: ["Sale", "new"], attrs: { fit: "slim" }, size: 42, eco: true };
    assert.ok(conditionMet(meta, { field: "brand", value: "acme" }));
    assert.ok(conditionMet(meta, { field: "tags", value: "sale" }));
    assert.ok(conditionMet(meta, { field: "attrs.fit", value: "SLIM" }));
    assert.ok(conditionMet(meta, { field: "size", value: 42 }));
    assert.ok(!conditionMet(meta, { field: "size", value: "42" }));
    assert.ok(conditionMet(meta, { field: "eco", value: true }));
    assert.ok(!conditionMet(meta, { field: "missing", value: "x" }));
    assert.ok(!conditionMet(undefined, { field: "brand", value: "acme" }));
  });
});
