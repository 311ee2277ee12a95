// The Search API's side of a new store's first hour (the browser flow is in
// test/e2e/portal-first-hour.test.ts): GET / for browsers and JSON clients, the verify link's
// browser landing, stored product images for the playground, the chat component and CSP for the
// portal's Assistant section, the Assistant API's CORS grant to the portal origin only, and
// self-host billing (BILLING_MODE=off, DEFAULT_PLAN).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, loginToken, machineToken, registerStore, verificationTokenFor } from "../../../test/support/factories.js";

const BROWSER = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
const PORTAL = "https://portal.example.com";
const CHAT = "https://chat.example.com";

describeEachDialect("first hour: links, verify landing, product images, the portal's assistant access", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect, model: true, env: { PUBLIC_BASE_URL: PORTAL, CHAT_PUBLIC_BASE_URL: CHAT } });
  });
  after(() => t.close());

  test("GET / redirects a browser to the portal and gives other clients a JSON index of links", async () => {
    const browser = await t.search.inject({ method: "GET", url: "/", headers: BROWSER });
    assert.equal(browser.statusCode, 302);
    assert.equal(browser.headers.location, "/portal");
    for (const accept of [undefined, "*/*", "application/json", "application/json, text/html;q=0.5"]) {
      const res = await t.search.inject({ method: "GET", url: "/", headers: accept ? { accept } : {} });
      assert.equal(res.statusCode, 200, String(accept));
      assert.deepEqual(res.json(), {
        name: "Shopsight Search API",
        portal: `${PORTAL}/portal`,
        sign_up: `${PORTAL}/portal/register`,
        docs: `${PORTAL}/docs`,
        openapi: `${PORTAL}/openapi.json`,
        search_api: PORTAL,
        assistant_api: CHAT,
        assistant_docs: `${CHAT}/docs`,
        health: `${PORTAL}/health`,
      });
    }
  });

  test("/verify from a browser lands on the portal page without using the token; API clients still get JSON", async () => {
    const store = await registerStore(t, { verify: false });
    const token = verificationTokenFor(t, store.email);
    const browser = await t.search.inject({ method: "GET", url: `/verify?token=${encodeURIComponent(token)}`, headers: BROWSER });
    assert.equal(browser.statusCode, 302);
    assert.equal(browser.headers.location, `/portal/verify?token=${encodeURIComponent(token)}`);
    const page = await t.search.inject({ method: "GET", url: String(browser.headers.location), headers: BROWSER });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<div id="app">/);
    // The portal page calls the same route as JSON (fetch sends Accept: application/json).
    const json = await t.search.inject({
      method: "GET",
      url: `/verify?token=${encodeURIComponent(token)}`,
      headers: { accept: "application/json" },
    });
    assert.equal(json.statusCode, 200, json.body);
    assert.equal(json.json().status, "active");
    assert.match(json.json().client_secret, /^cs_/);
    const reused = await t.search.inject({ method: "GET", url: `/verify?token=${encodeURIComponent(token)}` });
    assert.equal(reused.statusCode, 400);
    assert.equal(reused.json().error, "invalid_verification_token");
  });

  test("GET /v1/products/{id}/image answers the stored image to members of the store only", async () => {
    const store = await registerStore(t);
    const other = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const installed = await t.search.inject({ method: "POST", url: "/v1/products/demo", headers: bearer(owner) });
    assert.equal(installed.statusCode, 200, installed.body);
    const url = "/v1/products/demo-dress-pink/image";
    const res = await t.search.inject({ method: "GET", url, headers: bearer(owner) });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers["content-type"]), /^image\/(png|jpeg|webp)/);
    assert.ok(res.rawPayload.length > 100);
    assert.equal(res.headers["cache-control"], "private, max-age=300");
    const again = await t.search.inject({ method: "GET", url, headers: { ...bearer(owner), "if-none-match": String(res.headers.etag) } });
    assert.equal(again.statusCode, 304);
    // A machine grant of the store reads it too (products:read).
    assert.equal((await t.search.inject({ method: "GET", url, headers: bearer(await machineToken(t.search, store)) })).statusCode, 200);
    // Another store's token never reaches it, nor does an anonymous call.
    const foreign = await t.search.inject({ method: "GET", url, headers: bearer(await machineToken(t.search, other)) });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await t.search.inject({ method: "GET", url })).statusCode, 401);
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/products/nope/image", headers: bearer(owner) })).statusCode, 404);
    assert.ok((await t.search.inject({ method: "GET", url: "/openapi.json" })).json().paths["/v1/products/{product_id}/image"]);
  });

  test("the portal may reach the Assistant API: its CSP connects there, and the chat component is served from the portal's origin", async () => {
    const page = await t.search.inject({ method: "GET", url: "/portal" });
    assert.match(String(page.headers["content-security-policy"]), new RegExp(`connect-src 'self' ${CHAT}(;|$)`));
    assert.match(String(page.headers["content-security-policy"]), /script-src 'self';/);
    for (const file of ["index.js", "markdown.js", "sse.js", "strings.js"]) {
      const res = await t.search.inject({ method: "GET", url: `/portal/chat/${file}` });
      assert.equal(res.statusCode, 200, file);
      assert.match(String(res.headers["content-type"]), /^text\/javascript/);
    }
    assert.match((await t.search.inject({ method: "GET", url: "/portal/chat/index.js" })).body, /commerce-ai-chat/);
    assert.equal((await t.search.inject({ method: "GET", url: "/portal/chat/other.js" })).statusCode, 404);
  });

  test("the Assistant API grants CORS on its admin routes to the portal's origin only", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const preflight = await t.assistant.inject({
      method: "OPTIONS",
      url: "/v1/admin/policies/returns",
      headers: {
        origin: PORTAL,
        "access-control-request-method": "PUT",
        "access-control-request-headers": "authorization,content-type,x-service-active-tenant",
      },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers["access-control-allow-origin"], PORTAL);
    assert.match(String(preflight.headers["access-control-allow-headers"]), /X-Service-Active-Tenant/i);
    assert.equal(preflight.headers["access-control-allow-credentials"], undefined);
    const list = await t.assistant.inject({ method: "GET", url: "/v1/admin/policies", headers: { ...bearer(owner), origin: PORTAL } });
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.headers["access-control-allow-origin"], PORTAL);
    const foreign = await t.assistant.inject({
      method: "GET",
      url: "/v1/admin/policies",
      headers: { ...bearer(owner), origin: "https://evil.example" },
    });
    assert.equal(foreign.headers["access-control-allow-origin"], undefined);
    const foreignPreflight = await t.assistant.inject({
      method: "OPTIONS",
      url: "/v1/admin/policies",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    assert.equal(foreignPreflight.statusCode, 404);
  });

  test("API keys cannot carry connector:write:store (the assistant's admin routes take a user login only)", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const perms = await t.search.inject({ method: "GET", url: "/v1/user-groups/permissions", headers: bearer(owner) });
    assert.equal(perms.json().find((p: { name: string }) => p.name === "connector:write:store").api_key_scope, false);
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/security/api-keys",
      headers: bearer(owner),
      payload: { name: "k", scopes: { connector: ["write:store"] } },
    });
    assert.equal(res.statusCode, 400, res.body);
  });
});

describeEachDialect("self-host billing: BILLING_MODE=off and DEFAULT_PLAN", (dialect) => {
  let off: TestApp;
  let on: TestApp;
  before(async () => {
    off = await createTestApp({ dialect, env: { BILLING_MODE: "off" } });
    on = await createTestApp({ dialect, env: { DEFAULT_PLAN: "basic" } });
  });
  after(async () => {
    await off.close();
    await on.close();
  });

  const register = async (t: TestApp) => {
    const res = await t.search.inject({
      method: "POST",
      url: "/register",
      payload: { client_name: "Self Host", email: `self-${Math.random().toString(36).slice(2)}@example.com`, password: "Correct-horse-42" },
    });
    assert.equal(res.statusCode, 201, res.body);
    const row = await t.ctx.database.db
      .selectFrom("stores")
      .select("plan")
      .where("id", "=", res.json().client_id)
      .executeTakeFirstOrThrow();
    return row.plan;
  };

  test("with billing off a new store starts on enterprise (no limits), nothing is purchasable and checkout names the setting", async () => {
    assert.equal(await register(off), "enterprise");
    assert.deepEqual((await off.search.inject({ method: "GET", url: "/v1/billing/mode" })).json(), {
      billing_enabled: false,
      checkout: "off",
      default_plan: "enterprise",
    });
    const plans = (await off.search.inject({ method: "GET", url: "/v1/billing/plans" })).json().plans as { purchasable: boolean }[];
    assert.deepEqual(
      plans.map((p) => p.purchasable),
      [false, false, false, false],
    );
    const store = await registerStore(off, { plan: "free" });
    const owner = await loginToken(off.search, store.email, store.password);
    const checkout = await off.search.inject({
      method: "POST",
      url: "/v1/billing/checkout",
      headers: bearer(owner),
      payload: { plan_name: "premium" },
    });
    assert.equal(checkout.statusCode, 409, checkout.body);
    assert.equal(checkout.json().error, "billing_disabled");
    assert.match(checkout.json().message, /BILLING_MODE=off/);
  });

  test("with billing on, DEFAULT_PLAN picks the plan of new stores and the mode says so", async () => {
    assert.equal(await register(on), "basic");
    assert.deepEqual((await on.search.inject({ method: "GET", url: "/v1/billing/mode" })).json(), {
      billing_enabled: true,
      checkout: "local",
      default_plan: "basic",
    });
  });
});
