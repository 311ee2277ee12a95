import { test } from "node:test";
import assert from "node:assert/strict";
import { pricePhrases, understandQuery } from "./understand.js";
import { fuse, lexicalShare, PARTIAL_MATCH_SEMANTIC_WEIGHT } from "./fusion.js";

const CATS = ["Dresses", "Casual Shoes", "Jeans", "Watches", "Kleider"];
const u = (q: string) => understandQuery(q, CATS);

test("English price phrases become bounds and leave the text", () => {
  assert.deepEqual(u("red dress under 50"), {
    colors: ["red"],
    categories: ["Dresses"],
    price_min: null,
    price_max: 50,
    remaining_text: "red dress",
  });
  assert.deepEqual(
    [u("jeans below $40").price_max, u("jeans less than 40 dollars").price_max, u("jeans up to 40").price_max],
    [40, 40, 40],
  );
  const between = u("navy blue watches between 20 and 40");
  assert.deepEqual([between.price_min, between.price_max, between.colors, between.categories], [20, 40, ["navy blue"], ["Watches"]]);
  assert.deepEqual([u("watch over 100").price_min, u("shoes from 20 to 40").price_max, u("shoes 20-40 €").price_min], [100, 40, 20]);
  assert.equal(u("black casual shoes").remaining_text, "black casual shoes");
  assert.deepEqual(u("black casual shoes").categories, ["Casual Shoes"]);
});

test("a phrase takes its words once, longest first, and a phrase is found wherever it stands", () => {
  const shoes = (q: string) => understandQuery(q, ["Shoes", "Running Shoes", "Shirts"]).categories;
  assert.deepEqual(shoes("running shoes"), ["Running Shoes"]);
  assert.deepEqual(shoes("shoes for running"), ["Shoes"]);
  assert.deepEqual(shoes("running shoes and shoes"), ["Running Shoes", "Shoes"]);
  assert.deepEqual(shoes("shirt and running shoes"), ["Running Shoes", "Shirts"]);
  // Phrases sharing a first word are tried longest first, then in the store's order.
  const running = (q: string) => understandQuery(q, ["Shoes", "Running", "Running Shoes"]).categories;
  assert.deepEqual(
    [running("running shoes"), running("running and shoes"), running("shoes")],
    [["Running Shoes"], ["Shoes", "Running"], ["Shoes"]],
  );
  assert.deepEqual(u("light blue and blue dress").colors, ["light blue", "blue"]);
  assert.deepEqual(u("dress").colors, []);
});

test("German price phrases and inflected colour words", () => {
  const q = u("rotes Kleid unter 50 €");
  assert.deepEqual([q.colors, q.price_max, q.remaining_text], [["red"], 50, "rotes Kleid"]);
  assert.deepEqual([u("Jacke ab 30").price_min, u("Schuhe bis 49,99 Euro").price_max], [30, 49.99]);
  const z = u("schwarze Kleider zwischen 20 und 40");
  assert.deepEqual([z.colors, z.categories, z.price_min, z.price_max], [["black"], ["Kleider"], 20, 40]);
  assert.deepEqual(u("dunkelblaue Jeans").colors, ["dark blue"]);
  // A keyword beginning with a letter outside ASCII, where JavaScript's \b sees no word start.
  assert.deepEqual([u("Kleid über 20 €").price_min, u("Kleid über 20 €").remaining_text], [20, "Kleid"]);
  assert.equal(u("Kleidüber 20").price_min, null, "not inside a word");
  assert.equal(u("weiß20-40 €").price_min, null, "nor an amount inside a word ending in a letter outside ASCII");
});

test("the price phrases the caller found already are not looked for again, and give the same understanding", () => {
  for (const query of [
    "nike air max 1 white shoes under 80",
    "rotes Kleid unter 50 €",
    "shoes 20-40 €",
    "red dress 1234",
    "linen summer",
  ]) {
    const names = new Set(["max 1"]);
    assert.deepEqual(understandQuery(query, CATS, names, pricePhrases(query)), understandQuery(query, CATS, names), query);
  }
  assert.equal(understandQuery("jeans under 40", CATS, new Set(), []).price_max, null, "none found: the patterns are not tried");
});

test("a price phrase that a product name of the store holds stays words; others still become bounds", () => {
  const query = "nike air max 1 white shoes under 80";
  assert.deepEqual(pricePhrases(query), [
    ["max", "1"],
    ["under", "80"],
  ]);
  const plain = understandQuery(query, CATS);
  assert.equal(plain.price_max, 1, "without the store's names, 'max 1' reads as a price");
  const named = understandQuery(query, CATS, new Set(["max 1"]));
  assert.equal(named.price_max, 80);
  assert.equal(named.remaining_text, "nike air max 1 white shoes");
});

test("nothing understood leaves the query as it is", () => {
  assert.deepEqual(u("linen summer"), { colors: [], categories: [], price_min: null, price_max: null, remaining_text: "linen summer" });
});

test("fusion: weight 1 is lexical alone, RRF and blend stay in [0, 1] and reward agreement", () => {
  const visual = [
    { productId: "a", score: 0.9 },
    { productId: "b", score: 0.8 },
    { productId: "c", score: 0.5 },
  ];
  const lexical = [
    { productId: "b", score: 8, coverage: 1, matched: 1 },
    { productId: "d", score: 4, coverage: 1, matched: 1 },
  ];
  assert.deepEqual(fuse(visual, lexical, { weight: 1, method: "blend" }), [
    { productId: "b", score: 1 },
    { productId: "d", score: 0.5 },
  ]);
  for (const method of ["blend", "rrf"] as const) {
    const out = fuse(visual, lexical, { weight: 0.5, method, visualOf: new Map([["d", 0.6]]) });
    const best = [...out].sort((x, y) => y.score - x.score)[0]!;
    assert.equal(best.productId, "b", method);
    for (const s of out) assert.ok(s.score >= 0 && s.score <= 1, method);
  }
});

test("partial lexical matches get at most 1 − PARTIAL_MATCH_SEMANTIC_WEIGHT of the fused score", () => {
  assert.equal(lexicalShare(0.98, false), 0.98);
  assert.equal(lexicalShare(0.98, true), 1 - PARTIAL_MATCH_SEMANTIC_WEIGHT);
  assert.equal(lexicalShare(0.1, true), 0.1, "a smaller lexical share stays");
  // rrf at the fashion default (lexical share 0.98): a partial match alone no longer outranks the
  // best visual match.
  const visual = [
    { productId: "v1", score: 0.9 },
    { productId: "v2", score: 0.8 },
  ];
  const lexical = [{ productId: "l1", score: 3, coverage: 1, matched: 1 }];
  const top = (partial: boolean) =>
    fuse(visual, lexical, { weight: lexicalShare(0.98, partial), method: "rrf" }).sort((a, b) => b.score - a.score)[0]!.productId;
  assert.equal(top(false), "l1");
  assert.equal(top(true), "v1");
});
