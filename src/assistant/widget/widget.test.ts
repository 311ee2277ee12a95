import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp, loginToken, registerStore } from "../../../test/support/factories.js";
import { MINT_LIMIT } from "../sessions/service.js";
import { WIDGET_FILES } from "../../shared/chat-files.js";

const SHOP = "https://shop.example";

describeEachDialect("assistant: chat widget script and CORS of the shopper routes", (dialect) => {
  let t: TestApp;
  let owner: string;
  let publicKey: string;

  before(async () => {
    t = await createTestApp({ dialect });
    const store = await registerStore(t);
    owner = await loginToken(t.search, store.email, store.password);
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/public-keys",
      headers: bearer(owner),
      payload: { name: "widget" },
    });
    assert.equal(res.statusCode, 201, res.body);
    publicKey = (res.json() as { key: string }).key;
  });
  after(async () => {
    await t.close();
  });

  test("GET /widget/index.js is a cacheable ES module defining <commerce-ai-chat>, readable cross-origin", async () => {
    const res = await t.assistant.inject({ method: "GET", url: "/widget/index.js", headers: { origin: SHOP } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /^text\/javascript; charset=utf-8/);
    assert.equal(res.headers["cache-control"], "public, max-age=300");
    assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]{27}"$/);
    assert.equal(res.headers["x-content-type-options"], "nosniff");
    assert.equal(res.headers["cross-origin-resource-policy"], "cross-origin");
    assert.equal(res.headers["access-control-allow-origin"], "*", "module scripts are fetched in CORS mode");
    assert.match(res.body, /customElements\.define\(TAG, CommerceAiChat\)/);
    assert.match(res.body, /const TAG = "commerce-ai-chat"/);
    for (const attribute of ["store-public-key", "api-base-url", "locale"]) assert.ok(res.body.includes(`"${attribute}"`), attribute);
    // It holds no secret: no key, token or password-like literal is baked in.
    assert.doesNotMatch(res.body, /(sk_live_|store_pub_[A-Za-z0-9]{8}|ast_[A-Za-z0-9]{8}|pk_live_)/);
  });

  test("every module the component imports is served, and nothing else under /widget/", async () => {
    const seen = new Set<string>();
    const queue = ["index.js"];
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const res = await t.assistant.inject({ method: "GET", url: `/widget/${name}` });
      assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
      assert.match(String(res.headers["content-type"]), /^text\/javascript/);
      for (const match of res.body.matchAll(/from "\.\/([a-z-]+\.js)"/g)) queue.push(match[1]!);
    }
    assert.deepEqual([...seen].sort(), [...WIDGET_FILES].sort());
    for (const url of ["/widget/markdown.d.ts", "/widget/../package.json", "/widget/", "/widget/index.mjs"]) {
      const res = await t.assistant.inject({ method: "GET", url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().code, "NOT_FOUND");
    }
  });

  test("If-None-Match with the current ETag answers 304; a stale or weak-mismatched one the full file", async () => {
    const first = await t.assistant.inject({ method: "GET", url: "/widget/index.js" });
    const etag = String(first.headers.etag);
    for (const header of [etag, `W/${etag}`, `"stale", ${etag}`]) {
      const again = await t.assistant.inject({ method: "GET", url: "/widget/index.js", headers: { "if-none-match": header } });
      assert.equal(again.statusCode, 304, header);
      assert.equal(again.body, "");
      assert.equal(again.headers.etag, etag);
    }
    const stale = await t.assistant.inject({ method: "GET", url: "/widget/index.js", headers: { "if-none-match": '"stale"' } });
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.body, first.body);
    const other = await t.assistant.inject({ method: "GET", url: "/widget/sse.js", headers: { "if-none-match": etag } });
    assert.equal(other.statusCode, 200, "each file has its own ETag");
  });

  test("preflights of shopper routes allow any origin with the widget's headers, without credentials", async () => {
    for (const url of ["/v1/chat/messages/stream", "/v1/sessions/anonymous", "/v1/chat/sessions/thr_x/events", "/v1/catalog/search"]) {
      const res = await t.assistant.inject({
        method: "OPTIONS",
        url,
        headers: {
          origin: SHOP,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization,content-type,last-event-id",
        },
      });
      assert.equal(res.statusCode, 204, url);
      assert.equal(res.headers["access-control-allow-origin"], "*");
      assert.equal(res.headers["access-control-allow-methods"], "GET, POST");
      const allowed = String(res.headers["access-control-allow-headers"]).toLowerCase().split(/,\s*/);
      for (const h of ["authorization", "content-type", "last-event-id"]) assert.ok(allowed.includes(h), `${url}: ${h}`);
      assert.equal(res.headers["access-control-max-age"], "600");
      assert.equal(res.headers["access-control-allow-credentials"], undefined);
    }
  });

  test("a preflight without Access-Control-Request-Method is refused with 400", async () => {
    const res = await t.assistant.inject({ method: "OPTIONS", url: "/v1/chat/messages/stream", headers: { origin: SHOP } });
    assert.equal(res.statusCode, 400);
  });

  test("shopper responses, errors included, carry CORS headers and expose Retry-After and X-Correlation-Id", async () => {
    const ip = freshIp();
    const minted = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: ip,
      headers: { origin: SHOP },
      payload: { store_public_key: publicKey, locale: "de-DE" },
    });
    assert.equal(minted.statusCode, 200, minted.body);
    assert.equal(minted.headers["access-control-allow-origin"], "*");
    const exposed = String(minted.headers["access-control-expose-headers"]).toLowerCase();
    assert.ok(exposed.includes("retry-after") && exposed.includes("x-correlation-id"), exposed);
    const token = (minted.json() as { session_token: string }).session_token;

    const thread = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/sessions",
      headers: { ...bearer(token), origin: SHOP },
      payload: { locale: "de" },
    });
    assert.equal(thread.statusCode, 201, thread.body);
    assert.equal(thread.headers["access-control-allow-origin"], "*");

    const unauthenticated = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: { origin: SHOP }, payload: {} });
    assert.equal(unauthenticated.statusCode, 401);
    assert.equal(unauthenticated.headers["access-control-allow-origin"], "*", "the widget can read the refusal");

    const invalid = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: freshIp(),
      headers: { origin: SHOP },
      payload: { store_public_key: publicKey, extra: 1 },
    });
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.json().code, "VALIDATION_FAILED");
    assert.equal(invalid.headers["access-control-allow-origin"], "*");

    for (let i = 1; i < MINT_LIMIT.points; i++) {
      await t.assistant.inject({
        method: "POST",
        url: "/v1/sessions/anonymous",
        remoteAddress: ip,
        payload: { store_public_key: publicKey },
      });
    }
    const limited = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: ip,
      headers: { origin: SHOP },
      payload: { store_public_key: publicKey },
    });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().code, "RATE_LIMITED");
    assert.equal(limited.headers["access-control-allow-origin"], "*");
    assert.match(String(limited.headers["retry-after"]), /^\d+$/);
  });

  test("admin routes, docs and health get no CORS headers; their preflights are 404", async () => {
    const preflight = await t.assistant.inject({
      method: "OPTIONS",
      url: "/v1/admin/public-keys",
      headers: { origin: SHOP, "access-control-request-method": "POST", "access-control-request-headers": "authorization" },
    });
    assert.equal(preflight.statusCode, 404);
    assert.equal(preflight.headers["access-control-allow-origin"], undefined);
    assert.equal(preflight.headers["access-control-allow-headers"], undefined);

    const list = await t.assistant.inject({ method: "GET", url: "/v1/admin/public-keys", headers: { ...bearer(owner), origin: SHOP } });
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.headers["access-control-allow-origin"], undefined, "a dashboard token is not usable from a foreign page");

    for (const url of ["/health", "/openapi.json"]) {
      const res = await t.assistant.inject({ method: "GET", url, headers: { origin: SHOP } });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers["access-control-allow-origin"], undefined, url);
    }
  });

  test("the Search API is untouched: no CORS on its routes from the assistant's policy", async () => {
    const res = await t.search.inject({
      method: "OPTIONS",
      url: "/v1/chat/sessions",
      headers: { origin: SHOP, "access-control-request-method": "POST" },
    });
    assert.equal(res.headers["access-control-allow-origin"], undefined);
  });
});
