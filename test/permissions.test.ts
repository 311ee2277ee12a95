// The permission matrix over every permission-gated route (each role, a custom group, the machine
// grant and API keys × each route), and the fail-closed rule for API keys on routes that declare
// no permission. Add new gated routes to `gatedRoutes` (see test/support/permission-matrix.ts).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "./support/harness.js";
import { bearer, loginToken } from "./support/factories.js";
import { addMember, createApiKey, createGroup, storeWithRoles, type StoreWithRoles } from "./support/members.js";
import { checkPermissionMatrix, type GatedRoute } from "./support/permission-matrix.js";
import { routesOf } from "../src/tenancy/authenticate.js";
import { API_KEY_PERMISSIONS, permissionsToScopes } from "../src/tenancy/permissions.js";

let n = 0;
const email = (label: string) => `${label}-${Date.now().toString(36)}-${(n += 1)}@example.com`;

/** Fixtures in the store, then the gated routes with payloads that pass validation. */
async function gatedRoutes(t: TestApp, s: StoreWithRoles): Promise<GatedRoute[]> {
  const owner = s.members.owner.token;
  const post = async (url: string, payload: object, headers: Record<string, string> = {}) => {
    const res = await t.search.inject({ method: "POST", url, headers: { ...bearer(owner), ...headers }, payload });
    assert.ok(res.statusCode < 300, `${url}: ${res.body}`);
    return res.json();
  };
  // The loopback range first: the matrix's machine grant and API keys come from 127.0.0.1.
  await post("/v1/security/ip-whitelist", { ip_address: "127.0.0.0/8", description: "tests" });
  const entry = await post("/v1/security/ip-whitelist", { ip_address: "10.9.8.7", description: "to delete" });
  const key = await createApiKey(t, owner, { products: ["read"] }, { name: "to revoke" });
  const invite = await post("/v1/team/invite", { email: email("cancel-me"), role: "viewer" }, { "X-Service-Active-Tenant": s.store.slug });
  const group = await createGroup(t, owner, ["products:read"]);
  const target = await addMember(t, owner, "viewer", { emailPrefix: "target" });
  const leaver = await addMember(t, owner, "viewer", { emailPrefix: "leaver" });
  const tenant = { "X-Service-Active-Tenant": s.store.slug };

  return [
    // security
    {
      method: "POST",
      url: "/v1/security/api-keys",
      permission: "security:write",
      payload: { name: "matrix", scopes: { products: ["read"] } },
    },
    { method: "GET", url: "/v1/security/api-keys", permission: "security:read" },
    { method: "DELETE", url: `/v1/security/api-keys/${key.id}`, permission: "security:write" },
    {
      method: "POST",
      url: "/v1/security/ip-whitelist",
      permission: "security:write",
      payload: { ip_address: "192.0.2.0/24", description: "m" },
    },
    { method: "GET", url: "/v1/security/ip-whitelist", permission: "security:read" },
    { method: "DELETE", url: `/v1/security/ip-whitelist/${entry.id}`, permission: "security:write" },
    { method: "GET", url: "/v1/security/overview", permission: "security:read" },
    // users and groups
    {
      method: "POST",
      url: "/v1/users",
      permission: "team:write",
      payload: { email: email("matrix"), password: "Matrix-pass-1", full_name: "M" },
    },
    { method: "GET", url: "/v1/users", permission: "team:read" },
    {
      method: "POST",
      url: "/v1/user-groups",
      permission: "team:write",
      payload: { name: "matrix group", permission_names: ["products:read"] },
    },
    { method: "GET", url: "/v1/user-groups", permission: "team:read" },
    { method: "GET", url: "/v1/user-groups/permissions", permission: "team:read" },
    { method: "DELETE", url: `/v1/user-groups/${group}`, permission: "team:write" },
    // team
    {
      method: "POST",
      url: "/v1/team/invite",
      permission: "team:write",
      ownerOnly: true,
      headers: tenant,
      payload: { email: email("matrix-invite"), role: "viewer" },
    },
    { method: "GET", url: "/v1/team/invites", permission: "team:read" },
    { method: "DELETE", url: `/v1/team/invites/${invite.invite_id}`, permission: "team:write", ownerOnly: true },
    { method: "GET", url: "/v1/team/members", permission: "team:read" },
    { method: "PATCH", url: `/v1/team/members/${target.id}`, permission: "team:write", payload: { group_ids: [] } },
    { method: "DELETE", url: `/v1/team/members/${leaver.id}`, permission: "team:write" },
    // products, jobs, webhooks (image URLs on loopback port 9 fail fast: the call is allowed, the download is not)
    { method: "GET", url: "/v1/products?limit=5", permission: "products:read" },
    { method: "GET", url: "/v1/products/matrix-none", permission: "products:read" },
    {
      method: "POST",
      url: "/v1/products",
      permission: "products:write",
      payload: { product_id: "matrix-1", image_url: "http://127.0.0.1:9/x.png" },
    },
    { method: "PUT", url: "/v1/products/matrix-none", permission: "products:write", payload: { metadata: { name: "m" } } },
    { method: "DELETE", url: "/v1/products/matrix-none", permission: "products:delete" },
    {
      method: "POST",
      url: "/v1/products/bulk",
      permission: "products:bulk",
      payload: { products: [{ product_id: "matrix-2", image_url: "http://127.0.0.1:9/x.png" }] },
    },
    { method: "POST", url: "/v1/products/demo", permission: "products:write" },
    { method: "GET", url: "/v1/jobs/job_does_not_exist", permission: "products:bulk" },
    { method: "GET", url: "/v1/search/webhooks", permission: "webhooks:read" },
    {
      method: "POST",
      url: "/v1/search/webhooks",
      permission: "webhooks:write",
      payload: { url: "https://hooks.example.com/m", events: ["product.indexed"], secret: "matrix-secret-0123456789" },
    },
    // search, feedback, analytics, widget keys
    { method: "POST", url: "/v1/search/text", permission: "search:execute", payload: { query: "red" } },
    { method: "POST", url: "/v1/search/batch", permission: "search:execute", payload: { queries: [{ type: "text", query: "red" }] } },
    { method: "POST", url: "/v1/search/feedback", permission: "search:write", payload: { result_product_id: "matrix-1", action: "click" } },
    { method: "GET", url: "/v1/search/analytics", permission: "analytics:read" },
    { method: "GET", url: "/v1/search/feedback/popular", permission: "search:read" },
    { method: "GET", url: "/v1/search/suggestions", permission: "search:read" },
    // merchandising rules (a second allowed caller's POST is 409: allowed all the same)
    { method: "GET", url: "/v1/search/rules", permission: "search:read" },
    {
      method: "POST",
      url: "/v1/search/rules",
      permission: "products:write",
      payload: { match: "exact", query: "matrix", hide: ["matrix-1"] },
    },
    { method: "GET", url: "/v1/widget/keys", permission: "widget:read" },
  ];
}

describeEachDialect("permissions: matrix over gated routes", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect });
  });
  after(() => t.close());

  test("each role, a custom group, the machine grant and API keys are allowed or refused as the catalogue says", async () => {
    const s = await storeWithRoles(t);
    const routes = await gatedRoutes(t, s);
    const gated = routesOf(t.search);
    for (const r of routes) {
      const path = r.url.split("?")[0]!;
      const match = gated.find((g) => g.method === r.method && new RegExp(`^${g.url.replace(/:[^/]+/g, "[^/]+")}$`).test(path));
      assert.ok(match, `${r.method} ${r.url} is a registered route`);
      assert.equal(match.permission, r.permission, `${r.method} ${match.url} declares ${r.permission}`);
    }
    const report = await checkPermissionMatrix(t, s, routes);
    assert.ok(report.checked >= routes.length * 7, `checked ${report.checked} cases`);
  });

  test("API keys are refused on store routes that declare no permission (fail closed)", async (ctx) => {
    const s = await storeWithRoles(t);
    const everything = await createApiKey(t, s.machine, permissionsToScopes(API_KEY_PERMISSIONS));
    const ungated = routesOf(t.search).filter((r) => r.auth === "store" && r.url.startsWith("/v1/") && !r.permission);
    ctx.diagnostic(`store routes without a permission: ${ungated.map((r) => `${r.method} ${r.url}`).join(", ")}`);
    assert.ok(
      ungated.some((r) => r.url === "/v1/security/client-secret/rotate"),
      "the role-gated rotation is among them",
    );
    for (const r of ungated) {
      const res = await t.search.inject({
        method: r.method as "GET",
        url: r.url.replace(/:([^/]+)/g, "x"),
        headers: bearer(everything.key),
      });
      assert.equal(res.statusCode, 403, `${r.method} ${r.url}: ${res.body}`);
      assert.equal(res.json().error, "forbidden", `${r.method} ${r.url}`);
    }
  });

  test("a super admin passes every permission check in any store", async () => {
    const s = await storeWithRoles(t);
    const rootEmail = email("root");
    await t.services.accounts.createSuperAdmin(rootEmail, "Root-password-1");
    const root = await loginToken(t.search, rootEmail, "Root-password-1");
    const headers = { ...bearer(root), "X-Service-Active-Tenant": s.store.slug };
    for (const url of ["/v1/security/overview", "/v1/users", "/v1/user-groups/permissions", "/v1/team/invites"]) {
      const res = await t.search.inject({ method: "GET", url, headers });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
    const group = await t.search.inject({
      method: "POST",
      url: "/v1/user-groups",
      headers,
      payload: { name: "root-made", permission_names: ["billing:write", "security:write"] },
    });
    assert.equal(group.statusCode, 201);
  });
});
