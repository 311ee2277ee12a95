// An embedding model that is configured but fails mid-flight: the chat answers temporary_failure
// (200, never an error code) naming the dependency, and recovers once the model works again.
// Policy questions fail through the knowledge engine (KnowledgeUnavailable); product questions
// through the embedded catalogue's semantic search (StorefrontUnavailable "shopsight_catalog").
// The connected-storefront-down case is in messages.test.ts.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer } from "../../../test/support/factories.js";
import { anonymousSession, chatShop, openThread, parseSse, putPolicy, type ChatShop } from "../../../test/support/chat.js";
import { solidImage } from "../../../test/support/servers.js";
import { ManualClock } from "../../platform/clock.js";
import type { App } from "../../platform/http/app.js";
import { ImagePipeline } from "../../embeddings/pipeline.js";
import type { EmbeddingModel } from "../../embeddings/types.js";
import { buildAssistantApp } from "../app.js";
import { composeAssistant } from "../compose.js";
import { composeSearch } from "../../search/compose.js";

interface Turn {
  outcome: string;
  answer: {
    answer_status: string;
    response_markdown: string;
    citations: Array<{ concept_id: string }>;
    products: Array<{ product_id: string }>;
    limitations: Array<{ code: string }>;
    next_actions: Array<{ type: string }>;
    versions: { catalog_source: string | null };
  };
  events: Array<{ event: string; data: Record<string, unknown> }>;
}

describeEachDialect("assistant chat: a configured embedding model that fails → temporary_failure", (dialect) => {
  let t: TestApp;
  let app: App; // the Assistant API over the same database, with the flaky model
  let a: ChatShop;
  let modelDown = false;

  async function send(token: string, threadId: string, text: string): Promise<Turn & { status: number; raw: string }> {
    const res = await app.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(token),
      payload: { thread_id: threadId, text },
    });
    return { status: res.statusCode, raw: res.body, ...(res.json() as Turn) };
  }

  before(async () => {
    t = await createTestApp({ dialect, model: true, clock: new ManualClock(Date.parse("2026-03-02T09:00:00Z")) });
    const real = t.ctx.model!;
    const flaky: EmbeddingModel = {
      fingerprint: real.fingerprint,
      embedImages: (images) => (modelDown ? Promise.reject(new Error("inference runtime crashed")) : real.embedImages(images)),
      embedTexts: (texts) => (modelDown ? Promise.reject(new Error("inference runtime crashed")) : real.embedTexts(texts)),
      close: async () => {},
    };
    const ctx = { ...t.ctx, model: flaky, images: new ImagePipeline(flaky, t.ctx.fetch, { maxPixels: t.config.outbound.maxPixels }) };
    app = await buildAssistantApp(ctx, { logger: false, services: composeAssistant(ctx, { catalog: composeSearch(ctx).catalog }) });
    await app.ready();

    a = await chatShop(t);
    await putPolicy(t, a, "shipping", {
      handle: "shipping",
      title: "Shipping",
      body_markdown: "# Shipping\n\nStandard shipping takes 3 to 5 business days within the country.",
    });
    const image = await t.ctx.images.fromBytes(await solidImage("#cc2222"));
    const [vector] = await t.ctx.images.embed([image.decoded]);
    await t.services.products.write(a.storeId, {
      productId: "tee-1",
      imageUrl: "https://cdn.example.com/tee-1.png",
      metadata: { name: "Cotton tee", category: "shirts", price: 19.5 },
      embedded: { image, vector: vector! },
    });
  });
  after(async () => {
    await app.close();
    await t.close();
  });

  test("policy question: KnowledgeUnavailable → temporary_failure (dependency knowledge), then answered again once the model is back", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);
    const question = "How long does standard shipping take?";

    modelDown = false;
    const ok = await send(token, thr, question);
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.outcome, "answer", "with the model working the policy is cited");
    assert.deepEqual(
      ok.answer.citations.map((c) => c.concept_id),
      ["shipping"],
    );

    modelDown = true;
    const down = await send(token, thr, question);
    assert.equal(down.status, 200, down.raw);
    assert.equal(down.outcome, "temporary_failure");
    assert.equal((down as unknown as { code?: string }).code, undefined);
    assert.equal(down.answer.answer_status, "unavailable");
    assert.deepEqual(down.answer.citations, [], "nothing answered from the policies");
    assert.doesNotMatch(down.answer.response_markdown, /3 to 5/);
    assert.ok(down.answer.limitations.some((l) => l.code === "dependency_unavailable"));
    assert.ok(down.answer.next_actions.some((n) => n.type === "retry"));
    assert.ok(down.events.some((e) => e.event === "dependency.unavailable" && e.data.dependency === "knowledge"));

    // Streamed, the turn ends with message.completed carrying the same outcome.
    const stream = await app.inject({
      method: "POST",
      url: "/v1/chat/messages/stream",
      headers: bearer(token),
      payload: { thread_id: thr, text: question },
    });
    assert.equal(stream.statusCode, 200, stream.body);
    const events = parseSse(stream.body);
    assert.ok(events.some((e) => e.event === "dependency.unavailable" && e.data.dependency === "knowledge"));
    assert.equal(events.at(-1)!.event, "message.completed");
    assert.equal(events.at(-1)!.data.outcome, "temporary_failure");

    modelDown = false;
    const back = await send(token, thr, question);
    assert.equal(back.outcome, "answer");
  });

  test("product question: the catalogue's semantic search fails → temporary_failure (dependency storefront, shopsight_catalog)", async () => {
    const token = await anonymousSession(t, a);
    const thr = await openThread(t, token);

    modelDown = true;
    const down = await send(token, thr, "Show me red shirts");
    assert.equal(down.status, 200, down.raw);
    assert.equal(down.outcome, "temporary_failure");
    assert.equal(down.answer.answer_status, "unavailable");
    assert.deepEqual(down.answer.products, []);
    assert.equal(down.answer.versions.catalog_source, "shopsight_catalog");
    assert.ok(
      down.events.some(
        (e) => e.event === "dependency.unavailable" && e.data.dependency === "storefront" && e.data.source === "shopsight_catalog",
      ),
    );

    // The shopper's catalogue search says the same as a problem: 503 STOREFRONT_UNAVAILABLE.
    const search = await app.inject({ method: "GET", url: "/v1/catalog/search?q=red", headers: bearer(token) });
    assert.equal(search.statusCode, 503, search.body);
    assert.equal(search.json().code, "STOREFRONT_UNAVAILABLE");

    modelDown = false;
    const back = await send(token, thr, "Show me red shirts");
    assert.equal(back.status, 200, back.raw);
    assert.notEqual(back.outcome, "temporary_failure");
    assert.ok(back.answer.products.some((p) => p.product_id === "prd_tee-1"));
  });

  test("another store's session gets 404 for this store's thread; a bogus token 401", async () => {
    const b = await chatShop(t);
    const tokenB = await anonymousSession(t, b);
    const tokenA = await anonymousSession(t, a);
    const thrA = await openThread(t, tokenA);
    const res = await send(tokenB, thrA, "How long does standard shipping take?");
    assert.equal(res.status, 404, res.raw);
    const bad = await app.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer("ast_not-a-session"),
      payload: { thread_id: thrA, text: "hi" },
    });
    assert.equal(bad.statusCode, 401, bad.body);
  });
});
