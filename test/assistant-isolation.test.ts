// The Assistant API isolation sweep: every /v1/* route of the Assistant API (enumerated from the
// app's route registry, so new routes are swept automatically) is called with store B's
// credentials — a shopper session, a signed-in customer session, B's owner dashboard session and
// that dashboard session naming store A in X-Service-Active-Tenant — and store A's ids (thread,
// intent, public key, connection, policy concept). For each request:
//   - store A's rows in every table with a store_id are byte-for-byte unchanged;
//   - the response carries none of A's private markers;
//   - a path or body naming one of A's ids answers 403, 404 or 409 (never A's data);
//   - B's owner naming A's slug gets 403 on every admin route.
// Extend FIXTURES when adding routes whose parameters or bodies name ids.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "./support/harness.js";
import { snapshot, tablesWithStoreId } from "./support/store-snapshot.js";
import { bearer, freshIp } from "./support/factories.js";
import { anonymousSession, chatShop, customerSession, openThread, putCatalogProduct, putPolicy, putSettings } from "./support/chat.js";
import { startStorefront, fakeProduct, type StorefrontServer } from "./support/storefront-server.js";
import { routesOf } from "../src/tenancy/authenticate.js";

interface StoreA {
  slug: string;
  ids: Record<string, string>;
  markers: string[];
}

interface Fixture {
  url?: (a: StoreA) => string;
  payload?: (a: StoreA) => object;
  /** True when the request names one of A's ids (then only 403/404/409 are acceptable). */
  namesA?: boolean;
}

/** "METHOD /pattern" → how to call it with A's ids. Routes absent here are called with `{}`. */
const FIXTURES: Record<string, Fixture> = {
  "PUT /v1/admin/policies/:concept_id": {
    url: (a) => `/v1/admin/policies/${a.ids.concept}`,
    payload: () => ({ handle: "bravo-returns", title: "B", body_markdown: "B's own text.", locale: "en", published: true }),
  },
  // B's token on A's concept id: 404, or B's own versions once the PUT above gave B one (never A's).
  "GET /v1/admin/policies/:concept_id/versions": { url: (a) => `/v1/admin/policies/${a.ids.concept}/versions` },
  "DELETE /v1/admin/public-keys/:id": { url: (a) => `/v1/admin/public-keys/${a.ids.publicKey}`, namesA: true },
  "DELETE /v1/admin/connections/:id": { url: (a) => `/v1/admin/connections/${a.ids.connection}`, namesA: true },
  "POST /v1/admin/connections/storefront/token": {
    payload: (a) => ({ connection_id: a.ids.connection, private_token: "bravo-token-0123456789", reason: "sweep" }),
    namesA: true,
  },
  "POST /v1/admin/connections/storefront": { payload: () => ({ store_url: "http://127.0.0.1:9/", reason: "sweep" }) },
  "POST /v1/admin/public-keys": { payload: () => ({ name: "sweep" }) },
  "PUT /v1/admin/settings": { payload: () => ({ currency: "EUR", support_contact: { email: "bravo-help@example.com" } }) },
  "POST /v1/admin/exchange-secret": { payload: () => ({ reason: "sweep" }) },
  "GET /v1/chat/sessions/:thread_id": { url: (a) => `/v1/chat/sessions/${a.ids.thread}`, namesA: true },
  "GET /v1/chat/sessions/:thread_id/events": { url: (a) => `/v1/chat/sessions/${a.ids.thread}/events?after=0`, namesA: true },
  "POST /v1/chat/messages": { payload: (a) => ({ thread_id: a.ids.thread, text: "What is the ALPHA returns policy?" }), namesA: true },
  "POST /v1/chat/messages/stream": {
    payload: (a) => ({ thread_id: a.ids.thread, text: "What is the ALPHA returns policy?" }),
    namesA: true,
  },
  "POST /v1/chat/actions/confirm": { payload: (a) => ({ thread_id: a.ids.thread, intent_id: a.ids.intent }), namesA: true },
  "POST /v1/chat/actions/cancel": { payload: (a) => ({ thread_id: a.ids.thread, intent_id: a.ids.intent }), namesA: true },
  "GET /v1/catalog/search": { url: () => "/v1/catalog/search?q=alphadress&limit=5" },
  "POST /v1/chat/sessions": { payload: () => ({ locale: "en" }) },
  // Minting and exchange take no bearer: swept with B's own key / a forged assertion naming A.
  "POST /v1/sessions/anonymous": { payload: () => ({ store_public_key: "store_pub_not-a-key-of-anyone" }) },
  "POST /v1/sessions/exchange": { payload: () => ({ assertion: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJl" }) },
  // Revoking B's own session would end the sweep's credential: swept last, see below.
  "POST /v1/sessions/revoke": { payload: () => ({ reason: "sweep" }) },
};

const STANDARD = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

describeEachDialect("assistant isolation sweep: every Assistant /v1/* route against another store's sessions and ids", (dialect) => {
  let t: TestApp;
  let storefront: StorefrontServer;
  before(async () => {
    t = await createTestApp({ dialect });
    storefront = await startStorefront({ token: "alpha-storefront-token-1234", shop: { name: "ALPHA STOREFRONT", currency: "EUR" } });
    storefront.products = [fakeProduct(1, "Alpha rain jacket", "89.90")];
  });
  after(async () => {
    await storefront.close();
    await t.close();
  });

  test("store B's sessions and dashboard never read or change store A through any Assistant route", async (ctx) => {
    // --- store A: policies, settings, a product, a storefront connection, a thread with a pending intent.
    const a = await chatShop(t);
    await putSettings(t, a, { currency: "EUR", support_contact: { email: "alpha-help@example.com" } });
    await putPolicy(t, a, "alpha-returns", {
      handle: "alpha-returns",
      title: "ALPHA RETURNS TITLE",
      body_markdown: "Returns are accepted within 30 days. ALPHA-POLICY-TEXT.",
    });
    await putCatalogProduct(t, a.storeId, "alphadress", { name: "Alphadress crimson", price: 49.5, inventory_quantity: 7 });
    const conn = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/connections/storefront",
      headers: bearer(a.owner),
      payload: { store_url: storefront.url, private_token: "alpha-storefront-token-1234", reason: "ALPHA-REASON" },
    });
    assert.equal(conn.statusCode, 201, conn.body);
    const shopperA = await anonymousSession(t, a);
    const threadA = await openThread(t, shopperA);
    const turn = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(shopperA),
      payload: { thread_id: threadA, text: "Add the alpha rain jacket to my cart" },
    });
    assert.equal(turn.statusCode, 200, turn.body);
    const proposal = turn.json() as { outcome: string; answer: { next_actions: Array<{ type: string; intent_id?: string }> } };
    assert.equal(proposal.outcome, "confirmation_required", turn.body);
    const intent = proposal.answer.next_actions.find((n) => n.type === "confirm")?.intent_id;
    assert.match(String(intent), /^int_/);
    const keys = await t.assistant.inject({ method: "GET", url: "/v1/admin/public-keys", headers: bearer(a.owner) });
    const A: StoreA = {
      slug: a.store.slug,
      ids: {
        concept: "alpha-returns",
        publicKey:
          (keys.json() as { public_keys?: Array<{ id: string }>; keys?: Array<{ id: string }> }).public_keys?.[0]?.id ??
          (keys.json() as { keys: Array<{ id: string }> }).keys[0]!.id,
        connection: (conn.json() as { connection_id: string }).connection_id,
        thread: threadA,
        intent: intent!,
      },
      markers: [
        a.storeId,
        a.store.email,
        "alpha-help@example.com",
        "ALPHA RETURNS TITLE",
        "ALPHA-POLICY-TEXT",
        "ALPHA-REASON",
        "ALPHA STOREFRONT",
        "Alphadress",
        "alpha-storefront-token-1234",
        a.publicKey,
      ],
    };
    assert.match(A.ids.publicKey!, /\S/);

    // --- store B's credentials
    const b = await chatShop(t);
    const credentials = [
      { name: "B shopper", headers: bearer(await anonymousSession(t, b)), foreignTenant: false },
      { name: "B customer", headers: bearer(await customerSession(t, b, "bravo-customer")), foreignTenant: false },
      { name: "B owner", headers: bearer(b.owner), foreignTenant: false },
      { name: "B owner naming A", headers: { ...bearer(b.owner), "X-Service-Active-Tenant": A.slug }, foreignTenant: true },
    ];

    const tables = await tablesWithStoreId(t);
    assert.ok(tables.includes("assistant_sessions") && tables.includes("assistant_intents"), `tables: ${tables.join(", ")}`);
    const routes = routesOf(t.assistant).filter((r) => r.url.startsWith("/v1/") && STANDARD.has(r.method));
    assert.ok(routes.length >= 20, `swept ${routes.length} routes`);
    // Revocation ends the credential it is sent with: sweep it after every other route.
    routes.sort((x, y) => Number(x.url === "/v1/sessions/revoke") - Number(y.url === "/v1/sessions/revoke"));
    const unfixed = routes.filter((r) => r.url.includes(":") && !FIXTURES[`${r.method} ${r.url}`]).map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(unfixed, [], "every route with a path parameter needs a fixture naming A's id");

    const failures: string[] = [];
    let requests = 0;
    const before = await snapshot(t, tables, a.storeId);
    for (const route of routes) {
      const fixture = FIXTURES[`${route.method} ${route.url}`] ?? {};
      const url = fixture.url?.(A) ?? route.url;
      for (const cred of credentials) {
        const payload = fixture.payload?.(A) ?? (route.method === "GET" || route.method === "DELETE" ? undefined : {});
        const res = await t.assistant.inject({
          method: route.method as "GET",
          url,
          headers: cred.headers,
          remoteAddress: freshIp(),
          ...(payload === undefined ? {} : { payload }),
        });
        requests += 1;
        const where = `${cred.name} ${route.method} ${url} → ${res.statusCode}`;
        for (const marker of A.markers) if (res.body.includes(marker)) failures.push(`${where}: response leaks "${marker}"`);
        if (fixture.namesA && ![401, 403, 404, 409].includes(res.statusCode))
          failures.push(`${where}: expected 403/404/409 for A's id (${res.body.slice(0, 200)})`);
        if (cred.foreignTenant && route.url.startsWith("/v1/admin/") && res.statusCode !== 403)
          failures.push(`${where}: expected 403 naming A's slug`);
        if (res.statusCode >= 500) failures.push(`${where}: server error ${res.body.slice(0, 200)}`);
      }
    }
    const afterSweep = await snapshot(t, tables, a.storeId);
    if (afterSweep !== before) failures.push("store A's rows changed during the sweep");
    ctx.diagnostic(`swept ${routes.length} routes with ${requests} requests over ${tables.length} store tables`);
    assert.deepEqual(failures, [], failures.join("\n"));

    // A still works: its intent is still pending and confirmable by A only.
    const confirm = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/actions/confirm",
      headers: bearer(shopperA),
      payload: { thread_id: threadA, intent_id: intent },
    });
    assert.equal(confirm.statusCode, 200, confirm.body);
  });
});
