import { test } from "node:test";
import assert from "node:assert/strict";
import type { ProductCard } from "../storefront/types.js";
import { closestTitles, matchTitle, mayNameProduct } from "./products.js";

const card = (id: string, title: string) => ({ product_id: id, title }) as ProductCard;
const cards = [
  card("prd_1", "Sony WH-1000XM5 Wireless Noise Cancelling Headphones"),
  card("prd_2", "adidas Originals Samba OG Sneaker weiß"),
  card("prd_3", "AirPods Pro (2nd generation)"),
  card("prd_4", "Red Linen Dress"),
  card("prd_5", "Blue Linen Dress"),
];

test("a product named by its title (exact or close) resolves to that product; a tie to none", () => {
  assert.equal(matchTitle(cards, "Do you have the Sony WH-1000XM5 Wireless Noise Cancelling Headphones in stock?")?.product_id, "prd_1");
  assert.equal(matchTitle(cards, "samba og sneaker", "en")?.product_id, "prd_2");
  assert.equal(matchTitle(cards, "airpods pro", "en")?.product_id, "prd_3");
  assert.equal(matchTitle(cards, "linen dress", "en"), null);
  assert.equal(matchTitle(cards, "How long do I have to return something?"), null);
});

test("the titles holding the most of a reference's words: one names the product, a tie asks among the tied, none is empty", () => {
  // "eggshell white gallon" is in no title: matchTitle finds none, the one Sony title holds "sony".
  assert.equal(matchTitle(cards, "sony black gallon pair", "en"), null);
  assert.deepEqual(
    closestTitles(cards, "sony black gallon pair", "en").map((p) => p.product_id),
    ["prd_1"],
  );
  assert.deepEqual(
    closestTitles(cards, "the linen one in a small", "en").map((p) => p.product_id),
    ["prd_4", "prd_5"],
  );
  assert.deepEqual(closestTitles(cards, "garden hose", "en"), []);
});

test("a reference meets a title in other inflections: its words are compared as stems of the thread's language", () => {
  const packs = [
    card("sk", "Cushion Crew Running Socks 3-Pack"),
    card("sh", "Trail Running Shoe"),
    card("fb", "Matchball Fußball Größe 5"),
  ];
  assert.equal(matchTitle(packs, "running sock packs", "en")?.product_id, "sk");
  assert.equal(matchTitle(packs, "fußbälle", "de")?.product_id, "fb");
  // Inside a sentence a title is named word for word: "body butters" names no single body butter.
  const butters = [card("a", "Shea Body Butter 200ml"), card("b", "British Rose Body Butter 200ml")];
  assert.equal(matchTitle(butters, "do you have any body butters"), null);
});

test("product-name cues", () => {
  assert.ok(mayNameProduct("is the LAUTERS floor lamp available?"));
  assert.ok(mayNameProduct("Is the Photon Mono M7 Pro in stock?"));
  assert.ok(!mayNameProduct("how long do I have to return something within 30 days?"));
});
