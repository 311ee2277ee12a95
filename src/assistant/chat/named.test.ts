// Products named by their title, quantities, follow-ups and German framing through
// POST /v1/chat/messages (issue #16); another store's product title never resolves.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp } from "../../../test/support/factories.js";
import {
  anonymousSession,
  chatShop,
  conflictingReturnsShop,
  openThread,
  putCatalogProduct,
  putPolicy,
  putSettings,
  type ChatShop,
} from "../../../test/support/chat.js";

interface Reply {
  outcome: string;
  answer: {
    response_markdown: string;
    products: Array<{ product_id: string; title: string }>;
    citations: Array<{ concept_id: string }>;
    conflicts: unknown[];
    next_actions: Array<{ type: string; arguments?: Record<string, unknown> }>;
  };
}

describeEachDialect("assistant chat: products by name, follow-ups, German framing", (dialect) => {
  let t: TestApp;
  let a: ChatShop;
  let b: ChatShop;

  const send = async (token: string, thread: string, text: string): Promise<Reply> => {
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: thread, text },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Reply;
  };
  const germanThread = async (shop: ChatShop): Promise<{ token: string; thread: string }> => {
    const s = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: freshIp(),
      payload: { store_public_key: shop.publicKey, locale: "de" },
    });
    const token = (s.json() as { session_token: string }).session_token;
    const th = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: bearer(token), payload: { locale: "de" } });
    return { token, thread: (th.json() as { thread_id: string }).thread_id };
  };

  before(async () => {
    t = await createTestApp({ dialect });
    [a, b] = [await chatShop(t), await chatShop(t)];
    await putSettings(t, a, { currency: "USD", support_contact: { email: "help@shop-a.example" } });
    await putPolicy(t, a, "returns", {
      handle: "returns",
      title: "Returns",
      body_markdown:
        "# Returns\n\n- Co-op Members: You can return most items within 365 days of purchase.\n- Non-members: The return window is 90 days from the purchase date.",
    });
    await putCatalogProduct(
      t,
      a.storeId,
      "gps",
      { name: "Garmin inReach Mini 2 Satellite Communicator", category: "electronics", price: 399.99, inventory_quantity: 0 },
      0,
    );
    await putCatalogProduct(
      t,
      a.storeId,
      "boots",
      { name: "Merrell Moab 3 Mid Waterproof Hiking Boots", category: "boots", price: 150, inventory_quantity: 5 },
      1,
    );
    await putCatalogProduct(t, a.storeId, "tent", { name: "Half Dome SL 2 Tent", category: "tents", price: 329, inventory_quantity: 9 }, 2);
    await putCatalogProduct(
      t,
      b.storeId,
      "b-kayak",
      { name: "Oru Beach LT Folding Kayak", category: "kayaks", price: 999, inventory_quantity: 3 },
      0,
    );
  });
  after(async () => {
    await t.close();
  });

  test("an availability question about a named product shows that product with its live stock", async () => {
    const token = await anonymousSession(t, a);
    const r = await send(token, await openThread(t, token), "Is the Garmin inReach Mini 2 in stock?");
    assert.equal(r.outcome, "answer");
    assert.deepEqual(
      r.answer.products.map((p) => p.product_id),
      ["prd_gps"],
    );
    assert.match(r.answer.response_markdown, /\*\*Garmin inReach Mini 2 Satellite Communicator\*\* — \$399\.99 · out of stock/);
  });

  test("'add 2 of <close title>' proposes that product with that quantity", async () => {
    const token = await anonymousSession(t, a);
    const r = await send(token, await openThread(t, token), "add 2 of the Moab 3 hiking boots to my cart");
    assert.equal(r.outcome, "confirmation_required");
    assert.deepEqual(r.answer.next_actions.find((n) => n.type === "confirm")?.arguments, { product_id: "prd_boots", quantity: 2 });
  });

  test("another store's product title never resolves", async () => {
    const token = await anonymousSession(t, a);
    const r = await send(token, await openThread(t, token), "Is the Oru Beach LT Folding Kayak in stock?");
    assert.ok(!r.answer.products.some((p) => p.product_id === "prd_b-kayak"));
    assert.doesNotMatch(r.answer.response_markdown, /Oru Beach|\$999/);
  });

  test("a follow-up is read with the previous question", async () => {
    const token = await anonymousSession(t, a);
    const thread = await openThread(t, token);
    const first = await send(token, thread, "How long do members have to return things?");
    assert.match(first.answer.response_markdown, /365 days/);
    const next = await send(token, thread, "and if I'm not a member?");
    assert.equal(next.outcome, "answer");
    assert.match(next.answer.response_markdown, /90 days/);
  });

  test("a question is read with the shopper's earlier messages back to their last question", async () => {
    const token = await anonymousSession(t, a);
    const thread = await openThread(t, token);
    await send(token, thread, "I'm not a member");
    await send(token, thread, "I bought hiking boots last month");
    const r = await send(token, thread, "how long do I have to return them?");
    assert.equal(r.outcome, "answer");
    assert.match(r.answer.response_markdown, /90 days/);
    assert.doesNotMatch(r.answer.response_markdown, /365 days/);
  });

  test("a policy question naming a product, on which two policies disagree, is handed off quoting both (not answered with the product)", async () => {
    const c = await conflictingReturnsShop(t);
    await putCatalogProduct(
      t,
      c.storeId,
      "c-tent",
      { name: "Half Dome SL 2 Tent", category: "tents", price: 329, inventory_quantity: 9 },
      0,
    );
    const token = await anonymousSession(t, c);
    const r = await send(
      token,
      await openThread(t, token),
      "Is the Half Dome SL 2 Tent in stock, and how many days do I have to return it?",
    );
    assert.equal(r.outcome, "handoff");
    assert.equal(r.answer.conflicts.length, 1);
    assert.deepEqual(r.answer.citations.map((x) => x.concept_id).sort(), ["faq", "returns"]);
  });

  test("German threads get German framing around quoted policies and product lines", async () => {
    const { token, thread } = await germanThread(a);
    const product = await send(token, thread, "Habt ihr die Garmin inReach Mini 2?");
    assert.match(product.answer.response_markdown, /Dieses Produkt meinen Sie:/);
    assert.match(product.answer.response_markdown, /nicht auf Lager/);
    const none = await send(token, thread, "Bietet ihr auch Geschenkverpackungen an?");
    assert.equal(none.outcome, "handoff");
    assert.match(none.answer.response_markdown, /Richtlinien des Shops/);
    assert.match(none.answer.response_markdown, /Sie erreichen das Team des Shops per E-Mail help@shop-a\.example/);
  });
});
