// LLM agent mode against an adversarial model (issue 36, item 11; test/support/adversarial-llm.ts):
// every kind of invented or vacuous reply is refused, and the shopper gets exactly the answer the
// service gives without a model. Two apps over the same shop data: one with the adversarial model
// configured, one without any.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { ADVERSARIAL_STYLES, startAdversarialLlm, type AdversarialLlm } from "../../../test/support/adversarial-llm.js";
import { askInNewThread, chatShop, putCatalogProduct, putPolicy, putSettings, type ChatShop } from "../../../test/support/chat.js";
import { AGENT_EVENT } from "./index.js";

interface Reply {
  outcome: string;
  answer: {
    response_markdown: string;
    citations: Array<{ concept_id: string; concept_version: number }>;
    products: Array<{ product_id: string }>;
  };
  events: Array<{ event: string; data: Record<string, unknown> }>;
}

const RETURNS = "You can return any item within 30 days of delivery. A return costs a $5 restocking fee.";
const SHIPPING = "Standard shipping costs $4.95 per order. Orders over $50 ship free of charge.";
const POLICY_QUESTIONS = [
  "How many days do I have to return something?",
  "is there a fee when I send something back",
  "How much does shipping cost?",
];
const PRODUCT_QUESTION = "do you have linen dresses?";

async function shopOf(t: TestApp): Promise<ChatShop> {
  const shop = await chatShop(t);
  await putSettings(t, shop, { currency: "USD", support_contact: { email: "help@shop.example" } });
  await putPolicy(t, shop, "returns", { handle: "returns", title: "Returns", body_markdown: `# Returns\n\n${RETURNS}` });
  await putPolicy(t, shop, "shipping", { handle: "shipping", title: "Shipping", body_markdown: `# Shipping\n\n${SHIPPING}` });
  await putCatalogProduct(
    t,
    shop.storeId,
    "dress-red",
    { name: "Red Linen Dress", category: "dresses", price: 49.9, inventory_quantity: 12 },
    0,
  );
  await putCatalogProduct(
    t,
    shop.storeId,
    "dress-blue",
    { name: "Blue Linen Dress", category: "dresses", price: 59, inventory_quantity: 2 },
    1,
  );
  return shop;
}

const ask = (t: TestApp, shop: ChatShop, text: string) => askInNewThread<Reply>(t, shop, text);

/** What a shopper sees: the outcome, the text, the policies cited and the products shown. */
const seen = (r: Reply) => ({
  outcome: r.outcome,
  markdown: r.answer.response_markdown,
  citations: r.answer.citations.map((c) => `${c.concept_id}@${c.concept_version}`),
  products: r.answer.products.map((p) => p.product_id),
});

describeEachDialect("assistant agent mode against an adversarial model", (dialect) => {
  let llm: AdversarialLlm;
  let withModel: TestApp;
  let without: TestApp;
  let shopWith: ChatShop;
  let shopWithout: ChatShop;

  before(async () => {
    llm = await startAdversarialLlm();
    withModel = await createTestApp({ dialect, env: { LLM_BASE_URL: llm.url, LLM_MODEL: "fake-adversarial", LLM_TIMEOUT_MS: "2000" } });
    without = await createTestApp({ dialect });
    shopWith = await shopOf(withModel);
    shopWithout = await shopOf(without);
  });
  after(async () => {
    await withModel.close();
    await without.close();
    await llm.close();
  });

  test("every adversarial reply to a policy question is refused: the answer is the one given without a model", async () => {
    for (const question of POLICY_QUESTIONS) {
      const expected = seen(await ask(without, shopWithout, question));
      assert.equal(expected.outcome, "answer", `${question}: the policies answer it`);
      for (const style of ADVERSARIAL_STYLES) {
        llm.style = style;
        const before = llm.replies.length;
        const r = await ask(withModel, shopWith, question);
        assert.equal(llm.replies.length, before + 1, `${style}: the model wrote a reply`);
        const agent = r.events.find((e) => e.event === AGENT_EVENT)?.data;
        assert.equal(agent?.accepted, false, `${style} for "${question}": ${llm.replies.at(-1)!.text} must be refused`);
        assert.deepEqual(seen(r), expected, `${style} for "${question}": as without a model`);
      }
    }
  });

  test("to a product question, only a line naming a product the store's search found is used; every invention is refused", async () => {
    const expected = seen(await ask(without, shopWithout, PRODUCT_QUESTION));
    assert.ok(expected.products.length > 0, "the store's search finds the dresses");
    for (const style of ADVERSARIAL_STYLES) {
      llm.style = style;
      const r = await ask(withModel, shopWith, PRODUCT_QUESTION);
      const agent = r.events.find((e) => e.event === AGENT_EVENT)?.data;
      if (style === "unrelated_product") {
        // "You might also like the Red Linen Dress.": grounded in this turn's catalogue search, with
        // its price and stock written from live facts.
        assert.equal(agent?.accepted, true, llm.replies.at(-1)!.text);
        assert.ok(r.answer.products.every((p) => expected.products.includes(p.product_id)));
        assert.match(r.answer.response_markdown, /\$\d+\.\d\d · in stock/);
      } else {
        assert.equal(agent?.accepted, false, `${style}: ${llm.replies.at(-1)!.text} must be refused`);
        assert.deepEqual(seen(r), expected, `${style}: as without a model`);
      }
    }
  });
});
