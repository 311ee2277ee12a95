// A store's own vocabulary in the policy engine (issue 36 item 8): its synonyms find each other,
// its scope words make a statement an exception instead of a conflict, its product words are
// product classes — and none of them reach a store that does not keep them. Pure: no database.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { languagePack } from "../language/index.js";
import { factsOf } from "./facts.js";
import { ground } from "./ground.js";
import { splitPassages } from "./passages.js";
import { PassageIndex, queryGroups } from "./retrieval.js";
import { NO_STORE_WORDS, StoreVocabulary } from "./store-words.js";
import { analyze, stem } from "./text.js";
import { policySource as policy } from "../../../test/support/policies.js";

const words = (lists: Partial<ConstructorParameters<typeof StoreVocabulary>[0]>) =>
  new StoreVocabulary({ synonyms: [], scope_words: [], product_words: [], ...lists });

describe("store vocabulary", () => {
  test("a synonym group is multi-way, in the language's stems", () => {
    const v = words({ synonyms: [["member", "elite", "insider"]] });
    assert.deepEqual([...v.synonymsOf(stem("elite", "en"), "en")].sort(), [stem("insider", "en"), stem("member", "en")].sort());
    assert.ok(v.synonymsOf(stem("member", "en"), "en").includes(stem("elite", "en")));
    assert.deepEqual(v.synonymsOf(stem("return", "en"), "en"), []);
  });

  test("a question's word carries the store's synonyms as alternatives after itself; another store's groups do not", () => {
    const v = words({ synonyms: [["insider", "member"]] });
    const own = queryGroups("do insiders get longer returns", "en", undefined, v).find((g) => g.surface === "insiders")!;
    assert.equal(own.alts[0], stem("insiders", "en"));
    assert.ok(own.alts.includes(stem("member", "en")));
    const plain = queryGroups("do insiders get longer returns", "en").find((g) => g.surface === "insiders")!;
    assert.deepEqual(plain.alts, [stem("insiders", "en")]);
  });

  test("scope and product words are facts of a sentence only for the store that keeps them", () => {
    const text = "Orders to Alaska ship within 10 business days.";
    const terms = analyze(text, "en");
    assert.deepEqual([...factsOf(text, terms, "en").scope], []);
    const v = words({ scope_words: ["alaska", "hawaii"] });
    assert.deepEqual([...factsOf(text, terms, "en", v).scope], [stem("alaska", "en")]);
    const bed = "Mattresses may be returned within 100 days.";
    const mattress = factsOf(bed, analyze(bed, "en"), "en", words({ product_words: ["mattress"] }));
    assert.deepEqual([...mattress.productClasses], [stem("mattresses", "en")]);
    assert.deepEqual([...factsOf(bed, analyze(bed, "en"), "en").productClasses], []);
  });

  test("words the engine cannot read change nothing; the empty vocabulary is empty", () => {
    assert.equal(NO_STORE_WORDS.scope("en").size, 0);
    assert.equal(NO_STORE_WORDS.productClasses("en").size, 0);
    assert.deepEqual(NO_STORE_WORDS.synonymsOf(stem("member", "en"), "en"), []);
    assert.equal(words({ scope_words: ["the"] }).scope("en").size, 0);
  });

  // Two policies state different windows; one names a region. Unless the store says the region
  // limits a statement, the two are a conflict; when it does, the region's statement is the
  // exception that answers only a question naming the region.
  const shipping = [
    policy("shipping", "# Shipping\n\nOrders ship within 3 business days."),
    policy("faq", "# FAQ\n\n**How long does shipping take to Alaska?** Orders to Alaska ship within 10 business days."),
  ].flatMap(splitPassages);

  test("a region the store names as a scope word is an exception, not a conflict", async () => {
    const plain = await ground(new PassageIndex(shipping), "how long does shipping take?", "en");
    assert.equal(plain.kind, "conflict", JSON.stringify(plain));
    const scoped = new PassageIndex(shipping, words({ scope_words: ["alaska", "hawaii"] }));
    const general = await ground(scoped, "how long does shipping take?", "en");
    assert.equal(general.kind, "answer", JSON.stringify(general));
    assert.match(general.markdown, /3 business days/);
    assert.doesNotMatch(general.markdown, /10 business days/);
    const alaska = await ground(scoped, "how long does shipping to alaska take?", "en");
    assert.equal(alaska.kind, "answer", JSON.stringify(alaska));
    assert.match(alaska.markdown, /10 business days/);
  });

  test("the store's own name, as a question writes it, is left out of the question", () => {
    const name = (n: string, text: string) =>
      new StoreVocabulary({ synonyms: [], scope_words: [], product_words: [] }, n).withoutName(text).replace(/\s+/g, " ").trim();
    assert.equal(
      name("Holland & Barrett", "how long have i got to return something to holland and barrett"),
      "how long have i got to return something to",
    );
    // Its first two words or more stand for a longer name; a possessive or dotted spelling is the name.
    assert.equal(name("Harvey Norman New Zealand", "harvey norman's return window"), "return window");
    assert.equal(name("L.L.Bean", "can i send boots back to ll bean"), "can i send boots back to");
    assert.equal(name("Argos", "how long do argos refunds take"), "how long do refunds take");
    // One word of a longer name is not the name ("leave your warehouse" at Mountain Warehouse).
    assert.equal(name("Mountain Warehouse", "when will it leave your warehouse"), "when will it leave your warehouse");
    // A leading article is no part of the name as shoppers write it; one word of it alone is not the name.
    assert.equal(name("The Body Shop", "can i bring it back to body shop"), "can i bring it back to");
    assert.equal(name("The Body Shop", "can i return body lotion"), "can i return body lotion");
    assert.equal(NO_STORE_WORDS.withoutName("return to harvey norman"), "return to harvey norman");
  });

  test("the first word of a longer name alone is the name when no dictionary knows it", async () => {
    await languagePack("en")!.words.warm!();
    const name = (n: string, text: string) =>
      new StoreVocabulary({ synonyms: [], scope_words: [], product_words: [] }, n).withoutName(text).replace(/\s+/g, " ").trim();
    assert.equal(name("JoJo Maman Bébé", "can i take a cot back to my local jojo shop"), "can i take a cot back to my local shop");
    assert.equal(name("Jaycar Electronics", "can i pay with zip or afterpay at jaycar"), "can i pay with zip or afterpay at");
    // A word the dictionary knows may be what the question is about ("harvey" is a name, "body" a noun).
    assert.equal(name("Harvey Norman", "is harvey open sundays"), "is harvey open sundays");
    assert.equal(name("The Body Shop", "can i return body lotion"), "can i return body lotion");
  });

  test("a question naming the store is answered by the policy it asks about, not by the passages naming the store", async () => {
    const policies = [
      policy("returns", "# Returns\n\nYou may return your item within 14 days from the date you receive the goods."),
      policy(
        "gift-cards",
        "# Gift cards\n\nHarvey Norman gift cards can be used at any Harvey Norman store. A Harvey Norman gift card is valid for 3 years.",
      ),
    ];
    const index = (v: StoreVocabulary) =>
      new PassageIndex(
        policies.flatMap((p) => splitPassages(p)),
        v,
      );
    const text = "how many days do i have to return something to harvey norman";
    const named = await ground(
      index(new StoreVocabulary({ synonyms: [], scope_words: [], product_words: [] }, "Harvey Norman")),
      text,
      "en",
    );
    assert.equal(named.kind, "answer");
    assert.deepEqual(named.kind === "answer" ? named.citations.map((c) => c.concept_id) : [], ["returns"]);
    // Without the store's name the name's words weigh as the question's subject.
    const unnamed = await ground(index(NO_STORE_WORDS), text, "en");
    assert.notDeepEqual(unnamed.kind === "answer" ? unnamed.citations.map((c) => c.concept_id) : [], ["returns"]);
  });
});
