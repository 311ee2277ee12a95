// Issue 36 through POST /v1/chat/messages: product questions go through the store's own search
// (its categories are "Casual Shoes", "Handbags", "Tshirts": no fixed category names), an explicit
// request for a person always hands off with the store's contact, and a hypothetical return is a
// policy question, not the shopper's own return. Another store's products never appear.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { askInNewThread, chatShop, putCatalogProduct, putPolicy, putSettings, type ChatShop } from "../../../test/support/chat.js";

interface Reply {
  outcome: string;
  answer: {
    answer_status: string;
    response_markdown: string;
    products: Array<{ product_id: string; title: string }>;
    citations: Array<{ concept_id: string }>;
    limitations: Array<{ code: string }>;
    handoff: { reason: string; support_contact: { email?: string } | null } | null;
  };
}

describeEachDialect("assistant chat: the store's own catalogue, requests for a person", (dialect) => {
  let t: TestApp;
  let a: ChatShop;
  let b: ChatShop;

  const ask = (shop: ChatShop, text: string) => askInNewThread<Reply>(t, shop, text);
  const ids = (r: Reply) => r.answer.products.map((p) => p.product_id);

  before(async () => {
    t = await createTestApp({ dialect });
    [a, b] = [await chatShop(t), await chatShop(t)];
    await putSettings(t, a, { currency: "USD", support_contact: { email: "help@shop-a.example", phone: "+1 555 0100" } });
    await putPolicy(t, a, "returns", {
      handle: "returns",
      title: "Returns",
      body_markdown: "# Returns\n\nYou can return unworn items within 30 days of delivery. Return shipping is free.",
    });
    const put = (shop: ChatShop, id: string, metadata: Record<string, unknown>, at: number) =>
      putCatalogProduct(t, shop.storeId, id, { in_stock: true, inventory_quantity: 5, ...metadata }, at);
    await put(a, "court", { name: "Nike Court Vision Low", category: "Casual Shoes", color_name: "White", price: 45 }, 0);
    await put(a, "tee", { name: "Nike Dri-FIT Running Tee", category: "Tshirts", color_name: "Black", price: 25 }, 1);
    await put(a, "bag", { name: "Baggit Leather Tote", category: "Handbags", color_name: "Black", price: 60 }, 2);
    await put(a, "smash", { name: "Puma Smash Sneakers", category: "Casual Shoes", color_name: "Red", price: 40 }, 3);
    await put(a, "smash-pro", { name: "Puma Smash Pro Sneakers", category: "Casual Shoes", color_name: "Red", price: 80 }, 4);
    await put(b, "b-nike", { name: "Nike Pegasus Shoes", category: "Shoes", color_name: "Red", price: 30 }, 0);
  });
  after(async () => {
    await t.close();
  });

  test("a policy question naming the store is answered from the policy it asks about (the store's account name)", async () => {
    const hn = await chatShop(t, "enterprise", "Harvey Norman");
    await putPolicy(t, hn, "returns", {
      handle: "returns",
      title: "Returns",
      body_markdown: "# Returns\n\nYou may return your item within 14 days from the date you receive the goods.",
    });
    await putPolicy(t, hn, "gift-cards", {
      handle: "gift-cards",
      title: "Gift cards",
      body_markdown:
        "# Gift cards\n\nHarvey Norman gift cards can be used at any Harvey Norman store. A Harvey Norman gift card is valid for 3 years.",
    });
    const r = await ask(hn, "how many days do i have to return something to harvey norman");
    assert.equal(r.outcome, "answer", r.answer.response_markdown);
    assert.deepEqual(
      r.answer.citations.map((c) => c.concept_id),
      ["returns"],
    );
    assert.match(r.answer.response_markdown, /14 days/);
  });

  test("product questions find the store's products under its own category names", async () => {
    const nike = await ask(a, "nike shoes");
    assert.equal(nike.outcome, "answer", nike.answer.response_markdown);
    assert.equal(ids(nike)[0], "prd_court", "the Nike shoe first");

    const bag = await ask(a, "black handbag");
    assert.equal(ids(bag)[0], "prd_bag");

    const casual = await ask(a, "casual shoes");
    assert.deepEqual(new Set(ids(casual).slice(0, 3)), new Set(["prd_court", "prd_smash", "prd_smash-pro"]));

    const cheapRed = await ask(a, "red sneakers under 50");
    assert.equal(ids(cheapRed)[0], "prd_smash");
    assert.ok(!ids(cheapRed).includes("prd_smash-pro"), "over the price bound");

    const brand = await ask(a, "do you have Nike?");
    assert.deepEqual(new Set(ids(brand).slice(0, 2)), new Set(["prd_court", "prd_tee"]), "every type of the brand");

    for (const r of [nike, bag, casual, cheapRed, brand]) assert.ok(!ids(r).includes("prd_b-nike"), "never another store's product");
  });

  test("an explicit request for a person hands off with the store's contact", async () => {
    for (const text of ["I want to talk to a person", "How can I contact you?", "can i speak to someone about my refund"]) {
      const r = await ask(a, text);
      assert.equal(r.outcome, "handoff", text);
      assert.equal(r.answer.handoff?.reason, "requested", text);
      assert.equal(r.answer.handoff?.support_contact?.email, "help@shop-a.example");
      assert.match(r.answer.response_markdown, /help@shop-a\.example/);
    }
    // A store without a contact still hands off (the outcome tells the client a person is needed),
    // and says no contact is configured instead of naming one.
    const none = await ask(b, "I want to talk to a person");
    assert.equal(none.outcome, "handoff");
    assert.equal(none.answer.answer_status, "handed_off");
    assert.deepEqual(none.answer.handoff, { reason: "requested", support_contact: null });
    assert.ok(none.answer.limitations.some((l) => l.code === "no_support_contact"));
    assert.match(none.answer.response_markdown, /no support contact is configured/);
    assert.doesNotMatch(none.answer.response_markdown, /take it from here/);
  });

  test("a hypothetical return is a policy question, not a sign-in for the shopper's own return", async () => {
    // Before issue 36 the "if"-clause made it the shopper's own return: denied, asking to sign in.
    const r = await ask(a, "if I return my jacket is return shipping free");
    assert.notEqual(r.outcome, "denied", r.answer.response_markdown);
    assert.equal(r.outcome, "answer", r.answer.response_markdown);
    assert.deepEqual(
      r.answer.citations.map((c) => c.concept_id),
      ["returns"],
    );
    assert.match(r.answer.response_markdown, /free/i);
    // The shopper's own return still is one.
    assert.equal((await ask(a, "I want to return my jacket")).outcome, "denied");
  });
});
