// A store's own synonyms (/v1/search/synonyms): one-way and multi-way entries applied to text
// search and widget search of that store only, on both engines; bad input named; another store's
// token never reads, changes or benefits from them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { describeEachDialect, openSearchApp, type SearchInstance } from "../../../test/support/harness.js";
import { createTestStorage, testConfig, type TestStorage } from "../../../test/support/database.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";

const CATALOGUE = [
  { id: "p-dress", hex: "#2040c0", meta: { name: "Summer Dress", category: "Dresses" } },
  { id: "p-shirt", hex: "#2142c4", meta: { name: "Oxford Shirt", category: "Shirts" } },
  { id: "p-tee", hex: "#2244bb", meta: { name: "Quokka Tee", category: "Tops" } },
  { id: "p-scarf", hex: "#2343c2", meta: { name: "Zephyr Scarf", category: "Accessories" } },
];
const ORIGIN = "https://shop.example";

describeEachDialect("search: a store's own synonyms", (dialect) => {
  let storage: TestStorage;
  let app: SearchInstance;
  let host: ImageHost;
  let store: RegisteredStore;
  let other: RegisteredStore;
  let token: string;
  let otherToken: string;

  const call = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: object, tok = token) =>
    app.search.inject({ method, url, headers: bearer(tok), ...(payload ? { payload } : {}) });
  const lexicalIds = async (query: string, tok = token) => {
    const res = await call("POST", "/v1/search/text", { query, limit: 10, semantic_weight: 0 }, tok);
    assert.equal(res.statusCode, 200, res.body);
    return (res.json().results as { product_id: string }[]).map((r) => r.product_id);
  };
  const add = async (payload: object, tok = token) => {
    const res = await call("POST", "/v1/search/synonyms", payload, tok);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string; kind: string; words: string[]; synonyms: string[]; created_at: string };
  };

  before(async () => {
    storage = createTestStorage(dialect, "shopsight-synonyms");
    app = await openSearchApp(await testConfig(storage, { model: true }), storage.pgSchema);
    host = await startImageHost();
    const t = { search: app.search, ctx: app.ctx, config: app.ctx.config } as Parameters<typeof registerStore>[0];
    store = await registerStore(t);
    other = await registerStore(t, { name: "Other", email: "other-synonyms@example.com" });
    token = await machineToken(app.search, store);
    otherToken = await machineToken(app.search, other);
    for (const [i, p] of CATALOGUE.entries()) {
      const image_url = host.put(`/${p.id}.png`, await solidImage(p.hex, { seed: i + 1 }));
      for (const tok of [token, otherToken]) {
        const res = await call("POST", "/v1/products", { product_id: p.id, image_url, metadata: p.meta }, tok);
        assert.equal(res.statusCode, 201, res.body);
      }
    }
  });
  after(async () => {
    await host.close();
    await app.close();
    await storage.remove();
  });

  test("one_way: the words also find the synonyms, never the reverse; ranked below the word itself; deleting it ends it", async () => {
    assert.deepEqual(await lexicalIds("sunday best"), [], "unknown words find nothing before the entry");
    const entry = await add({ kind: "one_way", words: ["Sunday Best", "quokka"], synonyms: ["summer dress", "OXFORD"] });
    assert.equal(entry.kind, "one_way");
    assert.deepEqual(entry.words, ["sunday best", "quokka"], "phrases are kept lower-case");
    assert.deepEqual(entry.synonyms, ["summer dress", "oxford"]);
    assert.match(entry.id, /^syn_[0-9a-f]{32}$/);
    assert.ok(!Number.isNaN(Date.parse(entry.created_at)));

    assert.deepEqual(await lexicalIds("sunday best"), ["p-dress", "p-shirt"], "a two-word phrase finds both synonyms' products");
    assert.deepEqual(await lexicalIds("quokka"), ["p-tee", "p-dress", "p-shirt"], "the word's own product first, then the synonyms'");
    assert.deepEqual(await lexicalIds("oxford"), ["p-shirt"], "one way: the synonym does not find the word's product");

    const list = await call("GET", "/v1/search/synonyms");
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(
      list.json().map((e: { id: string }) => e.id),
      [entry.id],
    );
    const removed = await call("DELETE", `/v1/search/synonyms/${entry.id}`);
    assert.equal(removed.statusCode, 200, removed.body);
    assert.deepEqual(removed.json(), { deleted: true, id: entry.id });
    assert.deepEqual(await lexicalIds("sunday best"), [], "gone at once");
    assert.equal((await call("DELETE", `/v1/search/synonyms/${entry.id}`)).statusCode, 404);
  });

  test("multi_way: every phrase finds the others; PUT replaces an entry; widget search applies them", async () => {
    const entry = await add({ kind: "multi_way", words: ["zephyr", "tee"] });
    assert.deepEqual(entry.synonyms, []);
    assert.deepEqual(await lexicalIds("zephyr"), ["p-scarf", "p-tee"]);
    assert.deepEqual(await lexicalIds("tee"), ["p-tee", "p-scarf"]);

    const key = await call("POST", "/v1/widget/keys", { name: "shop", allowed_origins: [ORIGIN] });
    assert.equal(key.statusCode, 201, key.body);
    const widget = await app.search.inject({
      method: "POST",
      url: "/v1/widget/search/text",
      headers: { "x-service-key": key.json().key, origin: ORIGIN },
      payload: { query: "zephyr", semantic_weight: 0 },
    });
    assert.equal(widget.statusCode, 200, widget.body);
    assert.deepEqual(
      widget.json().results.map((r: { product_id: string }) => r.product_id),
      ["p-scarf", "p-tee"],
    );

    const replaced = await call("PUT", `/v1/search/synonyms/${entry.id}`, { kind: "one_way", words: ["zephyr"], synonyms: ["shirt"] });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.equal(replaced.json().created_at, entry.created_at);
    assert.deepEqual(await lexicalIds("zephyr"), ["p-scarf", "p-shirt"]);
    assert.deepEqual(await lexicalIds("tee"), ["p-tee"], "the old group no longer applies");
    assert.equal((await call("DELETE", `/v1/search/synonyms/${entry.id}`)).statusCode, 200);
  });

  test("bad input names the field and the fix; the same entry twice is 409", async () => {
    const cases: [object, string][] = [
      [{ kind: "multi_way", words: ["hoodie"] }, "words"],
      [{ kind: "multi_way", words: ["hoodie", "HOODIE"] }, "words"],
      [{ kind: "multi_way", words: ["hoodie", "sweatshirt"], synonyms: ["jumper"] }, "synonyms"],
      [{ kind: "one_way", words: ["ladies"] }, "synonyms"],
      [{ kind: "one_way", words: ["ladies"], synonyms: ["ladies"] }, "synonyms"],
      [{ kind: "one_way", words: ["!!!"], synonyms: ["women"] }, "words[0]"],
      [{ kind: "one_way", words: ["ladies"], synonyms: ["women", "a very long phrase"] }, "synonyms[1]"],
    ];
    for (const [payload, field] of cases) {
      const res = await call("POST", "/v1/search/synonyms", payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json().error, "validation_failed");
      assert.ok(
        res.json().details.errors.some((e: { field: string }) => e.field === field),
        `${JSON.stringify(payload)} names ${field}: ${res.body}`,
      );
    }
    for (const payload of [
      { kind: "two_way", words: ["a", "b"] },
      { kind: "one_way", words: [], synonyms: ["b"] },
      { words: ["a", "b"] },
    ]) {
      const res = await call("POST", "/v1/search/synonyms", payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json().error, "validation_failed");
    }
    const first = await add({ kind: "multi_way", words: ["hoodie", "sweatshirt"] });
    const again = await call("POST", "/v1/search/synonyms", { kind: "multi_way", words: ["Sweatshirt", "hoodie"] });
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json().error, "conflict");
    assert.match(again.json().message, new RegExp(first.id));
    assert.equal((await call("DELETE", `/v1/search/synonyms/${first.id}`)).statusCode, 200);
  });

  test("another store's token never reads, changes or benefits from the entries", async () => {
    const entry = await add({ kind: "one_way", words: ["sunday best"], synonyms: ["summer dress"] });
    try {
      assert.deepEqual(await lexicalIds("sunday best"), ["p-dress"]);
      assert.deepEqual(await lexicalIds("sunday best", otherToken), [], "the other store holds the same dress but not the entry");
      const list = await call("GET", "/v1/search/synonyms", undefined, otherToken);
      assert.equal(list.statusCode, 200);
      assert.deepEqual(list.json(), []);
      const put = await call("PUT", `/v1/search/synonyms/${entry.id}`, { kind: "multi_way", words: ["a", "b"] }, otherToken);
      assert.equal(put.statusCode, 404, put.body);
      const del = await call("DELETE", `/v1/search/synonyms/${entry.id}`, undefined, otherToken);
      assert.equal(del.statusCode, 404, del.body);
      assert.equal(del.json().error, "not_found");
      assert.deepEqual(await lexicalIds("sunday best"), ["p-dress"], "still in force for its own store");
    } finally {
      await call("DELETE", `/v1/search/synonyms/${entry.id}`);
    }
  });
});
