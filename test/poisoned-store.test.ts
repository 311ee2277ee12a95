// One bad product can never break another request of its store: product metadata that is nested
// too deep, has too many keys, or carries odd strings (lone surrogates, NUL, huge numbers) is
// either refused with a 400 naming the limit or stored in a form the database's JSON functions
// accept — and afterwards search with metadata filters, /v1/search/filtered, the assistant's
// catalogue and a chat turn about products all still answer 200 for that store.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createTestApp, describeEachDialect, type TestApp } from "./support/harness.js";
import { bearer, loginToken, machineToken } from "./support/factories.js";
import { anonymousSession, chatShop, openThread, type ChatShop } from "./support/chat.js";
import { solidImage, startImageHost, type ImageHost } from "./support/servers.js";
import { JSON_MAX_DEPTH } from "../src/platform/http/json-body.js";

const nested = (depth: number, leaf: unknown = "x"): unknown => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describeEachDialect("a poisoned product cannot break its store", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  let shop: ChatShop;
  let token: string;
  let red: string;
  before(async () => {
    t = await createTestApp({ dialect, model: true });
    host = await startImageHost();
    red = host.put("/red.png", await solidImage("#d01010"));
    shop = await chatShop(t);
    token = await machineToken(t.search, shop.store);
  });
  after(async () => {
    await host.close();
    await t.close();
  });

  const post = (payload: string) =>
    t.search.inject({ method: "POST", url: "/v1/products", headers: { ...bearer(token), "content-type": "application/json" }, payload });

  test("deep, wide and odd metadata is refused or stored as valid JSON; search, filters, catalogue and chat keep working", async () => {
    const good = await post(
      JSON.stringify({
        product_id: "good",
        image_url: red,
        metadata: { name: "Red rain jacket", category: "jackets", price: 40, fabric: "nylon" },
      }),
    );
    assert.equal(good.statusCode, 201, good.body);

    // Refused before any handler: 1,000 and 6,000 levels (the findings), one level past the limit.
    for (const depth of [1000, 6000, JSON_MAX_DEPTH]) {
      const raw = `{"product_id":"deep-${depth}","image_url":"${red}","metadata":{"deep":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}}`;
      const res = await post(raw);
      assert.equal(res.statusCode, 400, `${depth}: ${res.body.slice(0, 200)}`);
      assert.match(res.json().message, new RegExp(`${JSON_MAX_DEPTH} levels`));
    }
    // Text neither database can store (PostgreSQL refuses NUL; lone surrogates are not UTF-8) is refused.
    for (const name of ["NUL \u0000 inside", "lone \ud800 surrogate", "other \udfff half"]) {
      const res = await post(JSON.stringify({ product_id: "odd", image_url: red, metadata: { name, tags: [name] } }));
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.json().message, /NUL|surrogate/);
    }
    // Accepted at the limit, with odd but valid text and numbers: stored as JSON the database reads.
    const atLimit = await post(
      JSON.stringify({
        product_id: "edge",
        image_url: red,
        metadata: { name: "Edge \u{1F600} \u202e case", deep: nested(JSON_MAX_DEPTH - 3), big: 1e308, ключ: "\u00e9" },
      }),
    );
    assert.equal(atLimit.statusCode, 201, atLimit.body);

    if (dialect === "sqlite") {
      const invalid = await sql<{ n: number }>`SELECT count(*) AS n FROM products WHERE json_valid(metadata) = 0`.execute(
        t.ctx.database.db,
      );
      assert.equal(Number(invalid.rows[0]!.n), 0, "every stored metadata document is valid JSON for SQLite");
    }

    const filters = [{ field: "fabric", operator: "eq", value: "nylon" }];
    const text = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(token),
      payload: { query: "red jacket", metadata_filters: filters },
    });
    assert.equal(text.statusCode, 200, text.body);
    assert.deepEqual(
      text.json().results.map((r: { product_id: string }) => r.product_id),
      ["good"],
    );
    const deepFilter = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(token),
      payload: { query: "red", metadata_filters: [{ field: "deep.a.a", operator: "eq", value: "x" }] },
    });
    assert.equal(deepFilter.statusCode, 200, deepFilter.body);
    const filtered = await t.search.inject({
      method: "POST",
      url: "/v1/search/filtered",
      headers: bearer(token),
      payload: { query: "red", filters },
    });
    assert.equal(filtered.statusCode, 200, filtered.body);
    const list = await t.search.inject({ method: "GET", url: "/v1/products", headers: bearer(token) });
    assert.equal(list.statusCode, 200, list.body);

    const shopper = await anonymousSession(t, shop);
    const catalogue = await t.assistant.inject({ method: "GET", url: "/v1/catalog/search?q=jacket", headers: bearer(shopper) });
    assert.equal(catalogue.statusCode, 200, catalogue.body);
    const thread = await openThread(t, shopper);
    const chat = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(shopper),
      payload: { thread_id: thread, text: "Do you have a red rain jacket?" },
    });
    assert.equal(chat.statusCode, 200, chat.body);

    // The owner's own view of the store still works too.
    const owner = await loginToken(t.search, shop.store.email, shop.store.password);
    const product = await t.search.inject({ method: "GET", url: "/v1/products/edge", headers: bearer(owner) });
    assert.equal(product.statusCode, 200, product.body);
  });
});
