import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../platform/clock.js";
import { uuid } from "../../platform/ids.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, loginToken, machineToken, registerStore } from "../../../test/support/factories.js";
import { storeWithRoles } from "../../../test/support/members.js";
import { checkPermissionMatrix } from "../../../test/support/permission-matrix.js";

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const form = { "content-type": "application/x-www-form-urlencoded" };

/** Inserts `n` product rows for the store straight into the catalogue table (no model needed). */
async function insertProducts(t: TestApp, storeId: string, n: number, prefix = "p"): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => ({
    store_id: storeId,
    product_id: `${prefix}-${i}`,
    vector_id: uuid(),
    image_url: `https://img.example/${prefix}-${i}.png`,
    image_sha256: "0".repeat(64),
    name: null,
    category: null,
    brand: null,
    price: null,
    color_name: null,
    metadata: "{}",
    dominant_colors: "[]",
    model: "test",
    created_at: NOW,
    updated_at: NOW,
  }));
  await t.ctx.database.db.insertInto("products").values(rows).execute();
}

/** The path of a checkout URL (the app is reached through inject). */
const pathOf = (url: string) => new URL(url).pathname;

describeEachDialect("billing: plans, usage, invoices and the local TEST MODE checkout", (dialect) => {
  let t: TestApp;
  const clock = new ManualClock(NOW);
  before(async () => {
    t = await createTestApp({ dialect, clock });
  });
  after(() => t.close());

  const get = (url: string, token: string, headers: Record<string, string> = {}) =>
    t.search.inject({ method: "GET", url, headers: { ...bearer(token), ...headers } });
  const checkout = (token: string, payload: unknown) =>
    t.search.inject({ method: "POST", url: "/v1/billing/checkout", headers: bearer(token), payload: payload as object });
  const startCheckout = async (token: string, plan: string) => {
    const res = await checkout(token, { plan_name: plan });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { checkout_url: string; provider: string; session_id: string; expires_at: string };
  };
  const complete = (url: string) => t.search.inject({ method: "POST", url: `${pathOf(url)}/complete`, headers: form, payload: "" });
  const cancel = (url: string) => t.search.inject({ method: "POST", url: `${pathOf(url)}/cancel`, headers: form, payload: "" });

  test("the plan table is public and matches the spec's plans", async () => {
    const res = await t.search.inject({ method: "GET", url: "/v1/billing/plans" });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      plans: [
        { plan_name: "free", price_per_month: 0, currency: "usd", max_products: 50, requests_per_minute: 10, purchasable: false },
        { plan_name: "basic", price_per_month: 29.99, currency: "usd", max_products: 5000, requests_per_minute: 60, purchasable: true },
        { plan_name: "premium", price_per_month: 99.99, currency: "usd", max_products: 50000, requests_per_minute: 200, purchasable: true },
        {
          plan_name: "enterprise",
          price_per_month: 299.99,
          currency: "usd",
          max_products: null,
          requests_per_minute: null,
          purchasable: true,
        },
      ],
    });
  });

  test("a new store starts on free: current-plan answers the spec's limits and the calendar month (UTC)", async () => {
    const store = await registerStore(t, { plan: "free" });
    const token = await machineToken(t.search, store);
    const res = await get("/v1/billing/current-plan", token);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      plan_name: "free",
      price_per_month: 0,
      currency: "usd",
      max_products: 50,
      requests_per_minute: 10,
      period_start: "2026-11-01T00:00:00.000Z",
      period_end: "2026-12-01T00:00:00.000Z",
      billing_provider: "none",
      subscription_status: null,
    });
  });

  test("registration itself puts a store on free", async () => {
    const res = await t.search.inject({
      method: "POST",
      url: "/register",
      payload: { client_name: "Fresh Shop", email: `fresh-${uuid().slice(0, 8)}@example.com`, password: "Correct-horse-42" },
    });
    assert.equal(res.statusCode, 201, res.body);
    const row = await t.ctx.database.db
      .selectFrom("stores")
      .select("plan")
      .where("id", "=", res.json().client_id)
      .executeTakeFirstOrThrow();
    assert.equal(row.plan, "free");
  });

  test("usage counts the store's authenticated /v1 calls of the period and its products, with limits and percentages", async () => {
    const store = await registerStore(t, { plan: "free" });
    const token = await machineToken(t.search, store);
    for (let i = 0; i < 3; i++) assert.equal((await get("/v1/billing/current-plan", token)).statusCode, 200);
    await insertProducts(t, store.clientId, 5);
    const res = await get("/v1/billing/usage", token);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      plan_name: "free",
      period_start: "2026-11-01T00:00:00.000Z",
      period_end: "2026-12-01T00:00:00.000Z",
      api_calls: 3,
      products_count: 5,
      max_products: 50,
      requests_per_minute: 10,
      products_percent: 10,
      over_product_limit: false,
    });
    const again = (await get("/v1/billing/usage", token)).json();
    assert.equal(again.api_calls, 4, "the first usage call is counted once it finished");
  });

  test("local checkout end to end: TEST MODE page → Complete purchase → plan, limits and invoice change at once", async () => {
    const store = await registerStore(t, { plan: "free", name: "Corner <Shop>" });
    const owner = await loginToken(t.search, store.email, store.password);
    const started = await startCheckout(owner, "basic");
    assert.equal(started.provider, "local");
    assert.match(started.checkout_url, /^http:\/\/localhost:8080\/billing\/checkout\/cs_local_[A-Za-z0-9_-]{40,}$/);
    assert.equal(started.expires_at, new Date(NOW + 3600_000).toISOString(), "a session lives one hour");

    const page = await t.search.inject({ method: "GET", url: pathOf(started.checkout_url) });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers["content-type"]), /^text\/html/);
    assert.equal(page.headers["x-frame-options"], "DENY");
    assert.equal(page.headers["cache-control"], "no-store");
    assert.match(page.body, /TEST MODE/);
    assert.match(page.body, /Complete purchase<\/button>/);
    assert.match(page.body, /Cancel<\/button>/);
    assert.match(page.body, /\$29\.99/);
    assert.match(page.body, /Corner &lt;Shop&gt;/, "the store name is escaped");
    assert.ok(page.body.includes(`action="${pathOf(started.checkout_url)}/complete"`));

    const before = (await get("/v1/billing/current-plan", owner)).json();
    assert.equal(before.plan_name, "free");

    const done = await complete(started.checkout_url);
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /Purchase complete/);
    assert.match(done.body, /basic/);

    const plan = (await get("/v1/billing/current-plan", owner)).json();
    assert.equal(plan.plan_name, "basic");
    assert.equal(plan.max_products, 5000);
    assert.equal(plan.requests_per_minute, 60);
    assert.equal(plan.price_per_month, 29.99);
    assert.equal(plan.billing_provider, "local");
    const usage = (await get("/v1/billing/usage", owner)).json();
    assert.equal(usage.max_products, 5000);
    assert.equal(usage.requests_per_minute, 60);

    const invoices = await get("/v1/billing/invoices", owner);
    assert.equal(invoices.statusCode, 200, invoices.body);
    const list = invoices.json();
    assert.equal(list.length, 1);
    assert.match(list[0].id, /^inv_[0-9a-f]{32}$/);
    assert.deepEqual(
      { ...list[0], id: "x" },
      {
        id: "x",
        date: new Date(NOW).toISOString(),
        amount: 29.99,
        currency: "usd",
        status: "paid",
        url: null,
        plan_name: "basic",
        period_start: "2026-11-01T00:00:00.000Z",
        period_end: "2026-12-01T00:00:00.000Z",
      },
    );
  });

  test("a plan upgrade applies at once to the rate limit: free refuses the 11th call a minute, basic then allows 60", async () => {
    const store = await registerStore(t, { plan: "free" });
    const token = await machineToken(t.search, store);
    const started = await startCheckout(token, "basic");
    const codes: number[] = [];
    for (let i = 0; i < 10; i++) codes.push((await get("/v1/billing/current-plan", token)).statusCode);
    assert.deepEqual(codes, [...Array(9).fill(200), 429], "the checkout call was the first of ten");
    assert.equal((await complete(started.checkout_url)).statusCode, 200, "the hosted page is not a /v1 call");
    const after: number[] = [];
    for (let i = 0; i < 61; i++) after.push((await get("/v1/billing/current-plan", token)).statusCode);
    assert.deepEqual(after, [...Array(60).fill(200), 429], "the same token now has the basic plan's budget");
    const last = await get("/v1/billing/current-plan", token);
    assert.equal(last.json().details.limit, 60);
  });

  test("a completed session cannot be used again (409), an unknown one is 404, and the plan and invoices stay as they were", async () => {
    const store = await registerStore(t, { plan: "free" });
    const owner = await loginToken(t.search, store.email, store.password);
    const started = await startCheckout(owner, "premium");
    assert.equal((await complete(started.checkout_url)).statusCode, 200);

    const reused = await complete(started.checkout_url);
    assert.equal(reused.statusCode, 409);
    assert.match(reused.body, /checkout_session_used/);
    assert.match(reused.body, /already been completed or cancelled/);
    assert.equal((await t.search.inject({ method: "GET", url: pathOf(started.checkout_url) })).statusCode, 409);
    assert.equal((await cancel(started.checkout_url)).statusCode, 409);

    const forged = await t.search.inject({ method: "GET", url: `/billing/checkout/cs_local_${"A".repeat(43)}` });
    assert.equal(forged.statusCode, 404);
    assert.match(forged.body, /No such checkout session/);
    assert.equal(
      (await t.search.inject({ method: "POST", url: `/billing/checkout/cs_local_${"A".repeat(43)}/complete`, headers: form, payload: "" }))
        .statusCode,
      404,
    );

    assert.equal((await get("/v1/billing/current-plan", owner)).json().plan_name, "premium");
    assert.equal((await get("/v1/billing/invoices", owner)).json().length, 1, "one purchase, one invoice");
  });

  test("two simultaneous Complete purchase posts of one session: one succeeds, the other gets 409, one invoice", async () => {
    const store = await registerStore(t, { plan: "free" });
    const owner = await loginToken(t.search, store.email, store.password);
    const started = await startCheckout(owner, "basic");
    const results = await Promise.all([complete(started.checkout_url), complete(started.checkout_url), cancel(started.checkout_url)]);
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 409, 409]);
    const invoices = (await get("/v1/billing/invoices", owner)).json();
    const plan = (await get("/v1/billing/current-plan", owner)).json().plan_name;
    assert.ok(
      (plan === "basic" && invoices.length === 1) || (plan === "free" && invoices.length === 0),
      `${plan} with ${invoices.length} invoices`,
    );
  });

  test("Cancel closes the session and changes nothing", async () => {
    const store = await registerStore(t, { plan: "free" });
    const owner = await loginToken(t.search, store.email, store.password);
    const started = await startCheckout(owner, "enterprise");
    const res = await cancel(started.checkout_url);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /Checkout cancelled/);
    assert.equal((await complete(started.checkout_url)).statusCode, 409, "a cancelled session cannot be completed");
    assert.equal((await get("/v1/billing/current-plan", owner)).json().plan_name, "free");
    assert.deepEqual((await get("/v1/billing/invoices", owner)).json(), []);
  });

  test("a session older than one hour is refused with 410 and changes nothing", async () => {
    const store = await registerStore(t, { plan: "free" });
    const owner = await loginToken(t.search, store.email, store.password);
    const started = await startCheckout(owner, "basic");
    clock.advance(3600_000);
    try {
      const page = await t.search.inject({ method: "GET", url: pathOf(started.checkout_url) });
      assert.equal(page.statusCode, 410);
      assert.match(page.body, /expired/);
      const res = await complete(started.checkout_url);
      assert.equal(res.statusCode, 410);
      assert.match(res.body, /checkout_session_expired/);
      const fresh = await loginToken(t.search, store.email, store.password);
      assert.equal((await get("/v1/billing/current-plan", fresh)).json().plan_name, "free");
    } finally {
      clock.set(NOW);
    }
  });

  test("checkout validates plan_name: unknown or extra fields → 400, free → 400 plan_not_purchasable, the current plan → 409", async () => {
    const store = await registerStore(t, { plan: "free" });
    const owner = await loginToken(t.search, store.email, store.password);
    const unknown = await checkout(owner, { plan_name: "platinum" });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error, "validation_failed");
    assert.equal(unknown.json().details.errors[0].field, "plan_name");
    const extra = await checkout(owner, { plan_name: "basic", coupon: "FREE" });
    assert.equal(extra.statusCode, 400);
    assert.deepEqual(extra.json().details.errors, [{ field: "coupon", message: "is not an accepted field" }]);
    assert.equal((await checkout(owner, {})).statusCode, 400);
    const free = await checkout(owner, { plan_name: "free" });
    assert.equal(free.statusCode, 400);
    assert.equal(free.json().error, "plan_not_purchasable");
    const limit = await t.search.inject({ method: "GET", url: "/v1/billing/invoices?limit=0", headers: bearer(owner) });
    assert.equal(limit.statusCode, 400);
    assert.equal(limit.json().error, "validation_failed");

    const other = await registerStore(t, { plan: "basic" });
    const same = await checkout(await machineToken(t.search, other), { plan_name: "basic" });
    assert.equal(same.statusCode, 409);
    assert.equal(same.json().error, "plan_unchanged");
  });

  test("billing:read opens plan, usage and invoices to every role; checkout needs billing:write (owner, admin, a custom group, keys with the scope)", async () => {
    const s = await storeWithRoles(t);
    const report = await checkPermissionMatrix(t, s, [
      { method: "GET", url: "/v1/billing/current-plan", permission: "billing:read" },
      { method: "GET", url: "/v1/billing/usage", permission: "billing:read" },
      { method: "GET", url: "/v1/billing/invoices", permission: "billing:read" },
      { method: "POST", url: "/v1/billing/checkout", permission: "billing:write", payload: { plan_name: "basic" } },
    ]);
    assert.ok(report.checked >= 4 * 8, `checked ${report.checked} cases`);
    for (const role of ["viewer", "developer"] as const) {
      const res = await checkout(s.members[role].token, { plan_name: "premium" });
      assert.equal(res.statusCode, 403, `${role}: ${res.body}`);
      assert.equal(res.json().error, "missing_permission");
      assert.equal(res.json().details.missing_permission, "billing:write");
    }
    assert.equal((await startCheckout(s.members.admin.token, "premium")).provider, "local");
  });

  test("billing routes need a bearer: none → 401", async () => {
    for (const [method, url] of [
      ["GET", "/v1/billing/current-plan"],
      ["GET", "/v1/billing/usage"],
      ["GET", "/v1/billing/invoices"],
      ["POST", "/v1/billing/checkout"],
    ] as const) {
      const res = await t.search.inject({ method, url, ...(method === "POST" ? { payload: { plan_name: "basic" } } : {}) });
      assert.equal(res.statusCode, 401, `${method} ${url}`);
      assert.equal(res.json().error, "unauthorized");
    }
  });

  test("a second store never sees the first store's plan, usage or invoices, and completing A's session changes only A", async () => {
    const a = await registerStore(t, { plan: "free" });
    const b = await registerStore(t, { plan: "free" });
    const tokenA = await loginToken(t.search, a.email, a.password);
    const tokenB = await loginToken(t.search, b.email, b.password);
    await insertProducts(t, a.clientId, 7, "a");
    const started = await startCheckout(tokenA, "premium");
    assert.equal((await complete(started.checkout_url)).statusCode, 200);

    const planB = (await get("/v1/billing/current-plan", tokenB)).json();
    assert.equal(planB.plan_name, "free");
    assert.deepEqual((await get("/v1/billing/invoices", tokenB)).json(), []);
    const usageB = (await get("/v1/billing/usage", tokenB)).json();
    assert.equal(usageB.products_count, 0);
    assert.equal(usageB.api_calls, 2, "only B's own calls");
    assert.equal((await get("/v1/billing/invoices", tokenA)).json().length, 1);
    assert.equal((await get("/v1/billing/usage", tokenA)).json().products_count, 7);

    // B cannot act on A by naming A's store.
    const cross = await get("/v1/billing/invoices", tokenB, { "x-service-active-tenant": a.slug });
    assert.equal(cross.statusCode, 403);
    assert.equal(cross.json().error, "not_a_member");
    const crossCheckout = await t.search.inject({
      method: "POST",
      url: "/v1/billing/checkout",
      headers: { ...bearer(tokenB), "x-service-active-tenant": a.slug },
      payload: { plan_name: "enterprise" },
    });
    assert.equal(crossCheckout.statusCode, 403);

    // B's own session upgrades B, never A.
    const sessionB = await startCheckout(tokenB, "basic");
    assert.equal((await complete(sessionB.checkout_url)).statusCode, 200);
    assert.equal((await get("/v1/billing/current-plan", tokenA)).json().plan_name, "premium");
    assert.equal((await get("/v1/billing/current-plan", tokenB)).json().plan_name, "basic");
  });

  test("without STRIPE_WEBHOOK_SECRET the Stripe webhook answers 503 stripe_not_configured", async () => {
    const res = await t.search.inject({
      method: "POST",
      url: "/billing/webhooks/stripe",
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=abc" },
      payload: JSON.stringify({ id: "evt_1", type: "invoice.paid" }),
    });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().error, "stripe_not_configured");
  });

  test("the Stripe return page is plain HTML", async () => {
    const ok = await t.search.inject({ method: "GET", url: "/billing/return?result=success&session_id=cs_test_1" });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /payment was received/);
    const bad = await t.search.inject({ method: "GET", url: "/billing/return?result=maybe" });
    assert.equal(bad.statusCode, 400);
  });
});
