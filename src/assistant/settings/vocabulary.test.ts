// The store's own vocabulary (issue 36 item 8) through GET/PUT /v1/admin/settings/vocabulary:
// saved per store, lower-cased and validated with errors that name the word, read by the policy
// engine from the next question on (in this process or any other), never by another store.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer } from "../../../test/support/factories.js";
import { askInNewThread, chatShop, putPolicy, type ChatShop } from "../../../test/support/chat.js";

interface Vocabulary {
  correlation_id: string;
  synonyms: string[][];
  scope_words: string[];
  product_words: string[];
  updated_at: string | null;
}
interface Reply {
  outcome: string;
  answer: { response_markdown: string; conflicts: unknown[] };
}
interface Problem {
  code: string;
  detail: string;
  details?: { errors?: Array<{ field: string; message: string }> };
}

describeEachDialect("assistant settings: the store's vocabulary", (dialect) => {
  let t: TestApp;
  let a: ChatShop;
  let b: ChatShop;

  const get = async (shop: ChatShop): Promise<Vocabulary> => {
    const res = await t.assistant.inject({ method: "GET", url: "/v1/admin/settings/vocabulary", headers: bearer(shop.owner) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Vocabulary;
  };
  const put = (shop: ChatShop, payload: Record<string, unknown>) =>
    t.assistant.inject({ method: "PUT", url: "/v1/admin/settings/vocabulary", headers: bearer(shop.owner), payload });

  // Two policies give different windows, one of them for a region only.
  const shippingPolicies = async (shop: ChatShop) => {
    await putPolicy(t, shop, "shipping", {
      handle: "shipping",
      title: "Shipping",
      body_markdown: "# Shipping\n\nOrders ship within 3 business days.",
    });
    await putPolicy(t, shop, "faq", {
      handle: "faq",
      title: "FAQ",
      body_markdown: "# FAQ\n\n**How long does shipping take to Alaska?** Orders to Alaska ship within 10 business days.",
    });
  };

  before(async () => {
    t = await createTestApp({ dialect });
    [a, b] = [await chatShop(t), await chatShop(t)];
    await shippingPolicies(a);
    await shippingPolicies(b);
  });
  after(async () => {
    await t.close();
  });

  test("a store that saved none has an empty vocabulary", async () => {
    const { correlation_id: _, ...view } = await get(a);
    assert.deepEqual(view, { synonyms: [], scope_words: [], product_words: [], updated_at: null });
  });

  test("saving lower-cases, collapses spaces and drops repeats; the engine reads it from the next question; another store is untouched", async () => {
    const before = await askInNewThread<Reply>(t, a, "how long does shipping take?");
    assert.ok(before.answer.conflicts.length > 0, JSON.stringify(before));

    const res = await put(a, {
      synonyms: [["Member", "elite  tier"]],
      scope_words: ["Alaska", "alaska", "Hawaii"],
      product_words: ["Mattress"],
    });
    assert.equal(res.statusCode, 200, res.body);
    const saved = res.json() as Vocabulary;
    assert.deepEqual(saved.synonyms, [["member", "elite tier"]]);
    assert.deepEqual(saved.scope_words, ["alaska", "hawaii"]);
    assert.deepEqual(saved.product_words, ["mattress"]);
    assert.ok(saved.updated_at !== null);
    assert.deepEqual((await get(a)).scope_words, ["alaska", "hawaii"]);

    const after = await askInNewThread<Reply>(t, a, "how long does shipping take?");
    assert.deepEqual(after.answer.conflicts, [], JSON.stringify(after));
    assert.equal(after.outcome, "answer");
    assert.match(after.answer.response_markdown, /3 business days/);
    const alaska = await askInNewThread<Reply>(t, a, "how long does shipping to alaska take?");
    assert.match(alaska.answer.response_markdown, /10 business days/);

    assert.deepEqual((await get(b)).scope_words, []);
    const other = await askInNewThread<Reply>(t, b, "how long does shipping take?");
    assert.ok(other.answer.conflicts.length > 0, JSON.stringify(other));
  });

  test("a word the engine cannot read is refused by name and nothing is saved", async () => {
    const kept = await get(a);
    const res = await put(a, { synonyms: [], scope_words: ["alaska", "the"], product_words: [] });
    assert.equal(res.statusCode, 400, res.body);
    const problem = res.json() as Problem;
    assert.equal(problem.code, "VALIDATION_FAILED");
    assert.deepEqual(
      problem.details?.errors?.map((e) => e.field),
      ["scope_words[1]"],
    );
    assert.match(problem.details!.errors![0]!.message, /"the".*content word/);
    const same = await put(a, { synonyms: [["member", "Member"]], scope_words: [], product_words: [] });
    assert.equal(same.statusCode, 400, same.body);
    assert.deepEqual(
      (same.json() as Problem).details?.errors?.map((e) => e.field),
      ["synonyms[0]"],
    );
    const { correlation_id: _k, ...was } = kept;
    const { correlation_id: _n, ...now } = await get(a);
    assert.deepEqual(now, was);
  });

  test("the body is checked: every list is required, a group has two to twenty words, unknown fields are refused", async () => {
    for (const payload of [
      { synonyms: [], scope_words: [] },
      { synonyms: [["alone"]], scope_words: [], product_words: [] },
      { synonyms: [], scope_words: [], product_words: [], extra: 1 },
      { synonyms: [], scope_words: ["x".repeat(41)], product_words: [] },
    ]) {
      const res = await put(a, payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)} → ${res.body}`);
      assert.equal((res.json() as Problem).code, "VALIDATION_FAILED");
    }
  });

  test("without the store's dashboard session the vocabulary is neither read nor written", async () => {
    const read = await t.assistant.inject({ method: "GET", url: "/v1/admin/settings/vocabulary" });
    assert.equal(read.statusCode, 401, read.body);
    const write = await t.assistant.inject({
      method: "PUT",
      url: "/v1/admin/settings/vocabulary",
      headers: bearer(a.publicKey),
      payload: { synonyms: [], scope_words: [], product_words: [] },
    });
    assert.ok(write.statusCode === 401 || write.statusCode === 403, write.body);
  });
});
