import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";

describeEachDialect("products: index, read, update, delete, limits", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  let store: RegisteredStore;
  let token: string;
  let red: string;
  let blue: string;
  before(async () => {
    t = await createTestApp({ dialect, model: true });
    host = await startImageHost();
    red = host.put("/red.png", await solidImage("#d01010"));
    blue = host.put("/blue.jpg", await solidImage("#1030d0", { format: "jpeg" }), "image/jpeg");
    store = await registerStore(t);
    token = await machineToken(t.search, store);
  });
  after(async () => {
    await host.close();
    await t.close();
  });

  const post = (payload: unknown, tok = token) =>
    t.search.inject({ method: "POST", url: "/v1/products", headers: bearer(tok), payload: payload as object });

  test("indexes a product: downloads, embeds, stores colours and answers the spec's index response", async () => {
    const res = await post({
      product_id: "sku-1",
      image_url: red,
      metadata: {
        name: "Red Dress",
        category: "dresses",
        brand: "Acme",
        price: 49.9,
        color_name: "Red",
        tags: ["summer"],
        fabric: "linen",
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.status, "indexed");
    assert.equal(body.product_id, "sku-1");
    assert.ok(body.vector_id);
    assert.equal(typeof body.message, "string");
    const got = await t.search.inject({ method: "GET", url: "/v1/products/sku-1", headers: bearer(token) });
    assert.equal(got.statusCode, 200);
    const p = got.json();
    assert.equal(p.metadata.fabric, "linen", "unknown metadata keys are kept");
    assert.equal(p.vector_id, body.vector_id);
    const top = p.dominant_colors[0];
    assert.ok(top.share > 0.5, JSON.stringify(p.dominant_colors));
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(top.hex.slice(i, i + 2), 16));
    assert.ok(r! > 150 && g! < 80 && b! < 80, `dominant colour ${top.hex} is red`);
    assert.equal(await t.ctx.vectors.count(store.clientId), 1);
  });

  test("re-posting a product_id replaces it (200) with a new vector", async () => {
    const first = (await post({ product_id: "sku-2", image_url: red })).json();
    const again = await post({ product_id: "sku-2", image_url: blue, metadata: { name: "Blue Shirt" } });
    assert.equal(again.statusCode, 200, again.body);
    assert.notEqual(again.json().vector_id, first.vector_id);
    const p = (await t.search.inject({ method: "GET", url: "/v1/products/sku-2", headers: bearer(token) })).json();
    assert.equal(p.image_url, blue);
    assert.equal(p.metadata.name, "Blue Shirt");
  });

  test("PUT with metadata only does not fetch the image again; a new image_url re-embeds", async () => {
    await post({ product_id: "sku-3", image_url: red, metadata: { price: 10 } });
    const hits = host.hits("/red.png");
    const meta = await t.search.inject({
      method: "PUT",
      url: "/v1/products/sku-3",
      headers: bearer(token),
      payload: { metadata: { price: 12, brand: "Zed" } },
    });
    assert.equal(meta.statusCode, 200, meta.body);
    assert.equal(host.hits("/red.png"), hits, "no download for a metadata change");
    const before = (await t.search.inject({ method: "GET", url: "/v1/products/sku-3", headers: bearer(token) })).json();
    assert.equal(before.metadata.price, 12);
    const img = await t.search.inject({ method: "PUT", url: "/v1/products/sku-3", headers: bearer(token), payload: { image_url: blue } });
    assert.equal(img.statusCode, 200);
    assert.notEqual(img.json().vector_id, before.vector_id);
    const missing = await t.search.inject({ method: "PUT", url: "/v1/products/nope", headers: bearer(token), payload: { metadata: {} } });
    assert.equal(missing.statusCode, 404);
    const empty = await t.search.inject({ method: "PUT", url: "/v1/products/sku-3", headers: bearer(token), payload: {} });
    assert.equal(empty.statusCode, 400);
  });

  test("DELETE removes the product and its vector", async () => {
    await post({ product_id: "sku-del", image_url: red });
    const count = await t.ctx.vectors.count(store.clientId);
    const del = await t.search.inject({ method: "DELETE", url: "/v1/products/sku-del", headers: bearer(token) });
    assert.equal(del.statusCode, 204);
    assert.equal(await t.ctx.vectors.count(store.clientId), count - 1);
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/products/sku-del", headers: bearer(token) })).statusCode, 404);
    assert.equal((await t.search.inject({ method: "DELETE", url: "/v1/products/sku-del", headers: bearer(token) })).statusCode, 404);
  });

  test("lists with limit, opaque cursor and category/brand filters", async () => {
    const s = await registerStore(t);
    const tok = await machineToken(t.search, s);
    for (let i = 0; i < 5; i++) {
      const res = await post(
        { product_id: `p${i}`, image_url: i % 2 ? red : blue, metadata: { category: i % 2 ? "odd" : "even", brand: i < 2 ? "A" : "B" } },
        tok,
      );
      assert.equal(res.statusCode, 201);
    }
    const page1 = (await t.search.inject({ method: "GET", url: "/v1/products?limit=2", headers: bearer(tok) })).json();
    assert.deepEqual(
      page1.products.map((p: { product_id: string }) => p.product_id),
      ["p0", "p1"],
    );
    assert.equal(page1.total, 5);
    const page2 = (
      await t.search.inject({ method: "GET", url: `/v1/products?limit=2&cursor=${page1.next_cursor}`, headers: bearer(tok) })
    ).json();
    assert.deepEqual(
      page2.products.map((p: { product_id: string }) => p.product_id),
      ["p2", "p3"],
    );
    const page3 = (
      await t.search.inject({ method: "GET", url: `/v1/products?limit=2&cursor=${page2.next_cursor}`, headers: bearer(tok) })
    ).json();
    assert.deepEqual(
      page3.products.map((p: { product_id: string }) => p.product_id),
      ["p4"],
    );
    assert.equal(page3.next_cursor, null);
    const odd = (await t.search.inject({ method: "GET", url: "/v1/products?category=odd", headers: bearer(tok) })).json();
    assert.deepEqual(
      odd.products.map((p: { product_id: string }) => p.product_id),
      ["p1", "p3"],
    );
    assert.equal(odd.total, 2);
    const brandB = (await t.search.inject({ method: "GET", url: "/v1/products?brand=B&category=even", headers: bearer(tok) })).json();
    assert.deepEqual(
      brandB.products.map((p: { product_id: string }) => p.product_id),
      ["p2", "p4"],
    );
    for (const q of ["limit=0", "limit=101", "cursor=garbage", "colour=red"]) {
      const bad = await t.search.inject({ method: "GET", url: `/v1/products?${q}`, headers: bearer(tok) });
      assert.equal(bad.statusCode, 400, q);
      assert.equal(bad.json().error, "validation_failed");
    }
  });

  for (const [label, payload, field] of [
    ["a name over 300 characters", { product_id: "v1", image_url: "http://x/y.png", metadata: { name: "n".repeat(301) } }, "metadata.name"],
    ["a negative price", { product_id: "v1", image_url: "http://x/y.png", metadata: { price: -1 } }, "metadata.price"],
    ["51 tags", { product_id: "v1", image_url: "http://x/y.png", metadata: { tags: Array(51).fill("t") } }, "metadata.tags"],
    ["a product_id with a space", { product_id: "a b", image_url: "http://x/y.png" }, "product_id"],
    ["no image_url", { product_id: "v1" }, "image_url"],
    ["an unknown field", { product_id: "v1", image_url: "http://x/y.png", colour: "red" }, "colour"],
    ["metadata over 16 KB", { product_id: "v1", image_url: "http://x/y.png", metadata: { blob: "x".repeat(17_000) } }, "metadata"],
  ] as const) {
    test(`rejects ${label} with 400 naming the field`, async () => {
      const res = await post(payload);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error, "validation_failed");
      assert.ok(
        res.json().details.errors.some((e: { field: string }) => e.field === field),
        res.body,
      );
    });
  }

  test("image failures are clear 4xx errors and store nothing", async () => {
    const html = host.put("/page.html", Buffer.from("<html><body>hello</body></html>"), "image/png");
    const cases: [string, number, string][] = [
      [`${host.url}/missing.png`, 422, "image_unreachable"],
      [html, 415, "unsupported_image"],
      ["ftp://example.com/a.png", 400, "invalid_url"],
    ];
    for (const [url, status, code] of cases) {
      const res = await post({ product_id: "bad-img", image_url: url });
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      assert.equal(res.json().error, code);
    }
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/products/bad-img", headers: bearer(token) })).statusCode, 404);
  });

  test("the free plan's 50-product limit refuses the 51st write with details", async () => {
    const s = await registerStore(t, { plan: "free" });
    const tok = await machineToken(t.search, s);
    const service = t.services.products;
    const image = await t.ctx.images.fromBytes(await solidImage("#20a020"));
    const [vector] = await t.ctx.images.embed([image.decoded]);
    for (let i = 0; i < 50; i++)
      await service.write(s.clientId, {
        productId: `fill-${i}`,
        imageUrl: "http://img/x.png",
        metadata: {},
        embedded: { image, vector: vector! },
      });
    const res = await post({ product_id: "one-too-many", image_url: red }, tok);
    assert.equal(res.statusCode, 403, res.body);
    assert.deepEqual(res.json(), {
      error: "plan_limit_reached",
      message: res.json().message,
      details: { limit: 50, current: 50 },
    });
    const update = await post({ product_id: "fill-0", image_url: red }, tok);
    assert.equal(update.statusCode, 200, "replacing an existing product is not a new product");
  });

  test("a second store's token never reads, changes or deletes the first store's products", async () => {
    await post({ product_id: "secret-sku", image_url: red, metadata: { name: "A only" } });
    const other = await registerStore(t);
    const otherToken = await machineToken(t.search, other);
    const url = "/v1/products/secret-sku";
    assert.equal((await t.search.inject({ method: "GET", url, headers: bearer(otherToken) })).statusCode, 404);
    assert.equal(
      (await t.search.inject({ method: "PUT", url, headers: bearer(otherToken), payload: { metadata: { name: "hijack" } } })).statusCode,
      404,
    );
    assert.equal((await t.search.inject({ method: "DELETE", url, headers: bearer(otherToken) })).statusCode, 404);
    const list = (await t.search.inject({ method: "GET", url: "/v1/products", headers: bearer(otherToken) })).json();
    assert.equal(list.total, 0);
    const same = await post({ product_id: "secret-sku", image_url: blue, metadata: { name: "B's own" } }, otherToken);
    assert.equal(same.statusCode, 201, "the same product_id in another store is another product");
    const mine = (await t.search.inject({ method: "GET", url, headers: bearer(token) })).json();
    assert.equal(mine.metadata.name, "A only");
  });

  test("the demo catalogue installs 24 products whose images the service serves", async () => {
    const s = await registerStore(t);
    const tok = await machineToken(t.search, s);
    const res = await t.search.inject({ method: "POST", url: "/v1/products/demo", headers: bearer(tok) });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().installed, 24);
    const list = (await t.search.inject({ method: "GET", url: "/v1/products?limit=100", headers: bearer(tok) })).json();
    assert.equal(list.total, 24);
    const img = await t.search.inject({ method: "GET", url: "/demo/images/dress-black.png" });
    assert.equal(img.statusCode, 200);
    assert.equal(img.headers["content-type"], "image/png");
    assert.equal((await t.search.inject({ method: "GET", url: "/demo/images/nope-black.png" })).statusCode, 404);
  });

  test("without a model, indexing answers 503 model_unavailable", async () => {
    const bare = await createTestApp({ dialect });
    try {
      const s = await registerStore(bare);
      const tok = await machineToken(bare.search, s);
      const res = await bare.search.inject({
        method: "POST",
        url: "/v1/products",
        headers: bearer(tok),
        payload: { product_id: "x", image_url: red },
      });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error, "model_unavailable");
    } finally {
      await bare.close();
    }
  });
});
