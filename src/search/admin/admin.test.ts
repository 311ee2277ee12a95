import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, loginToken, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { createApiKey } from "../../../test/support/members.js";

describeEachDialect("admin: store list and plan override for super admins", (dialect) => {
  let t: TestApp;
  let admin: string;
  let marker: string;
  let a: RegisteredStore;
  let b: RegisteredStore;
  let ownerA: string;

  before(async () => {
    t = await createTestApp({ dialect });
    marker = `zq${Math.random().toString(36).slice(2, 8)}`;
    a = await registerStore(t, { name: `Alpha ${marker} Shop`, plan: "free" });
    b = await registerStore(t, { name: `Beta ${marker} Shop`, plan: "basic" });
    ownerA = await loginToken(t.search, a.email, a.password);
    // A second member in store A.
    const added = await t.search.inject({
      method: "POST",
      url: "/v1/users",
      headers: bearer(ownerA),
      payload: { email: `dev-${marker}@example.com`, password: "Member-pass-123", full_name: "Dev", group_ids: ["grp_developer"] },
    });
    assert.equal(added.statusCode, 201, added.body);
    const email = `root-${marker}@example.com`;
    await t.services.accounts.createSuperAdmin(email, "Root-password-1");
    admin = await loginToken(t.search, email, "Root-password-1");
  });
  after(() => t.close());

  const get = (token: string | undefined, url: string) => t.search.inject({ method: "GET", url, headers: token ? bearer(token) : {} });
  const put = (token: string | undefined, slug: string, payload: unknown) =>
    t.search.inject({
      method: "PUT",
      url: `/v1/admin/stores/${slug}/plan`,
      headers: token ? bearer(token) : {},
      payload: payload as object,
    });
  const planOf = async (id: string) =>
    (await t.ctx.database.db.selectFrom("stores").select("plan").where("id", "=", id).executeTakeFirstOrThrow()).plan;

  test("GET /v1/admin/stores lists every store with plan, limits, counts and owners, and never a secret", async () => {
    const res = await get(admin, `/v1/admin/stores?q=${marker}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.total, 2);
    assert.equal(body.next_cursor, null);
    assert.deepEqual(
      body.stores.map((s: { slug: string }) => s.slug),
      [a.slug, b.slug],
    );
    const [sa, sb] = body.stores;
    assert.deepEqual(Object.keys(sa).sort(), [
      "client_id",
      "created_at",
      "max_products",
      "members_count",
      "name",
      "owners",
      "plan_name",
      "products_count",
      "requests_per_minute",
      "slug",
      "status",
    ]);
    assert.equal(sa.client_id, a.clientId);
    assert.equal(sa.status, "active");
    assert.equal(sa.plan_name, "free");
    assert.equal(sa.max_products, 50);
    assert.equal(sa.requests_per_minute, 10);
    assert.equal(sa.members_count, 2);
    assert.equal(sa.products_count, 0);
    assert.deepEqual(sa.owners, [a.email]);
    assert.equal(sb.plan_name, "basic");
    assert.equal(sb.members_count, 1);
    assert.ok(!res.body.includes(a.clientSecret), "no client secret");
    assert.ok(!res.body.includes("password"), "no password hash field");
  });

  test("the list pages with limit and the opaque cursor, and q ignores case and matches % literally", async () => {
    const first = (await get(admin, `/v1/admin/stores?q=${marker.toUpperCase()}&limit=1`)).json();
    assert.equal(first.stores.length, 1);
    assert.equal(first.stores[0].slug, a.slug);
    assert.equal(first.total, 2);
    assert.equal(typeof first.next_cursor, "string");
    const second = (await get(admin, `/v1/admin/stores?q=${marker}&limit=1&cursor=${encodeURIComponent(first.next_cursor)}`)).json();
    assert.deepEqual(
      second.stores.map((s: { slug: string }) => s.slug),
      [b.slug],
    );
    assert.equal(second.next_cursor, null);
    const literal = (await get(admin, `/v1/admin/stores?q=${encodeURIComponent("%")}`)).json();
    assert.equal(literal.total, 0, "% is not a wildcard");
    const all = (await get(admin, "/v1/admin/stores?limit=100")).json();
    assert.ok(all.total >= 2);
    assert.ok(all.stores.some((s: { slug: string }) => s.slug === a.slug));
  });

  test("PUT /v1/admin/stores/{slug}/plan changes the plan at once; the same plan answers changed: false", async () => {
    const res = await put(admin, a.slug, { plan_name: "premium" });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      client_id: a.clientId,
      slug: a.slug,
      name: `Alpha ${marker} Shop`,
      plan_name: "premium",
      previous_plan: "free",
      changed: true,
    });
    assert.equal(await planOf(a.clientId), "premium");
    // The store sees its new plan through its own API.
    const current = await get(ownerA, "/v1/billing/current-plan");
    assert.equal(current.statusCode, 200, current.body);
    assert.equal(current.json().plan_name, "premium");
    assert.equal(current.json().max_products, 50000);
    const account = await t.ctx.database.db
      .selectFrom("billing_accounts")
      .select("plan_source")
      .where("store_id", "=", a.clientId)
      .executeTakeFirstOrThrow();
    assert.equal(account.plan_source, "admin_override");

    const again = await put(admin, a.slug, { plan_name: "premium" });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().changed, false);
    const down = await put(admin, a.slug, { plan_name: "free" });
    assert.equal(down.json().previous_plan, "premium");
    assert.equal(await planOf(a.clientId), "free");
    assert.equal(await planOf(b.clientId), "basic", "the other store is untouched");
  });

  test("rejects bad input: unknown plan, extra fields, bad slug, bad limit and cursor (400); unknown store (404)", async () => {
    for (const payload of [{ plan_name: "gold" }, { plan_name: "basic", extra: 1 }, {}]) {
      const res = await put(admin, a.slug, payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().error, "validation_failed");
    }
    const badSlug = await put(admin, "Not_A_Slug", { plan_name: "basic" });
    assert.equal(badSlug.statusCode, 400);
    for (const q of ["limit=0", "limit=101", "cursor=not-a-cursor", "unknown=1"]) {
      const res = await get(admin, `/v1/admin/stores?${q}`);
      assert.equal(res.statusCode, 400, q);
      assert.equal(res.json().error, "validation_failed");
    }
    const missing = await put(admin, "no-such-store-anywhere", { plan_name: "basic" });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error, "not_found");
  });

  test("only super admins: store owners, machine grants and API keys get 403, no token 401; nothing changes", async () => {
    const machine = await machineToken(t.search, a);
    const key = await createApiKey(t, ownerA, { products: ["read"] });
    for (const [who, token] of [
      ["owner", ownerA],
      ["machine", machine],
      ["api key", key.key],
    ] as const) {
      const list = await get(token, "/v1/admin/stores");
      assert.equal(list.statusCode, 403, `${who}: ${list.body}`);
      assert.equal(list.json().error, "forbidden");
      assert.ok(!list.body.includes(b.slug), "no other store leaks");
      const change = await put(token, a.slug, { plan_name: "enterprise" });
      assert.equal(change.statusCode, 403, `${who}: ${change.body}`);
      // Store B's owner cannot touch store A either.
    }
    const ownerB = await loginToken(t.search, b.email, b.password);
    assert.equal((await put(ownerB, a.slug, { plan_name: "enterprise" })).statusCode, 403);
    assert.equal((await get(undefined, "/v1/admin/stores")).statusCode, 401);
    assert.equal((await put(undefined, a.slug, { plan_name: "enterprise" })).statusCode, 401);
    assert.notEqual(await planOf(a.clientId), "enterprise");
  });

  test("the routes are in the OpenAPI document under the admin tag", async () => {
    const doc = (await get(undefined, "/openapi.json")).json();
    assert.deepEqual(doc.paths["/v1/admin/stores"].get.tags, ["admin"]);
    assert.ok(doc.paths["/v1/admin/stores/{slug}/plan"].put.requestBody);
  });
});
