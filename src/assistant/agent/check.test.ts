// The agent's reply check on its own (pure): what a model's text may say given this turn's tool results.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { LiveFact, ProductCard } from "../storefront/types.js";
import { checkReply, type Question, type Seen } from "./check.js";

const citation = (concept: string) => ({ handle: concept, concept_id: concept, concept_version: 2, title: concept });
const card = (
  id: string,
  title: string,
  amount: number,
  currency: string,
  state: "in_stock" | "low_stock" | "out_of_stock",
  quantity?: number,
): [ProductCard, LiveFact[]] => {
  const read_at = "2026-03-02T09:00:00.000Z";
  const availability = quantity === undefined ? { state } : { state, quantity };
  return [
    {
      product_id: id,
      title,
      image_url: null,
      url: null,
      price_state: "live",
      price: { amount_minor: amount, currency },
      availability_state: "live",
      availability,
    },
    [
      { source: "shopsight_catalog", product_id: id, field: "price", value: { amount_minor: amount, currency }, read_at },
      { source: "shopsight_catalog", product_id: id, field: "availability", value: availability, read_at },
    ],
  ];
};

function seen(products: Array<[ProductCard, LiveFact[]]>): Seen {
  return {
    passages: new Map([
      [
        "P1",
        { citation: citation("returns"), text: "Sie können Artikel innerhalb von 30 Tagen zurückgeben. Die Rücksendung ist kostenlos." },
      ],
      ["P2", { citation: citation("shipping"), text: "Standard shipping costs €4.95; orders over €50 ship free." }],
      ["P3", { citation: citation("shipping"), text: "Express shipping costs €9.95." }],
    ]),
    products: new Map(products.map(([c]) => [c.product_id, c])),
    facts: new Map(products.map(([c, f]) => [c.product_id, f])),
  };
}

const sony = card("prd_sony", "Sony WH-1000XM5 Headphones", 34900, "EUR", "low_stock", 3);
const boots = card("prd_boots", "Moab 3 Hiking Boots", 12999, "CAD", "out_of_stock", 0);

test("citations: in order of first mention, one per concept version; markers removed; unknown ids refused", () => {
  const r = checkReply("Standard is €4.95 [P2], express €9.95 [P3; P2]. Returns: 30 Tage [P1].", seen([]), "en");
  assert.ok(r.ok);
  assert.deepEqual(
    r.citations.map((c) => c.concept_id),
    ["shipping", "returns"],
  );
  assert.equal(r.text, "Standard is €4.95, express €9.95. Returns: 30 Tage.");
  assert.deepEqual(checkReply("Returns within 30 days [P1, P9].", seen([]), "en"), { ok: false, reason: "citation_not_retrieved:P9" });
  assert.deepEqual(checkReply("[P1]", seen([]), "en"), { ok: false, reason: "empty" });
});

test("products: named by their title (numbers in a title are sources); live price and quantity allowed, others refused", () => {
  const ok = checkReply("The Sony WH-1000XM5 Headphones cost €349.00 — only 3 left.", seen([sony, boots]), "en");
  assert.ok(ok.ok);
  assert.deepEqual(
    ok.products.map((p) => p.product_id),
    ["prd_sony"],
  );
  assert.deepEqual(checkReply("The Sony WH-1000XM5 Headphones cost €299.00.", seen([sony]), "en"), {
    ok: false,
    reason: "number_not_in_sources:299",
  });
  // Right amount, wrong currency.
  const usd = checkReply("The Sony WH-1000XM5 Headphones cost $349.00.", seen([sony]), "en");
  assert.equal(usd.ok, false);
  assert.match(!usd.ok ? usd.reason : "", /^money_not_in_sources/);
  // "$" fits a live price in a dollar currency (CA$).
  assert.equal(checkReply("The Moab 3 Hiking Boots are $129.99 but sold out.", seen([boots]), "en").ok, true);
  // A policy amount is allowed only when a cited passage states it.
  assert.equal(checkReply("Express shipping costs €9.95 [P3].", seen([]), "en").ok, true);
  assert.equal(checkReply("Express shipping costs €9.95 [P2].", seen([]), "en").ok, false);
  // German notation of the live price; list numbering is layout; a product id is a source.
  const de = checkReply("Die Sony WH-1000XM5 Headphones kosten 349,00 €.", seen([sony]), "de");
  assert.equal(de.ok && de.text, "Die Sony WH-1000XM5 Headphones kosten €349.00.", "a live price is written as the chat formats it");
  const cad = checkReply("The Moab 3 Hiking Boots are $129.99; shipping is €4.95 [P2].", seen([boots]), "en");
  assert.equal(cad.ok && cad.text, "The Moab 3 Hiking Boots are CA$129.99; shipping is €4.95.");
  assert.equal(
    checkReply("1. Standard: €4.95 [P2]\n2. Express: €9.95 [P3]\n3. Sony WH-1000XM5 Headphones (prd_sony)", seen([sony]), "en").ok,
    true,
  );
});

test("stock words must match a named product's live availability (en and de)", () => {
  assert.equal(checkReply("The Moab 3 Hiking Boots are in stock.", seen([boots]), "en").ok, false);
  assert.equal(checkReply("Die Moab 3 Hiking Boots sind ausverkauft.", seen([boots]), "de").ok, true);
  assert.equal(checkReply("Die Moab 3 Hiking Boots sind nicht auf Lager.", seen([boots]), "de").ok, true);
  assert.equal(checkReply("Die Sony WH-1000XM5 Headphones sind auf Lager, nur noch 3.", seen([sony]), "de").ok, true);
  assert.equal(checkReply("The Sony WH-1000XM5 Headphones are sold out.", seen([sony]), "en").ok, false);
});

test("promises, links, claimed actions and ungrounded text are refused", () => {
  assert.equal(checkReply("Die Rücksendung ist kostenlos [P1].", seen([]), "de").ok, true);
  assert.deepEqual(checkReply("Rücksendung innerhalb von 30 Tagen, garantiert [P1].", seen([]), "de"), {
    ok: false,
    reason: "promise_not_in_sources:garantiert",
  });
  assert.deepEqual(checkReply("Details: www.evil.test [P1]", seen([]), "en"), { ok: false, reason: "link_not_allowed" });
  assert.deepEqual(checkReply("Ich habe die Sony WH-1000XM5 Headphones in den Warenkorb gelegt.", seen([sony]), "de"), {
    ok: false,
    reason: "claims_action",
  });
  assert.deepEqual(checkReply("Your refund has been processed.", seen([]), "en"), { ok: false, reason: "claims_action" });
  assert.deepEqual(checkReply("Happy to help!", seen([sony]), "en"), { ok: false, reason: "ungrounded" });
});

test("commitments of delivery, timing and eligibility need their family in a cited passage or a named title", () => {
  assert.deepEqual(checkReply("The Sony WH-1000XM5 Headphones are in stock and ship today.", seen([sony]), "en"), {
    ok: false,
    reason: "commitment_not_in_sources:ship",
  });
  assert.deepEqual(checkReply("Orders over €50 ship free, and yours qualifies [P2].", seen([]), "en"), {
    ok: false,
    reason: "commitment_not_in_sources:qualifies",
  });
  assert.deepEqual(checkReply("Your order is eligible for next-day delivery [P2].", seen([]), "en"), {
    ok: false,
    reason: "commitment_not_in_sources:delivery",
  });
  // The passage speaks of shipping: "ships" and "shipping" are one family.
  assert.equal(checkReply("Orders over €50 ship free [P2].", seen([]), "en").ok, true);
  assert.deepEqual(checkReply("Express shipping costs €9.95 and arrives tomorrow [P3].", seen([]), "en"), {
    ok: false,
    reason: "commitment_not_in_sources:arrives",
  });
  assert.deepEqual(checkReply("Der Versand erfolgt noch heute [P2].", seen([]), "de"), {
    ok: false,
    reason: "commitment_not_in_sources:heute",
  });
});

test("a reply to a policy question must cite a passage the grounding answers from and carry the value it found", () => {
  const grounding = (direct?: string): Question => ({
    kind: "policy",
    text: "How much is shipping?",
    grounding: {
      kind: "answer",
      markdown: "**€4.95** Standard shipping costs €4.95; orders over €50 ship free.",
      citations: [citation("shipping")],
      passages: [],
      phrased_by: "extractive",
      ...(direct ? { direct } : {}),
    },
  });
  const ask = grounding("€4.95");
  assert.equal(checkReply("Standard shipping costs €4.95 [P2].", seen([]), "en", ask).ok, true);
  // Vacuous: cites the answering passage, says nothing of it.
  assert.deepEqual(checkReply("Here is what our policy says [P2].", seen([]), "en", ask), {
    ok: false,
    reason: "carries_nothing_of_the_answer",
  });
  assert.deepEqual(checkReply("Standard shipping costs €9.95 [P3].", seen([]), "en", ask), {
    ok: false,
    reason: "misses_asked_value:€4.95",
  });
  // No value asked: what the answer says beyond the question must be carried.
  const how = grounding();
  assert.deepEqual(checkReply("Our shipping policy explains it [P2].", seen([]), "en", how), {
    ok: false,
    reason: "carries_nothing_of_the_answer",
  });
  assert.equal(checkReply("Standard shipping is charged per order; over €50 it is free [P2].", seen([]), "en", how).ok, true);
  assert.deepEqual(checkReply("Returns are kostenlos [P1].", seen([]), "en", ask), { ok: false, reason: "cites_no_answering_passage" });
  // Naming a product is grounding for a product question, never for a policy question.
  assert.equal(checkReply("The Sony WH-1000XM5 Headphones are in stock.", seen([sony]), "en").ok, true);
  assert.deepEqual(checkReply("The Sony WH-1000XM5 Headphones are in stock.", seen([sony]), "en", ask), {
    ok: false,
    reason: "policy_without_passage",
  });
  // A product line answers a product question only, not a greeting or a cart request.
  assert.equal(checkReply("You might like the Sony WH-1000XM5 Headphones.", seen([sony]), "en", { kind: "product" }).ok, true);
  assert.deepEqual(checkReply("You might like the Sony WH-1000XM5 Headphones.", seen([sony]), "en", { kind: "other" }), {
    ok: false,
    reason: "products_for_another_question",
  });
  // A product question's price bound holds for every product named.
  const under = (max: number): Question => ({ kind: "product", price_max_minor: max });
  assert.equal(checkReply("You might like the Sony WH-1000XM5 Headphones.", seen([sony]), "en", under(35000)).ok, true);
  assert.deepEqual(checkReply("You might like the Sony WH-1000XM5 Headphones.", seen([sony]), "en", under(30000)), {
    ok: false,
    reason: "product_outside_price_bound:prd_sony",
  });
  // No answer found by the grounding: no reply answers it.
  const none: Question = { kind: "policy", text: "How much is shipping?", grounding: { kind: "no_evidence", markdown: "…" } };
  assert.deepEqual(checkReply("Standard shipping costs €4.95 [P2].", seen([]), "en", none), { ok: false, reason: "policy_not_grounded" });
  // A "No" lead needs a negation; "Yes" and a lead without numbers are read as words.
  assert.deepEqual(checkReply("Orders over €50 ship free [P2].", seen([]), "en", grounding("No")), {
    ok: false,
    reason: "misses_asked_value:No",
  });
  assert.equal(checkReply("No, orders under €50 do not ship free [P2].", seen([]), "en", grounding("No")).ok, true);
  assert.equal(checkReply("Orders over €50 ship free [P2].", seen([]), "en", grounding("Yes")).ok, true);
});
