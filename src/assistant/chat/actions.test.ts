import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer } from "../../../test/support/factories.js";
import { anonymousSession, chatShop, customerSession, openThread, putCatalogProduct, type ChatShop } from "../../../test/support/chat.js";
import { fakeProduct, startStorefront, type StorefrontServer } from "../../../test/support/storefront-server.js";
import { ManualClock } from "../../platform/clock.js";
import { INTENT_TTL_MS } from "../turns/limits.js";

interface Proposal {
  threadId: string;
  intentId: string;
  arguments: Record<string, string | number>;
}

describeEachDialect("assistant chat: consent-gated actions (confirm, cancel)", (dialect) => {
  let t: TestApp;
  let clock: ManualClock;
  let a: ChatShop;
  let b: ChatShop;
  let c: ChatShop;
  let shop: StorefrontServer;

  async function propose(token: string, text = "Add 2 red linen dress to my cart", threadId?: string): Promise<Proposal> {
    const thr = threadId ?? (await openThread(t, token));
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: thr, text },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as {
      outcome: string;
      answer: { next_actions: Array<{ type: string; intent_id?: string; arguments?: Record<string, string | number> }> };
    };
    assert.equal(body.outcome, "confirmation_required", res.body);
    const confirm = body.answer.next_actions.find((n) => n.type === "confirm")!;
    return { threadId: thr, intentId: confirm.intent_id!, arguments: confirm.arguments! };
  }

  const call = (token: string, op: "confirm" | "cancel", payload: object) =>
    t.assistant.inject({ method: "POST", url: `/v1/chat/actions/${op}`, headers: bearer(token), payload });

  function assertInvalid(res: Awaited<ReturnType<typeof call>>, reason: string): void {
    assert.equal(res.statusCode, 409, res.body);
    const body = res.json() as { code: string; correlation_id: string; details: { reason: string } };
    assert.equal(body.code, "CONFIRMATION_INVALID");
    assert.equal(body.details.reason, reason);
    assert.ok(body.correlation_id);
  }

  /** Lines of store A's carts (the embedded catalogue's cart table). */
  async function cartLines(): Promise<Array<{ product_id: string; quantity: number }>> {
    const rows = await t.ctx.database.db.selectFrom("assistant_carts").selectAll().where("store_id", "=", a.storeId).execute();
    return rows.flatMap((r) => JSON.parse(r.lines) as Array<{ product_id: string; quantity: number }>);
  }

  before(async () => {
    clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
    t = await createTestApp({ dialect, clock });
    [a, b, c] = [await chatShop(t), await chatShop(t), await chatShop(t)];
    await putCatalogProduct(
      t,
      a.storeId,
      "dress-red",
      { name: "Red Linen Dress", category: "dresses", price: 49.9, inventory_quantity: 12 },
      0,
    );
    await putCatalogProduct(
      t,
      b.storeId,
      "dress-red",
      { name: "Red Linen Dress", category: "dresses", price: 10, inventory_quantity: 1 },
      0,
    );
    shop = await startStorefront({ shop: { name: "Shop C", currency: "EUR" } });
    shop.products = [fakeProduct(100, "Wool scarf", "25.50", { available: 9 })];
    shop.orders = [
      {
        id: 1001,
        customer_id: "cust-1",
        created_at: "2026-02-20T10:00:00Z",
        total_price: "25.50",
        currency: "EUR",
        fulfillment_status: "fulfilled",
        line_items: [{ product_id: 100, title: "Wool scarf", quantity: 1 }],
      },
    ];
    const conn = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/connections/storefront",
      headers: bearer(c.owner),
      payload: { store_url: shop.url, private_token: shop.token, reason: "chat tests" },
    });
    assert.equal(conn.statusCode, 201, conn.body);
  });
  after(async () => {
    await shop.close();
    await t.close();
  });
  beforeEach(() => {
    shop.down = false;
    clock.advance(61_000);
  });

  test("confirm runs the action once with exactly the previewed arguments; reuse is CONFIRMATION_INVALID", async () => {
    const token = await anonymousSession(t, a);
    const p = await propose(token);
    assert.deepEqual(p.arguments, { product_id: "prd_dress-red", quantity: 2 });
    const res = await call(token, "confirm", { thread_id: p.threadId, intent_id: p.intentId });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as {
      intent_id: string;
      thread_id: string;
      status: string;
      action: { name: string; arguments: object };
      result: { cart_id: string; quantity: number };
      correlation_id: string;
    };
    assert.equal(body.intent_id, p.intentId);
    assert.equal(body.thread_id, p.threadId);
    assert.equal(body.status, "completed");
    assert.deepEqual(body.action, { name: "add_to_cart", arguments: { product_id: "prd_dress-red", quantity: 2 } });
    assert.match(body.result.cart_id, /^cart_/);
    assert.equal(body.result.quantity, 2);
    assert.ok(body.correlation_id);
    assert.deepEqual(await cartLines(), [{ product_id: "prd_dress-red", variant_id: null, quantity: 2 }]);

    assertInvalid(await call(token, "confirm", { thread_id: p.threadId, intent_id: p.intentId }), "consumed");
    assertInvalid(await call(token, "cancel", { thread_id: p.threadId, intent_id: p.intentId }), "consumed");
    assert.equal(
      (await cartLines()).reduce((n, l) => n + l.quantity, 0),
      2,
      "ran once",
    );

    const replay = await t.assistant.inject({
      method: "GET",
      url: `/v1/chat/sessions/${p.threadId}/events`,
      headers: { ...bearer(token), accept: "application/json" },
    });
    const events = (replay.json() as { events: Array<{ event: string; data: Record<string, unknown> }> }).events;
    assert.deepEqual(events.at(-1), { ...events.at(-1)!, event: "action.confirmed" });
    assert.equal(events.at(-1)!.data.intent_id, p.intentId);
  });

  test("two concurrent confirms: exactly one runs", async () => {
    await t.ctx.database.db.deleteFrom("assistant_carts").where("store_id", "=", a.storeId).execute();
    const token = await anonymousSession(t, a);
    const p = await propose(token, "Add 1 red linen dress to my cart");
    const results = await Promise.all([1, 2, 3].map(() => call(token, "confirm", { thread_id: p.threadId, intent_id: p.intentId })));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 409, 409]);
    assert.equal(
      (await cartLines()).reduce((n, l) => n + l.quantity, 0),
      1,
    );
  });

  test("another session, another store or another thread can neither confirm nor cancel", async () => {
    const token = await anonymousSession(t, a);
    const p = await propose(token);
    const sameStore = await anonymousSession(t, a);
    const sameStoreThread = await openThread(t, sameStore);
    const otherStore = await anonymousSession(t, b);
    const otherStoreThread = await openThread(t, otherStore);
    for (const [tok, thr] of [
      [sameStore, p.threadId],
      [sameStore, sameStoreThread],
      [otherStore, p.threadId],
      [otherStore, otherStoreThread],
    ] as const) {
      assertInvalid(await call(tok, "confirm", { thread_id: thr, intent_id: p.intentId }), "not_bound");
      assertInvalid(await call(tok, "cancel", { thread_id: thr, intent_id: p.intentId }), "not_bound");
    }
    const ownOtherThread = await openThread(t, token);
    assertInvalid(await call(token, "confirm", { thread_id: ownOtherThread, intent_id: p.intentId }), "not_bound");
    assertInvalid(await call(token, "confirm", { thread_id: p.threadId, intent_id: "int_00000000000000000000000000000000" }), "not_bound");
    // Still pending for its own session and thread.
    const ok = await call(token, "confirm", { thread_id: p.threadId, intent_id: p.intentId });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test("an expired confirmation is refused; the client gets a fresh preview by asking again", async () => {
    const token = await anonymousSession(t, a);
    const p = await propose(token);
    clock.advance(INTENT_TTL_MS);
    const res = await call(token, "confirm", { thread_id: p.threadId, intent_id: p.intentId });
    assertInvalid(res, "expired");
    const fresh = await propose(token, "Add 2 red linen dress to my cart", p.threadId);
    assert.notEqual(fresh.intentId, p.intentId);
    clock.advance(INTENT_TTL_MS - 1);
    assert.equal((await call(token, "confirm", { thread_id: fresh.threadId, intent_id: fresh.intentId })).statusCode, 200);
  });

  test("cancel: pending → cancelled (idempotent), then confirm is refused", async () => {
    const token = await anonymousSession(t, a);
    const p = await propose(token);
    const res = await call(token, "cancel", { thread_id: p.threadId, intent_id: p.intentId });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      { ...(res.json() as object), correlation_id: "x" },
      { intent_id: p.intentId, thread_id: p.threadId, status: "cancelled", correlation_id: "x" },
    );
    const again = await call(token, "cancel", { thread_id: p.threadId, intent_id: p.intentId });
    assert.equal(again.statusCode, 200);
    assertInvalid(await call(token, "confirm", { thread_id: p.threadId, intent_id: p.intentId }), "cancelled");
    const replay = await t.assistant.inject({
      method: "GET",
      url: `/v1/chat/sessions/${p.threadId}/events?after=0`,
      headers: { ...bearer(token), accept: "application/json" },
    });
    const names = (replay.json() as { events: Array<{ event: string }> }).events.map((e) => e.event);
    assert.equal(names.filter((n) => n === "action.cancelled").length, 1);
  });

  test("start_return for the signed-in customer runs against the storefront; a storefront outage uses the intent up (503)", async () => {
    const customer = await customerSession(t, c, "cust-1");
    const p = await propose(customer, "I want to return order #1001");
    assert.deepEqual(p.arguments, { order_id: "1001" });
    const res = await call(customer, "confirm", { thread_id: p.threadId, intent_id: p.intentId });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { action: { name: string; arguments: object }; result: { return_id: string; order_id: string } };
    assert.deepEqual(body.action, { name: "start_return", arguments: { order_id: "1001" } });
    assert.equal(body.result.order_id, "1001");
    assert.ok(body.result.return_id);

    const second = await propose(customer, "I want to return order #1001", p.threadId);
    shop.down = true;
    const down = await call(customer, "confirm", { thread_id: second.threadId, intent_id: second.intentId });
    assert.equal(down.statusCode, 503, down.body);
    assert.equal(down.json().code, "SERVICE_UNAVAILABLE");
    shop.down = false;
    assertInvalid(await call(customer, "confirm", { thread_id: second.threadId, intent_id: second.intentId }), "failed");
  });

  test("bad input is VALIDATION_FAILED; no session is 401", async () => {
    const token = await anonymousSession(t, a);
    for (const op of ["confirm", "cancel"] as const) {
      for (const payload of [
        {},
        { thread_id: "thr_x" },
        { intent_id: "int_x" },
        { thread_id: "", intent_id: "int_x" },
        { thread_id: "thr_x", intent_id: "int_x", extra: true },
        { thread_id: 1, intent_id: 2 },
      ]) {
        const res = await call(token, op, payload);
        assert.equal(res.statusCode, 400, `${op} ${JSON.stringify(payload)}`);
        assert.equal(res.json().code, "VALIDATION_FAILED");
      }
      const none = await t.assistant.inject({
        method: "POST",
        url: `/v1/chat/actions/${op}`,
        payload: { thread_id: "thr_x", intent_id: "int_x" },
      });
      assert.equal(none.statusCode, 401);
    }
  });
});
