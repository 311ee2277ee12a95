import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp } from "../../../test/support/factories.js";
import { chatShop, putCatalogProduct, type ChatShop } from "../../../test/support/chat.js";
import { fakeProduct, startStorefront, type StorefrontServer } from "../../../test/support/storefront-server.js";
import { ManualClock } from "../../platform/clock.js";
import { composeAssistant } from "../compose.js";
import { EXCHANGE_AUDIENCE } from "./service.js";
import { MINT_LIMIT } from "../sessions/service.js";

describeEachDialect("assistant: customer session exchange, orders and actions", (dialect) => {
  let t: TestApp;
  let clock: ManualClock;
  let a: ChatShop;
  let b: ChatShop;
  let secretA: string;
  let secretB: string;
  let jtiCounter = 0;

  async function rotate(owner: string): Promise<string> {
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/exchange-secret",
      headers: bearer(owner),
      payload: { reason: "backend login" },
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json() as { secret: string; issuer: string; audience: string; algorithm: string };
    assert.match(body.secret, /^exs_/);
    assert.equal(body.audience, EXCHANGE_AUDIENCE);
    assert.equal(body.algorithm, "HS256");
    return body.secret;
  }

  async function assertion(
    secret: string,
    claims: { iss: string; sub?: string; aud?: string; jti?: string; iat?: number; exp?: number },
  ): Promise<string> {
    const now = Math.floor(clock.now() / 1000);
    const jwt = new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(claims.iss)
      .setAudience(claims.aud ?? EXCHANGE_AUDIENCE)
      .setSubject(claims.sub ?? "cust-1")
      .setJti(claims.jti ?? `jti-${(jtiCounter += 1)}`)
      .setIssuedAt(claims.iat ?? now)
      .setExpirationTime(claims.exp ?? now + 120);
    return jwt.sign(new TextEncoder().encode(secret));
  }

  async function exchange(jwt: string) {
    return t.assistant.inject({ method: "POST", url: "/v1/sessions/exchange", remoteAddress: freshIp(), payload: { assertion: jwt } });
  }

  before(async () => {
    clock = new ManualClock(Date.parse("2026-03-04T12:00:00Z"));
    t = await createTestApp({ dialect, clock });
    a = await chatShop(t);
    b = await chatShop(t);
    secretA = await rotate(a.owner);
    secretB = await rotate(b.owner);
  });
  after(async () => {
    await t.close();
  });

  test("happy path: a customer session with the customer id, usable on shopper routes", async () => {
    const res = await exchange(await assertion(secretA, { iss: a.storeId, sub: "cust-42" }));
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { session_token: string; expires_in: number; role: string; customer_id: string; correlation_id: string };
    assert.match(body.session_token, /^ast_/);
    assert.equal(body.expires_in, 3600);
    assert.equal(body.role, "customer");
    assert.equal(body.customer_id, "cust-42");
    assert.ok(body.correlation_id);
    const row = await t.ctx.database.db
      .selectFrom("assistant_sessions")
      .select(["role", "customer_id", "store_id"])
      .where("customer_id", "=", "cust-42")
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { role: "customer", customer_id: "cust-42", store_id: a.storeId });
    const thread = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: bearer(body.session_token), payload: {} });
    assert.equal(thread.statusCode, 201, thread.body);
    const search = await t.assistant.inject({ method: "GET", url: "/v1/catalog/search?q=x", headers: bearer(body.session_token) });
    assert.equal(search.statusCode, 200, search.body);
  });

  test("a reused jti is refused, also after the first session was revoked", async () => {
    const jwt = await assertion(secretA, { iss: a.storeId, jti: "once-only" });
    assert.equal((await exchange(jwt)).statusCode, 200);
    const again = await exchange(jwt);
    assert.equal(again.statusCode, 401);
    assert.equal(again.json().code, "UNAUTHENTICATED");
    assert.match(again.json().detail, /already used/);
    // The same jti in another store is that store's own business.
    assert.equal((await exchange(await assertion(secretB, { iss: b.storeId, jti: "once-only" }))).statusCode, 200);
  });

  test("expired, too long-lived, future-dated or malformed assertions are refused", async () => {
    const now = Math.floor(clock.now() / 1000);
    const expired = await assertion(secretA, { iss: a.storeId, iat: now - 200, exp: now - 1 });
    assert.match((await exchange(expired)).json().detail, /expired/);
    const later = await assertion(secretA, { iss: a.storeId });
    clock.advance(121_000);
    assert.equal((await exchange(later)).statusCode, 401, "expires while in flight");
    const long = await assertion(secretA, { iss: a.storeId, exp: Math.floor(clock.now() / 1000) + 600 });
    assert.equal((await exchange(long)).statusCode, 401);
    const future = await assertion(secretA, {
      iss: a.storeId,
      iat: Math.floor(clock.now() / 1000) + 120,
      exp: Math.floor(clock.now() / 1000) + 300,
    });
    assert.equal((await exchange(future)).statusCode, 401);
    const wrongAud = await assertion(secretA, { iss: a.storeId, aud: "someone-else" });
    assert.equal((await exchange(wrongAud)).statusCode, 401);
    for (const payload of [{}, { assertion: "" }, { assertion: "not a jwt at all" }, { assertion: "a.b.c", extra: 1 }]) {
      const res = await t.assistant.inject({ method: "POST", url: "/v1/sessions/exchange", remoteAddress: freshIp(), payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().code, "VALIDATION_FAILED");
    }
    assert.equal((await exchange("aaaa.bbbb.cccc")).statusCode, 401);
  });

  test("exchanges are limited per client address: 429 RATE_LIMITED naming the window, refused not queued", async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    let last: { code: string; details: { window: string; limit: number; retry_after: number } } | undefined;
    for (let i = 0; i <= MINT_LIMIT.points; i++) {
      const res = await t.assistant.inject({
        method: "POST",
        url: "/v1/sessions/exchange",
        remoteAddress: ip,
        payload: { assertion: "aaaa.bbbb.cccc" },
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        last = res.json();
        assert.ok(Number(res.headers["retry-after"]) >= 1);
      }
    }
    assert.deepEqual(statuses, [...Array(MINT_LIMIT.points).fill(401), 429]);
    assert.equal(last?.code, "RATE_LIMITED");
    assert.equal(last?.details.window, "session_exchange_per_client_address");
    // Another address still exchanges.
    assert.equal((await exchange("aaaa.bbbb.cccc")).statusCode, 401);
  });

  test("wrong store: another store's secret, or an issuer that is not the signer's store, is refused", async () => {
    const signedByB = await assertion(secretB, { iss: a.storeId });
    const res = await exchange(signedByB);
    assert.equal(res.statusCode, 401);
    assert.match(res.json().detail, /signature/);
    const unknownStore = await assertion(secretA, { iss: "no-such-store" });
    assert.equal((await exchange(unknownStore)).statusCode, 401);
  });

  test("rotation: the old secret stops verifying at once; the secret is never shown again", async () => {
    const old = secretA;
    secretA = await rotate(a.owner);
    assert.equal((await exchange(await assertion(old, { iss: a.storeId }))).statusCode, 401);
    assert.equal((await exchange(await assertion(secretA, { iss: a.storeId }))).statusCode, 200);
    const info = await t.assistant.inject({ method: "GET", url: "/v1/admin/exchange-secret", headers: bearer(a.owner) });
    assert.equal(info.statusCode, 200);
    assert.equal(info.json().configured, true);
    assert.equal(info.json().issuer, a.storeId);
    assert.ok(!info.body.includes(secretA));
    const stored = await t.ctx.database.db.selectFrom("assistant_exchange_secrets").select("secret_ciphertext").execute();
    assert.ok(stored.every((r) => !r.secret_ciphertext.includes(secretA) && !r.secret_ciphertext.includes(old)));
    const audit = await t.ctx.database.db
      .selectFrom("assistant_audit_events")
      .selectAll()
      .where("operation", "=", "exchange_secret.rotate")
      .execute();
    assert.ok(audit.length >= 3);
    assert.ok(!JSON.stringify(audit).includes(secretA));
    const bad = await t.assistant.inject({ method: "POST", url: "/v1/admin/exchange-secret", headers: bearer(a.owner), payload: {} });
    assert.equal(bad.statusCode, 400);
    const noSecret = await chatShop(t);
    const none = await t.assistant.inject({ method: "GET", url: "/v1/admin/exchange-secret", headers: bearer(noSecret.owner) });
    assert.equal(none.json().configured, false);
    assert.equal((await exchange(await assertion(secretA, { iss: noSecret.storeId }))).statusCode, 401);
  });

  test("embedded catalogue: orders of the customer only, add to cart, start a return", async () => {
    const gateway = composeAssistant(t.ctx, { catalog: t.services.catalog }).gateway;
    const now = clock.now();
    for (const [store, order, customer] of [
      [a.storeId, "A-1", "cust-42"],
      [a.storeId, "A-2", "cust-7"],
      [b.storeId, "B-1", "cust-42"],
    ] as const) {
      await t.ctx.database.db
        .insertInto("assistant_orders")
        .values({
          store_id: store,
          order_id: order,
          customer_id: customer,
          status: "fulfilled",
          placed_at: now - 86_400_000,
          total_minor: 2599,
          currency: "USD",
          items: JSON.stringify([{ product_id: "mug-1", title: "Mug", quantity: 1 }]),
          updated_at: now,
        })
        .execute();
    }
    const orders = await gateway.orders(a.storeId, "cust-42");
    assert.deepEqual(
      orders.map((o) => [o.order_id, o.total, o.items[0]!.product_id]),
      [["A-1", { amount_minor: 2599, currency: "USD" }, "prd_mug-1"]],
    );

    await putCatalogProduct(t, a.storeId, "mug-1", { name: "Mug", price: 9, stock: 3 });
    const session = { sessionId: "ses_test_1", customerId: null };
    const first = await gateway.runAction(a.storeId, session, { name: "add_to_cart", arguments: { product_id: "prd_mug-1", quantity: 2 } });
    const second = await gateway.runAction(a.storeId, session, {
      name: "add_to_cart",
      arguments: { product_id: "prd_mug-1", quantity: 1 },
    });
    assert.equal(first.status, "completed");
    assert.equal(second.result.cart_id, first.result.cart_id);
    assert.equal(second.result.item_count, 3);
    await assert.rejects(gateway.runAction(b.storeId, session, { name: "add_to_cart", arguments: { product_id: "prd_mug-1" } }), {
      code: "not_found",
    });

    await assert.rejects(gateway.runAction(a.storeId, session, { name: "start_return", arguments: { order_id: "A-1" } }), {
      code: "forbidden",
    });
    await assert.rejects(
      gateway.runAction(a.storeId, { sessionId: "s", customerId: "cust-42" }, { name: "start_return", arguments: { order_id: "A-2" } }),
      { code: "not_found" },
    );
    await assert.rejects(
      gateway.runAction(a.storeId, { sessionId: "s", customerId: "cust-42" }, { name: "start_return", arguments: { order_id: "B-1" } }),
      { code: "not_found" },
    );
    const ret = await gateway.runAction(
      a.storeId,
      { sessionId: "s", customerId: "cust-42" },
      { name: "start_return", arguments: { order_id: "A-1", reason: "too small" } },
    );
    assert.match(String(ret.result.return_id), /^ret_/);
    assert.equal(ret.result.status, "requested");
  });

  test("connected storefront: orders, draft-order cart and return request through its API", async () => {
    let shop: StorefrontServer | undefined;
    try {
      shop = await startStorefront();
      shop.products = [fakeProduct(5, "Desk lamp", "45.00")];
      shop.orders = [
        {
          id: 7001,
          customer_id: "888",
          created_at: "2026-02-01T10:00:00Z",
          total_price: "45.00",
          currency: "USD",
          fulfillment_status: "fulfilled",
          line_items: [{ product_id: 5, title: "Desk lamp", quantity: 1 }],
        },
        { id: 7002, customer_id: "999", created_at: "2026-02-02T10:00:00Z", total_price: "10.00", currency: "USD", line_items: [] },
      ];
      const conn = await t.assistant.inject({
        method: "POST",
        url: "/v1/admin/connections/storefront",
        headers: bearer(b.owner),
        payload: { store_url: shop.url, private_token: shop.token, reason: "orders" },
      });
      assert.equal(conn.statusCode, 201, conn.body);
      const gateway = composeAssistant(t.ctx, { catalog: t.services.catalog }).gateway;
      const orders = await gateway.orders(b.storeId, "888");
      assert.deepEqual(
        orders.map((o) => [o.order_id, o.status, o.total.amount_minor, o.items[0]!.product_id]),
        [["7001", "fulfilled", 4500, "prd_5"]],
      );
      assert.equal(shop.calls.at(-1)!.query.get("customer_id"), "888");

      const session = { sessionId: "ses_x", customerId: "888" };
      const cart1 = await gateway.runAction(b.storeId, session, { name: "add_to_cart", arguments: { product_id: "prd_5", quantity: 1 } });
      const cart2 = await gateway.runAction(b.storeId, session, { name: "add_to_cart", arguments: { product_id: "prd_5", quantity: 2 } });
      assert.equal(cart1.result.external_cart_id, cart2.result.external_cart_id);
      assert.equal(cart1.result.cart_id, cart2.result.cart_id, "one cart per session, updated");
      assert.deepEqual([cart2.result.line_count, cart2.result.item_count], [1, 3]);
      assert.equal(shop.draftOrders.size, 1);
      const draft = [...shop.draftOrders.values()][0] as { draft_order: { line_items: Array<{ variant_id: number; quantity: number }> } };
      assert.deepEqual(draft.draft_order.line_items, [{ variant_id: 50, quantity: 3 }]);

      await assert.rejects(gateway.runAction(b.storeId, session, { name: "start_return", arguments: { order_id: "7002" } }), {
        code: "not_found",
      });
      const ret = await gateway.runAction(b.storeId, session, {
        name: "start_return",
        arguments: { order_id: "7001", product_id: "prd_5", quantity: 1, reason: "broken" },
      });
      assert.equal(ret.result.status, "requested");
      assert.equal(shop.returns.length, 1);

      shop.down = true;
      await assert.rejects(gateway.orders(b.storeId, "888"), { name: "StorefrontUnavailable" });
    } finally {
      await shop?.close();
    }
  });
});
