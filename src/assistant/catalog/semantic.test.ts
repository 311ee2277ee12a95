// The embedded catalogue's semantic path: with the embedding model loaded, GET /v1/catalog/search
// with `q` ranks through the Search API's text search (products indexed through the real write
// path), reads prices live, and leaves no trace in the Search API's search history or analytics.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken } from "../../../test/support/factories.js";
import { anonymousSession, chatShop, type ChatShop } from "../../../test/support/chat.js";
import { solidImage } from "../../../test/support/servers.js";
import { ManualClock } from "../../platform/clock.js";

type Money = { amount_minor: number; currency: string };
/** The parts of the 200 body these tests read. */
type SearchBody = {
  source: string;
  products: Array<{
    product_id: string;
    title: string;
    price_state: string;
    price: Money | null;
    availability_state: string;
    availability: { state: string; quantity?: number } | null;
  }>;
  live_facts: Array<{ source: string; product_id: string; field: string }>;
};

describeEachDialect("assistant: catalogue search through the Search API's text search (model loaded)", (dialect) => {
  let t: TestApp;
  let a: ChatShop;
  let b: ChatShop;
  let sessionA: string;
  let sessionB: string;

  /** Indexes a product through the Search API's write path (image embedded by the test model). */
  async function index(storeId: string, productId: string, hex: string, metadata: Record<string, unknown>): Promise<void> {
    const image = await t.ctx.images.fromBytes(await solidImage(hex));
    const [vector] = await t.ctx.images.embed([image.decoded]);
    await t.services.products.write(storeId, {
      productId: productId,
      imageUrl: `https://cdn.example.com/${productId}.png`,
      metadata: metadata,
      embedded: { image, vector: vector! },
    });
  }

  async function search(token: string, query: string): Promise<{ status: number; body: SearchBody; raw: string }> {
    const res = await t.assistant.inject({ method: "GET", url: `/v1/catalog/search?${query}`, headers: bearer(token) });
    return { status: res.statusCode, body: res.json() as SearchBody, raw: res.body };
  }

  before(async () => {
    t = await createTestApp({ dialect, model: true, clock: new ManualClock(Date.parse("2026-03-02T09:00:00Z")) });
    a = await chatShop(t);
    b = await chatShop(t);
    sessionA = await anonymousSession(t, a);
    sessionB = await anonymousSession(t, b);
    // Names share no word with the colour queries: only the images tell the products apart.
    await index(a.storeId, "tee-1", "#cc2222", { name: "Cotton tee one", category: "tees", price: 19.5, inventory_quantity: 12 });
    await index(a.storeId, "tee-2", "#2255cc", { name: "Cotton tee two", category: "tees", price: 24, inventory_quantity: 0 });
    // Store B: a red product too, which A's shoppers must never see.
    await index(b.storeId, "b-tee", "#cc2222", { name: "Store B tee", category: "tees", price: 5 });
  });
  after(() => t.close());

  test("q is ranked by the model: the product whose image matches the words comes first, with its live price and stock", async () => {
    const red = await search(sessionA, "q=red");
    assert.equal(red.status, 200, red.raw);
    assert.equal(red.body.source, "shopsight_catalog");
    assert.deepEqual(
      red.body.products.map((p) => p.product_id),
      ["prd_tee-1", "prd_tee-2"],
      "both published products, the red one first",
    );
    const first = red.body.products[0]!;
    assert.equal(first.title, "Cotton tee one");
    assert.equal(first.price_state, "live");
    assert.deepEqual(first.price, { amount_minor: 1950, currency: "USD" });
    assert.equal(first.availability_state, "live");
    assert.deepEqual(first.availability, { state: "in_stock", quantity: 12 });
    assert.ok(red.body.live_facts.some((f) => f.source === "shopsight_catalog" && f.product_id === "prd_tee-1" && f.field === "price"));

    const blue = await search(sessionA, "q=blue");
    assert.equal(blue.status, 200, blue.raw);
    assert.equal(blue.body.products[0]!.product_id, "prd_tee-2");
    assert.deepEqual(blue.body.products[0]!.price, { amount_minor: 2400, currency: "USD" });
    assert.deepEqual(blue.body.products[0]!.availability, { state: "out_of_stock", quantity: 0 });

    // The price is read at request time: a re-index with a new price shows at once.
    await index(a.storeId, "tee-1", "#cc2222", { name: "Cotton tee one", category: "tees", price: 17.25, inventory_quantity: 12 });
    const repriced = await search(sessionA, "q=red");
    assert.equal(repriced.body.products[0]!.product_id, "prd_tee-1");
    assert.deepEqual(repriced.body.products[0]!.price, { amount_minor: 1725, currency: "USD" });
  });

  test("filters still apply on the semantic path", async () => {
    const res = await search(sessionA, "q=red&category_id=no-such-category");
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(res.body.products, []);
  });

  test("another store's shopper gets only that store's products for the same query", async () => {
    const res = await search(sessionB, "q=red");
    assert.equal(res.status, 200, res.raw);
    assert.deepEqual(
      res.body.products.map((p) => p.product_id),
      ["prd_b-tee"],
    );
    assert.deepEqual(res.body.products[0]!.price, { amount_minor: 500, currency: "USD" });
  });

  test("bad input is refused before any search: 400 VALIDATION_FAILED", async () => {
    const res = await t.assistant.inject({ method: "GET", url: "/v1/catalog/search?q=", headers: bearer(sessionA) });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, "VALIDATION_FAILED");
  });

  test("assistant catalogue searches write no Search API history: GET /v1/search/analytics counts only the Search API's own", async () => {
    const token = await machineToken(t.search, a.store);
    for (const q of ["red", "blue", "cotton"]) assert.equal((await search(sessionA, `q=${q}`)).status, 200);
    const own = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(token),
      payload: { query: "red", limit: 5 },
    });
    assert.equal(own.statusCode, 200, own.body);

    const analytics = await t.search.inject({ method: "GET", url: "/v1/search/analytics", headers: bearer(token) });
    assert.equal(analytics.statusCode, 200, analytics.body);
    const body = analytics.json();
    assert.equal(body.searches.total, 1, "the one Search API search, none of the assistant's");
    assert.deepEqual(body.searches.by_source, { api: 1, portal: 0, widget: 0 });
    const rows = await t.ctx.database.db.selectFrom("search_history").select(["id", "source"]).where("store_id", "=", a.storeId).execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      [own.json().search_id],
    );
  });
});
