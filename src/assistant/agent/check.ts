// The check every reply the model writes in agent mode must pass before a shopper sees it. It is
// pure: it compares the text with what the tools returned in this turn (`Seen`), nothing else.
//
// In order, a reply is refused (→ the extractive answer) when:
//   1. it cites a passage id ([P7]) that no search_policies call of this turn returned;
//   2. it is empty, or longer than MAX_LLM_CHARS;
//   3. it holds a link or URL (links in an answer come only from the service's own framing);
//   4. it claims an action was done ("I've added it to your cart", "wurde erstattet"): actions are
//      only ever proposed for consent, through the propose_cart_action tool;
//   5. it is grounded in nothing: no passage cited and no product of this turn named by its title;
//   6. a number or promise word is not in its sources (checkPhrasing of knowledge/llm.ts over the
//      cited passages and the named products' titles and ids, with the named products' live
//      prices and stock quantities as the only other allowed numbers; ordered-list numbers at the
//      start of a line are layout);
//   7. a money figure ("€49.90", "12 EUR") is neither a live price of a named product (same
//      amount and currency) nor a money figure of a cited passage;
//   8. it states a stock level ("in stock", "sold out", "nur noch wenige") that no named product's
//      live availability has;
//   9. it answers a question other than a product question with no passage cited, only products
//      named (a product line is no answer to a greeting or a cart request);
//  10. it names, in reply to a product question with a price bound ("under 500 euros"), a product
//      whose live price is outside the bound or was not read live;
//  11. it answers a policy question (`Question`) without citing a passage of a policy the turn's
//      extractive grounding answers from — naming a product is no grounding there, and when the
//      grounding found no answer no reply is one — or without what that answer says: at least
//      MIN_CARRIED of its content terms beyond the question's own, and the value it found for the
//      asked type (its `direct` lead: each number of it, or its words; a "No" lead needs a
//      negation). A vacuous "here is what our policy says [P1]" is thus refused, and the
//      extractive answer is used.
// Commitments of delivery, timing and eligibility ("ships today", "you are eligible") are checked
// with the promise words in 6 (knowledge/llm.ts checkPhrasing).
// What passes is returned with the citation markers removed, live prices written as answers/format.ts
// writes them ("$49.9" → "$49.90", "349,00 €" → "€349.00"), the citations in order of first
// mention (one per concept version) and the named products.
import type { Citation, PolicyAnswer } from "../knowledge/types.js";
import { checkPhrasing, roundedNumber } from "../knowledge/llm.js";
import { numbersIn, quantities, words, type Quantity } from "../knowledge/text.js";
import { alternation, escapeRegExp, isStopWordOfAny, languages, perRegistry, type LanguagePack } from "../language/index.js";
import { LEAD_SEPARATOR, statesNegation, yesNoLead } from "../knowledge/compose.js";
import { currencyDigits, formatMoney, isMoney } from "../answers/format.js";
import type { ChatLang } from "../answers/i18n.js";
import type { LiveFact, Money, ProductCard, StockState } from "../storefront/types.js";

/** What the tools of one turn returned: passages by id (P1, P2 …), product cards and their live facts by product id. */
export interface Seen {
  passages: ReadonlyMap<string, { citation: Citation; text: string }>;
  products: ReadonlyMap<string, ProductCard>;
  facts: ReadonlyMap<string, LiveFact[]>;
}

/**
 * What the reply answers: a policy question (its text and the turn's extractive grounding of it),
 * a product question, or anything else (a greeting, a cart request, a clarification): naming a
 * product grounds a reply only to a product question.
 */
export type Question =
  | { kind: "policy"; text: string; grounding: PolicyAnswer }
  | { kind: "product"; price_min_minor?: number | undefined; price_max_minor?: number | undefined }
  | { kind: "other" };

export type ReplyCheck = { ok: true; text: string; citations: Citation[]; products: ProductCard[] } | { ok: false; reason: string };

/** "[P1]", "[P1, P3]", "[p2; P4]". */
const MARKER = /\[\s*(P\d+(?:\s*[,;]\s*P\d+)*)\s*\]/gi;
/** The patterns of every language's words a reply is checked for (the language packs' checks; currency names of router.price). */
const patterns = perRegistry(() => {
  const stock = (pick: (s: LanguagePack["checks"]["stockPhrases"]) => RegExp) =>
    new RegExp(
      alternation((p) => pick(p.checks.stockPhrases)),
      "giu",
    );
  return {
    /** A money figure as written: "$49.9", "CA$129.99", "€ 4,95", "49,90 €", "12 EUR", "20 dollars". */
    moneyText: new RegExp(
      String.raw`(?:\b[A-Z]{1,2})?\$\s?\d+(?:[.,]\d+)*|[€£¥]\s?\d+(?:[.,]\d+)*|\b(?:EUR|USD|GBP|CHF)\s?\d+(?:[.,]\d+)*|\d+(?:[.,]\d+)*\s?(?:[$€£]|\b(?:GBP|CHF|${alternation((p) => p.router.price.currencies)})\b)`,
      "gi",
    ),
    actionClaims: languages().flatMap((p) => p.checks.actionClaims),
    /** Stock phrases, most specific first (each match is cut out before the next pattern runs). */
    stockPhrases: [
      [stock((s) => s.outOfStock), ["out_of_stock"]],
      [stock((s) => s.lowStock), ["low_stock"]],
      [stock((s) => s.inStock), ["in_stock", "low_stock"]],
    ] as Array<[RegExp, StockState[]]>,
  };
});
const LINK = /\]\(|\bhttps?:\/\/|\bwww\.|\bmailto:|\btel:|<\s*[a-z/!]/i;

/** Whether the text names the product: its whole title (any case, any spacing) or its id. */
function names(text: string, card: ProductCard): boolean {
  const title = card.title.trim();
  if (title.length >= 2) {
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${title.split(/\s+/).map(escapeRegExp).join("\\s+")}(?![\\p{L}\\p{N}])`, "iu");
    if (re.test(text)) return true;
  }
  return text.toLowerCase().includes(card.product_id.toLowerCase());
}

const major = (m: Money): number => m.amount_minor / 10 ** currencyDigits(m.currency);
const moneyOf = (text: string) => quantities(text).filter((q): q is Extract<Quantity, { kind: "money" }> => q.kind === "money");
const majorOfQuantity = (q: Extract<Quantity, { kind: "money" }>): number => (q.currency === "JPY" ? q.minor : q.minor / 100);
const same = (a: number, b: number): boolean => Math.abs(a - b) < 0.0005;

/** "$" is read as USD by quantities(); a live price in any dollar currency (CA$, A$ …) matches it too. */
function sameCurrency(q: Extract<Quantity, { kind: "money" }>, currency: string): boolean {
  return q.currency === currency || (q.text.includes("$") && formatMoney({ amount_minor: 0, currency }).includes("$"));
}

/**
 * Content terms of a text in any language: the stems (in every language) of its words that are a
 * stop word in none (quotes keep the policy's language, the reply may be in the thread's).
 */
const contentWords = (text: string): string[] => words(text).filter((w) => !isStopWordOfAny(w));
const stemsOf = (w: string): string[] => languages().map((p) => p.words.stem(w));
const termsOf = (text: string): Set<string> => new Set(contentWords(text).flatMap(stemsOf));
/** Terms of the grounded answer, beyond the question's own, that a reply must carry (fewer when the answer adds fewer). */
const MIN_CARRIED = 2;

/**
 * Why a reply to a policy question does not answer it as the grounding does (rule 11), or null.
 * `cited`: the passages the reply cites; `text`: the reply without markers.
 */
function policyGap(cited: Citation[], text: string, question: Extract<Question, { kind: "policy" }>): string | null {
  const { grounding } = question;
  if (cited.length === 0) return "policy_without_passage";
  if (grounding.kind !== "answer") return "policy_not_grounded";
  const answering = new Set(grounding.citations.map((c) => c.concept_id));
  if (!cited.some((c) => answering.has(c.concept_id))) return "cites_no_answering_passage";
  // What the answer says beyond the question ("prepaid label", "drop-off point"): a reply that
  // carries none of it ("Here is what our policy says [P1].") answers nothing.
  const asked = termsOf(question.text);
  const adds = new Set(contentWords(grounding.markdown).filter((w) => !stemsOf(w).some((t) => asked.has(t))));
  const addedTerms = new Set([...adds].flatMap(stemsOf));
  const carried = new Set(contentWords(text).filter((w) => stemsOf(w).some((t) => addedTerms.has(t))));
  if (carried.size < Math.min(MIN_CARRIED, adds.size)) return "carries_nothing_of_the_answer";
  const numbers = new Set(numbersIn(text).map(roundedNumber));
  const replyWords = new Set(words(text));
  /** Whether the reply states a lead: a negation for No; else each number of it, or its words. */
  const stated = (lead: string): boolean => {
    const yn = yesNoLead(lead);
    if (yn) return yn === "yes" || statesNegation(text);
    const wanted = numbersIn(lead);
    return wanted.length > 0 ? wanted.every((n) => numbers.has(roundedNumber(n))) : words(lead).every((w) => replyWords.has(w));
  };
  const unstated = grounding.direct?.split(LEAD_SEPARATOR).find((lead) => !stated(lead));
  return unstated === undefined ? null : `misses_asked_value:${unstated}`;
}

export function checkReply(raw: string, seen: Seen, lang: ChatLang, question: Question = { kind: "product" }): ReplyCheck {
  const cited: Citation[] = [];
  const citedTexts: string[] = [];
  const keys = new Set<string>();
  for (const m of raw.matchAll(MARKER)) {
    for (const id of m[1]!.split(/[,;]/).map((s) => s.trim().toUpperCase())) {
      const passage = seen.passages.get(id);
      if (!passage) return { ok: false, reason: `citation_not_retrieved:${id}` };
      citedTexts.push(passage.text);
      const key = `${passage.citation.concept_id}:${passage.citation.concept_version}`;
      if (!keys.has(key)) {
        keys.add(key);
        cited.push(passage.citation);
      }
    }
  }
  const text = raw
    .replace(MARKER, "")
    .replace(/[ \t]+([.,;:!?])/g, "$1")
    .replace(/[ \t]{2,}/g, " ")
    .replace(/[ \t]+$/gm, "")
    .trim();
  if (!text) return { ok: false, reason: "empty" };
  if (LINK.test(text)) return { ok: false, reason: "link_not_allowed" };
  if (patterns().actionClaims.some((re) => re.test(text))) return { ok: false, reason: "claims_action" };

  const products = [...seen.products.values()].filter((card) => names(text, card));
  if (cited.length === 0 && products.length === 0) return { ok: false, reason: "ungrounded" };
  if (cited.length === 0 && question.kind === "other") return { ok: false, reason: "products_for_another_question" };
  const facts = products.flatMap((p) => seen.facts.get(p.product_id) ?? []);
  if (question.kind === "product" && (question.price_min_minor !== undefined || question.price_max_minor !== undefined)) {
    for (const p of products) {
      const price = (seen.facts.get(p.product_id) ?? []).map((f) => f.value).find(isMoney);
      const within =
        price !== undefined &&
        price.amount_minor >= (question.price_min_minor ?? 0) &&
        price.amount_minor <= (question.price_max_minor ?? Number.POSITIVE_INFINITY);
      if (!within) return { ok: false, reason: `product_outside_price_bound:${p.product_id}` };
    }
  }
  const prices = facts.map((f) => f.value).filter(isMoney);
  const liveNumbers = [
    ...prices.map(major),
    ...facts.flatMap((f) => (!isMoney(f.value) && f.value.quantity !== undefined ? [f.value.quantity] : [])),
  ];

  // Ordered-list numbers ("1. …") are layout, not claims.
  const claims = text.replace(/^[ \t]*\d{1,2}[.)][ \t]+/gm, "");
  const phrasing = checkPhrasing(claims, [...citedTexts, ...products.flatMap((p) => [p.title, p.product_id])], lang, liveNumbers);
  if (!phrasing.ok) return { ok: false, reason: phrasing.reason ?? "phrasing" };

  const passageMoney = citedTexts.flatMap(moneyOf);
  const livePrice = (q: Extract<Quantity, { kind: "money" }>): Money | undefined =>
    prices.find((p) => same(major(p), majorOfQuantity(q)) && sameCurrency(q, p.currency));
  for (const q of moneyOf(claims)) {
    const quoted = passageMoney.some((p) => p.currency === q.currency && same(majorOfQuantity(p), majorOfQuantity(q)));
    if (!livePrice(q) && !quoted) return { ok: false, reason: `money_not_in_sources:${q.text}` };
  }
  // A live price in the text is written as every chat answer writes it (answers/format.ts): "$49.9" → "$49.90".
  const formatted = text.replace(patterns().moneyText, (figure) => {
    const [q] = moneyOf(figure);
    const price = q ? livePrice(q) : undefined;
    return price ? formatMoney(price) : figure;
  });

  const states = new Set(facts.flatMap((f) => (isMoney(f.value) ? [] : [f.value.state])));
  let rest = claims;
  for (const [re, allowed] of patterns().stockPhrases) {
    for (const m of rest.matchAll(re)) {
      if (!allowed.some((s) => states.has(s))) return { ok: false, reason: `stock_not_live:${m[0].toLowerCase()}` };
    }
    rest = rest.replace(re, " ");
  }
  const gap = question.kind === "policy" ? policyGap(cited, text, question) : null;
  if (gap) return { ok: false, reason: gap };
  return { ok: true, text: formatted, citations: cited, products };
}
