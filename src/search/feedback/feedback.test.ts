import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../platform/clock.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, loginToken, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { addMember, createApiKey } from "../../../test/support/members.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";
import { historyWriter } from "../query/history-writer.js";

const CATALOGUE = [
  { id: "red-dress", hex: "#d01010", meta: { name: "Red Dress", category: "dresses", price: 80, color_name: "Red" } },
  { id: "blue-jeans", hex: "#1030c0", meta: { name: "Blue Jeans", category: "bottoms", price: 60, color_name: "Blue" } },
  { id: "green-dress", hex: "#10a030", meta: { name: "Green Dress", category: "dresses", price: 95, color_name: "Green" } },
  { id: "yellow-top", hex: "#e8d010", meta: { name: "Yellow Top", category: "tops", price: 25, color_name: "Yellow" } },
] as const;

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 2, 1, 12);

describeEachDialect("feedback, analytics, popular products and suggestions", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  const clock = new ManualClock(NOW);
  const url: Record<string, string> = {};

  before(async () => {
    t = await createTestApp({ dialect, model: true, clock });
    host = await startImageHost();
    for (const [i, p] of CATALOGUE.entries()) url[p.id] = host.put(`/${p.id}.png`, await solidImage(p.hex, { seed: i + 1 }));
  });
  after(async () => {
    await host.close();
    await t.close();
  });

  /** A store with the catalogue indexed, and its machine token (minted at the clock's current time). */
  async function storeWithCatalogue(): Promise<{ store: RegisteredStore; token: string }> {
    const store = await registerStore(t);
    const products = t.services.products;
    for (const p of CATALOGUE) {
      const image = await t.ctx.images.fromBytes(await solidImage(p.hex));
      const [vector] = await t.ctx.images.embed([image.decoded]);
      await products.write(store.clientId, {
        productId: p.id,
        imageUrl: url[p.id]!,
        metadata: { ...p.meta },
        embedded: { image, vector: vector! },
      });
    }
    return { store, token: await machineToken(t.search, store) };
  }

  const post = (token: string, path: string, payload: object) =>
    t.search.inject({ method: "POST", url: path, headers: bearer(token), payload });
  const get = (token: string, path: string) => t.search.inject({ method: "GET", url: path, headers: bearer(token) });
  async function searchText(
    token: string,
    query: string,
    extra: object = {},
  ): Promise<{ search_id: string; results: { product_id: string }[] }> {
    const res = await post(token, "/v1/search/text", { query, limit: 3, ...extra });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  const feedbackRows = (storeId: string) =>
    t.ctx.database.db.selectFrom("search_feedback").selectAll().where("store_id", "=", storeId).orderBy("created_at").execute();

  test("records click, add_to_cart and purchase attributed to a search, with rank, defaults and normalised currency", async () => {
    clock.set(NOW);
    const { store, token } = await storeWithCatalogue();
    const search = await searchText(token, "red dress");
    const second = search.results[1]!.product_id;

    const click = await post(token, "/v1/search/feedback", {
      search_id: search.search_id,
      result_product_id: second,
      action: "click",
      session_id: "sess-1",
    });
    assert.equal(click.statusCode, 201, click.body);
    const body = click.json();
    assert.match(body.id, /^fb_[0-9a-f]{32}$/);
    assert.deepEqual(
      { ...body, id: "x" },
      {
        id: "x",
        search_id: search.search_id,
        result_product_id: second,
        action: "click",
        quantity: 1,
        order_value: null,
        currency: null,
        session_id: "sess-1",
        attributed: true,
        result_rank: 2,
        source: "api",
        created_at: new Date(NOW).toISOString(),
      },
    );

    const cart = await post(token, "/v1/search/feedback", {
      search_id: search.search_id,
      result_product_id: second,
      action: "add_to_cart",
      quantity: 2,
    });
    assert.equal(cart.statusCode, 201, cart.body);
    assert.equal(cart.json().quantity, 2);

    const purchase = await post(token, "/v1/search/feedback", {
      search_id: search.search_id,
      result_product_id: "not-in-results",
      action: "purchase",
      order_value: 3 * 19.99, // 59.970000000000006 in floating point
      currency: "eur",
      quantity: 3,
    });
    assert.equal(purchase.statusCode, 201, purchase.body);
    assert.equal(purchase.json().order_value, 59.97);
    assert.equal(purchase.json().currency, "EUR");
    assert.equal(purchase.json().result_rank, null, "a product the search did not show has no rank");
    assert.equal(purchase.json().attributed, true);

    const yen = await post(token, "/v1/search/feedback", {
      result_product_id: "red-dress",
      action: "purchase",
      order_value: 1200.4,
      currency: "JPY",
    });
    assert.equal(yen.statusCode, 201, yen.body);
    assert.equal(yen.json().order_value, 1200, "JPY has no minor unit");
    assert.equal(yen.json().attributed, false);
    assert.equal(yen.json().search_id, null);

    const rows = await feedbackRows(store.clientId);
    assert.equal(rows.length, 4);
    assert.deepEqual(
      rows.map((r) => [r.action, r.quantity, r.order_value_minor, r.currency, r.search_id === null ? null : "search"]),
      [
        ["click", 1, null, null, "search"],
        ["add_to_cart", 2, null, null, "search"],
        ["purchase", 3, 5997, "EUR", "search"],
        ["purchase", 1, 1200, "JPY", null],
      ],
    );
  });

  test("order_value and currency with an action other than purchase → 422 purchase_fields_only, nothing stored", async () => {
    const { store, token } = await storeWithCatalogue();
    for (const payload of [
      { result_product_id: "red-dress", action: "click", order_value: 10, currency: "EUR" },
      { result_product_id: "red-dress", action: "add_to_cart", currency: "EUR" },
      { result_product_id: "red-dress", action: "click", order_value: 0 },
    ]) {
      const res = await post(token, "/v1/search/feedback", payload);
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().error, "purchase_fields_only");
      assert.equal(res.json().details.action, payload.action);
    }
    assert.equal((await feedbackRows(store.clientId)).length, 0);
  });

  test("rejects invalid feedback with 400 validation_failed naming the field", async () => {
    const { store, token } = await storeWithCatalogue();
    const cases: [string, object, string][] = [
      ["unknown action", { result_product_id: "p", action: "view" }, "action"],
      ["missing product", { action: "click" }, "result_product_id"],
      ["empty product", { result_product_id: "", action: "click" }, "result_product_id"],
      ["not a currency", { result_product_id: "p", action: "purchase", order_value: 5, currency: "XYZ" }, "currency"],
      ["currency too long", { result_product_id: "p", action: "purchase", order_value: 5, currency: "EURO" }, "currency"],
      ["value without currency", { result_product_id: "p", action: "purchase", order_value: 5 }, "currency"],
      ["currency without value", { result_product_id: "p", action: "purchase", currency: "EUR" }, "order_value"],
      ["negative value", { result_product_id: "p", action: "purchase", order_value: -1, currency: "EUR" }, "order_value"],
      ["value as text", { result_product_id: "p", action: "purchase", order_value: "10", currency: "EUR" }, "order_value"],
      ["quantity 0", { result_product_id: "p", action: "click", quantity: 0 }, "quantity"],
      ["fractional quantity", { result_product_id: "p", action: "click", quantity: 1.5 }, "quantity"],
      ["search_id not a UUID", { result_product_id: "p", action: "click", search_id: "abc" }, "search_id"],
      ["session with spaces", { result_product_id: "p", action: "click", session_id: "a b" }, "session_id"],
      ["unknown field", { result_product_id: "p", action: "click", revenue: 5 }, "revenue"],
    ];
    for (const [label, payload, field] of cases) {
      const res = await post(token, "/v1/search/feedback", payload);
      assert.equal(res.statusCode, 400, `${label}: ${res.body}`);
      assert.equal(res.json().error, "validation_failed", label);
      assert.ok(
        res.json().details.errors.some((e: { field: string }) => e.field === field),
        `${label}: expected an error on ${field}: ${res.body}`,
      );
    }
    assert.equal((await feedbackRows(store.clientId)).length, 0);
  });

  test("a search_id of another store, or of no search, is 404 and writes nothing", async () => {
    const a = await storeWithCatalogue();
    const b = await storeWithCatalogue();
    const searchOfA = await searchText(a.token, "red");
    const res = await post(b.token, "/v1/search/feedback", {
      search_id: searchOfA.search_id,
      result_product_id: "red-dress",
      action: "purchase",
      order_value: 10,
      currency: "EUR",
    });
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.json().error, "not_found");
    const unknown = await post(a.token, "/v1/search/feedback", {
      search_id: "00000000-0000-4000-8000-000000000000",
      result_product_id: "red-dress",
      action: "click",
    });
    assert.equal(unknown.statusCode, 404);
    assert.equal((await feedbackRows(a.store.clientId)).length, 0);
    assert.equal((await feedbackRows(b.store.clientId)).length, 0);
  });

  test("analytics: totals per mode and source, zero-result rate, mean and p95, engagement rates, revenue split, top queries, window", async () => {
    // Old activity, 40 days ago: outside the default 30-day window.
    clock.set(NOW - 40 * DAY);
    const { store, token: oldToken } = await storeWithCatalogue();
    const old = await searchText(oldToken, "ancient query");
    await post(oldToken, "/v1/search/feedback", {
      search_id: old.search_id,
      result_product_id: "red-dress",
      action: "purchase",
      order_value: 1000,
      currency: "EUR",
    });

    clock.set(NOW - 2 * DAY);
    const token = await machineToken(t.search, store);
    const s1 = await searchText(token, "Red dress");
    const s2 = await searchText(token, "  red DRESS ");
    const s3 = await searchText(token, "zzz", { category: "no-such-category" });
    const s4 = await post(token, "/v1/search/url", { image_url: url["blue-jeans"], limit: 2 });
    assert.equal(s4.statusCode, 200, s4.body);
    const s4id = s4.json().search_id as string;
    // Known latencies, so mean and p95 can be checked exactly (query time is real time otherwise).
    const latencies: [string, number][] = [
      [s1.search_id, 10],
      [s2.search_id, 20],
      [s3.search_id, 30],
      [s4id, 400],
    ];
    await historyWriter(t.ctx).flush(); // history rows are written after the reply
    for (const [id, ms] of latencies)
      await t.ctx.database.db.updateTable("search_history").set({ latency_ms: ms }).where("id", "=", id).execute();

    const fb = async (payload: object) => assert.equal((await post(token, "/v1/search/feedback", payload)).statusCode, 201);
    await fb({ search_id: s1.search_id, result_product_id: "red-dress", action: "click" });
    await fb({ search_id: s1.search_id, result_product_id: "red-dress", action: "click" });
    await fb({ search_id: s1.search_id, result_product_id: "red-dress", action: "add_to_cart" });
    await fb({ search_id: s1.search_id, result_product_id: "red-dress", action: "purchase", order_value: 80, currency: "EUR" });
    await fb({ search_id: s2.search_id, result_product_id: "green-dress", action: "click" });
    await fb({ result_product_id: "yellow-top", action: "purchase", order_value: 20.5, currency: "EUR", quantity: 2 });
    await fb({ search_id: s4id, result_product_id: "blue-jeans", action: "purchase", order_value: 10, currency: "USD" });
    await fb({ result_product_id: "yellow-top", action: "purchase" }); // a purchase without a value counts, adds no revenue

    clock.set(NOW);
    const fresh = await machineToken(t.search, store);
    const res = await get(fresh, "/v1/search/analytics");
    assert.equal(res.statusCode, 200, res.body);
    const a = res.json();
    assert.equal(a.days, 30);
    assert.equal(a.to, new Date(NOW).toISOString());
    assert.equal(a.from, new Date(NOW - 30 * DAY).toISOString());
    assert.equal(a.searches.total, 4);
    assert.equal(a.searches.zero_results, 1);
    assert.deepEqual(a.searches.by_mode, { upload: 0, url: 1, text: 3, hybrid: 0, fusion: 0, "multi-image": 0, crop: 0, filtered: 0 });
    assert.deepEqual(a.searches.by_source, { api: 4, portal: 0, widget: 0 });
    // Searches over time: one entry per UTC day of the window, the four searches on their day.
    assert.equal(a.searches.by_day.length, 31);
    assert.equal(a.searches.by_day[0].date, new Date(NOW - 30 * DAY).toISOString().slice(0, 10));
    assert.equal(a.searches.by_day[30].date, new Date(NOW).toISOString().slice(0, 10));
    const busyDay = new Date(NOW - 2 * DAY).toISOString().slice(0, 10);
    assert.deepEqual(
      a.searches.by_day.filter((d: { searches: number }) => d.searches > 0),
      [{ date: busyDay, searches: 4, zero_results: 1 }],
    );
    assert.equal(a.zero_result_rate, 0.25);
    assert.deepEqual(a.query_time_ms, { mean: 115, p95: 400 });
    assert.equal(a.click_through_rate, 0.5, "s1 and s2 have clicks");
    assert.equal(a.add_to_cart_rate, 0.25);
    assert.equal(a.conversion_rate, 0.5, "s1 and s4 have purchases");
    assert.deepEqual(a.events, { clicks: 3, add_to_carts: 1, purchases: 4, units_purchased: 5 });
    assert.deepEqual(a.revenue, [
      { currency: "EUR", total: 100.5, attributed: 80, unattributed: 20.5, from_widget: 0, purchases: 2 },
      { currency: "USD", total: 10, attributed: 10, unattributed: 0, from_widget: 0, purchases: 1 },
    ]);
    assert.deepEqual(a.top_queries, [
      { query: "red dress", searches: 2, zero_result_searches: 0 },
      { query: "zzz", searches: 1, zero_result_searches: 1 },
    ]);

    // A wider window takes in the old search and the old purchase.
    const wide = (await get(fresh, "/v1/search/analytics?days=60")).json();
    assert.equal(wide.searches.total, 5);
    assert.equal(wide.revenue[0].total, 1100.5);
    assert.equal(wide.revenue[0].attributed, 1080);
    assert.ok(wide.top_queries.some((q: { query: string }) => q.query === "ancient query"));
    // One day back sees nothing of the activity two days ago.
    const narrow = (await get(fresh, "/v1/search/analytics?days=1")).json();
    assert.equal(narrow.searches.total, 0);
    assert.deepEqual(
      narrow.searches.by_day.map((d: { searches: number }) => d.searches),
      [0, 0],
    );
    assert.deepEqual(narrow.query_time_ms, { mean: null, p95: null });
    assert.equal(narrow.click_through_rate, 0);
    assert.deepEqual(narrow.revenue, []);
  });

  test("p95 is the nearest-rank 95th percentile of the window's query times", async () => {
    clock.set(NOW);
    const { store, token } = await storeWithCatalogue();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await searchText(token, `q${i}`)).search_id);
    // Latencies 1..20 ms: the 19th (⌈0.95 × 20⌉) fastest is 19.
    await historyWriter(t.ctx).flush(); // history rows are written after the reply
    for (const [i, id] of ids.entries())
      await t.ctx.database.db
        .updateTable("search_history")
        .set({ latency_ms: i + 1 })
        .where("id", "=", id)
        .execute();
    const a = (await get(token, "/v1/search/analytics?days=7")).json();
    assert.equal(a.searches.total, 20);
    assert.deepEqual(a.query_time_ms, { mean: 10.5, p95: 19 });
    assert.equal(a.top_queries.length, 10, "top queries are capped at 10");
    assert.ok(store.clientId);
  });

  test("popular: weighted actions (click 1, add_to_cart 3 × quantity, purchase 5 × quantity) over the window, with metadata", async () => {
    clock.set(NOW - 10 * DAY);
    const { store, token: oldToken } = await storeWithCatalogue();
    await post(oldToken, "/v1/search/feedback", { result_product_id: "yellow-top", action: "purchase", quantity: 100 });
    clock.set(NOW);
    const token = await machineToken(t.search, store);
    const fb = async (payload: object) => assert.equal((await post(token, "/v1/search/feedback", payload)).statusCode, 201);
    for (let i = 0; i < 4; i++) await fb({ result_product_id: "blue-jeans", action: "click" }); // 4
    await fb({ result_product_id: "red-dress", action: "add_to_cart", quantity: 2 }); // 6
    await fb({ result_product_id: "red-dress", action: "click" }); // 7
    await fb({ result_product_id: "green-dress", action: "purchase", quantity: 2, order_value: 190, currency: "EUR" }); // 10
    await fb({ result_product_id: "gone-product", action: "click" }); // 1, not indexed
    await fb({ result_product_id: "blue-jeans", action: "click", quantity: 9 }); // clicks count once: 5

    const res = await get(token, "/v1/search/feedback/popular?days=7");
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.weights, { click: 1, add_to_cart: 3, purchase: 5 });
    assert.deepEqual(
      body.products.map((p: any) => [p.product_id, p.score, p.clicks, p.add_to_carts, p.purchases, p.units_purchased, p.indexed]),
      [
        ["green-dress", 10, 0, 0, 1, 2, true],
        ["red-dress", 7, 1, 1, 0, 0, true],
        ["blue-jeans", 5, 5, 0, 0, 0, true],
        ["gone-product", 1, 1, 0, 0, 0, false],
      ],
    );
    assert.equal(body.products[0].metadata.name, "Green Dress");
    assert.equal(body.products[3].metadata, null);
    const top2 = (await get(token, "/v1/search/feedback/popular?days=7&limit=2")).json();
    assert.deepEqual(
      top2.products.map((p: any) => p.product_id),
      ["green-dress", "red-dress"],
    );
    const wide = (await get(token, "/v1/search/feedback/popular?days=30&limit=1")).json();
    assert.deepEqual(
      wide.products.map((p: any) => [p.product_id, p.score]),
      [["yellow-top", 500]],
    );
  });

  test("suggestions: frequent text queries that returned results, case-insensitive, with prefix and limit", async () => {
    clock.set(NOW);
    const { token } = await storeWithCatalogue();
    for (const q of ["Red dress", "red dress", "RED DRESS", "red top", "red top", "blue jeans"]) await searchText(token, q);
    for (let i = 0; i < 3; i++) await searchText(token, "red nothing", { category: "no-such-category" }); // no results: never suggested
    await post(token, "/v1/search/url", { image_url: url["red-dress"] }); // not a text query

    const res = await get(token, "/v1/search/suggestions");
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      days: 30,
      suggestions: [
        { query: "red dress", searches: 3 },
        { query: "red top", searches: 2 },
        { query: "blue jeans", searches: 1 },
      ],
    });
    const red = (await get(token, "/v1/search/suggestions?prefix=RED&limit=1")).json();
    assert.deepEqual(red.suggestions, [{ query: "red dress", searches: 3 }]);
    const wildcard = (await get(token, "/v1/search/suggestions?prefix=%25")).json();
    assert.deepEqual(wildcard.suggestions, [], "% in a prefix is literal, not a wildcard");
  });

  test("rejects bad query parameters with 400 validation_failed", async () => {
    const { token } = await storeWithCatalogue();
    for (const path of [
      "/v1/search/analytics?days=0",
      "/v1/search/analytics?days=366",
      "/v1/search/analytics?days=abc",
      "/v1/search/analytics?days=7&mode=text",
      "/v1/search/feedback/popular?limit=0",
      "/v1/search/feedback/popular?limit=101",
      "/v1/search/feedback/popular?days=1.5",
      "/v1/search/suggestions?limit=51",
      "/v1/search/suggestions?prefix=",
      "/v1/search/suggestions?q=red",
    ]) {
      const res = await get(token, path);
      assert.equal(res.statusCode, 400, `${path}: ${res.body}`);
      assert.equal(res.json().error, "validation_failed", path);
    }
  });

  test("another store's token sees none of this store's searches, feedback, revenue, products or queries", async () => {
    clock.set(NOW);
    const a = await storeWithCatalogue();
    const s = await searchText(a.token, "secret alpha query");
    await post(a.token, "/v1/search/feedback", {
      search_id: s.search_id,
      result_product_id: "red-dress",
      action: "purchase",
      order_value: 99,
      currency: "CHF",
    });
    const b = await storeWithCatalogue();
    const analytics = (await get(b.token, "/v1/search/analytics")).json();
    assert.equal(analytics.searches.total, 0);
    assert.deepEqual(analytics.revenue, []);
    assert.deepEqual(analytics.top_queries, []);
    assert.equal(analytics.events.purchases, 0);
    assert.deepEqual((await get(b.token, "/v1/search/feedback/popular")).json().products, []);
    assert.deepEqual((await get(b.token, "/v1/search/suggestions")).json().suggestions, []);
    // The owner of A still sees it.
    const mine = (await get(a.token, "/v1/search/analytics")).json();
    assert.equal(mine.revenue[0].currency, "CHF");
    assert.ok(mine.top_queries.some((q: { query: string }) => q.query === "secret alpha query"));
  });

  test("permissions: POST feedback needs search:write, analytics needs analytics:read, popular and suggestions need search:read", async () => {
    clock.set(NOW);
    const { store } = await storeWithCatalogue();
    const machine = await machineToken(t.search, store);
    const owner = await loginToken(t.search, store.email, store.password);
    const viewer = await addMember(t, owner, "viewer");
    const denied = await post(viewer.token, "/v1/search/feedback", { result_product_id: "red-dress", action: "click" });
    assert.equal(denied.statusCode, 403, denied.body);
    assert.equal(denied.json().details.missing_permission, "search:write");
    for (const path of ["/v1/search/analytics", "/v1/search/feedback/popular", "/v1/search/suggestions"]) {
      assert.equal((await get(viewer.token, path)).statusCode, 200, path);
    }
    const readOnly = await createApiKey(t, machine, { search: ["read"] });
    assert.equal((await get(readOnly.key, "/v1/search/suggestions")).statusCode, 200);
    const noAnalytics = await get(readOnly.key, "/v1/search/analytics");
    assert.equal(noAnalytics.statusCode, 403);
    assert.equal(noAnalytics.json().details.missing_permission, "analytics:read");
    const writer = await createApiKey(t, machine, { search: ["write"] });
    assert.equal((await post(writer.key, "/v1/search/feedback", { result_product_id: "red-dress", action: "click" })).statusCode, 201);
    assert.equal((await get(writer.key, "/v1/search/feedback/popular")).statusCode, 403);
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/search/analytics" })).statusCode, 401);
  });

  test("a search made with a user login (the portal's playground) counts under portal, a machine grant's under api", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const machine = await machineToken(t.search, store);
    for (const [token, path, payload] of [
      [owner, "/v1/search/text", { query: "red dress" }],
      [machine, "/v1/search/text", { query: "red dress" }],
      [owner, "/v1/search/batch", { queries: [{ type: "text", query: "blue jeans" }] }],
    ] as const) {
      const res = await post(token, path, payload);
      assert.equal(res.statusCode, 200, res.body);
    }
    await historyWriter(t.ctx).flush(); // history rows are written after the reply
    const a = (await get(machine, "/v1/search/analytics")).json();
    assert.deepEqual(a.searches.by_source, { api: 1, portal: 2, widget: 0 });
  });
});
