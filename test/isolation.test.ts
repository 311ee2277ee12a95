// The isolation sweep: for every /v1/* route of the Search API (enumerated from the app's route
// registry, so new routes are swept automatically), store B's credentials — its machine grant,
// an API key with every key scope, its owner's login, and that login naming store A in
// X-Service-Active-Tenant — are sent with store A's ids. For each request:
//   - store A's rows (every table with a store_id, A's store row, A's members' user rows) are
//     byte-for-byte unchanged;
//   - the response carries none of A's private markers (ids, e-mails, names B never sent);
//   - a path naming one of A's ids answers 403, 404 or 410;
//   - B's owner naming A's slug gets 403 on every store route.
// Extend PARAM_FIXTURES (path parameter → A's id) and PAYLOADS when adding routes: a path
// parameter without a fixture is swept with an id that exists nowhere and reported as a
// diagnostic ("weakly swept").
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "./support/harness.js";
import { snapshot, tablesWithStoreId } from "./support/store-snapshot.js";
import { bearer, loginToken, machineToken, registerStore } from "./support/factories.js";
import { addMember, createApiKey, createGroup } from "./support/members.js";
import { routesOf } from "../src/tenancy/authenticate.js";
import { API_KEY_PERMISSIONS, permissionsToScopes } from "../src/tenancy/permissions.js";
import { solidImage } from "./support/servers.js";

interface StoreA {
  clientId: string;
  slug: string;
  ids: Record<string, string>;
  /** Strings only A's data contains; B's responses must never include them. */
  markers: string[];
}

/** Path parameter → A's id of that kind. */
const PARAM_FIXTURES: Record<string, (a: StoreA) => string> = {
  key_id: (a) => a.ids.key!,
  entry_id: (a) => a.ids.entry!,
  invite_id: (a) => a.ids.invite!,
  group_id: (a) => a.ids.group!,
  user_id: (a) => a.ids.member!,
  webhook_id: (a) => a.ids.webhook!,
  widget_key_id: (a) => a.ids.widgetKey!,
  rule_id: (a) => a.ids.rule!,
  product_id: (a) => a.ids.product!,
  job_id: (a) => a.ids.job!,
  slug: (a) => a.slug,
  "*": () => "invite",
};

/** "METHOD /url/pattern" → body that passes validation (and, where the body names ids, A's ids). */
const PAYLOADS: Record<string, (a: StoreA) => object> = {
  "POST /v1/users": (a) => ({ email: "sweep-new@example.com", password: "Sweep-pass-123", full_name: "S", group_ids: [a.ids.group!] }),
  "PATCH /v1/team/members/:user_id": (a) => ({ role: "viewer", group_ids: [a.ids.group!] }),
  "POST /v1/team/invite": () => ({ email: "sweep-invitee@example.com", role: "owner" }),
  "POST /v1/team/invites/accept": () => ({ token: "sweep-token-that-is-nobodys", password: "Sweep-pass-123", full_name: "S" }),
  "POST /v1/security/ip-whitelist": () => ({ ip_address: "127.0.0.0/8", description: "sweep" }),
  "POST /v1/security/api-keys": () => ({ name: "sweep", scopes: { products: ["read"] } }),
  "POST /v1/user-groups": () => ({ name: "sweep group", permission_names: ["products:read"] }),
  "POST /v1/security/2fa/enable": () => ({ totp_code: "123456" }),
  "POST /v1/security/2fa/disable": () => ({ totp_code: "123456" }),
  "POST /v1/widget/keys": () => ({ name: "sweep", allowed_origins: ["https://sweep.example.com"] }),
  "PATCH /v1/widget/keys/:widget_key_id": () => ({ name: "sweep" }),
  "POST /v1/search/webhooks": () => ({
    url: "https://hooks.example.com/sweep",
    events: ["product.indexed"],
    secret: "sweep-secret-0123456789",
  }),
  // Port 9 on loopback refuses connections: image downloads fail fast and locally.
  "POST /v1/products": (a) => ({ product_id: a.ids.product!, image_url: "http://127.0.0.1:9/x.png" }),
  "PUT /v1/products/:product_id": () => ({ metadata: { name: "sweep" } }),
  "POST /v1/products/bulk": (a) => ({ products: [{ product_id: a.ids.product!, image_url: "http://127.0.0.1:9/x.png" }] }),
  // A's product by id: another store's job must count it not found and leave it in place.
  "POST /v1/products/bulk-delete": (a) => ({ ids: [a.ids.product!] }),
  "POST /v1/products/bulk-update": (a) => ({ ids: [a.ids.product!], set: { brand: "sweep" } }),
  "POST /v1/search/text": () => ({ query: "alpha product" }),
  "POST /v1/search/hybrid": () => ({ query: "alpha product" }),
  "POST /v1/search/filtered": () => ({ query: "alpha product", filters: [{ field: "name", operator: "contains", value: "ALPHA" }] }),
  "POST /v1/search/batch": () => ({ queries: [{ type: "text", query: "alpha product" }] }),
  "POST /v1/search/feedback": (a) => ({ result_product_id: a.ids.product!, action: "click" }),
  // The same condition as A's rule (uniqueness is per store), pinning A's product.
  "POST /v1/search/rules": (a) => ({ match: "exact", query: "alpha product", pins: [{ product_id: a.ids.product!, position: 1 }] }),
  "PUT /v1/search/rules/:rule_id": (a) => ({ match: "exact", query: "alpha product", hide: [a.ids.product!] }),
  "POST /v1/billing/checkout": () => ({ plan_name: "basic" }),
  "PUT /v1/admin/stores/:slug/plan": () => ({ plan_name: "premium" }),
};

const STANDARD = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

describeEachDialect("isolation sweep: every /v1/* route against another store's credentials and ids", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect, model: true });
  });
  after(() => t.close());

  test("store B's token, key and login never read or change store A through any /v1/* route", async (ctx) => {
    // --- store A and its data, every name carrying a marker
    const a = await registerStore(t, { name: "Alpha Isolation Store" });
    const ownerA = await loginToken(t.search, a.email, a.password);
    const machineA = await machineToken(t.search, a);
    const member = await addMember(t, ownerA, "developer", { emailPrefix: "alpha-member" });
    const key = await createApiKey(t, machineA, { products: ["read"] }, { name: "ALPHA-KEY-NAME" });
    const entry = await t.search.inject({
      method: "POST",
      url: "/v1/security/ip-whitelist",
      headers: bearer(ownerA),
      payload: { ip_address: "198.18.0.0/15", description: "ALPHA-NOTE" },
    });
    assert.equal(entry.statusCode, 201, entry.body);
    const invite = await t.search.inject({
      method: "POST",
      url: "/v1/team/invite",
      headers: { ...bearer(ownerA), "X-Service-Active-Tenant": a.slug },
      payload: { email: "alpha-invitee@example.com", role: "admin" },
    });
    assert.equal(invite.statusCode, 201, invite.body);
    const group = await createGroup(t, ownerA, ["products:read"], "ALPHA-GROUP");
    const webhook = await t.search.inject({
      method: "POST",
      url: "/v1/search/webhooks",
      headers: bearer(ownerA),
      payload: { url: "https://alpha-hooks.example.com/in", events: ["product.indexed"], secret: "alpha-secret-0123456789" },
    });
    const widget = await t.search.inject({
      method: "POST",
      url: "/v1/widget/keys",
      headers: bearer(ownerA),
      payload: { name: "ALPHA-WIDGET", allowed_origins: ["https://alpha-shop.example.com"] },
    });
    // A product (indexed through the real write path) and a bulk job.
    const image = await t.ctx.images.fromBytes(await solidImage("#aa2244"));
    const [vector] = await t.ctx.images.embed([image.decoded]);
    await t.services.products.write(a.clientId, {
      productId: "alpha-product",
      imageUrl: "https://alpha-cdn.example.com/p.png",
      metadata: { name: "ALPHA-PRODUCT" },
      embedded: { image, vector: vector! },
    });
    // A merchandising rule for the sweep's own search text: B's searches must neither meet it nor count its hits.
    const rule = await t.search.inject({
      method: "POST",
      url: "/v1/search/rules",
      headers: bearer(ownerA),
      payload: {
        match: "exact",
        query: "alpha product",
        pins: [{ product_id: "alpha-product", position: 1 }],
        description: "ALPHA-RULE-NOTE",
      },
    });
    assert.equal(rule.statusCode, 201, rule.body);
    const job = await t.search.inject({
      method: "POST",
      url: "/v1/products/bulk",
      headers: bearer(ownerA), // A's allow-list refuses its machine grant from here
      payload: { products: [{ product_id: "alpha-bulk", image_url: "http://127.0.0.1:9/alpha.png" }] },
    });
    assert.equal(job.statusCode, 202, job.body);
    const A: StoreA = {
      clientId: a.clientId,
      slug: a.slug,
      ids: {
        key: key.id,
        entry: entry.json().id,
        invite: invite.json().invite_id,
        group,
        member: member.id,
        product: "alpha-product",
        job: job.json().job_id as string,
        ...(webhook.statusCode === 201 ? { webhook: webhook.json().id as string } : {}),
        ...(widget.statusCode === 201 ? { widgetKey: widget.json().id as string } : {}),
        rule: rule.json().id as string,
      },
      markers: [
        a.clientId,
        a.email,
        member.email,
        "alpha-invitee@example.com",
        "ALPHA-KEY-NAME",
        "ALPHA-NOTE",
        "ALPHA-GROUP",
        "alpha-hooks.example.com",
        "ALPHA-WIDGET",
        "ALPHA-RULE-NOTE",
        "alpha-shop.example.com",
        "ALPHA-PRODUCT",
        "alpha-cdn.example.com",
        key.key.slice(0, 16),
      ],
    };
    const ownIds = new Set(Object.values(A.ids));

    // --- store B's credentials
    const b = await registerStore(t, { name: "Bravo Isolation Store" });
    const machineB = await machineToken(t.search, b);
    const ownerB = await loginToken(t.search, b.email, b.password);
    const keyB = await createApiKey(t, machineB, permissionsToScopes(API_KEY_PERMISSIONS));
    const credentials: { name: string; headers: Record<string, string>; foreignTenant: boolean }[] = [
      { name: "B machine grant", headers: bearer(machineB), foreignTenant: false },
      { name: "B API key", headers: bearer(keyB.key), foreignTenant: false },
      { name: "B owner login", headers: bearer(ownerB), foreignTenant: false },
      { name: "B owner naming A", headers: { ...bearer(ownerB), "X-Service-Active-Tenant": a.slug }, foreignTenant: true },
    ];

    const tables = await tablesWithStoreId(t);
    assert.ok(tables.includes("api_keys") && tables.includes("memberships"), `tables: ${tables.join(", ")}`);
    const routes = routesOf(t.search).filter((r) => r.url.startsWith("/v1/") && STANDARD.has(r.method));
    assert.ok(routes.length >= 20, `swept ${routes.length} routes`);
    // Calls are metered in memory and flushed in batches (billing usage meter): write A's pending
    // counts from the set-up above now, so a flush during the sweep cannot look like B changing A.
    if (routes.some((r) => r.method === "GET" && r.url === "/v1/billing/usage")) {
      await t.search.inject({ method: "GET", url: "/v1/billing/usage", headers: bearer(machineB) });
    }
    const weak = new Set<string>();
    const failures: string[] = [];
    let requests = 0;
    let before = await snapshot(t, tables, a.clientId, { accounts: true });

    for (const route of routes) {
      let namesAnId = false;
      const url = route.url.replace(/:([A-Za-z0-9_]+)|\*/g, (match, name: string | undefined) => {
        const param = name ?? "*";
        const fixture = PARAM_FIXTURES[param];
        const value = fixture?.(A);
        if (!fixture || value === undefined) {
          weak.add(`${route.method} ${route.url} (:${param})`);
          return `zz-no-such-${param}`;
        }
        if (ownIds.has(value)) namesAnId = true;
        return match === "*" ? value : encodeURIComponent(value);
      });
      const payloadOf = PAYLOADS[`${route.method} ${route.url}`];
      for (const cred of credentials) {
        const res = await t.search.inject({
          method: route.method as "GET",
          url,
          headers: cred.headers,
          ...(payloadOf ? { payload: payloadOf(A) } : route.method === "GET" || route.method === "DELETE" ? {} : { payload: {} }),
        });
        requests += 1;
        // Rotating B's client secret revokes B's older machine tokens: the sweep goes on with a new one.
        if (route.url === "/v1/security/client-secret/rotate" && res.statusCode === 200) {
          const clientSecret = (res.json() as { client_secret: string }).client_secret;
          credentials[0]!.headers = bearer(await machineToken(t.search, { ...b, clientSecret }));
        }
        const where = `${cred.name} ${route.method} ${url} → ${res.statusCode}`;
        for (const marker of A.markers) if (res.body.includes(marker)) failures.push(`${where}: response leaks "${marker}"`);
        if (namesAnId && ![403, 404, 410].includes(res.statusCode))
          failures.push(`${where}: expected 403/404/410 for A's id (${res.body.slice(0, 200)})`);
        if (cred.foreignTenant && route.auth === "store" && res.statusCode !== 403) failures.push(`${where}: expected 403 naming A's slug`);
        const after = await snapshot(t, tables, a.clientId, { accounts: true });
        if (after !== before) {
          failures.push(`${where}: store A's data changed`);
          before = after;
        }
      }
    }
    if (weak.size > 0) ctx.diagnostic(`weakly swept (no A fixture for the parameter): ${[...weak].join("; ")}`);
    ctx.diagnostic(`swept ${routes.length} routes with ${requests} requests over ${tables.length} store tables`);
    assert.deepEqual(failures, [], failures.join("\n"));

    // A still works as before.
    const stillA = await t.search.inject({ method: "GET", url: "/v1/users", headers: bearer(ownerA) });
    assert.equal(stillA.statusCode, 200);
    assert.ok(stillA.body.includes(member.email));
  });
});
