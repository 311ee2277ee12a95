import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer } from "../../../test/support/factories.js";
import {
  anonymousSession,
  chatShop,
  customerSession,
  openThread,
  putCatalogProduct,
  putPolicy,
  putSettings,
  type ChatShop,
} from "../../../test/support/chat.js";
import { fakeProduct, startStorefront, type StorefrontServer } from "../../../test/support/storefront-server.js";
import { ManualClock } from "../../platform/clock.js";
import { API as SHOPIFY_API } from "../storefront/shopify.js";
import { formatLiveFact, formatMoney } from "../answers/format.js";

interface Answer {
  answer_status: string;
  response_markdown: string;
  citations: Array<{ handle: string; concept_id: string; concept_version: number; title: string }>;
  products: Array<{
    product_id: string;
    title: string;
    price_state: string;
    price: { amount_minor: number; currency: string } | null;
    availability_state: string;
    availability: { state: string } | null;
  }>;
  clarification_question: string | null;
  conflicts: Array<{ point: string; citations: unknown[]; statements: string[] }>;
  limitations: Array<{ code: string; message: string }>;
  next_actions: Array<{ type: string; intent_id?: string; action?: string; arguments?: Record<string, string | number> }>;
  handoff: { reason: string; support_contact: Record<string, string> | null } | null;
  live_facts: Array<{
    source: string;
    product_id: string;
    field: string;
    value: { amount_minor?: number; currency?: string; state?: string };
    read_at: string;
  }>;
  freshness: { generated_at: string; live_read_at: string | null; policy_index_built_at: string | null };
  versions: { policies: Record<string, number>; catalog_source: string | null; answer_format: number };
}
interface MessageResponse {
  outcome: string;
  answer: Answer;
  events: Array<{ id: number; event: string; turn_id: string | null; data: Record<string, unknown>; created_at: string }>;
  turn_id: string;
  correlation_id: string;
}

const ANSWER_FIELDS = [
  "answer_status",
  "response_markdown",
  "citations",
  "products",
  "clarification_question",
  "conflicts",
  "limitations",
  "next_actions",
  "handoff",
  "live_facts",
  "freshness",
  "versions",
];

/** Every money-looking figure in the text ($12.50, €8.00, 12,50 €…). */
const PRICE_RE = /[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d.,]*\s?(?:€|EUR|USD)/g;

describeEachDialect("assistant chat: POST /v1/chat/messages outcomes, transcript, isolation", (dialect) => {
  let t: TestApp;
  let clock: ManualClock;
  let a: ChatShop; // embedded catalogue, policies that conflict on the return window, a support contact
  let b: ChatShop; // a shipping policy only, no support contact
  let c: ChatShop; // a connected storefront with orders
  let shop: StorefrontServer;

  async function send(token: string, threadId: string, text: string): Promise<MessageResponse> {
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: threadId, text },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as MessageResponse;
    for (const field of ANSWER_FIELDS) assert.ok(field in body.answer, `answer.${field} present (${text})`);
    assert.equal(body.correlation_id, res.headers["x-correlation-id"]);
    assert.match(body.turn_id, /^turn_/);
    // Events: ordered, from turn.started to message.completed carrying the same answer.
    const names = body.events.map((e) => e.event);
    assert.equal(names[0], "turn.started");
    assert.equal(names.at(-1), "message.completed");
    assert.ok(names.includes("intent.classified"));
    body.events.forEach((e, i) => i > 0 && assert.ok(e.id > body.events[i - 1]!.id, "increasing ids"));
    assert.deepEqual(body.events.at(-1)!.data, { outcome: body.outcome, ...body.answer });
    const deltas = body.events
      .filter((e) => e.event === "answer.delta")
      .map((e) => e.data.text)
      .join("");
    assert.equal(deltas, body.answer.response_markdown);
    // No price in the text that is not a formatted live fact of this answer.
    const allowed = new Set(body.answer.live_facts.filter((f) => f.field === "price").map((f) => formatLiveFact(f as never)));
    for (const figure of body.answer.response_markdown.match(PRICE_RE) ?? [])
      assert.ok(allowed.has(figure), `price ${figure} is a live fact`);
    return body;
  }

  before(async () => {
    clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
    t = await createTestApp({ dialect, clock });
    [a, b, c] = [await chatShop(t), await chatShop(t), await chatShop(t)];
    await putSettings(t, a, { currency: "USD", support_contact: { email: "help@shop-a.example", hours: "Mon-Fri" } });
    await putPolicy(t, a, "shipping", {
      handle: "shipping",
      title: "Shipping",
      body_markdown:
        "# Shipping\n\n## Delivery times\nStandard shipping takes 3 to 5 business days within the country. Express shipping arrives the next business day.",
    });
    await putPolicy(t, a, "returns", {
      handle: "returns",
      title: "Returns & refunds",
      body_markdown:
        "# Returns & refunds\n\n## Return window\nYou can return any item within 30 days of delivery. Items must be unworn and have their tags attached.",
    });
    await putPolicy(t, a, "faq", {
      handle: "faq",
      title: "Frequently asked questions",
      body_markdown:
        "# Frequently asked questions\n\n**How long do I have to return something?** Returns are accepted within 14 days of delivery.",
    });
    await putPolicy(t, b, "shipping", {
      handle: "shipping",
      title: "Shipping",
      body_markdown: "# Shipping\n\nStandard shipping takes 3 to 5 business days within the country.",
    });
    await putCatalogProduct(
      t,
      a.storeId,
      "dress-red",
      { name: "Red Linen Dress", category: "dresses", color_name: "red", price: 49.9, inventory_quantity: 12 },
      0,
    );
    await putCatalogProduct(
      t,
      a.storeId,
      "dress-blue",
      { name: "Blue Linen Dress", category: "dresses", color_name: "blue", price: 59, inventory_quantity: 2 },
      1,
    );
    await putCatalogProduct(
      t,
      a.storeId,
      "dress-green",
      { name: "Green Linen Dress", category: "dresses", color_name: "green", in_stock: true },
      2,
    );
    await putCatalogProduct(t, b.storeId, "b-dress", { name: "Red Linen Dress of store B", category: "dresses", price: 10 }, 0);

    shop = await startStorefront({ shop: { name: "Shop C", currency: "EUR" } });
    shop.products = [fakeProduct(100, "Wool scarf", "25.50", { product_type: "Scarves", available: 9 })];
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
      {
        id: 2002,
        customer_id: "cust-2",
        created_at: "2026-02-21T10:00:00Z",
        total_price: "51.00",
        currency: "EUR",
        fulfillment_status: null,
        line_items: [{ product_id: 100, title: "Wool scarf", quantity: 2 }],
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
    clock.advance(61_000); // a fresh one-minute window per test
  });

  test("policy question → answer with citations of the passage used, versions and freshness", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const body = await send(token, thr, "How long does standard shipping take?");
    assert.equal(body.outcome, "answer");
    assert.equal(body.answer.answer_status, "answered");
    assert.deepEqual(
      body.answer.citations.map((c) => [c.concept_id, c.handle, c.concept_version, c.title]),
      [["shipping", "shipping", 1, "Shipping"]],
    );
    assert.match(body.answer.response_markdown, /3 to 5 business days/);
    assert.equal(body.answer.handoff, null);
    assert.equal(body.answer.clarification_question, null);
    assert.deepEqual(body.answer.products, []);
    assert.equal(body.answer.versions.policies.shipping, 1);
    assert.equal(body.answer.versions.answer_format, 1);
    assert.ok(body.answer.freshness.policy_index_built_at);
    assert.equal(body.answer.freshness.generated_at, new Date(clock.now()).toISOString());
    const names = body.events.map((e) => e.event);
    assert.deepEqual(
      names.filter((n) => n !== "answer.delta"),
      ["turn.started", "intent.classified", "retrieval.completed", "message.completed"],
    );
    // The router's decision with its trace (issue 36): the rule, and the scored decision's features and scores.
    const classified = body.events[1]!.data as { kind: string; route: { rule: string; scores: { policy: number } } };
    assert.equal(classified.kind, "policy");
    assert.equal(classified.route.rule, "scored");
    assert.ok(classified.route.scores.policy > 0);
  });

  test("two policies that disagree → handoff with conflicts and the store's support contact", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const body = await send(token, thr, "How long do I have to return something?");
    assert.equal(body.outcome, "handoff");
    assert.equal(body.answer.answer_status, "handed_off");
    assert.ok(body.answer.conflicts.length >= 1);
    assert.deepEqual(new Set(body.answer.citations.map((c) => c.concept_id)), new Set(["returns", "faq"]));
    assert.deepEqual(body.answer.handoff, {
      reason: "policy_conflict",
      support_contact: { email: "help@shop-a.example", hours: "Mon-Fri" },
    });
    assert.match(body.answer.response_markdown, /help@shop-a\.example/);
    assert.ok(body.answer.next_actions.some((n) => n.type === "contact_support"));
  });

  test("no evidence → handoff with the support contact; a store without one still hands off and says it has none", async () => {
    const ta = await anonymousSession(t, a);
    const ra = await send(ta, await openThread(t, ta), "Can I pay with bitcoin?");
    assert.equal(ra.outcome, "handoff");
    assert.equal(ra.answer.handoff?.reason, "no_evidence");
    assert.equal(ra.answer.handoff?.support_contact?.email, "help@shop-a.example");
    assert.deepEqual(ra.answer.citations, []);
    assert.ok(ra.answer.limitations.some((l) => l.code === "no_evidence"));

    const tb = await anonymousSession(t, b);
    const rb = await send(tb, await openThread(t, tb), "Can I pay with bitcoin?");
    assert.equal(rb.outcome, "handoff");
    assert.equal(rb.answer.answer_status, "handed_off");
    assert.deepEqual(rb.answer.handoff, { reason: "no_evidence", support_contact: null });
    assert.deepEqual(rb.answer.next_actions, []);
    assert.match(rb.answer.response_markdown, /no support contact is configured/);
    assert.deepEqual(rb.answer.citations, []);
    assert.deepEqual(rb.answer.limitations.map((l) => l.code).sort(), ["no_evidence", "no_support_contact"]);
    assert.doesNotMatch(rb.answer.response_markdown, /bitcoin is|we accept/i);
  });

  test("product request → cards; the price is shown only when read live, and only as the live fact", async () => {
    const token = await anonymousSession(t, a);
    const body = await send(token, await openThread(t, token), "Show me linen dresses");
    assert.equal(body.outcome, "answer");
    assert.equal(body.answer.answer_status, "answered");
    const byId = new Map(body.answer.products.map((p) => [p.product_id, p]));
    assert.deepEqual([...byId.keys()].sort(), ["prd_dress-blue", "prd_dress-green", "prd_dress-red"]);
    const red = byId.get("prd_dress-red")!;
    assert.equal(red.price_state, "live");
    assert.deepEqual(red.price, { amount_minor: 4990, currency: "USD" });
    const green = byId.get("prd_dress-green")!;
    assert.equal(green.price_state, "unavailable");
    assert.equal(green.price, null);
    const redFact = body.answer.live_facts.find((f) => f.product_id === "prd_dress-red" && f.field === "price")!;
    assert.deepEqual(redFact.value, { amount_minor: 4990, currency: "USD" });
    assert.equal(redFact.source, "shopsight_catalog");
    assert.equal(formatMoney({ amount_minor: 4990, currency: "USD" }), "$49.90");
    assert.match(body.answer.response_markdown, /\*\*Red Linen Dress\*\* — \$49\.90 · in stock/);
    assert.match(body.answer.response_markdown, /\*\*Green Linen Dress\*\* — price not available right now/);
    assert.doesNotMatch(body.answer.response_markdown, /Green Linen Dress\*\* — \$/);
    assert.equal(body.answer.versions.catalog_source, "shopsight_catalog");
    assert.equal(body.answer.freshness.live_read_at, redFact.read_at);
    assert.ok(body.events.some((e) => e.event === "products.read" && e.data.count === 3));
    assert.ok(!body.answer.products.some((p) => p.title.includes("store B")), "never another store's products");
  });

  test("product request without matches → answer with a limitation", async () => {
    const token = await anonymousSession(t, a);
    const body = await send(token, await openThread(t, token), "Do you sell umbrellas?");
    assert.equal(body.outcome, "answer");
    assert.equal(body.answer.answer_status, "limited");
    assert.deepEqual(body.answer.products, []);
    assert.ok(body.answer.limitations.some((l) => l.code === "no_products"));
  });

  test("ambiguous request → clarification with the question", async () => {
    const token = await anonymousSession(t, a);
    const body = await send(token, await openThread(t, token), "the blue one?");
    assert.equal(body.outcome, "clarification");
    assert.equal(body.answer.answer_status, "needs_clarification");
    assert.ok(body.answer.clarification_question && body.answer.clarification_question.length > 5);
    assert.equal(body.answer.response_markdown, body.answer.clarification_question);
  });

  test("thanks → an answer that welcomes them, not a clarification; a greeting is still asked what it needs", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const thanks = await send(token, thr, "cool thanks, that's all I needed!");
    assert.equal(thanks.outcome, "answer");
    assert.equal(thanks.answer.answer_status, "answered");
    assert.equal(thanks.answer.clarification_question, null);
    assert.match(thanks.answer.response_markdown, /You're welcome/);
    assert.deepEqual(thanks.answer.citations, []);
    const hello = await send(token, thr, "hi there!");
    assert.equal(hello.outcome, "clarification");
  });

  test("add to cart: one match → confirmation_required previewing {product_id, quantity}; several → clarification; none → limitation", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const one = await send(token, thr, "Add 2 red linen dress to my cart");
    assert.equal(one.outcome, "confirmation_required");
    assert.equal(one.answer.answer_status, "awaiting_confirmation");
    const confirm = one.answer.next_actions.find((n) => n.type === "confirm")!;
    assert.match(confirm.intent_id!, /^int_[0-9a-f]{32}$/);
    assert.equal(confirm.action, "add_to_cart");
    assert.deepEqual(confirm.arguments, { product_id: "prd_dress-red", quantity: 2 });
    assert.ok(one.answer.next_actions.some((n) => n.type === "cancel" && n.intent_id === confirm.intent_id));
    assert.ok(one.events.some((e) => e.event === "action.proposed" && e.data.intent_id === confirm.intent_id));
    assert.match(one.answer.response_markdown, /Add 2 × \*\*Red Linen Dress\*\*/);

    const several = await send(token, thr, "Add a linen dress to my cart");
    assert.equal(several.outcome, "clarification");
    assert.ok(several.answer.clarification_question?.includes("Blue Linen Dress"));
    assert.equal(several.answer.products.length, 3);

    const none = await send(token, thr, "Add a purple umbrella to my cart");
    assert.equal(none.outcome, "answer");
    assert.equal(none.answer.answer_status, "limited");
    assert.ok(none.answer.limitations.some((l) => l.code === "no_match"));
  });

  test("order and return questions: denied for an anonymous session; answered for the signed-in customer", async () => {
    const anon = await anonymousSession(t, c);
    const thrAnon = await openThread(t, anon);
    for (const text of ["Where is my order #1001?", "I want to return order #1001"]) {
      const denied = await send(anon, thrAnon, text);
      assert.equal(denied.outcome, "denied", text);
      assert.equal(denied.answer.answer_status, "denied");
      assert.ok(denied.answer.next_actions.some((n) => n.type === "sign_in"));
    }
    // An order question without an id or status words that no policy answers goes to a person, not to a sign-in.
    const general = await send(anon, thrAnon, "my order hasnt arrived yet");
    assert.equal(general.outcome, "handoff", general.answer.response_markdown);
    assert.equal(shop.count(`${SHOPIFY_API}/orders`), 0, "no order read for an anonymous session");

    const customer = await customerSession(t, c, "cust-1");
    const thr = await openThread(t, customer);
    const order = await send(customer, thr, "Where is my order #1001?");
    assert.equal(order.outcome, "answer");
    assert.ok(shop.count(`${SHOPIFY_API}/orders`) >= 1, "orders read from the storefront");
    assert.match(order.answer.response_markdown, /Order \*\*1001\*\* — fulfilled/);
    assert.ok(order.events.some((e) => e.event === "orders.read"));
    // The signed-in customer's own orders answer it.
    const own = await send(customer, thr, "my order hasnt arrived yet");
    assert.equal(own.outcome, "answer");
    assert.match(own.answer.response_markdown, /Order \*\*1001\*\*/);

    const other = await send(customer, thr, "Where is my order #2002?");
    assert.equal(other.outcome, "answer");
    assert.equal(other.answer.answer_status, "limited");
    assert.ok(
      other.answer.limitations.some((l) => l.code === "order_not_found"),
      "another customer's order is not shown",
    );
    assert.doesNotMatch(other.answer.response_markdown, /fulfilled|51/);

    const ret = await send(customer, thr, "I want to return order #1001");
    assert.equal(ret.outcome, "confirmation_required");
    const confirm = ret.answer.next_actions.find((n) => n.type === "confirm")!;
    assert.equal(confirm.action, "start_return");
    assert.deepEqual(confirm.arguments, { order_id: "1001" });
  });

  test("storefront down → temporary_failure (200, no error code) with a limitation", async () => {
    const token = await anonymousSession(t, c);
    shop.down = true;
    const body = await send(token, await openThread(t, token), "Show me wool scarves");
    assert.equal(body.outcome, "temporary_failure");
    assert.equal(body.answer.answer_status, "unavailable");
    assert.ok(body.answer.limitations.some((l) => l.code === "dependency_unavailable"));
    assert.ok(body.answer.next_actions.some((n) => n.type === "retry"));
    assert.deepEqual(body.answer.products, []);
    assert.ok(body.events.some((e) => e.event === "dependency.unavailable" && e.data.dependency === "storefront"));
    assert.equal((body as unknown as { code?: string }).code, undefined);
  });

  test("transcript: user and assistant messages in order, with outcome and answer", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const first = await send(token, thr, "How long does standard shipping take?");
    clock.advance(1000);
    const second = await send(token, thr, "the blue one?");
    const res = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}`, headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as {
      messages: Array<{ role: string; turn_id: string; text: string; outcome: string | null; answer: Answer | null }>;
    };
    assert.deepEqual(
      body.messages.map((m) => [m.role, m.turn_id, m.text, m.outcome]),
      [
        ["user", first.turn_id, "How long does standard shipping take?", null],
        ["assistant", first.turn_id, first.answer.response_markdown, "answer"],
        ["user", second.turn_id, "the blue one?", null],
        ["assistant", second.turn_id, second.answer.response_markdown, "clarification"],
      ],
    );
    assert.deepEqual(body.messages[1]!.answer, first.answer);
    assert.equal(body.messages[0]!.answer, null);
  });

  test("bad input is VALIDATION_FAILED; no token is 401", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    for (const payload of [
      {},
      { thread_id: thr },
      { text: "hi" },
      { thread_id: thr, text: "" },
      { thread_id: thr, text: "   " },
      { thread_id: thr, text: "x".repeat(2001) },
      { thread_id: thr, text: "hi", extra: 1 },
      { thread_id: 5, text: "hi" },
    ]) {
      const res = await t.assistant.inject({ method: "POST", url: "/v1/chat/messages", headers: bearer(token), payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().code, "VALIDATION_FAILED");
      assert.ok(res.json().correlation_id);
    }
    const none = await t.assistant.inject({ method: "POST", url: "/v1/chat/messages", payload: { thread_id: thr, text: "hi" } });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().code, "UNAUTHENTICATED");
  });

  test("isolation: another session's or store's thread is 404 and nothing is recorded in it", async () => {
    const owner = await anonymousSession(t, a);
    const thr = await openThread(t, owner);
    const sameStore = await anonymousSession(t, a);
    const otherStore = await anonymousSession(t, b);
    for (const token of [sameStore, otherStore]) {
      const res = await t.assistant.inject({
        method: "POST",
        url: "/v1/chat/messages",
        headers: bearer(token),
        payload: { thread_id: thr, text: "How long does standard shipping take?" },
      });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, "NOT_FOUND");
    }
    const dashboard = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(a.owner),
      payload: { thread_id: thr, text: "hi" },
    });
    assert.equal(dashboard.statusCode, 401);
    const transcript = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}`, headers: bearer(owner) });
    assert.deepEqual((transcript.json() as { messages: unknown[] }).messages, []);
  });
});
