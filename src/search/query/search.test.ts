import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { createTestApp, describeEachDialect, type DialectName, type TestApp } from "../../../test/support/harness.js";
import { testEnv } from "../../../test/support/env.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";
import { multipart } from "../../../test/support/multipart.js";
import { historyWriter } from "./history-writer.js";

const CATALOGUE = [
  {
    id: "red-dress",
    hex: "#d01010",
    meta: {
      name: "Red Dress",
      category: "dresses",
      price: 80,
      color_name: "Red",
      brand: "Acme",
      tags: ["summer", "party"],
      details: { fabric: "silk" },
      stock: 5,
    },
  },
  {
    id: "red-shirt",
    hex: "#c81818",
    meta: { name: "Red Shirt", category: "tops", price: 30, color_name: "Red", brand: "Zed", tags: ["casual"], stock: 0 },
  },
  {
    id: "blue-jeans",
    hex: "#1030c0",
    meta: {
      name: "Blue Jeans",
      category: "bottoms",
      price: 60,
      color_name: "Blue",
      brand: "Acme",
      tags: ["denim"],
      details: { fabric: "denim" },
    },
  },
  {
    id: "navy-coat",
    hex: "#1c2450",
    meta: { name: "Navy Coat", category: "outerwear", price: 200, color_name: "Navy Blue", brand: "Zed", tags: ["winter"] },
  },
  {
    id: "green-dress",
    hex: "#10a030",
    meta: { name: "Green Dress", category: "dresses", price: 95, color_name: "Green", brand: "Acme", on_sale: true },
  },
  {
    id: "yellow-top",
    hex: "#e8d010",
    meta: { name: "Yellow Top", category: "tops", price: 25, color_name: "Yellow", brand: "Bee", on_sale: false },
  },
  { id: "black-bag", hex: "#151515", meta: { name: "Black Bag", category: "bags", price: 150, color_name: "Black", brand: "Zed" } },
  { id: "white-tee", hex: "#f4f4f4", meta: { name: "White Tee", category: "tops", price: 15, color_name: "White", brand: "Bee" } },
] as const;

describeEachDialect("search: nine modes, filters, history, isolation", (dialect) => searchSuite(dialect));

// The same suite with every filter left in the database (PostgreSQL defers only filters keeping
// more than 5,000 products: LISTED_MAX in search/repository.ts), so that path answers every case
// above too (on this small catalogue through exact scans; HNSW rounds: vectors/postgres.test.ts).
if (testEnv.databaseUrl)
  describe("search: nine modes, filters, history, isolation [postgres, filters in the database]", () => searchSuite("postgres", 0));

function searchSuite(dialect: DialectName, filterListedMax?: number): void {
  let t: TestApp;
  let host: ImageHost;
  let store: RegisteredStore;
  let token: string;
  const url: Record<string, string> = {};
  const png: Record<string, Buffer> = {};

  before(async () => {
    t = await createTestApp({ dialect, model: true, ...(filterListedMax === undefined ? {} : { filterListedMax }) });
    host = await startImageHost();
    store = await registerStore(t);
    token = await machineToken(t.search, store);
    const products = t.services.products;
    for (const [i, p] of CATALOGUE.entries()) {
      png[p.id] = await solidImage(p.hex, { seed: i + 1 });
      url[p.id] = host.put(`/${p.id}.png`, png[p.id]!);
      const image = await t.ctx.images.fromBytes(png[p.id]!);
      const [vector] = await t.ctx.images.embed([image.decoded]);
      await products.write(store.clientId, {
        productId: p.id,
        imageUrl: url[p.id]!,
        metadata: JSON.parse(JSON.stringify(p.meta)),
        embedded: { image, vector: vector! },
      });
    }
  });
  after(async () => {
    await host.close();
    await t.close();
  });

  const search = (path: string, payload: unknown, tok = token) =>
    t.search.inject({ method: "POST", url: `/v1/search${path}`, headers: bearer(tok), payload: payload as object });
  const ids = (res: { json(): any }) => res.json().results.map((r: { product_id: string }) => r.product_id);
  /** A search's history row, once the rows queued by then are written (they are written after the reply). */
  const historyRow = async (searchId: string) => {
    await historyWriter(t.ctx).flush();
    return t.ctx.database.db.selectFrom("search_history").selectAll().where("id", "=", searchId).executeTakeFirstOrThrow();
  };

  test("text search: the colour named in the query comes first, in the spec's response shape", async () => {
    const res = await search("/text", { query: "a red dress", limit: 3 });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    // The spec's fields, and the echo of query understanding (on by default; "red" is a colour).
    assert.deepEqual(Object.keys(body).sort(), ["count", "query_time_ms", "query_understanding", "results", "search_id"]);
    assert.equal(body.count, 3);
    assert.ok(["red-dress", "red-shirt"].includes(body.results[0].product_id), res.body);
    assert.ok(["red-dress", "red-shirt"].includes(body.results[1].product_id), res.body);
    assert.equal(body.results[0].metadata.name.startsWith("Red"), true);
    for (const r of body.results) assert.ok(r.similarity_score >= 0 && r.similarity_score <= 1);
    assert.ok(body.results[0].similarity_score >= body.results[1].similarity_score);
    const row = await historyRow(body.search_id); // throws when no row was persisted
    assert.equal(row.mode, "text");
    assert.equal(row.query_text, "a red dress");
    assert.equal(JSON.parse(row.results)[0].rank, 1);
  });

  test("a search's history row keeps the request's filters, limit and threshold", async () => {
    const res = await search("/text", { query: "dress", limit: 2, category: "Dresses", price_max: 100, threshold: 0.1 });
    assert.equal(res.statusCode, 200, res.body);
    const row = await historyRow(res.json().search_id);
    // Fields not sent are left out (PostgreSQL's jsonb keeps no key order, so the parsed row is compared).
    assert.deepEqual(JSON.parse(row.filters), { category: "Dresses", price_max: 100, limit: 2, threshold: 0.1 });
  });

  test("search ids are time-ordered UUIDs (version 7): a later search's id sorts after an earlier one's", async () => {
    // The history table's key: ordered keys are appended to its B-tree (src/platform/ids.ts).
    const first = (await search("/text", { query: "dress", limit: 1 })).json().search_id as string;
    await new Promise((r) => setTimeout(r, 2)); // a later millisecond
    const second = (await search("/text", { query: "dress", limit: 1 })).json().search_id as string;
    for (const id of [first, second]) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(first < second, `${first} < ${second}`);
  });

  test("URL and upload search find the same image first with similarity near 1", async () => {
    const byUrl = await search("/url", { image_url: url["blue-jeans"], limit: 2 });
    assert.equal(byUrl.statusCode, 200, byUrl.body);
    assert.equal(ids(byUrl)[0], "blue-jeans");
    assert.ok(byUrl.json().results[0].similarity_score > 0.99);
    const jpeg = await sharp(png["green-dress"]!).jpeg({ quality: 60 }).toBuffer();
    const form = multipart([
      { name: "image", value: jpeg, filename: "q.jpg", contentType: "image/jpeg" },
      { name: "limit", value: "2" },
    ]);
    const upload = await t.search.inject({
      method: "POST",
      url: "/v1/search",
      headers: { ...bearer(token), ...form.headers },
      payload: form.payload,
    });
    assert.equal(upload.statusCode, 200, upload.body);
    assert.equal(ids(upload)[0], "green-dress");
    assert.equal(upload.json().count, 2);
  });

  test("upload search refuses a missing file, a non-image and a file over the size limit", async () => {
    const noFile = multipart([{ name: "limit", value: "2" }]);
    const r1 = await t.search.inject({
      method: "POST",
      url: "/v1/search",
      headers: { ...bearer(token), ...noFile.headers },
      payload: noFile.payload,
    });
    assert.equal(r1.statusCode, 400);
    const text = multipart([{ name: "image", value: Buffer.from("hello"), filename: "a.txt" }]);
    const r2 = await t.search.inject({
      method: "POST",
      url: "/v1/search",
      headers: { ...bearer(token), ...text.headers },
      payload: text.payload,
    });
    assert.equal(r2.statusCode, 415);
    assert.equal(r2.json().error, "unsupported_image");
    const small = await createTestApp({ dialect, model: true, env: { OUTBOUND_MAX_BYTES: "1000" } });
    try {
      const s = await registerStore(small);
      const tok = await machineToken(small.search, s);
      const big = multipart([
        { name: "image", value: png["red-dress"]!.length > 1000 ? png["red-dress"]! : Buffer.alloc(5000, 1), filename: "big.png" },
      ]);
      const r3 = await small.search.inject({
        method: "POST",
        url: "/v1/search",
        headers: { ...bearer(tok), ...big.headers },
        payload: big.payload,
      });
      assert.equal(r3.statusCode, 413, r3.body);
      assert.equal(r3.json().error, "image_too_large");
    } finally {
      await small.close();
    }
  });

  test("only the upload routes read multipart bodies: text search refuses one with 415 naming JSON", async () => {
    const form = multipart([{ name: "query", value: "green dress" }]);
    const r = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: { ...bearer(token), ...form.headers },
      payload: form.payload,
    });
    assert.equal(r.statusCode, 415, r.body);
    assert.equal(r.json().error, "unsupported_media_type");
    assert.match(r.json().message, /application\/json/);
  });

  test("pre-filters give exact results: category, price range, colour name, colour hex", async () => {
    const dresses = await search("/text", { query: "dress", limit: 10, category: "DRESSES" });
    assert.deepEqual(ids(dresses).sort(), ["green-dress", "red-dress"]);
    const cheap = await search("/text", { query: "top", limit: 10, price_min: 20, price_max: 60 });
    assert.deepEqual(ids(cheap).sort(), ["blue-jeans", "red-shirt", "yellow-top"]);
    const navyByName = await search("/text", { query: "coat", limit: 10, color: "navy-blue" });
    assert.ok(ids(navyByName).includes("navy-coat"));
    assert.ok(!ids(navyByName).includes("yellow-top"));
    const redHex = await search("/text", { query: "anything", limit: 10, color: "#cc1111" });
    assert.deepEqual(ids(redHex).sort(), ["red-dress", "red-shirt"]);
    const none = await search("/text", { query: "x", category: "hats" });
    assert.equal(none.json().count, 0);
    assert.ok(none.json().search_id);
  });

  test("metadata_filters: every operator on any key, nested keys included", async () => {
    const run = async (filter: object) => ids(await search("/text", { query: "clothes", limit: 20, metadata_filters: [filter] })).sort();
    assert.deepEqual(await run({ field: "brand", operator: "eq", value: "acme" }), ["blue-jeans", "green-dress", "red-dress"]);
    assert.deepEqual(await run({ field: "brand", operator: "ne", value: "Acme" }), [
      "black-bag",
      "navy-coat",
      "red-shirt",
      "white-tee",
      "yellow-top",
    ]);
    assert.deepEqual(await run({ field: "brand", operator: "in", value: ["Bee", "zed"] }), [
      "black-bag",
      "navy-coat",
      "red-shirt",
      "white-tee",
      "yellow-top",
    ]);
    assert.deepEqual(await run({ field: "category", operator: "nin", value: ["tops", "dresses"] }), [
      "black-bag",
      "blue-jeans",
      "navy-coat",
    ]);
    assert.deepEqual(await run({ field: "price", operator: "gt", value: 95 }), ["black-bag", "navy-coat"]);
    assert.deepEqual(await run({ field: "price", operator: "gte", value: 95 }), ["black-bag", "green-dress", "navy-coat"]);
    assert.deepEqual(await run({ field: "price", operator: "lt", value: 25 }), ["white-tee"]);
    assert.deepEqual(await run({ field: "price", operator: "lte", value: 25 }), ["white-tee", "yellow-top"]);
    assert.deepEqual(await run({ field: "tags", operator: "contains", value: "SUMMER" }), ["red-dress"]);
    assert.deepEqual(await run({ field: "name", operator: "contains", value: "dress" }), ["green-dress", "red-dress"]);
    assert.deepEqual(await run({ field: "details.fabric", operator: "eq", value: "denim" }), ["blue-jeans"]);
    assert.deepEqual(await run({ field: "on_sale", operator: "eq", value: true }), ["green-dress"]);
    assert.deepEqual(await run({ field: "stock", operator: "eq", value: 0 }), ["red-shirt"]);
  });

  test("rejects unknown operators, bad values, thresholds out of range and unknown fields", async () => {
    const cases: [string, object][] = [
      ["unknown operator", { query: "x", metadata_filters: [{ field: "brand", operator: "like", value: "a" }] }],
      ["list for eq", { query: "x", metadata_filters: [{ field: "brand", operator: "eq", value: ["a"] }] }],
      ["string for gt", { query: "x", metadata_filters: [{ field: "price", operator: "gt", value: "10" }] }],
      ["bad field", { query: "x", metadata_filters: [{ field: "a'b", operator: "eq", value: "a" }] }],
      ["threshold > 1", { query: "x", threshold: 1.5 }],
      ["threshold < 0", { query: "x", threshold: -0.1 }],
      ["limit 0", { query: "x", limit: 0 }],
      ["limit 101", { query: "x", limit: 101 }],
      ["price_min > price_max", { query: "x", price_min: 10, price_max: 5 }],
      ["unknown field", { query: "x", sort: "price" }],
      ["empty query", { query: "" }],
    ];
    for (const [label, payload] of cases) {
      const res = await search("/text", payload);
      assert.equal(res.statusCode, 400, `${label}: ${res.body}`);
      assert.equal(res.json().error, "validation_failed", label);
    }
  });

  test("threshold drops weaker results", async () => {
    const all = await search("/url", { image_url: url["black-bag"], limit: 10 });
    const strict = await search("/url", { image_url: url["black-bag"], limit: 10, threshold: 0.99 });
    assert.ok(strict.json().count < all.json().count);
    assert.ok(strict.json().results.every((r: { similarity_score: number }) => r.similarity_score >= 0.99));
  });

  test("hybrid: colours alone rank by colour; with an image, visual_weight moves the blend; filters apply first", async () => {
    const byColour = await search("/hybrid", { colors: ["#f0d000"], limit: 2 });
    assert.equal(byColour.statusCode, 200, byColour.body);
    assert.equal(ids(byColour)[0], "yellow-top");
    const visual = await search("/hybrid", { image_url: url["blue-jeans"], query: "red", visual_weight: 1, limit: 1 });
    assert.equal(ids(visual)[0], "blue-jeans");
    const textual = await search("/hybrid", { image_url: url["blue-jeans"], query: "red", visual_weight: 0, limit: 1 });
    assert.ok(["red-dress", "red-shirt"].includes(ids(textual)[0]), textual.body);
    const filtered = await search("/hybrid", {
      query: "red",
      metadata_filters: [{ field: "category", operator: "eq", value: "tops" }],
      limit: 5,
    });
    assert.deepEqual(ids(filtered)[0], "red-shirt");
    assert.ok(ids(filtered).every((id: string) => ["red-shirt", "yellow-top", "white-tee"].includes(id)));
    const nothing = await search("/hybrid", { limit: 5 });
    assert.equal(nothing.statusCode, 400);
  });

  test("fusion blends image and text and boosts the image's category", async () => {
    const res = await search("/fusion", { image_url: url["red-dress"], query: "green", image_weight: 0.5, limit: 3 });
    assert.equal(res.statusCode, 200, res.body);
    const top = ids(res);
    assert.ok(top.includes("red-dress") && top.includes("green-dress"), res.body);
    assert.ok(res.json().results.every((r: { similarity_score: number }) => r.similarity_score <= 1));
    const row = await historyRow(res.json().search_id);
    assert.equal(JSON.parse(row.query_summary).boosted_category, "dresses");
    const missing = await search("/fusion", { image_url: url["red-dress"], limit: 3 });
    assert.equal(missing.statusCode, 400);
  });

  test("multi-image: average, union and best", async () => {
    const images = [url["red-dress"], url["yellow-top"]];
    const avg = await search("/multi-image", { image_urls: images, mode: "average", limit: 3 });
    assert.equal(avg.statusCode, 200, avg.body);
    const best = await search("/multi-image", { image_urls: images, mode: "best", limit: 2 });
    assert.deepEqual(ids(best).sort(), ["red-dress", "yellow-top"]);
    const union = await search("/multi-image", { image_urls: images, mode: "union", limit: 4 });
    assert.deepEqual(ids(union).slice(0, 2), ["red-dress", "yellow-top"], "union interleaves the images' lists rank by rank");
    const one = await search("/multi-image", { image_urls: [url["red-dress"]] });
    assert.equal(one.statusCode, 400);
    const eleven = await search("/multi-image", { image_urls: Array(11).fill(url["red-dress"]) });
    assert.equal(eleven.statusCode, 400);
    const form = multipart([
      { name: "images", value: png["black-bag"]!, filename: "a.png" },
      { name: "images", value: png["white-tee"]!, filename: "b.png" },
      { name: "mode", value: "best" },
      { name: "limit", value: "2" },
    ]);
    const up = await t.search.inject({
      method: "POST",
      url: "/v1/search/multi-image",
      headers: { ...bearer(token), ...form.headers },
      payload: form.payload,
    });
    assert.equal(up.statusCode, 200, up.body);
    assert.deepEqual(ids(up).sort(), ["black-bag", "white-tee"]);
    // Without `mode` a multipart request is an average, as a JSON one (the schema's default).
    const upload = async (mode?: string) => {
      const f = multipart([
        { name: "images", value: png["black-bag"]!, filename: "a.png" },
        { name: "images", value: png["white-tee"]!, filename: "b.png" },
        ...(mode ? [{ name: "mode", value: mode }] : []),
        { name: "limit", value: "4" },
      ]);
      const res = await t.search.inject({
        method: "POST",
        url: "/v1/search/multi-image",
        headers: { ...bearer(token), ...f.headers },
        payload: f.payload,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().results as { product_id: string; similarity_score: number }[];
    };
    assert.deepEqual(await upload(), await upload("average"));
  });

  test("crop: a region in pixels or fractions; a malformed region is 400", async () => {
    const left = await sharp({ create: { width: 200, height: 100, channels: 3, background: "#d01010" } })
      .composite([
        {
          input: await sharp({ create: { width: 100, height: 100, channels: 3, background: "#10a030" } })
            .png()
            .toBuffer(),
          left: 100,
          top: 0,
        },
      ])
      .png()
      .toBuffer();
    const two = host.put("/two-colours.png", left);
    const green = await search("/crop", { image_url: two, region: { x: 100, y: 0, width: 100, height: 100 }, limit: 1 });
    assert.equal(green.statusCode, 200, green.body);
    assert.equal(ids(green)[0], "green-dress");
    const red = await search("/crop", { image_url: two, region: { x: 0, y: 0, width: 0.5, height: 1 }, limit: 2 });
    assert.ok(["red-dress", "red-shirt"].includes(ids(red)[0]));
    const outside = await search("/crop", { image_url: two, region: { x: 150, y: 0, width: 100, height: 100 } });
    assert.equal(outside.statusCode, 400);
    assert.equal(outside.json().error, "invalid_region");
    const malformed = await search("/crop", { image_url: two, region: { x: 0, y: 0, width: -1, height: 1 } });
    assert.equal(malformed.statusCode, 400);
    const form = multipart([
      { name: "image", value: left, filename: "two.png" },
      { name: "region", value: JSON.stringify({ x: 0.5, y: 0, width: 0.5, height: 1 }) },
    ]);
    const up = await t.search.inject({
      method: "POST",
      url: "/v1/search/crop",
      headers: { ...bearer(token), ...form.headers },
      payload: form.payload,
    });
    assert.equal(up.statusCode, 200, up.body);
    assert.equal(ids(up)[0], "green-dress");
  });

  test("filtered: image or text plus payload filters", async () => {
    const res = await search("/filtered", { query: "red", filters: [{ field: "brand", operator: "eq", value: "Zed" }], limit: 10 });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(ids(res)[0], "red-shirt");
    assert.deepEqual(ids(res).sort(), ["black-bag", "navy-coat", "red-shirt"]);
    const both = await search("/filtered", {
      query: "red",
      image_url: url["red-dress"],
      filters: [{ field: "brand", operator: "eq", value: "Zed" }],
    });
    assert.equal(both.statusCode, 400);
    const noFilters = await search("/filtered", { query: "red", filters: [] });
    assert.equal(noFilters.statusCode, 400);
  });

  test("batch: up to 20 queries, each answered or failed on its own; 21 is refused", async () => {
    const res = await search("/batch", {
      queries: [
        { type: "text", query: "red", limit: 1 },
        { type: "url", image_url: url["black-bag"], limit: 1 },
        { type: "text", query: "x", threshold: 7 },
        { type: "url", image_url: `${host.url}/missing.png` },
      ],
    });
    assert.equal(res.statusCode, 200, res.body);
    const [a, b, c, d] = res.json().results;
    assert.equal(a.count, 1);
    assert.ok(a.search_id);
    assert.equal(b.results[0].product_id, "black-bag");
    assert.equal(c.error, "validation_failed");
    assert.match(c.details.errors[0].field, /^queries\.2/);
    assert.equal(d.error, "image_unreachable");
    const tooMany = await search("/batch", { queries: Array.from({ length: 21 }, () => ({ type: "text", query: "x" })) });
    assert.equal(tooMany.statusCode, 400);
    const unknownType = await search("/batch", { queries: [{ type: "telepathy" }] });
    assert.equal(unknownType.statusCode, 400);
  });

  test("a second store's products never appear, and its token sees only its own", async () => {
    const other = await registerStore(t);
    const tok = await machineToken(t.search, other);
    const empty = await search("/url", { image_url: url["red-dress"], limit: 10 }, tok);
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.json().count, 0);
    const products = t.services.products;
    const image = await t.ctx.images.fromBytes(png["red-dress"]!);
    const [vector] = await t.ctx.images.embed([image.decoded]);
    await products.write(other.clientId, {
      productId: "other-red",
      imageUrl: "http://x/y.png",
      metadata: { name: "Other" },
      embedded: { image, vector: vector! },
    });
    const mine = await search("/url", { image_url: url["red-dress"], limit: 20 });
    assert.ok(!ids(mine).includes("other-red"));
    const theirs = await search("/text", { query: "red", limit: 20 }, tok);
    assert.deepEqual(ids(theirs), ["other-red"]);
  });

  test("the free plan allows 10 calls a minute, then 429 with Retry-After", async () => {
    const free = await registerStore(t, { plan: "free" });
    const tok = await machineToken(t.search, free);
    const codes: number[] = [];
    let last;
    for (let i = 0; i < 11; i++) {
      last = await t.search.inject({ method: "GET", url: "/v1/products", headers: bearer(tok) });
      codes.push(last.statusCode);
    }
    assert.deepEqual(codes, [...Array(10).fill(200), 429]);
    assert.equal(last!.json().error, "rate_limit_exceeded");
    assert.ok(Number(last!.headers["retry-after"]) >= 1);
    assert.equal(last!.json().details.limit, 10);
  });
}
