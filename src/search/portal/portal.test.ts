// The portal's pages and files as served by the Search API (the browser flows are in
// test/e2e/portal.test.ts). The build is made once here when web/portal/dist is stale.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { registerStore } from "../../../test/support/factories.js";
import { ensurePortalBuilt, portalIsFresh, PORTAL_DIST } from "./build.js";

describeEachDialect("portal: pages and build files served by the Search API", (dialect) => {
  let t: TestApp;
  let asset: string;
  before(async () => {
    await ensurePortalBuilt();
    t = await createTestApp({ dialect });
    asset = fs.readdirSync(path.join(PORTAL_DIST, "assets")).find((f) => f.endsWith(".js"))!;
  });
  after(() => t.close());

  const get = (url: string) => t.search.inject({ method: "GET", url });

  test("the build is current: its stamp matches the sources", () => {
    assert.equal(portalIsFresh(), true);
  });

  test("every portal path answers the single-page app with a strict CSP and no caching", async () => {
    const store = await registerStore(t);
    for (const url of [
      "/portal",
      "/portal/",
      "/portal/login?next=%2Fadmin",
      "/portal/select-store",
      "/portal/accept-invite?token=abc",
      "/admin",
      "/admin/stores",
      `/${store.slug}/portal`,
      `/${store.slug}/portal/analytics`,
      "/any-slug-1/portal/billing",
    ]) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers["content-type"]), /^text\/html/, url);
      assert.match(res.body, /<div id="app">/, url);
      assert.match(res.body, new RegExp(`/portal/assets/${asset.replace(".", "\\.")}`), url);
      assert.equal(res.headers["cache-control"], "no-cache");
      assert.match(String(res.headers["content-security-policy"]), /script-src 'self'; .*connect-src 'self'.*frame-ancestors 'none'/);
      assert.equal(res.headers["x-frame-options"], "DENY");
    }
  });

  test("build files are served with long caching; missing files and paths outside the build are 404", async () => {
    const js = await get(`/portal/assets/${asset}`);
    assert.equal(js.statusCode, 200);
    assert.match(String(js.headers["content-type"]), /^text\/javascript/);
    assert.match(String(js.headers["cache-control"]), /immutable/);
    assert.equal((await get("/portal/favicon.svg")).statusCode, 200);
    for (const url of [
      "/portal/assets/nope.js",
      "/portal/.source-hash",
      "/portal/assets/..%2F..%2F..%2F..%2Fpackage.json",
      "/portal/../package.json",
    ]) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /"dependencies"/, url);
    }
  });

  test("the API's own routes are not shadowed: /v1, /health, /openapi.json, /widget.js, /docs; reserved slugs are 404", async () => {
    assert.deepEqual((await get("/health")).json(), { status: "ok" });
    assert.match(String((await get("/widget.js")).headers["content-type"]), /javascript/);
    assert.ok((await get("/openapi.json")).json().paths["/v1/products"]);
    assert.equal((await get("/docs")).statusCode < 400, true);
    for (const url of ["/v1/portal", "/oauth/portal", "/docs/portal", "/Upper_Case/portal"]) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().error, "route_not_found", url);
    }
    const api = await t.search.inject({ method: "GET", url: "/v1/products" });
    assert.equal(api.statusCode, 401);
    assert.equal(api.json().error, "unauthorized");
    // The portal pages are not part of the API document.
    const doc = (await get("/openapi.json")).json();
    assert.equal(doc.paths["/portal"], undefined);
    assert.equal(doc.paths["/{slug}/portal"], undefined);
  });
});
