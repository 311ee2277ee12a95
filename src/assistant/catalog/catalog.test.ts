import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer } from "../../../test/support/factories.js";
import { anonymousSession, chatShop, putCatalogProduct, type ChatShop } from "../../../test/support/chat.js";
import { fakeProduct, startStorefront, type StorefrontServer } from "../../../test/support/storefront-server.js";
import { ManualClock } from "../../platform/clock.js";
import { composeAssistant } from "../compose.js";
import { NOT_VERIFIED_LIVE } from "../storefront/rules.js";

interface Card {
  product_id: string;
  title: string;
  price_state: string;
  price: { amount_minor: number; currency: string } | null;
  availability_state: string;
  availability: { state: string; quantity?: number } | null;
}
interface SearchBody {
  products: Card[];
  price_filter?: {
    min_minor: number | null;
    max_minor: number | null;
    currency: string;
    checked: number;
    excluded_outside_range: number;
    excluded_without_live_price: number;
  };
  warnings: string[];
  live_facts: Array<{ source: string; product_id: string; field: string; value: unknown; read_at: string }>;
  source: string;
  correlation_id: string;
}

describeEachDialect("assistant: catalogue search (embedded catalogue and connected storefront)", (dialect) => {
  let t: TestApp;
  let clock: ManualClock;
  let a: ChatShop;
  let b: ChatShop;
  let sessionA: string;
  let sessionB: string;
  let shop: StorefrontServer;

  async function search(token: string, query: string): Promise<{ status: number; body: SearchBody; raw: string }> {
    const res = await t.assistant.inject({ method: "GET", url: `/v1/catalog/search${query ? `?${query}` : ""}`, headers: bearer(token) });
    return { status: res.statusCode, body: res.json() as SearchBody, raw: res.body };
  }

  before(async () => {
    clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
    t = await createTestApp({ dialect, clock });
    a = await chatShop(t);
    b = await chatShop(t);
    sessionA = await anonymousSession(t, a);
    sessionB = await anonymousSession(t, b);
    // Store A: 14 published shirts priced 10.00 … 23.00, one draft, one unpublished, one without a price.
    for (let i = 0; i < 14; i++) {
      await putCatalogProduct(
        t,
        a.storeId,
        `shirt-${String(i).padStart(2, "0")}`,
        {
          name: `Linen shirt ${i}`,
          category: "shirts",
          price: 10 + i,
          size: i % 2 === 0 ? "M" : "L",
          sku: `SKU-${i}`,
          color_name: i < 3 ? "red" : "blue",
          inventory_quantity: i === 0 ? 0 : i === 1 ? 3 : 40,
        },
        i,
      );
    }
    await putCatalogProduct(
      t,
      a.storeId,
      "shirt-draft",
      { name: "Linen shirt draft", category: "shirts", price: 12, status: "draft" },
      100,
    );
    await putCatalogProduct(
      t,
      a.storeId,
      "shirt-hidden",
      { name: "Linen shirt hidden", category: "shirts", price: 12, published: false },
      101,
    );
    await putCatalogProduct(t, a.storeId, "shirt-noprice", { name: "Linen shirt no price", category: "shirts", in_stock: true }, 102);
    await putCatalogProduct(t, a.storeId, "mug-1", { name: "Coffee mug", category: "mugs", price: 8.5, stock: 7 }, 103);
    // Store B: one product with a name that store A's queries would match.
    await putCatalogProduct(t, b.storeId, "b-shirt", { name: "Linen shirt of store B", category: "shirts", price: 11 }, 0);
    shop = await startStorefront();
  });
  after(async () => {
    await shop.close();
    await t.close();
  });
  beforeEach(() => shop.reset());

  test("rule 1: only the published catalogue; rule 2: live reads for the first ten only", async () => {
    const { status, body } = await search(sessionA, "q=linen%20shirt&limit=30");
    assert.equal(status, 200);
    const ids = body.products.map((p) => p.product_id);
    assert.equal(ids.length, 15, "14 shirts + the one without a price; no draft, no unpublished");
    assert.ok(!ids.includes("prd_shirt-draft") && !ids.includes("prd_shirt-hidden"));
    assert.ok(ids.every((id) => id.startsWith("prd_")));
    body.products.forEach((p, i) => {
      if (i < 10) {
        assert.notEqual(p.price_state, "not_requested", `product ${i} must be read live`);
      } else {
        assert.equal(p.price_state, "not_requested");
        assert.equal(p.availability_state, "not_requested");
        assert.equal(p.price, null);
        assert.equal(p.availability, null);
      }
    });
    const first = body.products[0]!;
    assert.equal(first.product_id, "prd_shirt-00");
    assert.deepEqual(first.price, { amount_minor: 1000, currency: "USD" });
    assert.deepEqual(first.availability, { state: "out_of_stock", quantity: 0 });
    assert.deepEqual(body.products[1]!.availability, { state: "low_stock", quantity: 3 });
    // live_facts: one price and one availability fact per live-read product (ten products).
    assert.equal(body.live_facts.filter((f) => f.field === "price").length, 10);
    assert.equal(body.live_facts.filter((f) => f.field === "availability").length, 10);
    assert.ok(body.live_facts.every((f) => f.source === "shopsight_catalog" && f.read_at === "2026-03-02T09:00:00.000Z"));
    assert.equal(body.source, "shopsight_catalog");
  });

  test("rule 3: the warning appears exactly when a returned product was not read live", async () => {
    const many = await search(sessionA, "q=linen%20shirt&limit=12");
    assert.ok(many.body.warnings.includes(NOT_VERIFIED_LIVE));

    const few = await search(sessionA, "category_id=shirts&size=M&limit=5");
    assert.equal(few.status, 200);
    assert.equal(few.body.products.length, 5);
    assert.ok(few.body.products.every((p) => p.price_state === "live" && p.availability_state === "live"));
    assert.deepEqual(few.body.warnings, []);

    // A product without a price was read, but not verified live: warning.
    const noPrice = await search(sessionA, "q=no%20price&category_id=shirts&limit=1");
    assert.equal(noPrice.body.products[0]!.product_id, "prd_shirt-noprice");
    assert.equal(noPrice.body.products[0]!.price_state, "unavailable");
    assert.equal(noPrice.body.products[0]!.price, null);
    assert.deepEqual(noPrice.body.products[0]!.availability, { state: "in_stock" });
    assert.ok(noPrice.body.warnings.includes(NOT_VERIFIED_LIVE));
  });

  test("rule 4: price bounds use live prices in the store currency; unreadable prices are excluded and counted", async () => {
    const { status, body } = await search(sessionA, "category_id=shirts&price_min_minor=1200&price_max_minor=1500&limit=10");
    assert.equal(status, 200);
    assert.deepEqual(
      body.products.map((p) => p.price!.amount_minor),
      [1200, 1300, 1400, 1500],
    );
    assert.ok(body.products.every((p) => p.price_state === "live"));
    assert.deepEqual(body.price_filter, {
      min_minor: 1200,
      max_minor: 1500,
      currency: "USD",
      checked: 15,
      excluded_outside_range: 10,
      excluded_without_live_price: 1,
    });
    assert.deepEqual(body.warnings, []);

    // The store currency comes from settings: in JPY, 12 (document units) is 12 yen.
    const put = await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings",
      headers: bearer(a.owner),
      payload: { currency: "JPY", support_contact: null },
    });
    assert.equal(put.statusCode, 200, put.body);
    const yen = await search(sessionA, "q=mug&price_max_minor=9&limit=3");
    assert.deepEqual(
      yen.body.products.map((p) => p.price),
      [{ amount_minor: 9, currency: "JPY" }],
    );
    assert.equal(yen.body.price_filter!.currency, "JPY");
    await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings",
      headers: bearer(a.owner),
      payload: { currency: "USD", support_contact: null },
    });
  });

  test("rule 4: with a bound, a product whose live price cannot be read is never admitted on an indexed price", async () => {
    // The indexed metadata says 5.00 but the price column (the live value) is gone.
    await putCatalogProduct(t, a.storeId, "ghost", { name: "Ghost lamp", category: "lamps", inventory_quantity: 5 }, 200);
    await t.ctx.database.db
      .updateTable("products")
      .set({ metadata: JSON.stringify({ name: "Ghost lamp", category: "lamps", price: 5 }) })
      .where("product_id", "=", "ghost")
      .execute();
    const { body } = await search(sessionA, "category_id=lamps&price_max_minor=100000&limit=5");
    assert.deepEqual(body.products, []);
    assert.equal(body.price_filter!.excluded_without_live_price, 1);
    assert.equal(body.price_filter!.checked, 1);
  });

  test("rule 5: price_filter only when limit was given", async () => {
    const without = await search(sessionA, "category_id=shirts&price_min_minor=1200");
    assert.equal(without.status, 200);
    assert.equal(without.body.price_filter, undefined);
    assert.ok(!("price_filter" in without.body));
    assert.ok(without.body.products.every((p) => p.price!.amount_minor >= 1200));
    const withLimit = await search(sessionA, "category_id=shirts&limit=3");
    assert.deepEqual(withLimit.body.price_filter, {
      min_minor: null,
      max_minor: null,
      currency: "USD",
      checked: 3,
      excluded_outside_range: 0,
      excluded_without_live_price: 0,
    });
  });

  test("filters: category, colour, size and sku; repeatable parameters are any-of", async () => {
    const red = await search(sessionA, "color=red&limit=20");
    assert.deepEqual(red.body.products.map((p) => p.product_id).sort(), ["prd_shirt-00", "prd_shirt-01", "prd_shirt-02"]);
    const sku = await search(sessionA, "sku=sku-7");
    assert.deepEqual(
      sku.body.products.map((p) => p.product_id),
      ["prd_shirt-07"],
    );
    const sizes = await search(sessionA, "size=M&size=L&category_id=mugs&category_id=shirts&limit=50");
    assert.equal(sizes.body.products.length, 14);
    const mugs = await search(sessionA, "category_id=MUGS");
    assert.deepEqual(
      mugs.body.products.map((p) => [p.product_id, p.price, p.availability]),
      [["prd_mug-1", { amount_minor: 850, currency: "USD" }, { state: "in_stock", quantity: 7 }]],
    );
  });

  test("live means live: a price changed in the database shows on the next search", async () => {
    await t.ctx.database.db
      .updateTable("products")
      .set({ price: 99.99 })
      .where("store_id", "=", a.storeId)
      .where("product_id", "=", "mug-1")
      .execute();
    clock.advance(60_000);
    const { body } = await search(sessionA, "category_id=mugs");
    assert.deepEqual(body.products[0]!.price, { amount_minor: 9999, currency: "USD" });
    assert.equal(body.live_facts.find((f) => f.field === "price")!.read_at, new Date(clock.now()).toISOString());
    await t.ctx.database.db
      .updateTable("products")
      .set({ price: 8.5 })
      .where("store_id", "=", a.storeId)
      .where("product_id", "=", "mug-1")
      .execute();
  });

  test("bad input is VALIDATION_FAILED", async () => {
    for (const q of [
      "limit=0",
      "limit=101",
      "limit=x",
      "price_min_minor=-1",
      "price_min_minor=1.5",
      "price_min_minor=500&price_max_minor=100",
      "unknown=1",
      "sku=a&sku=b",
      `q=${"x".repeat(501)}`,
      "color=not-a-colour-%23zz&color=",
    ]) {
      const res = await t.assistant.inject({ method: "GET", url: `/v1/catalog/search?${q}`, headers: bearer(sessionA) });
      assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
      assert.equal(res.json().code, "VALIDATION_FAILED");
      assert.ok(res.json().correlation_id);
    }
    const none = await t.assistant.inject({ method: "GET", url: "/v1/catalog/search?q=shirt" });
    assert.equal(none.statusCode, 401);
    const admin = await t.assistant.inject({ method: "GET", url: "/v1/catalog/search?q=shirt", headers: bearer(a.owner) });
    assert.equal(admin.statusCode, 401, "a dashboard token is not a shopper session");
  });

  test("isolation: store B's session never sees store A's products", async () => {
    const { body } = await search(sessionB, "q=linen%20shirt&limit=50");
    assert.deepEqual(
      body.products.map((p) => p.product_id),
      ["prd_b-shirt"],
    );
    const sku = await search(sessionB, "sku=SKU-1");
    assert.deepEqual(sku.body.products, []);
  });

  test("connected storefront: search over its published catalogue, live reads counted, then disconnect", async () => {
    shop.products = [
      ...Array.from({ length: 12 }, (_, i) =>
        fakeProduct(100 + i, `Wool scarf ${i}`, `${20 + i}.50`, {
          product_type: "Scarves",
          available: i === 0 ? 0 : 9,
          color: i < 2 ? "Green" : "Grey",
          size: "One",
        }),
      ),
      fakeProduct(200, "Wool scarf draft", "5.00", { status: "draft" }),
      fakeProduct(201, "Wool scarf hidden", "5.00", { published: false }),
    ];
    const conn = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/connections/storefront",
      headers: bearer(a.owner),
      payload: { store_url: shop.url, private_token: shop.token, reason: "use our shop" },
    });
    assert.equal(conn.statusCode, 201, conn.body);
    const connectionId = (conn.json() as { connection_id: string }).connection_id;
    shop.reset();

    const { status, body } = await search(sessionA, "q=wool%20scarf&limit=20");
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.source, `storefront:${new URL(shop.url).host}`);
    assert.equal(body.products.length, 12);
    assert.ok(!body.products.some((p) => p.title.includes("draft") || p.title.includes("hidden")));
    // Exactly ten variant reads (one per live product) and one batched inventory read.
    assert.equal(shop.count("/admin/api/2024-07/products/"), 10);
    assert.equal(shop.count("/admin/api/2024-07/inventory_levels.json"), 1);
    assert.ok(shop.calls.every((c) => c.token === shop.token));
    assert.deepEqual(body.products[0]!.price, { amount_minor: 2050, currency: "USD" });
    assert.deepEqual(body.products[0]!.availability, { state: "out_of_stock", quantity: 0 });
    assert.equal(body.products[10]!.price_state, "not_requested");
    assert.ok(body.warnings.includes(NOT_VERIFIED_LIVE));
    assert.equal(body.live_facts.filter((f) => f.field === "price").length, 10);

    // Colour and bounds on the storefront; only what is needed is read.
    shop.reset();
    const green = await search(sessionA, "color=green&price_max_minor=2100&limit=5");
    assert.deepEqual(
      green.body.products.map((p) => p.product_id),
      ["prd_100"],
    );
    assert.deepEqual(green.body.price_filter, {
      min_minor: null,
      max_minor: 2100,
      currency: "USD",
      checked: 2,
      excluded_outside_range: 1,
      excluded_without_live_price: 0,
    });
    assert.equal(shop.count("/admin/api/2024-07/products/"), 2);

    // One product's read fails: it is unavailable, the others live.
    shop.reset();
    shop.failing.add("/admin/api/2024-07/products/101/");
    const partial = await search(sessionA, "q=scarf&limit=3");
    assert.deepEqual(
      partial.body.products.map((p) => p.price_state),
      ["live", "unavailable", "live"],
    );
    assert.ok(partial.body.warnings.includes(NOT_VERIFIED_LIVE));
    shop.failing.clear();

    // A price read in another currency than the store's is not admitted under a bound.
    shop.reset();
    const eur = await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings",
      headers: bearer(a.owner),
      payload: { currency: "EUR", support_contact: null },
    });
    assert.equal(eur.statusCode, 200);
    const other = await search(sessionA, "q=scarf&price_min_minor=0&limit=2");
    assert.deepEqual(other.body.products, []);
    // Reading goes on until enough are admitted or the candidates run out: all twelve checked.
    assert.equal(other.body.price_filter!.excluded_without_live_price, 12);
    assert.equal(other.body.price_filter!.checked, 12);
    assert.equal(other.body.price_filter!.currency, "EUR");
    await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings",
      headers: bearer(a.owner),
      payload: { currency: "USD", support_contact: null },
    });

    // Store B still searches its own embedded catalogue.
    const bSearch = await search(sessionB, "q=scarf");
    assert.deepEqual(bSearch.body.products, []);
    assert.equal(bSearch.body.source, "shopsight_catalog");

    // Storefront down → 503 STOREFRONT_UNAVAILABLE (a problem with a correlation id); the gateway throws StorefrontUnavailable.
    shop.down = true;
    const down = await t.assistant.inject({ method: "GET", url: "/v1/catalog/search?q=scarf", headers: bearer(sessionA) });
    assert.equal(down.statusCode, 503);
    assert.equal(down.json().code, "STOREFRONT_UNAVAILABLE");
    assert.ok(down.json().correlation_id);
    await assert.rejects(composeAssistant(t.ctx, { catalog: t.services.catalog }).gateway.search(a.storeId, { q: "scarf" }), {
      name: "StorefrontUnavailable",
    });
    shop.down = false;

    const del = await t.assistant.inject({ method: "DELETE", url: `/v1/admin/connections/${connectionId}`, headers: bearer(a.owner) });
    assert.equal(del.statusCode, 204);
    const back = await search(sessionA, "q=linen%20shirt&limit=3");
    assert.equal(back.body.source, "shopsight_catalog");
    assert.equal(back.body.products[0]!.product_id, "prd_shirt-00");
  });

  test("connected storefront without a token: public storefront reads", async () => {
    shop.products = [fakeProduct(300, "Canvas tote", "12.00", { available: 0 }), fakeProduct(301, "Canvas cap", "15.00")];
    const conn = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/connections/storefront",
      headers: bearer(b.owner),
      payload: { store_url: shop.url, reason: "public shop" },
    });
    assert.equal(conn.statusCode, 201, conn.body);
    assert.equal(conn.json().auth, "none");
    shop.reset();
    const { body } = await search(sessionB, "q=canvas&limit=5");
    assert.deepEqual(
      body.products.map((p) => [p.product_id, p.price, p.availability]),
      [
        ["prd_300", { amount_minor: 1200, currency: "USD" }, { state: "out_of_stock" }],
        ["prd_301", { amount_minor: 1500, currency: "USD" }, { state: "in_stock" }],
      ],
    );
    assert.equal(shop.count("/products/"), 2);
    assert.ok(shop.calls.every((c) => c.token === undefined));
    await t.assistant.inject({ method: "DELETE", url: `/v1/admin/connections/${conn.json().connection_id}`, headers: bearer(b.owner) });
  });
});
