import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sha256 } from "../../platform/ids.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, loginToken, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { addMember, createApiKey } from "../../../test/support/members.js";
import { multipart } from "../../../test/support/multipart.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";
import { WIDGET_RATE_LIMITS } from "./gate.js";
import { SUGGESTION_MIN_SEARCHES } from "./service.js";
import { historyWriter } from "../query/history-writer.js";

const SHOP = "https://shop.example";

interface Shop {
  store: RegisteredStore;
  token: string;
  key: string;
  keyId: string;
}

describeEachDialect("widget: public keys, Origin checks, CORS, rate limits, widget search and feedback", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  const png: Record<string, Buffer> = {};
  const url: Record<string, string> = {};

  before(async () => {
    t = await createTestApp({ dialect, model: true });
    host = await startImageHost();
    for (const [id, hex] of [
      ["red-dress", "#d01010"],
      ["blue-jeans", "#1030c0"],
      ["green-dress", "#10a030"],
      ["b-red-scarf", "#c81818"],
    ] as const) {
      png[id] = await solidImage(hex);
      url[id] = host.put(`/${id}.png`, png[id]!);
    }
  });
  after(async () => {
    await host.close();
    await t.close();
  });

  async function index(storeId: string, ids: string[]) {
    const products = t.services.products;
    for (const id of ids) {
      const image = await t.ctx.images.fromBytes(png[id]!);
      const [vector] = await t.ctx.images.embed([image.decoded]);
      await products.write(storeId, {
        productId: id,
        imageUrl: url[id]!,
        metadata: { name: id.replace(/-/g, " "), price: 10 },
        embedded: { image, vector: vector! },
      });
    }
  }

  async function mintKey(token: string, origins: string[] = [SHOP], name = "shop widget") {
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/widget/keys",
      headers: bearer(token),
      payload: { name, allowed_origins: origins },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string; key: string; allowed_origins: string[]; key_prefix: string; status: string };
  }

  async function shop(products: string[] = ["red-dress", "blue-jeans", "green-dress"]): Promise<Shop> {
    const store = await registerStore(t);
    await index(store.clientId, products);
    const token = await machineToken(t.search, store);
    const key = await mintKey(token);
    return { store, token, key: key.key, keyId: key.id };
  }

  const widget = (path: string, key: string | undefined, origin: string | undefined, payload: object, remoteAddress = "127.0.0.1") =>
    t.search.inject({
      method: "POST",
      url: `/v1/widget/search/${path}`,
      remoteAddress,
      headers: { ...(key !== undefined ? { "x-service-key": key } : {}), ...(origin !== undefined ? { origin } : {}) },
      payload,
    });

  // --- key management --------------------------------------------------------------------------
  test("mints a pk_live_ key shown once, stored as SHA-256, with canonical de-duplicated origins; lists, renames and revokes it", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const created = await t.search.inject({
      method: "POST",
      url: "/v1/widget/keys",
      headers: bearer(token),
      payload: { name: "Main shop", allowed_origins: ["https://Shop.Example/", "https://shop.example:443", "http://localhost:3000"] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json();
    assert.match(body.key, /^pk_live_[A-Za-z0-9_-]{32}$/);
    assert.match(body.id, /^wk_[0-9a-f]{32}$/);
    assert.deepEqual(body.allowed_origins, ["https://shop.example", "http://localhost:3000"]);
    assert.equal(body.status, "active");
    assert.equal(body.key_prefix, body.key.slice(0, 14));
    assert.ok(body.created_at);

    const row = await t.ctx.database.db.selectFrom("widget_keys").selectAll().where("id", "=", body.id).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, sha256(body.key));
    assert.ok(!JSON.stringify(row).includes(body.key), "the key itself is not stored");

    const list = await t.search.inject({ method: "GET", url: "/v1/widget/keys", headers: bearer(token) });
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().length, 1);
    assert.equal(list.json()[0].id, body.id);
    assert.ok(!list.body.includes(body.key), "lists never show the key");
    assert.equal(list.json()[0].key, undefined);

    const patched = await t.search.inject({
      method: "PATCH",
      url: `/v1/widget/keys/${body.id}`,
      headers: bearer(token),
      payload: { name: "Renamed", allowed_origins: ["https://www.shop.example"] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().name, "Renamed");
    assert.deepEqual(patched.json().allowed_origins, ["https://www.shop.example"]);
    // The same key now works from the new origin only.
    assert.equal(
      (await widget("feedback", body.key, "https://www.shop.example", { result_product_id: "x", action: "click" })).statusCode,
      201,
    );
    assert.equal((await widget("feedback", body.key, "https://shop.example", { result_product_id: "x", action: "click" })).statusCode, 403);
    const used = (await t.search.inject({ method: "GET", url: "/v1/widget/keys", headers: bearer(token) })).json()[0];
    assert.ok(used.last_used_at, "last_used_at is set after use");

    const revoked = await t.search.inject({ method: "DELETE", url: `/v1/widget/keys/${body.id}`, headers: bearer(token) });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(revoked.json().status, "revoked");
    assert.ok(revoked.json().revoked_at);
    const again = await t.search.inject({ method: "DELETE", url: `/v1/widget/keys/${body.id}`, headers: bearer(token) });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().revoked_at, revoked.json().revoked_at, "revoking twice keeps the first time");
    const change = await t.search.inject({
      method: "PATCH",
      url: `/v1/widget/keys/${body.id}`,
      headers: bearer(token),
      payload: { name: "x" },
    });
    assert.equal(change.statusCode, 409);
    const unknown = await t.search.inject({ method: "DELETE", url: "/v1/widget/keys/wk_nope", headers: bearer(token) });
    assert.equal(unknown.statusCode, 404);
  });

  test("rejects invalid key requests with 400 validation_failed", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const cases: [string, object][] = [
      ["no origins", { name: "a", allowed_origins: [] }],
      ["missing origins", { name: "a" }],
      ["missing name", { allowed_origins: [SHOP] }],
      ["blank name", { name: "   ", allowed_origins: [SHOP] }],
      ["wildcard", { name: "a", allowed_origins: ["*"] }],
      ["wildcard host", { name: "a", allowed_origins: ["https://*.shop.example"] }],
      ["path", { name: "a", allowed_origins: ["https://shop.example/checkout"] }],
      ["query", { name: "a", allowed_origins: ["https://shop.example?x=1"] }],
      ["credentials", { name: "a", allowed_origins: ["https://user:pw@shop.example"] }],
      ["scheme", { name: "a", allowed_origins: ["ftp://shop.example"] }],
      ["no scheme", { name: "a", allowed_origins: ["shop.example"] }],
      ["null origin", { name: "a", allowed_origins: ["null"] }],
      ["too many", { name: "a", allowed_origins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example`) }],
      ["unknown field", { name: "a", allowed_origins: [SHOP], scopes: ["x"] }],
    ];
    for (const [label, payload] of cases) {
      const res = await t.search.inject({ method: "POST", url: "/v1/widget/keys", headers: bearer(token), payload });
      assert.equal(res.statusCode, 400, `${label}: ${res.body}`);
      assert.equal(res.json().error, "validation_failed", label);
    }
    const mixed = await t.search.inject({
      method: "POST",
      url: "/v1/widget/keys",
      headers: bearer(token),
      payload: { name: "a", allowed_origins: [SHOP, "https://shop.example/x"] },
    });
    assert.deepEqual(
      mixed.json().details.errors.map((e: { field: string }) => e.field),
      ["allowed_origins.1"],
    );
    const key = await mintKey(token);
    const empty = await t.search.inject({ method: "PATCH", url: `/v1/widget/keys/${key.id}`, headers: bearer(token), payload: {} });
    assert.equal(empty.statusCode, 400);
    const none = await t.search.inject({ method: "GET", url: "/v1/widget/keys", headers: bearer(token) });
    assert.equal(none.json().length, 1, "no invalid request created a key");
  });

  test("key routes need widget:write / widget:read; another store cannot see, change or revoke the key", async () => {
    const a = await shop(["red-dress"]);
    const owner = await loginToken(t.search, a.store.email, a.store.password);
    const viewer = await addMember(t, owner, "viewer");
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/widget/keys", headers: bearer(viewer.token) })).statusCode, 200);
    const denied = await t.search.inject({
      method: "POST",
      url: "/v1/widget/keys",
      headers: bearer(viewer.token),
      payload: { name: "v", allowed_origins: [SHOP] },
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().details.missing_permission, "widget:write");
    const readKey = await createApiKey(t, a.token, { widget: ["read"] });
    assert.equal(
      (await t.search.inject({ method: "DELETE", url: `/v1/widget/keys/${a.keyId}`, headers: bearer(readKey.key) })).statusCode,
      403,
    );
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/widget/keys" })).statusCode, 401);

    const b = await shop(["b-red-scarf"]);
    const listB = await t.search.inject({ method: "GET", url: "/v1/widget/keys", headers: bearer(b.token) });
    assert.deepEqual(
      listB.json().map((k: { id: string }) => k.id),
      [b.keyId],
    );
    for (const req of [
      { method: "DELETE" as const, url: `/v1/widget/keys/${a.keyId}` },
      { method: "PATCH" as const, url: `/v1/widget/keys/${a.keyId}`, payload: { allowed_origins: ["https://evil.example"] } },
    ]) {
      const res = await t.search.inject({ ...req, headers: bearer(b.token) });
      assert.equal(res.statusCode, 404, `${req.method}: ${res.body}`);
    }
    const rowA = await t.ctx.database.db.selectFrom("widget_keys").selectAll().where("id", "=", a.keyId).executeTakeFirstOrThrow();
    assert.equal(rowA.revoked_at, null);
    assert.equal(rowA.allowed_origins, JSON.stringify([SHOP]));
    assert.equal((await widget("text", a.key, SHOP, { query: "red" })).statusCode, 200, "A's key still works");
  });

  // --- the public endpoints ----------------------------------------------------------------------
  test("text, URL and upload search with key + Origin answer the search response with search_id and image_url, as widget history", async () => {
    const s = await shop();
    const stagesBefore = await t.ctx.metrics.render();
    const text = await widget("text", s.key, SHOP, { query: "a red dress", limit: 2 });
    assert.equal(text.statusCode, 200, text.body);
    // Its server time by stage, as the API's searches (src/search/http/stage-timing.ts); auth is the widget gate's.
    const stagesAfter = await t.ctx.metrics.render();
    const stage = (text: string, part: "count" | "sum", name: string) =>
      Number(text.match(new RegExp(`^shopsight_search_stage_duration_seconds_${part}\\{stage="${name}"\\} (\\S+)$`, "m"))?.[1] ?? 0);
    for (const name of ["http", "auth", "lexical", "vector", "fusion", "hydrate", "serialise"]) {
      // On PostgreSQL the hits' rows are read beside the embedding first (SearchService.hitRowsOf).
      const times = name === "hydrate" && dialect === "postgres" ? 2 : 1;
      assert.equal(stage(stagesAfter, "count", name) - stage(stagesBefore, "count", name), times, `stage ${name}`);
    }
    assert.ok(stage(stagesAfter, "sum", "auth") > stage(stagesBefore, "sum", "auth"), "the widget gate's time is the auth stage");
    const body = text.json();
    // The spec's fields, and the echo of query understanding (on by default; the query names a colour).
    assert.deepEqual(Object.keys(body).sort(), ["count", "currency", "query_time_ms", "query_understanding", "results", "search_id"]);
    assert.equal(body.currency, "USD", "the store's currency: USD until the owner sets one");
    assert.equal(body.count, 2);
    assert.equal(body.results[0].product_id, "red-dress");
    assert.equal(body.results[0].image_url, url["red-dress"]);
    assert.equal(body.results[0].metadata.name, "red dress");
    assert.equal(text.headers["access-control-allow-origin"], SHOP);
    assert.match(String(text.headers.vary), /Origin/);
    assert.match(String(text.headers["access-control-expose-headers"]), /Retry-After/);
    await historyWriter(t.ctx).flush(); // history rows are written after the reply
    const row = await t.ctx.database.db.selectFrom("search_history").selectAll().where("id", "=", body.search_id).executeTakeFirstOrThrow();
    assert.equal(row.source, "widget");
    assert.equal(row.store_id, s.store.clientId);

    const byUrl = await widget("url", s.key, SHOP, { image_url: url["blue-jeans"], limit: 1 });
    assert.equal(byUrl.statusCode, 200, byUrl.body);
    assert.equal(byUrl.json().results[0].product_id, "blue-jeans");

    const form = multipart([
      { name: "image", value: png["green-dress"]!, filename: "photo.png", contentType: "image/png" },
      { name: "limit", value: "1" },
    ]);
    const upload = await t.search.inject({
      method: "POST",
      url: "/v1/widget/search/upload",
      headers: { "x-service-key": s.key, origin: SHOP, ...form.headers },
      payload: form.payload,
    });
    assert.equal(upload.statusCode, 200, upload.body);
    assert.equal(upload.json().results[0].product_id, "green-dress");
    assert.equal(upload.headers["access-control-allow-origin"], SHOP);

    for (const [label, payload] of [
      ["limit over 50", { query: "x", limit: 51 }],
      ["metadata_filters are not offered", { query: "x", metadata_filters: [] }],
      ["empty query", { query: "" }],
    ] as const) {
      const res = await widget("text", s.key, SHOP, payload);
      assert.equal(res.statusCode, 400, `${label}: ${res.body}`);
      assert.equal(res.headers["access-control-allow-origin"], SHOP, "errors are readable by the shop's page");
    }
  });

  test("Origin: missing, unlisted, other scheme, port or subdomain, or 'null' → 403 origin_not_allowed without CORS headers", async () => {
    const s = await shop(["red-dress"]);
    const missing = await widget("text", s.key, undefined, { query: "red" });
    assert.equal(missing.statusCode, 403, missing.body);
    assert.equal(missing.json().error, "origin_not_allowed");
    for (const origin of [
      "https://evil.example",
      "http://shop.example",
      "https://shop.example:8443",
      "https://www.shop.example",
      "null",
      "https://shop.example.evil.example",
    ]) {
      const res = await widget("text", s.key, origin, { query: "red" });
      assert.equal(res.statusCode, 403, `${origin}: ${res.body}`);
      assert.equal(res.json().error, "origin_not_allowed");
      assert.equal(res.headers["access-control-allow-origin"], undefined, origin);
    }
    await historyWriter(t.ctx).flush(); // history rows are written after the reply
    const searches = await t.ctx.database.db.selectFrom("search_history").select("id").where("store_id", "=", s.store.clientId).execute();
    assert.equal(searches.length, 0, "refused calls search nothing");
  });

  test("key: missing, unknown, malformed or revoked → 401; a revoked key's listed origin may still read the 401", async () => {
    const s = await shop(["red-dress"]);
    for (const key of [undefined, "", "pk_live_doesnotexist000000000000000000000", "sk_live_abc", "Bearer x"]) {
      const res = await widget("text", key, SHOP, { query: "red" });
      assert.equal(res.statusCode, 401, `${key}: ${res.body}`);
      assert.equal(res.json().error, "unauthorized");
      assert.equal(res.headers["access-control-allow-origin"], undefined);
    }
    const bearerToken = await t.search.inject({
      method: "POST",
      url: "/v1/widget/search/text",
      headers: { ...bearer(s.token), origin: SHOP },
      payload: { query: "red" },
    });
    assert.equal(bearerToken.statusCode, 401, "a bearer token is not a widget key");
    assert.equal(
      (await t.search.inject({ method: "DELETE", url: `/v1/widget/keys/${s.keyId}`, headers: bearer(s.token) })).statusCode,
      200,
    );
    const revoked = await widget("text", s.key, SHOP, { query: "red" });
    assert.equal(revoked.statusCode, 401);
    assert.equal(revoked.headers["access-control-allow-origin"], SHOP);
    const revokedElsewhere = await widget("text", s.key, "https://evil.example", { query: "red" });
    assert.equal(revokedElsewhere.statusCode, 401);
    assert.equal(revokedElsewhere.headers["access-control-allow-origin"], undefined);
  });

  test("preflight: OPTIONS answers 204 for any http(s) origin with the allowed methods and headers; no origin, no grant", async () => {
    for (const [path, method] of [
      ["text", "POST"],
      ["upload", "POST"],
      ["url", "POST"],
      ["feedback", "POST"],
      ["suggestions", "GET"],
    ]) {
      const res = await t.search.inject({
        method: "OPTIONS",
        url: `/v1/widget/search/${path}`,
        headers: {
          origin: "https://anyone.example",
          "access-control-request-method": method,
          "access-control-request-headers": "content-type,x-service-key",
        },
      });
      assert.equal(res.statusCode, 204, path);
      assert.equal(res.headers["access-control-allow-origin"], "https://anyone.example");
      assert.equal(res.headers["access-control-allow-methods"], method, path);
      assert.match(String(res.headers["access-control-allow-headers"]), /X-Service-Key/i);
      assert.match(String(res.headers["access-control-allow-headers"]), /Content-Type/i);
      assert.match(String(res.headers.vary), /Origin/);
      assert.equal(res.body, "");
    }
    const noOrigin = await t.search.inject({ method: "OPTIONS", url: "/v1/widget/search/text" });
    assert.equal(noOrigin.statusCode, 204);
    assert.equal(noOrigin.headers["access-control-allow-origin"], undefined);
    const nullOrigin = await t.search.inject({ method: "OPTIONS", url: "/v1/widget/search/text", headers: { origin: "null" } });
    assert.equal(nullOrigin.headers["access-control-allow-origin"], undefined);
  });

  test("widget feedback is attributed like backend feedback and shows in analytics as widget revenue", async () => {
    const s = await shop();
    const search = (await widget("text", s.key, SHOP, { query: "red dress", limit: 3 })).json();
    const click = await widget("feedback", s.key, SHOP, {
      search_id: search.search_id,
      result_product_id: "red-dress",
      action: "click",
      session_id: "sid-123",
    });
    assert.equal(click.statusCode, 201, click.body);
    assert.equal(click.json().source, "widget");
    assert.equal(click.json().attributed, true);
    assert.equal(click.json().result_rank, 1);
    assert.equal(click.headers["access-control-allow-origin"], SHOP);
    const purchase = await widget("feedback", s.key, SHOP, {
      search_id: search.search_id,
      result_product_id: "red-dress",
      action: "purchase",
      order_value: 42.5,
      currency: "EUR",
      quantity: 1,
      session_id: "sid-123",
    });
    assert.equal(purchase.statusCode, 201, purchase.body);
    const wrong = await widget("feedback", s.key, SHOP, {
      result_product_id: "red-dress",
      action: "click",
      order_value: 1,
      currency: "EUR",
    });
    assert.equal(wrong.statusCode, 422);
    assert.equal(wrong.json().error, "purchase_fields_only");
    assert.equal(wrong.headers["access-control-allow-origin"], SHOP);

    const row = await t.ctx.database.db
      .selectFrom("search_feedback")
      .selectAll()
      .where("id", "=", purchase.json().id)
      .executeTakeFirstOrThrow();
    assert.equal(row.widget_key_id, s.keyId);
    assert.equal(row.session_id, "sid-123");
    const analytics = (await t.search.inject({ method: "GET", url: "/v1/search/analytics", headers: bearer(s.token) })).json();
    assert.deepEqual(analytics.searches.by_source, { api: 0, portal: 0, widget: 1 });
    assert.equal(analytics.click_through_rate, 1);
    assert.equal(analytics.conversion_rate, 1);
    assert.deepEqual(analytics.revenue, [
      { currency: "EUR", total: 42.5, attributed: 42.5, unattributed: 0, from_widget: 42.5, purchases: 1 },
    ]);
  });

  test("isolation: a key searches only its own store, and cannot attribute feedback to another store's search", async () => {
    const a = await shop(["red-dress", "blue-jeans"]);
    const b = await shop(["b-red-scarf"]);
    const fromA = (await widget("text", a.key, SHOP, { query: "red", limit: 50 })).json();
    assert.deepEqual(fromA.results.map((r: { product_id: string }) => r.product_id).sort(), ["blue-jeans", "red-dress"]);
    const fromB = (await widget("text", b.key, SHOP, { query: "red", limit: 50 })).json();
    assert.deepEqual(
      fromB.results.map((r: { product_id: string }) => r.product_id),
      ["b-red-scarf"],
    );
    const cross = await widget("feedback", b.key, SHOP, {
      search_id: fromA.search_id,
      result_product_id: "red-dress",
      action: "purchase",
      order_value: 5,
      currency: "EUR",
    });
    assert.equal(cross.statusCode, 404, cross.body);
    const feedbackB = await t.ctx.database.db
      .selectFrom("search_feedback")
      .select("id")
      .where("store_id", "in", [a.store.clientId, b.store.clientId])
      .execute();
    assert.equal(feedbackB.length, 0);
    const analyticsB = (await t.search.inject({ method: "GET", url: "/v1/search/analytics", headers: bearer(b.token) })).json();
    assert.equal(analyticsB.searches.total, 1, "only B's own widget search");
  });

  // --- type-ahead and the store's currency -------------------------------------------------------
  /** `origin` null: no Origin header. */
  const suggest = (key: string, query: string, origin: string | null = SHOP, remoteAddress = "127.0.0.1") =>
    t.search.inject({
      method: "GET",
      url: `/v1/widget/search/suggestions?${query}`,
      remoteAddress,
      headers: { "x-service-key": key, ...(origin !== null ? { origin } : {}) },
    });
  const texts = (res: { json(): { suggestions: { kind: string; text: string; product_id?: string }[] } }) =>
    res.json().suggestions.map((x) => (x.kind === "product" ? `product:${x.text}:${x.product_id}` : `query:${x.text}`));

  test(`type-ahead: shoppers' searches made ${SUGGESTION_MIN_SEARCHES}+ times starting with q, then product names; no search recorded`, async () => {
    const s = await shop();
    const owner = await loginToken(t.search, s.store.email, s.store.password);
    const searchAs = async (headers: Record<string, string>, url: string, query: string) => {
      const res = await t.search.inject({ method: "POST", url, headers, payload: { query } });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.json().count > 0, `${query} found something`);
    };
    // "red dress": twice from the widget (case and surrounding spaces ignored), once from the store's backend.
    await searchAs({ "x-service-key": s.key, origin: SHOP }, "/v1/widget/search/text", "Red Dress");
    await searchAs({ "x-service-key": s.key, origin: SHOP }, "/v1/widget/search/text", "  red dress ");
    await searchAs(bearer(s.token), "/v1/search/text", "red dress");
    // Searched too rarely to be shown to other shoppers.
    for (let i = 1; i < SUGGESTION_MIN_SEARCHES; i++)
      await searchAs({ "x-service-key": s.key, origin: SHOP }, "/v1/widget/search/text", "red jeans");
    // The owner's tries in the portal's playground (a user login) are not shoppers' searches.
    for (let i = 0; i < SUGGESTION_MIN_SEARCHES; i++) await searchAs(bearer(owner), "/v1/search/text", "red green");
    await historyWriter(t.ctx).flush();
    const searches = async () =>
      (await t.ctx.database.db.selectFrom("search_history").select("id").where("store_id", "=", s.store.clientId).execute()).length;
    const before = await searches();

    const red = await suggest(s.key, "q=RED");
    assert.equal(red.statusCode, 200, red.body);
    assert.equal(red.headers["access-control-allow-origin"], SHOP);
    assert.equal(red.json().query, "red");
    // The popular search first; the product of the same name is not offered twice.
    assert.deepEqual(texts(red), ["query:red dress"]);
    assert.deepEqual(texts(await suggest(s.key, "q=red%20")), ["query:red dress"], "a trailing space: the word is whole");
    assert.deepEqual(texts(await suggest(s.key, "q=r")), ["query:red dress"], "one letter: popular searches only");
    // Product names holding every typed word, the last as a prefix; shorter names first.
    assert.deepEqual(texts(await suggest(s.key, "q=dres")), ["product:red dress:red-dress", "product:green dress:green-dress"]);
    assert.deepEqual(texts(await suggest(s.key, "q=dres&limit=1")), ["product:red dress:red-dress"]);
    assert.deepEqual(texts(await suggest(s.key, "q=green%20dr")), ["product:green dress:green-dress"]);
    assert.deepEqual(texts(await suggest(s.key, "q=blue%20je")), ["product:blue jeans:blue-jeans"]);
    assert.deepEqual(texts(await suggest(s.key, "q=xyz")), []);
    assert.equal(await searches(), before, "suggestions record no search");

    for (const [label, query] of [
      ["no q", "limit=3"],
      ["empty q", "q="],
      ["limit over 10", "q=red&limit=11"],
      ["unknown parameter", "q=red&prefix=red"],
    ] as const) {
      const res = await suggest(s.key, query);
      assert.equal(res.statusCode, 400, `${label}: ${res.body}`);
      assert.equal(res.headers["access-control-allow-origin"], SHOP, "errors are readable by the shop's page");
    }
    assert.equal((await suggest(s.key, "q=red", "https://evil.example")).statusCode, 403);
    assert.equal((await suggest(s.key, "q=red", null)).statusCode, 403);
    assert.equal((await suggest("pk_live_unknown", "q=red")).statusCode, 401);
    const bearerCall = await t.search.inject({
      method: "GET",
      url: "/v1/widget/search/suggestions?q=red",
      headers: { ...bearer(s.token), origin: SHOP },
    });
    assert.equal(bearerCall.statusCode, 401, "a bearer token is not a widget key");
  });

  test("isolation: a key suggests only its own store's searches and product names", async () => {
    const a = await shop(["red-dress", "blue-jeans"]);
    const b = await shop(["b-red-scarf"]);
    for (let i = 0; i < SUGGESTION_MIN_SEARCHES; i++) {
      assert.equal((await widget("text", a.key, SHOP, { query: "red dress" })).statusCode, 200);
    }
    await historyWriter(t.ctx).flush();
    assert.deepEqual(texts(await suggest(a.key, "q=red")), ["query:red dress"]);
    assert.deepEqual(
      texts(await suggest(b.key, "q=red")),
      ["product:b red scarf:b-red-scarf"],
      "B sees neither A's search nor A's product",
    );
    assert.deepEqual(texts(await suggest(b.key, "q=blue%20je")), []);
    assert.deepEqual(texts(await suggest(a.key, "q=scar")), []);
  });

  test("type-ahead has its own rate-limit windows: typing never uses up a shopper's searches", async () => {
    const s = await shop(["red-dress"]);
    const perClient = WIDGET_RATE_LIMITS.perClient.points;
    for (let i = 0; i < perClient; i++) {
      const res = await suggest(s.key, "q=re", SHOP, "10.40.0.1");
      assert.equal(res.statusCode, 200, `request ${i + 1}: ${res.body}`);
    }
    const limited = await suggest(s.key, "q=red", SHOP, "10.40.0.1");
    assert.equal(limited.statusCode, 429, limited.body);
    assert.equal(limited.json().error, "rate_limit_exceeded");
    assert.equal(limited.json().details.scope, "client");
    assert.ok(Number(limited.headers["retry-after"]) >= 1);
    assert.equal(limited.headers["access-control-allow-origin"], SHOP);
    const search = await widget("text", s.key, SHOP, { query: "red dress" }, "10.40.0.1");
    assert.equal(search.statusCode, 200, "the shopper can still search");
  });

  test("widget search answers carry the store's currency: USD until set, then the Assistant settings' currency", async () => {
    const s = await shop(["red-dress"]);
    const b = await shop(["b-red-scarf"]);
    assert.equal((await widget("text", s.key, SHOP, { query: "red" })).json().currency, "USD");
    const owner = await loginToken(t.search, s.store.email, s.store.password);
    const put = await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings",
      headers: bearer(owner),
      payload: { currency: "eur", support_contact: null },
    });
    assert.equal(put.statusCode, 200, put.body);
    for (const path of ["text", "url"] as const) {
      const res = await widget(path, s.key, SHOP, path === "text" ? { query: "red" } : { image_url: url["red-dress"] });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().currency, "EUR", path);
    }
    assert.equal((await widget("text", b.key, SHOP, { query: "red" })).json().currency, "USD", "another store keeps its own");
  });

  test(`rate limits: ${WIDGET_RATE_LIMITS.perClient.points}/min per key and client IP, ${WIDGET_RATE_LIMITS.perKey.points}/min per key → 429 with Retry-After`, async () => {
    const s = await shop(["red-dress"]);
    const perClient = WIDGET_RATE_LIMITS.perClient.points;
    // Invalid bodies are cheap and still count: the limit applies before validation.
    for (let i = 0; i < perClient; i++) {
      const res = await widget("feedback", s.key, SHOP, {}, "10.20.0.1");
      assert.equal(res.statusCode, 400, `request ${i + 1}: ${res.body}`);
    }
    const limited = await widget("feedback", s.key, SHOP, { result_product_id: "red-dress", action: "click" }, "10.20.0.1");
    assert.equal(limited.statusCode, 429, limited.body);
    assert.equal(limited.json().error, "rate_limit_exceeded");
    assert.equal(limited.json().details.scope, "client");
    assert.equal(limited.json().details.limit, perClient);
    const retry = Number(limited.headers["retry-after"]);
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${limited.headers["retry-after"]}`);
    assert.equal(limited.headers["access-control-allow-origin"], SHOP, "the shop's page can read the 429 and its Retry-After");
    assert.equal(
      (await widget("feedback", s.key, SHOP, { result_product_id: "red-dress", action: "click" }, "10.20.0.2")).statusCode,
      201,
      "another shopper is not affected",
    );

    // The per-key budget: spread over many clients, the key's total runs out.
    const other = await shop(["red-dress"]);
    const perKey = WIDGET_RATE_LIMITS.perKey.points;
    let sent = 0;
    for (let ip = 1; sent < perKey; ip++) {
      for (let i = 0; i < perClient && sent < perKey; i++, sent++) {
        const res = await widget("feedback", other.key, SHOP, {}, `10.30.${ip}.1`);
        assert.equal(res.statusCode, 400, `request ${sent + 1}: ${res.body}`);
      }
    }
    const keyLimited = await widget("feedback", other.key, SHOP, {}, "10.31.0.1");
    assert.equal(keyLimited.statusCode, 429, keyLimited.body);
    assert.equal(keyLimited.json().details.scope, "key");
    assert.ok(Number(keyLimited.headers["retry-after"]) >= 1);
    // Another key of another store is untouched.
    assert.equal((await widget("feedback", s.key, SHOP, { result_product_id: "red-dress", action: "click" }, "10.31.0.1")).statusCode, 201);
  });

  test("widget calls count as the store's API usage; refused calls do not", async () => {
    const s = await shop(["red-dress"]);
    const usage = async () => {
      const res = await t.search.inject({ method: "GET", url: "/v1/billing/usage", headers: bearer(s.token) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().api_calls as number;
    };
    const before = await usage();
    for (let i = 0; i < 3; i++)
      assert.equal((await widget("feedback", s.key, SHOP, { result_product_id: "red-dress", action: "click" })).statusCode, 201);
    assert.equal(
      (await widget("feedback", s.key, "https://evil.example", { result_product_id: "red-dress", action: "click" })).statusCode,
      403,
    );
    assert.equal((await widget("feedback", "pk_live_unknown", SHOP, { result_product_id: "red-dress", action: "click" })).statusCode, 401);
    assert.equal(await usage(), before + 1 + 3, "the first usage call and the three accepted widget calls");
  });

  test("GET /widget.js serves the script: JavaScript, no secret, cacheable with an ETag", async () => {
    const res = await t.search.inject({ method: "GET", url: "/widget.js" });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /^text\/javascript/);
    assert.match(res.body, /window\.ServiceWidget\s*=/);
    assert.match(res.body, /service-sid/);
    assert.doesNotMatch(res.body, /pk_live_[A-Za-z0-9_-]{8,}/, "no key in the script");
    assert.doesNotMatch(res.body, /sk_live_|client_secret|Bearer /);
    assert.equal(res.headers["x-content-type-options"], "nosniff");
    const etag = String(res.headers.etag);
    const cached = await t.search.inject({ method: "GET", url: "/widget.js", headers: { "if-none-match": etag } });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.body, "");
  });

  test("OpenAPI documents the widget endpoints with the public-key scheme and the analytics shapes", async () => {
    const doc = (await t.search.inject({ method: "GET", url: "/openapi.json" })).json();
    for (const path of ["/v1/widget/search/text", "/v1/widget/search/url", "/v1/widget/search/upload", "/v1/widget/search/feedback"]) {
      assert.deepEqual(doc.paths[path].post.security, [{ widgetKey: [] }], path);
      assert.ok(doc.paths[path].post.responses["403"], `${path} documents 403`);
      assert.ok(doc.paths[path].post.responses["429"], `${path} documents 429`);
    }
    const suggestions = doc.paths["/v1/widget/search/suggestions"].get;
    assert.deepEqual(suggestions.security, [{ widgetKey: [] }]);
    assert.ok(suggestions.responses["429"]);
    assert.ok(suggestions.responses["200"].content["application/json"].schema.properties.suggestions);
    assert.ok(doc.paths["/v1/widget/search/text"].post.responses["200"].content["application/json"].schema.properties.currency);
    assert.ok(doc.paths["/v1/widget/keys"].post.responses["201"]);
    const analytics = doc.paths["/v1/search/analytics"].get.responses["200"].content["application/json"].schema;
    for (const field of [
      "searches",
      "zero_result_rate",
      "query_time_ms",
      "click_through_rate",
      "add_to_cart_rate",
      "conversion_rate",
      "revenue",
      "top_queries",
    ]) {
      assert.ok(analytics.properties[field], `analytics documents ${field}`);
    }
    assert.ok(doc.paths["/v1/search/feedback/popular"].get.responses["200"]);
    assert.ok(doc.paths["/v1/search/suggestions"].get.responses["200"]);
  });
});
