// Learned word associations (associations.ts): the rule that keeps one, and the fitted table in the
// engine (a shopper's "smashed", "cracked", "ripped" find a policy's "damaged"; "ring" finds "call").
// Pure: no database.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MIN_STORES, associate, learnedAlternatives, type AssociationPair } from "./associations.js";
import { ground } from "./ground.js";
import { splitPassages } from "./passages.js";
import { PassageIndex } from "./retrieval.js";
import { policySource as policy } from "../../../test/support/policies.js";

const pair = (store: string, question: string[], answer: string[]): AssociationPair => ({
  store,
  lang: "en",
  question: new Set(question),
  answer: new Set(answer),
});
/** Questions that say nothing of the words under test, so that "damag" and "day" have a base rate. */
const others = (n: number, answer: string[]) => Array.from({ length: n }, (_, i) => pair(`other-${i % 7}`, [`w${i}`], answer));

describe("associations: the rule", () => {
  test("a question word kept with the answer word it meets at three stores, far above that word's base rate", () => {
    const pairs = [
      pair("a", ["smash", "vase"], ["damag", "contact", "day"]),
      pair("b", ["smash", "mug"], ["damag", "photo", "day"]),
      pair("c", ["smash"], ["damag", "hour", "day"]),
      ...others(200, ["day", "return"]),
    ];
    assert.equal(MIN_STORES, 3);
    assert.deepEqual(associate(pairs).en?.["smash"], ["damag"], "'day' answers most questions: no association");
  });

  test("two stores are not enough, nor a word every answer holds, nor a number", () => {
    const twoStores = [
      pair("a", ["smash"], ["damag"]),
      pair("b", ["smash"], ["damag"]),
      pair("b", ["smash"], ["damag"]),
      ...others(200, ["day"]),
    ];
    assert.equal(associate(twoStores).en?.["smash"], undefined);
    const common = [
      pair("a", ["send"], ["return"]),
      pair("b", ["send"], ["return"]),
      pair("c", ["send"], ["return"]),
      ...others(40, ["return"]),
    ];
    assert.equal(associate(common).en?.["send"], undefined, "'return' is in nearly every answer: its lift is about 1");
    const numbers = [
      pair("a", ["xma"], ["24", "dec"]),
      pair("b", ["xma"], ["24", "dec"]),
      pair("c", ["xma"], ["24", "dec"]),
      ...others(200, ["day"]),
    ];
    assert.deepEqual(associate(numbers).en?.["xma"], ["dec"]);
  });
});

describe("associations: fitted (npm run fit:associations)", () => {
  const index = new PassageIndex(
    [
      policy(
        "damaged",
        "# Damaged items\n\nIf an item is damaged in transit, please contact us within 48 hours of delivery with photos of the item and packaging.",
      ),
      policy("returns", "# Returns\n\nYou can return unworn items within 30 days of delivery for a full refund."),
      policy("contact", "# Contact\n\nCall us on 0800 123 456, Monday to Friday 9am to 5pm."),
    ].flatMap(splitPassages),
  );

  test("shoppers' words for damage find the damaged-items policy", async () => {
    for (const word of ["smash", "crack", "rip"]) assert.ok(learnedAlternatives(word, "en").includes("damag"), word);
    for (const q of ["it arrived smashed, what do i do", "the item was cracked", "my item arrived ripped"]) {
      const r = await ground(index, q, "en");
      assert.equal(r.kind, "answer", q);
      assert.deepEqual(r.kind === "answer" && r.citations.map((c) => c.concept_id), ["damaged"], q);
    }
  });

  test("'ring you' finds 'call us'; a word without associations has none", async () => {
    const r = await ground(index, "can i ring you", "en");
    assert.match(r.kind === "answer" ? r.markdown : "", /0800 123 456/);
    assert.deepEqual(learnedAlternatives("zzz", "en"), []);
    assert.deepEqual(learnedAlternatives("smash", "xx"), []);
  });
});
