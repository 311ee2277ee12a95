// Unit tests of typed facts read from policy sentences (facts.ts) and the answer forms a question
// asks for (compose.ts askedForms): enumerations, phone numbers and names that are no scope.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { disagreement, enumerates, factsOf, givesPhone } from "./facts.js";
import { askedForms } from "./compose.js";
import { splitPassages } from "./passages.js";
import { PassageIndex, VIRTUAL_DURATION, VIRTUAL_MONEY, queryGroups } from "./retrieval.js";
import { ground } from "./ground.js";
import { analyze } from "./text.js";

const facts = (text: string, lang: "en" | "de" = "en") => factsOf(text, analyze(text, lang), lang);
/** The index of English policies, each [concept_id, body]. */
const policyIndex = (...policies: Array<[string, string]>) =>
  new PassageIndex(
    policies.flatMap(([concept_id, body_markdown]) =>
      splitPassages({ concept_id, version: 1, handle: concept_id, title: concept_id, locale: "en", body_markdown }),
    ),
  );

describe("knowledge: typed facts of a sentence", () => {
  test("an enumeration is a lead and at least two more short items joined by commas or a joining word", () => {
    for (const text of [
      "We accept Visa, Mastercard, Diners Club and American Express.",
      "You can pay by PayPal, credit card or invoice.",
      "Wir akzeptieren Visa, Mastercard und PayPal.",
    ])
      assert.equal(enumerates(text), true, text);
    for (const text of [
      "With credit card you can pay quickly and 100% securely.",
      "Returns, exchanges and refunds are handled by our team in Leeds, who will contact you within 5 days.",
    ])
      assert.equal(enumerates(text), false, text);
  });

  test("a phone number is 7–15 digits in groups, never a date or an amount", () => {
    for (const text of ["Call us at 1-800-441-5713.", "Ring 0344 499 4686 (Mon-Fri).", "Call 955-9091.", "+49 6348 60 6070"])
      assert.equal(givesPhone(text), true, text);
    for (const text of ["Returns within 30 days of 2020-01-14.", "Orders over $1,000.00 ship free.", "Order 12345678 shipped."])
      assert.equal(givesPhone(text), false, text);
  });

  test("the qualifiers of an exception clause ('except for …', 'außer für …') are no scope of the statement", () => {
    const rule = facts(
      "You may return it within 60 days of purchase, except for costumes, which must be returned 7 days prior to the holiday.",
    );
    assert.ok(!rule.scope.has("holiday"), [...rule.scope].join(" "));
    assert.deepEqual(
      rule.durations.map((d) => d.days),
      [60, 7],
    );
    // The same qualifier outside the clause still scopes it.
    assert.ok(facts("Holiday purchases may be returned within 60 days, excluding costumes.").scope.has("holiday"));
    const de = facts(
      "Du kannst Artikel innerhalb von 30 Tagen zurückgeben, ausgenommen Elektronik, die nur 14 Tage umgetauscht werden kann.",
      "de",
    );
    assert.deepEqual([...de.scope], []);
  });

  test("the qualifiers of an inclusive phrase ('including …', 'inklusive …') widen the statement, they are no scope", () => {
    const rule = facts(
      "You may return your item to your preferred store (including products purchased online), within 14 days from the date you receive the goods.",
    );
    assert.ok(!rule.scope.has("onlin"), [...rule.scope].join(" "));
    // Outside the phrase the same qualifier limits the statement.
    assert.ok(facts("Products purchased online may be returned within 14 days, including sale items.").scope.has("onlin"));
    assert.deepEqual([...facts("Versandkostenfrei ab 50 CHF, inklusive Express-Lieferung.", "de").scope], []);
    assert.ok(facts("Express-Lieferung kostet 9 CHF.", "de").scope.size > 0);
  });

  test("the names an English enumeration lists are no scope ('American Express' is no express delivery)", () => {
    assert.deepEqual([...facts("We accept Visa, Mastercard, Diners Club and American Express.").scope], []);
    // A scope word outside an enumerated name still limits the statement.
    assert.deepEqual([...facts("Express delivery costs $9.95.").scope], ["express"]);
    assert.deepEqual([...facts("Choose Express Delivery at checkout for next-day arrival.").scope], ["express"]);
  });

  test("two rules with different thresholds disagree on an amount; the branches of one threshold do not", () => {
    const money = new Set(["money"] as const);
    const over40 = facts("Standard delivery costs £3.99, or is FREE if you spend over £40.");
    assert.deepEqual([...over40.thresholds], ["GBP:4000"]);
    assert.equal(disagreement(over40, facts("Please note that free delivery is only available on orders over £30."), money), "amount");
    assert.equal(disagreement(over40, facts("Orders under £40 are charged £3.99; orders over £40 ship free."), money), null);
    // Without thresholds, amounts compare as before: free and free agree, a fee and free do not.
    assert.equal(disagreement(facts("Returns are free."), facts("Return shipping is free of charge."), money), null);
    assert.equal(disagreement(facts("Returns are free."), facts("Returns cost £2.50."), money), "amount");
  });

  test("a threshold rule and a flat price compare only the rule's other prices", () => {
    const money = new Set(["money"] as const);
    const over100 = facts("Orders over $100 in product value will be delivered free of shipping charge.");
    assert.equal(disagreement(over100, facts("We offer standard delivery at a flat fee of $8.95."), money), null);
    const over40 = facts("Standard delivery costs £3.99, or is FREE if you spend over £40.");
    assert.equal(disagreement(over40, facts("Standard delivery costs £4.99."), money), "amount");
    assert.equal(disagreement(over40, facts("Standard delivery costs £3.99."), money), null);
  });

  test("the time something takes is not compared with a window counted from an event", () => {
    const duration = new Set(["duration"] as const);
    const takes = facts("Refunds to original payment methods may take 3 to 5 business days to process.");
    assert.deepEqual(
      takes.durations.map((d) => d.lasts),
      [true, true],
    );
    assert.equal(disagreement(takes, facts("We also accept returns within 365 days of purchase."), duration), null);
    assert.equal(disagreement(takes, facts("Refunds are processed within 10 business days."), duration), "duration");
    assert.equal(
      disagreement(
        facts("Returns are accepted within 14 days of delivery."),
        facts("You can return items within 30 days of delivery."),
        duration,
      ),
      "duration",
    );
    assert.equal(facts("Die Erstattung dauert in der Regel 5 Werktage.", "de").durations[0]?.lasts, true);
  });

  test("a German clitic 'es' is read apart from its verb: 'wie lang dauerts' asks a duration, 'gibts' is no content word", () => {
    const surfaces = (q: string) => queryGroups(q, "de").map((g) => g.surface);
    assert.ok(!surfaces("gibts die karte auch für privatkunden").includes("gibts"));
    assert.ok(queryGroups("wie lang dauerts bis die karte kommt", "de").some((g) => g.alts[0] === VIRTUAL_DURATION));
  });

  test("English 'when' asks a time as a question word, not as a conjunction before its subject ('when i pay')", () => {
    const asksTime = (q: string) => queryGroups(q, "en").some((g) => g.alts[0] === VIRTUAL_DURATION);
    assert.ok(asksTime("when will my refund arrive"));
    assert.ok(asksTime("whens the cut off for christmas"));
    assert.ok(asksTime("i want to know when i get my money back"));
    assert.ok(!asksTime("how do i avoid paying the surcharge when i pay"));
    assert.ok(!asksTime("do the stamps work when i buy online or only in the shop"));
  });

  /** Whether a question asks for an amount, as retrieval reads it. */
  const asksAmount = (q: string, lang: "en" | "de" = "en") => queryGroups(q, lang).some((g) => g.alts[0] === VIRTUAL_MONEY);

  test("English 'the most', 'the smallest', 'max' ask for an amount; 'most stuff' does not", () => {
    const groups = (q: string) => queryGroups(q, "en");
    assert.ok(asksAmount("whats the most i can put on one of your gift cards"));
    assert.ok(asksAmount("whats the smallest amount you can put on a gift card"));
    assert.ok(asksAmount("is there a max on how many i can order online"));
    // The words that ask are no subject words.
    assert.deepEqual(
      groups("whats the smallest amount you can put on a gift card")
        .filter((g) => !g.virtual)
        .map((g) => g.surface),
      ["put", "giftcard"],
    );
    assert.ok(!asksAmount("whats the return window on most stuff if i still have the receipt"));
    assert.ok(!asksAmount("what's the most popular size"));
  });

  test("'do i have to pay', 'will it cost me anything', 'whats it cost' ask for an amount; 'who pays' does not", () => {
    assert.ok(asksAmount("will it cost me anything to post my return back to you"));
    assert.ok(asksAmount("do i have to pay for the label"));
    assert.ok(asksAmount("whats same day delivery cost"));
    assert.ok(asksAmount("do i pay extra for express"));
    assert.ok(!asksAmount("who pays return shipping"));
    assert.ok(!asksAmount("what does the policy say about returns"));
  });

  test("German: a question's word with an inflection the stemmer left meets the policy's stem ('liefert' → Lieferung's 'liefer')", () => {
    const group = (alt: string) => ({ surface: alt, alts: [alt], virtual: false, weight: 1 });
    assert.equal(PassageIndex.strength(new Set(["liefer"]), group("liefert"), "de"), 1);
    assert.equal(PassageIndex.strength(new Set(["zahl"]), group("zahlst"), "de"), 1);
    // Only an inflection: "angebot" is no "angeb" (nor the reverse), a short stem is never extended.
    assert.equal(PassageIndex.strength(new Set(["angeb"]), group("angebot"), "de"), 0);
    assert.equal(PassageIndex.strength(new Set(["bar"]), group("bart"), "de"), 0);
    // German "wieviel" is "wie viel" (how much), not "wie viele" (how many).
    assert.ok(asksAmount("ab wieviel euro liefert ihr", "de"));
  });

  test("German 'free' in every inflection is an amount of 0; negated, it is none", () => {
    for (const text of [
      "Kostenfreie Rücksendemöglichkeit per DHL.",
      "Die Rücksendung ist kostenlos.",
      "Wir bieten einen kostenlosen Umtausch an.",
      "Versandkostenfreie Lieferung ab 50 €.",
    ])
      assert.ok(facts(text, "de").amounts.has("*:0"), text);
    assert.ok(!facts("Die Rücksendung ist nicht mehr kostenlos.", "de").amounts.has("*:0"));
  });

  test("a question asking how many working days, or how old, asks for a duration, in English and German", () => {
    const asks = (q: string, lang: "en" | "de") => queryGroups(q, lang).some((g) => g.alts[0] === VIRTUAL_DURATION);
    assert.ok(asks("im in portugal, how many working days does a boots international order take", "en"));
    assert.ok(asks("how many business days until my refund", "en"));
    assert.ok(asks("wie viele werktage hab ich für die rücksendung", "de"));
    assert.ok(!asks("how many points do i get per dollar", "en"));
    // An age is a duration in years: "at least 12 years old" states it.
    assert.ok(asks("how old do you have to be to get a beautycard", "en"));
    assert.ok(asks("wie alt muss man für die kundenkarte sein", "de"));
  });

  test("a question asking which ones or for a number asks for that form", () => {
    assert.deepEqual([...askedForms("which credit cards do you take")], ["list"]);
    assert.deepEqual([...askedForms("Welche Zahlungsarten gibt es?")], ["list"]);
    assert.deepEqual([...askedForms("what number do i call to get a return authorization")], ["phone"]);
    assert.deepEqual([...askedForms("what happens if it is late")], []);
    assert.deepEqual([...askedForms("welche Frist gilt für Rücksendungen?")], []);
  });

  test("the sentence giving the asked form answers, not the one that only shares more words", async () => {
    const index = policyIndex([
      "payment",
      "# Payment\n\nWith credit card you can pay quickly and securely, and your credit card data is encrypted. We accept Visa, Mastercard, Diners Club and American Express.\n\nOrders by phone: call 0800 123 4567 from Monday to Friday. We take orders online, by phone and in our stores.",
    ]);
    const cards = await ground(index, "which cards do you accept", "en");
    assert.equal(cards.kind, "answer");
    // Both sentences match half of the question; the one enumerating the cards answers alone.
    assert.match(cards.kind === "answer" ? cards.markdown : "", /^We accept Visa, Mastercard, Diners Club and American Express\.$/);
    const phone = await ground(index, "what number do I call to order by phone", "en");
    assert.equal(phone.kind, "answer");
    assert.match(phone.kind === "answer" ? phone.passages[0]!.text : "", /0800 123 4567/);
  });

  test("an opening condition is read as the sentence's scope: the general rule answers the general question", async () => {
    assert.deepEqual(
      [...facts("If your purchase was made with the Store Credit Card, you have 365 days to return it.").condition].sort(),
      ["card", "credit", "make", "purchas"].sort(),
    );
    assert.ok(facts("Wenn du mit der Kundenkarte zahlst, hast du 365 Tage Zeit.", "de").condition.size > 0);
    assert.deepEqual([...facts("Most items can be returned within 90 days.").condition], []);
    const index = policyIndex([
      "returns",
      "# Returns\n\nIf your purchase was made with the Store Credit Card, you have 365 days to return it for a full refund.\n\nMost items can be returned within 90 days with a receipt.",
    ]);
    const general = await ground(index, "how long do i have to return something", "en");
    assert.match(general.kind === "answer" ? general.passages[0]!.text : general.kind, /90 days/);
    const card = await ground(index, "I paid with the store credit card, how long do I have to return it", "en");
    assert.match(card.kind === "answer" ? card.passages[0]!.text : card.kind, /365 days/);
  });

  test("a country is a scope: a rule for one country is an exception beside the general rule, not a conflict", async () => {
    // A sentence naming a country states the rule where the store is; a heading names the exception.
    assert.deepEqual([...facts("Orders over €50 ship free of charge within Germany.").scope], []);
    const index = policyIndex(
      ["returns", "# Returns\n\nYou can return any item within 30 days of delivery."],
      ["returns-ie", "# Returns for Ireland\n\nYou can return any item within 14 days of delivery."],
    );
    const general = await ground(index, "how long do i have to return something", "en");
    assert.equal(general.kind, "answer");
    assert.match(general.kind === "answer" ? general.passages[0]!.text : "", /30 days/);
    const irish = await ground(index, "i live in ireland, how long do i have to return something", "en");
    assert.match(irish.kind === "answer" ? irish.passages[0]!.text : irish.kind, /14 days/);
  });
});
