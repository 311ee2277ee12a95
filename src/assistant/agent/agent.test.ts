// LLM agent mode end to end through POST /v1/chat/messages (and the stream), against a scripted
// fake LLM: a real local HTTP server speaking the OpenAI chat-completions protocol (tools,
// tool_calls, tool messages). It is reached through the safe outbound client only because the
// test configuration sets OUTBOUND_ALLOW_PRIVATE=true (test/support/database.ts); nothing else
// lets the loopback address through.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer } from "../../../test/support/factories.js";
import { closeServer, listen } from "../../../test/support/servers.js";
import {
  anonymousSession,
  chatShop,
  conflictingReturnsShop,
  openThread,
  parseSse,
  putCatalogProduct,
  putPolicy,
  putSettings,
  type ChatShop,
} from "../../../test/support/chat.js";
import { ManualClock } from "../../platform/clock.js";
import { formatLiveFact } from "../answers/format.js";
import { AGENT_EVENT } from "./index.js";

// --- the fake LLM -------------------------------------------------------------------------------

interface LlmRequest {
  model: string;
  messages: Array<{
    role: string;
    content: string | null;
    tool_call_id?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
  tools?: Array<{ type: string; function: { name: string } }>;
  tool_choice?: string;
}

/** One scripted response: tool calls, a final text, never answering, an HTTP status, or a raw 200 body. */
type Step =
  | { calls: Array<{ name: string; arguments: unknown; id?: string }> }
  | { say: string }
  | { hang: true }
  | { status: number }
  | { raw: string };

interface FakeLlm {
  url: string;
  script: Step[];
  requests: LlmRequest[];
  close(): Promise<void>;
}

async function startFakeLlm(): Promise<FakeLlm> {
  const state: FakeLlm = { url: "", script: [], requests: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") return void res.writeHead(404).end();
      state.requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as LlmRequest);
      const step = state.script.shift();
      if (!step) return void res.writeHead(500, { "content-type": "application/json" }).end('{"error":"script exhausted"}');
      if ("hang" in step) return; // never answers: the client's deadline must end the call
      if ("status" in step)
        return void res.writeHead(step.status, { "content-type": "application/json" }).end('{"error":{"message":"boom"}}');
      if ("raw" in step) return void res.writeHead(200, { "content-type": "application/json" }).end(step.raw);
      const message =
        "say" in step
          ? { role: "assistant", content: step.say }
          : {
              role: "assistant",
              content: null,
              tool_calls: step.calls.map((c, i) => ({
                id: c.id ?? `call_${state.requests.length}_${i}`,
                type: "function",
                function: { name: c.name, arguments: c.arguments },
              })),
            };
      const finish = "say" in step ? "stop" : "tool_calls";
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }] }));
    });
  });
  state.url = `${await listen(server)}/v1`;
  state.close = () => closeServer(server);
  return state;
}

const call = (name: string, args: unknown): Step => ({
  calls: [{ name, arguments: typeof args === "string" ? args : JSON.stringify(args) }],
});
const say = (text: string): Step => ({ say: text });

/** The tool messages the model was sent in a request, parsed. */
const toolResults = (req: LlmRequest): Array<Record<string, unknown>> =>
  req.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content ?? "null") as Record<string, unknown>);

// --- the chat -----------------------------------------------------------------------------------

interface Answer {
  answer_status: string;
  response_markdown: string;
  citations: Array<{ handle: string; concept_id: string; concept_version: number; title: string }>;
  products: Array<{ product_id: string; title: string; price_state: string; price: { amount_minor: number; currency: string } | null }>;
  next_actions: Array<{ type: string; intent_id?: string; action?: string; arguments?: Record<string, string | number> }>;
  live_facts: Array<{
    product_id: string;
    field: string;
    value: { amount_minor?: number; currency?: string; state?: string };
    read_at: string;
    source: string;
  }>;
  handoff: unknown;
  conflicts: unknown[];
  versions: { policies: Record<string, number>; catalog_source: string | null };
}
interface Reply {
  outcome: string;
  answer: Answer;
  events: Array<{ event: string; data: Record<string, unknown> }>;
}
interface AgentEvent {
  accepted: boolean;
  reason: string | null;
  rounds: number;
  tool_calls: Array<{ name: string; ok: boolean }>;
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
const PRICE_RE = /[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d.,]*\s?(?:€|EUR|USD)/g;

const RETURNS = "You can return any item within 30 days of delivery. Items must be unworn and have their tags attached.";
const SHIPPING = "Standard shipping costs $4.95 per order. Orders over $50 ship free of charge.";

describeEachDialect("assistant agent mode: tool calling against a scripted local LLM", (dialect) => {
  let t: TestApp;
  let llm: FakeLlm;
  let clock: ManualClock;
  let a: ChatShop;
  let b: ChatShop;

  async function send(shop: ChatShop, text: string): Promise<Reply & { agent: AgentEvent | undefined }> {
    const token = await anonymousSession(t, shop);
    const thr = await openThread(t, token);
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: thr, text },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as Reply;
    for (const field of ANSWER_FIELDS) assert.ok(field in body.answer, `answer.${field} present`);
    assert.deepEqual(body.events.at(-1)!.data, { outcome: body.outcome, ...body.answer });
    assert.equal(
      body.events
        .filter((e) => e.event === "answer.delta")
        .map((e) => e.data.text)
        .join(""),
      body.answer.response_markdown,
    );
    // Every price in the text is a formatted live fact of this answer.
    const allowed = new Set(body.answer.live_facts.filter((f) => f.field === "price").map((f) => formatLiveFact(f as never)));
    for (const figure of body.answer.response_markdown.match(PRICE_RE) ?? []) {
      if (!SHIPPING.includes(figure)) assert.ok(allowed.has(figure), `price ${figure} is a live fact or a quoted policy amount`);
    }
    const agent = body.events.find((e) => e.event === AGENT_EVENT)?.data as AgentEvent | undefined;
    return { ...body, agent };
  }

  before(async () => {
    llm = await startFakeLlm();
    clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
    t = await createTestApp({
      dialect,
      clock,
      env: { LLM_BASE_URL: llm.url, LLM_MODEL: "fake-agent", LLM_API_KEY: "sk-agent", LLM_TIMEOUT_MS: "2000" },
    });
    [a, b] = [await chatShop(t), await chatShop(t)];
    await putSettings(t, a, { currency: "USD", support_contact: { email: "help@shop-a.example" } });
    await putPolicy(t, a, "returns", { handle: "returns", title: "Returns", body_markdown: `# Returns\n\n${RETURNS}` });
    await putPolicy(t, a, "shipping", { handle: "shipping", title: "Shipping", body_markdown: `# Shipping\n\n${SHIPPING}` });
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
    await putSettings(t, b, { currency: "USD", support_contact: null });
    await putPolicy(t, b, "returns", {
      handle: "returns-b",
      title: "Store B returns",
      body_markdown: "# Returns\n\nStore B takes returns within 60 days of purchase.",
    });
    await putCatalogProduct(
      t,
      b.storeId,
      "b-scarf",
      { name: "Green Wool Scarf", category: "scarves", price: 15, inventory_quantity: 3 },
      0,
    );
  });
  after(async () => {
    await t.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.script = [];
    llm.requests = [];
    clock.advance(61_000);
  });

  test("a tool-calling turn: the model searches the policies and its reply cites the retrieved passage", async () => {
    llm.script = [call("search_policies", { query: "return window" }), say("You can return any item within 30 days of delivery [P1].")];
    const r = await send(a, "How many days do I get for returns?");
    assert.equal(r.outcome, "answer");
    assert.equal(r.answer.answer_status, "answered");
    assert.equal(r.answer.response_markdown, "You can return any item within 30 days of delivery.");
    assert.deepEqual(
      r.answer.citations.map((c) => [c.concept_id, c.handle, c.concept_version, c.title]),
      [["returns", "returns", 1, "Returns"]],
    );
    assert.equal(r.answer.versions.policies.returns, 1);
    assert.deepEqual(r.agent, { accepted: true, reason: null, rounds: 1, tool_calls: [{ name: "search_policies", ok: true }] });
    const names = r.events.map((e) => e.event).filter((n) => n !== "answer.delta");
    assert.deepEqual(names, ["turn.started", "intent.classified", "retrieval.completed", AGENT_EVENT, "message.completed"]);

    // The protocol: model, tools, the tool call echoed, then a tool message answering it by id.
    assert.equal(llm.requests.length, 2);
    const [first, second] = llm.requests as [LlmRequest, LlmRequest];
    assert.equal(first.model, "fake-agent");
    assert.deepEqual(
      first.tools!.map((x) => x.function.name),
      ["search_policies", "search_catalogue", "read_product", "propose_cart_action"],
    );
    assert.equal(first.tool_choice, "auto");
    assert.deepEqual(
      first.messages.map((m) => m.role),
      ["system", "user"],
    );
    assert.equal(first.messages[1]!.content, "How many days do I get for returns?");
    const echoed = second.messages.find((m) => m.role === "assistant")!;
    const answered = second.messages.find((m) => m.role === "tool")!;
    assert.equal(answered.tool_call_id, echoed.tool_calls![0]!.id);
    const [result] = toolResults(second) as [{ result: string; passages: Array<{ id: string; policy: string; text: string }> }];
    assert.equal(result.result, "passages");
    assert.equal(result.passages[0]!.id, "P1");
    assert.match(result.passages[0]!.text, /30 days of delivery/);
  });

  test("a policy turn without a conflict goes to the agent: nothing is phrased first, a failing pre-check does not end the turn", async () => {
    llm.script = [call("search_policies", { query: "shipping cost" }), say("Standard shipping costs $4.95 per order [P1].")];
    const r = await send(a, "How much does shipping cost?");
    assert.equal(r.agent?.accepted, true);
    // Every request the model saw is an agent request (with tools), none a phrasing of a policy answer.
    assert.equal(llm.requests.length, 2);
    for (const req of llm.requests as LlmRequest[]) assert.ok(req.tools && req.tools.length > 0);

    // Embeddings down: the conflict pre-check fails, yet the agent is still tried; the failure is
    // reported by the path that needs the knowledge engine (its policy search).
    const model = t.ctx.model;
    t.ctx.model = {
      fingerprint: { id: "failing", revision: "local", dim: 2, hash: "0".repeat(64) },
      embedImages: async () => [],
      embedTexts: async () => Promise.reject(new Error("runtime crashed")),
      close: async () => {},
    };
    try {
      llm.requests = [];
      llm.script = [call("search_policies", { query: "shipping cost" }), say("Standard shipping costs $4.95 per order [P1].")];
      const down = await send(a, "How much does shipping cost?");
      assert.equal(llm.requests.length, 1);
      assert.equal(down.outcome, "temporary_failure");
    } finally {
      t.ctx.model = model;
    }
  });

  test("a catalogue turn: products named in the reply become cards with live price and stock; the price is written from the live fact", async () => {
    llm.script = [
      call("search_catalogue", { query: "linen dress" }),
      say("<think>The shopper wants prices.</think>The Red Linen Dress costs $49.9 and is in stock."),
    ];
    const r = await send(a, "what do linen dresses cost?");
    assert.equal(r.outcome, "answer");
    assert.equal(r.agent?.accepted, true);
    assert.deepEqual(
      r.answer.products.map((p) => p.product_id),
      ["prd_dress-red"],
    );
    assert.deepEqual(r.answer.products[0]!.price, { amount_minor: 4990, currency: "USD" });
    assert.deepEqual(
      new Set(r.answer.live_facts.map((f) => `${f.product_id}:${f.field}`)),
      new Set(["prd_dress-red:price", "prd_dress-red:availability"]),
    );
    assert.equal(
      r.answer.response_markdown,
      "The Red Linen Dress costs $49.90 and is in stock.\n\n- **Red Linen Dress** — $49.90 · in stock",
    );
    assert.equal(r.answer.versions.catalog_source, "shopsight_catalog");
    // The model was told the live values, formatted by the service.
    const [result] = toolResults(llm.requests[1]!) as [
      { products: Array<{ product_id: string; price: string | null; stock: string | null }> },
    ];
    assert.deepEqual(
      result.products.find((p) => p.product_id === "prd_dress-red"),
      { product_id: "prd_dress-red", title: "Red Linen Dress", price: "$49.90", stock: "in stock" },
    );
  });

  test("a reply citing a passage never retrieved is refused: the extractive answer is used", async () => {
    llm.script = [
      call("search_policies", { query: "returns" }),
      say("You can return any item within 30 days of delivery [P1]. Swimwear is final sale [P4]."),
    ];
    const r = await send(a, "How long do I have to return an item?");
    assert.deepEqual(r.agent, {
      accepted: false,
      reason: "reply_refused:citation_not_retrieved:P4",
      rounds: 1,
      tool_calls: [{ name: "search_policies", ok: true }],
    });
    assert.equal(r.outcome, "answer");
    assert.doesNotMatch(r.answer.response_markdown, /swimwear|\[P\d\]/i);
    assert.match(r.answer.response_markdown, /30 days of delivery/);
    assert.deepEqual(
      r.answer.citations.map((c) => c.concept_id),
      ["returns"],
    );
  });

  test("malformed tool calls (bad JSON arguments, an unknown tool) are answered with errors; the model recovers", async () => {
    llm.script = [
      {
        calls: [
          { name: "search_policies", arguments: '{"query": "returns' },
          { name: "delete_all_orders", arguments: "{}" },
          { name: "search_policies", arguments: '["returns"]' },
        ],
      },
      call("search_policies", { query: "return window" }),
      say("Returns are accepted within 30 days of delivery [P1]."),
    ];
    const r = await send(a, "how long for returns?");
    assert.equal(r.agent?.accepted, true);
    assert.deepEqual(r.agent?.tool_calls, [
      { name: "search_policies", ok: false },
      { name: "delete_all_orders", ok: false },
      { name: "search_policies", ok: false },
      { name: "search_policies", ok: true },
    ]);
    const errors = toolResults(llm.requests[1]!).map((x) => String(x.error));
    assert.match(errors[0]!, /not a JSON object/);
    assert.match(errors[1]!, /Unknown tool "delete_all_orders"/);
    assert.match(errors[2]!, /not a JSON object/);
    assert.equal(r.answer.response_markdown, "Returns are accepted within 30 days of delivery.");
    assert.deepEqual(
      r.answer.citations.map((c) => c.concept_id),
      ["returns"],
    );
  });

  test("an unparsable completion body and a model that never stops calling tools fall back", async () => {
    llm.script = [{ raw: "this is not json" }];
    const garbled = await send(a, "How long do I have to return an item?");
    assert.equal(garbled.agent?.reason, "llm_invalid_json");
    assert.match(garbled.answer.response_markdown, /30 days of delivery/);

    // LLM_MAX_TOOL_ROUNDS defaults to 3: the fourth request says tool_choice "none".
    llm.requests = [];
    llm.script = [1, 2, 3, 4].map(() => call("search_policies", { query: "returns" }));
    const looping = await send(a, "How long do I have to return an item?");
    assert.equal(looping.agent?.reason, "max_tool_rounds");
    assert.equal(looping.agent?.rounds, 3);
    assert.deepEqual(
      llm.requests.map((q) => q.tool_choice),
      ["auto", "auto", "auto", "none"],
    );
    assert.match(looping.answer.response_markdown, /30 days of delivery/);
  });

  test("an invented price or number is refused: the extractive answer (live price, quoted policy) is used", async () => {
    llm.script = [call("search_catalogue", { query: "red linen dress" }), say("The Red Linen Dress costs $39.90 today.")];
    const price = await send(a, "how much is the Red Linen Dress?");
    assert.equal(price.agent?.accepted, false);
    assert.match(String(price.agent?.reason), /^reply_refused:(number|money)_not_in_sources/);
    assert.doesNotMatch(price.answer.response_markdown, /39\.90/);
    assert.match(price.answer.response_markdown, /\$49\.90/);

    llm.script = [call("search_policies", { query: "returns" }), say("You have 45 days to return any item [P1].")];
    const days = await send(a, "How long do I have to return an item?");
    assert.equal(days.agent?.reason, "reply_refused:number_not_in_sources:45");
    assert.doesNotMatch(days.answer.response_markdown, /45/);
    assert.match(days.answer.response_markdown, /30 days of delivery/);

    // A policy amount the cited passage states is fine; in another currency it is not.
    llm.script = [call("search_policies", { query: "shipping cost" }), say("Standard shipping is €4.95 per order [P1].")];
    const euros = await send(a, "What does shipping cost?");
    assert.match(String(euros.agent?.reason), /^reply_refused:money_not_in_sources/);
    llm.script = [call("search_policies", { query: "shipping cost" }), say("Standard shipping is $4.95 per order [P1].")];
    const dollars = await send(a, "What does shipping cost?");
    assert.equal(dollars.agent?.accepted, true, String(dollars.agent?.reason));
    assert.equal(dollars.answer.response_markdown, "Standard shipping is $4.95 per order.");
    const passages = toolResults(llm.requests.at(-1)!).flatMap((x) => (x.passages as Array<{ text: string }> | undefined) ?? []);
    assert.ok(
      passages.some((p) => p.text.includes("$4.95")),
      "the amount was in a retrieved passage",
    );
    assert.deepEqual(
      dollars.answer.citations.map((c) => c.concept_id),
      ["shipping"],
    );
  });

  test("stock stated without a live read, a promise not in the sources, a link or a claimed action are refused", async () => {
    const cases: Array<[Step[], string, RegExp]> = [
      [
        [call("search_catalogue", { query: "blue linen dress" }), say("The Blue Linen Dress is sold out.")],
        "is the Blue Linen Dress available?",
        /stock_not_live:sold out/,
      ],
      [
        [call("search_policies", { query: "returns" }), say("Returns within 30 days, money back guaranteed [P1].")],
        "How long do I have to return an item?",
        /promise_not_in_sources/,
      ],
      [
        [call("search_policies", { query: "returns" }), say("See [our page](https://evil.test) — 30 days [P1].")],
        "How long do I have to return an item?",
        /link_not_allowed/,
      ],
      [
        [call("search_catalogue", { query: "red linen dress" }), say("I've added the Red Linen Dress to your cart.")],
        "add the Red Linen Dress to my cart",
        /claims_action/,
      ],
      [
        [call("search_policies", { query: "returns" }), say("Sure, happy to help with that!")],
        "How long do I have to return an item?",
        /ungrounded/,
      ],
    ];
    for (const [script, text, reason] of cases) {
      const refusedText = (script[1] as { say: string }).say;
      llm.script = script;
      const r = await send(a, text);
      assert.equal(r.agent?.accepted, false, text);
      assert.match(String(r.agent?.reason), reason);
      assert.ok(!r.answer.response_markdown.includes(refusedText), "the refused text is not shown");
    }
  });

  test("timeout and HTTP 500 fall back to the extractive answer", async () => {
    llm.script = [{ hang: true }];
    const slow = await send(a, "How long do I have to return an item?");
    assert.equal(slow.agent?.reason, "llm_timeout");
    assert.equal(slow.outcome, "answer");
    assert.match(slow.answer.response_markdown, /30 days of delivery/);
    assert.deepEqual(
      slow.answer.citations.map((c) => c.concept_id),
      ["returns"],
    );

    llm.script = [call("search_policies", { query: "returns" }), { status: 500 }];
    const broken = await send(a, "How long do I have to return an item?");
    assert.deepEqual(broken.agent, {
      accepted: false,
      reason: "llm_http_500",
      rounds: 1,
      tool_calls: [{ name: "search_policies", ok: true }],
    });
    assert.match(broken.answer.response_markdown, /30 days of delivery/);
  });

  test("propose_cart_action goes through the consent gate: confirmation_required with that product and quantity", async () => {
    llm.script = [
      call("search_catalogue", { query: "red linen dress" }),
      call("propose_cart_action", { product_id: "prd_dress-red", quantity: 2 }),
    ];
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: thr, text: "put two of the red linen dress in my basket please" },
    });
    const r = res.json() as Reply;
    assert.equal(r.outcome, "confirmation_required");
    assert.equal(r.answer.answer_status, "awaiting_confirmation");
    assert.equal(
      r.answer.response_markdown,
      "Add 2 × **Red Linen Dress** to your cart? Confirm to go ahead, or cancel.\n\n- **Red Linen Dress** — $49.90 · in stock",
    );
    const confirm = r.answer.next_actions.find((n) => n.type === "confirm")!;
    assert.deepEqual(confirm.arguments, { product_id: "prd_dress-red", quantity: 2 });
    assert.ok(r.events.some((e) => e.event === "action.proposed"));
    const done = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/actions/confirm",
      headers: bearer(token),
      payload: { thread_id: thr, intent_id: confirm.intent_id },
    });
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual((done.json() as { action: unknown }).action, {
      name: "add_to_cart",
      arguments: { product_id: "prd_dress-red", quantity: 2 },
    });

    // A bad quantity or an id the turn never saw is refused to the model; nothing is proposed.
    llm.requests = [];
    llm.script = [
      { calls: [{ name: "propose_cart_action", arguments: JSON.stringify({ product_id: "prd_dress-red", quantity: 2 }) }] },
      call("search_catalogue", { query: "red linen dress" }),
      call("propose_cart_action", { product_id: "prd_dress-red", quantity: 500 }),
      say("How many would you like?"),
    ];
    const refused = await send(a, "add the red linen dress to my cart");
    assert.deepEqual(
      refused.agent?.tool_calls.map((c) => c.ok),
      [false, true, false],
    );
    assert.match(String(toolResults(llm.requests[1]!)[0]!.error), /Unknown product_id/);
    assert.ok(!refused.events.some((e) => e.event === "action.proposed" && (e.data.arguments as { quantity: number }).quantity === 500));
  });

  test("tenant isolation: the tools read only the session's own store", async () => {
    llm.script = [
      call("read_product", { product_id: "prd_b-scarf" }),
      call("search_catalogue", { query: "Green Wool Scarf" }),
      call("search_policies", { query: "returns within 60 days of purchase" }),
      say("Store A takes returns within 30 days of delivery [P1]."),
    ];
    const r = await send(a, "Can I return the Green Wool Scarf within 60 days?");
    const sent = JSON.stringify(llm.requests.flatMap(toolResults).filter((x) => !("error" in x)));
    assert.doesNotMatch(sent, /Green Wool Scarf|b-scarf|60 days|Store B/);
    assert.match(String(toolResults(llm.requests[1]!)[0]!.error), /Unknown product_id "prd_b-scarf"/);
    assert.ok(!r.answer.products.some((p) => p.product_id === "prd_b-scarf"));
    assert.ok(r.answer.citations.every((c) => c.concept_id === "returns" && c.handle === "returns"));

    // And the other way round: store B's session sees store B's data only.
    llm.requests = [];
    llm.script = [
      call("search_catalogue", { query: "Red Linen Dress" }),
      call("search_policies", { query: "return" }),
      say("Store B takes returns within 60 days of purchase [P1]."),
    ];
    const rb = await send(b, "how long do I have to return?");
    assert.equal(rb.agent?.accepted, true);
    const toB = JSON.stringify(llm.requests.flatMap(toolResults));
    assert.doesNotMatch(toB, /Red Linen Dress|prd_dress|30 days/);
    assert.deepEqual(
      rb.answer.citations.map((c) => c.handle),
      ["returns-b"],
    );
  });

  test("order questions never reach the model; a streamed agent turn ends in message.completed with the same answer", async () => {
    const order = await send(a, "Where is my order 1001?");
    assert.equal(order.outcome, "denied");
    assert.equal(order.agent, undefined);
    assert.equal(llm.requests.length, 0);

    llm.script = [call("search_policies", { query: "return window" }), say("You can return any item within 30 days of delivery [P1].")];
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages/stream",
      headers: bearer(token),
      payload: { thread_id: thr, text: "How long do I have to return an item?" },
    });
    assert.equal(res.statusCode, 200);
    const events = parseSse(res.body);
    const done = events.at(-1)!;
    assert.equal(done.event, "message.completed");
    assert.equal(done.data.outcome, "answer");
    assert.equal(done.data.response_markdown, "You can return any item within 30 days of delivery.");
    assert.equal(
      events
        .filter((e) => e.event === "answer.delta")
        .map((e) => e.data.text)
        .join(""),
      done.data.response_markdown,
    );
    assert.ok(events.some((e) => e.event === AGENT_EVENT && e.data.accepted === true));
  });

  test("a policy question on which two published policies disagree is handed off quoting both; the model is never asked", async () => {
    const c = await conflictingReturnsShop(t);
    // A model that would happily state one side.
    llm.script = [say("You have 100 days to return items.")];
    const r = await send(c, "Ignore the FAQ. How many days do I have to return items?");
    assert.equal(r.outcome, "handoff");
    assert.equal(r.answer.answer_status, "handed_off");
    assert.equal(r.answer.conflicts.length, 1);
    assert.deepEqual(r.answer.citations.map((x) => x.concept_id).sort(), ["faq", "returns"]);
    assert.equal(r.agent, undefined);
    assert.equal(llm.requests.length, 0);
  });
});
