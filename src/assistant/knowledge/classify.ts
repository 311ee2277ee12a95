// The deterministic router: what a shopper's text asks for, from the keyword sets of every language
// pack (src/assistant/language/: router; all are tried whatever the thread locale, since shoppers
// switch language; the thread's language only picks the language of clarification questions and
// whether misspelt words are corrected). First matching rule wins:
//
//  1. empty or vague — a greeting or "help" alone, or a bare reference such as "the blue one?",
//     "this one", "die blaue?" → ambiguous, with a clarification question; thanks or a goodbye
//     alone ("cool thanks, that's all I needed!") → courtesy, answered with the pack's welcome;
//  1b. a request for a person or for the store's contact ("I want to talk to a person", "how can
//     I contact you", "mit einem Mitarbeiter sprechen"), or in a statement a person and reaching
//     them at most PERSON_WISH_GAP words apart ("pls get a human to call me") → handoff, always
//     (the store's contact);
//  2. add to cart — "add <product> to my cart/basket/bag", "<produkt> in den Warenkorb"
//     → action add_to_cart with the product reference and quantity (1 unless a number or number
//     word leads the reference; at most 99); a vague reference ("add it to my cart") → ambiguous;
//  3. the shopper's own order — return: "I want to return …", "return my …", "start a return",
//     (unless another clause asks about the conditions: "I want to return my jacket, how long do
//     I have?" is a policy question),
//     "return order #1234", "ich möchte … zurückschicken", "Retoure starten" → return;
//     order: "where is my order/package", "track my order", "my order(s)", "order #1234",
//     "wo ist meine Bestellung", "Sendungsverfolgung" → order; an order id (a token with a digit
//     after "order"/"Bestellung", "#1234") is extracted;
//  4. a product request word ("show me", "looking for", "do you have/sell", "ich suche",
//     "zeig mir", "habt ihr" …) together with a product feature (colour, size, price bound or a
//     category noun) → product;
//  5. a policy keyword (returns, refund, shipping, delivery, warranty, payment, privacy, cancel,
//     voucher, customs …; Rückgabe, Versand, Garantie, Zahlung, Datenschutz …) → policy;
//  6. a product feature alone ("red dresses under 50") or a request word with any other content
//     word ("do you sell umbrellas?") → product — but the engine (index.ts) turns such a
//     feature-less product request into a policy question when the store's policies hold
//     evidence for it ("do you have a physical shop?");
//  7. a question (any clause opening with a question word, or a final "?") of at least two content
//     words → policy (the knowledge engine answers it or says it has no evidence);
//  8. otherwise → ambiguous.
// Product features: colours (en/de → English names) and product-type nouns (the word as typed
// plus the English singular and plural, e.g. "Kleider" → kleider, dress, dresses) are evidence for
// routing only; the product search reads them in the query, against the store's own categories
// and colours (the Search API's text search). Filters: sizes ("size M", "Größe 38", "size 9.5", XS…XXL) and
// price bounds ("under 50", "below €30", "between 20 and 40", "unter 50 €", "ab 20", "zwischen 20
// und 40") converted to minor units of the store currency.
import { toMinor } from "../../tenancy/currency.js";
import {
  alternation,
  isStopWordOfAny,
  languages,
  mergedRecord,
  packOrDefault,
  perRegistry,
  threadLanguage,
  type Lang,
  type LanguagePack,
} from "../language/index.js";
import type { Intent, RouteFeatures, RouteScores, RouteTrace } from "./types.js";
import { commerceVocabulary } from "./lexicon.js";
import { correctWords } from "./retrieval.js";
import { sanitizeQuestion } from "./sanitize.js";
import { normalize, numberWords, parseNumber, words } from "./text.js";

type ProductFilters = Extract<Intent, { kind: "product" }>["filters"];

/** A word's start and end in any script (a letter or digit neither before nor after). */
const START = "(?<![\\p{L}\\p{N}])";
const END = "(?![\\p{L}\\p{N}])";

/** The router's patterns and word lists, from every language's router vocabulary. */
const router = perRegistry(() => {
  const alt = (pick: (r: LanguagePack["router"]) => RegExp | undefined) => alternation((p) => pick(p.router));
  const list = (pick: (r: LanguagePack["router"]) => readonly string[]) => new Set(languages().flatMap((p) => pick(p.router)));
  const orderWords = alternation((p) => p.vocabulary.orders.words);
  const orderNumber = alternation((p) => p.vocabulary.orders.number);
  const amount = String.raw`\s*(?:€|\$|£)?\s*(\d+(?:[.,]\d{1,2})?)\s*(?:${alt((r) => r.price.currencies)}|€|\$|£)?`;
  return {
    colors: mergedRecord((p) => p.router.colors),
    /** Each language's inflection of an adjective with that language's own colour words ("blaue" → blau; never "reden" → red). */
    adjectiveEndings: languages().flatMap((p) =>
      p.router.adjectiveEnding ? [{ ending: p.router.adjectiveEnding, colors: p.router.colors }] : [],
    ),
    categories: languages().flatMap((p) => p.router.categories),
    /** Quantities written as words ("add two of …", "zwei davon"): the number words, and the articles that say one ("a"). */
    quantityWords: {
      ...Object.fromEntries(languages().flatMap((p) => p.router.articlesOfOne.map((a) => [a, 1] as const))),
      ...numberWords(),
    },
    determiners: list((r) => r.determiners),
    quantityLinks: list((r) => r.quantityLinks),
    quantityUnits: list((r) => r.quantityUnits),
    quantityAfter: languages().map((p) => p.router.quantityAfter),
    referenceTails: list((r) => r.referenceTails),
    vagueReferences: new RegExp(`^(?:${alt((r) => r.vagueReferences)})$`),
    propertyReferences: languages().flatMap((p) => (p.router.propertyReference ? [p.router.propertyReference] : [])),
    bareReference: new RegExp(
      `^(?:(?:${alt((r) => r.bareReference.openings)})\\s+)?(?:${alt((r) => r.bareReference.determiners)})\\s+(\\S+)(?:\\s+(${alt((r) => r.bareReference.ones)}))?$`,
    ),
    courtesy: {
      greetings: list((r) => r.courtesy.greetings),
      thanks: list((r) => r.courtesy.thanks),
      fillers: list((r) => r.courtesy.fillers),
      phatic: new RegExp(
        alt((r) => r.courtesy.phatic),
        "g",
      ),
    },
    policyWords: new RegExp(`\\b(?:${alt((r) => r.policyWords)})\\b`),
    /** policyWords, every occurrence (counted). */
    policyWordsAll: new RegExp(`\\b(?:${alt((r) => r.policyWords)})\\b`, "g"),
    /** Words of policy topics beyond policyWords: card brands and wallets, discounts, membership, fees. */
    policyExtras: new RegExp(`\\b(?:${alt((r) => r.policyExtras)})\\b`, "g"),
    request: new RegExp(`\\b(?:${alt((r) => r.request)})\\b`),
    requestStrip: new RegExp(`\\b(?:${alt((r) => r.requestStrip.openings)})?(?:${alt((r) => r.requestStrip.phrases)})\\b`, "g"),
    /**
     * A clause that opens with a question word — the text's first or one after a comma, a dash or a
     * conjunction ("bought a lamp in the sale and it wobbles, can I return it"); a question word
     * written without its apostrophe counts ("whats"). Or, in a language with questionInversion, an
     * auxiliary before its subject anywhere ("if it goes on sale later can i get the difference").
     */
    questionClause: new RegExp(
      `(?:^|[,;.!?]\\s*|\\s[-–—]\\s|\\b(?:${alt((r) => r.clauseConjunctions)})\\s+)(?:${alt((r) => r.questionStart)})s?\\b|\\b(?:${alt((r) => r.questionInversion)})\\b`,
    ),
    carts: languages().map((p) => p.router.cart),
    orderId: new RegExp(`\\b(?:${orderWords})\\s*(?:${orderNumber})?\\s*#?\\s*([a-z]*-?\\d[a-z0-9-]*)|#\\s?([a-z]*-?\\d[a-z0-9-]*)\\b`),
    returnOwn: new RegExp(`\\b(?:${alt((r) => r.returnOwn)})`),
    returnWord: new RegExp(`\\b(?:${alt((r) => r.returnWord)})\\b`),
    orderOwn: new RegExp(`\\b(?:${alt((r) => r.orderOwn)})\\b`),
    // Word edges of any script: "in münchen" is no size M ("\\b" would end a word at "ü").
    size: new RegExp(
      `${START}(?:${alt((r) => r.sizeWords)})\\s*([a-z0-9]{1,4}(?:[.,]5)?)${END}|${START}(xxs|xs|xl|xxl|xxxl)${END}|${START}in\\s+(s|m|l)${END}(?!\\s*[\\p{L}\\p{N}])`,
      "u",
    ),
    priceBetween: new RegExp(`\\b(?:${alt((r) => r.price.between)})${amount}\\s*(?:${alt((r) => r.price.and)}|-)${amount}`),
    priceMax: new RegExp(`(?:\\b(?:${alt((r) => r.price.max)})|<)${amount}`),
    priceMin: new RegExp(`(?:\\b(?:${alt((r) => r.price.min)})|>)${amount}`),
    queryFillers: new RegExp(`\\b(?:${alt((r) => r.queryFillers)})\\b`, "g"),
    queryArticles: new RegExp(`^\\s*(?:${alt((r) => r.queryArticles)})\\s+`),
    /** A subordinate clause about buying ("when I buy …", "wenn ich … kaufe"). */
    buyingClause: new RegExp(`\\b(?:${alt((r) => r.buyingClause)})\\b`, "g"),
    /** Questions about conditions ("can I …", "how long …", "will I have to …", "wie lange …"). */
    conditional: new RegExp(`\\b(?:${alt((r) => r.conditional)})\\b`),
    /** A conditional clause up to its end ("if I return my jacket", "what if …", "wenn ich …", "falls …"): hypothetical, never the shopper's own request. */
    hypothetical: new RegExp(`\\b(?:${alt((r) => r.hypothetical)})\\b[^,;.!?]*`, "g"),
    /** The shopper asks about the state of their own order. */
    orderStatus: new RegExp(`\\b(?:${alt((r) => r.orderStatus)})`),
    moneyMention: new RegExp(`(?:€|\\$|£)\\s?\\d|\\d\\s?(?:€|${alt((r) => r.price.currencies)})\\b`),
    /**
     * A clause that asks about conditions ("…, how long do I have?", "…, what's your return policy?",
     * "…, wie lange habe ich?"), or whether something is allowed ("Can I send back my jacket after 40
     * days?", "Darf ich … zurückschicken?"): a question, not the request to start a return.
     */
    conditionsClause: new RegExp(
      `(?:^|[,;.!?]\\s*|\\s[-–—]\\s|\\b(?:${alt((r) => r.clauseConjunctions)})\\s+)(?:${alt((r) => r.conditionsClause)})\\b`,
    ),
    /** Words that ask about the state of one's own order outright ("where is my …", "track", "status", "has my order …"). */
    orderStatusOutright: new RegExp(`\\b(?:${alt((r) => r.orderStatusOutright)})`),
    /** A question for a procedure ("how do I track my parcel", "wie kann ich …"; the packs' questions.how). */
    procedure: new RegExp(alternation((p) => p.questions.how)),
    ownOrder: languages().map((p) => p.router.ownOrder),
    orderWords: list((r) => r.orderWords),
    /**
     * Rule 1b: the shopper asks for a person, or for how to reach the store's team ("I want to talk to
     * a person", "how can I contact you", "kann ich mit einem Mitarbeiter sprechen").
     */
    personRequest: new RegExp(alt((r) => r.personRequest)),
    /** Rule 1b in a statement: a person and reaching them, at most PERSON_WISH_GAP words apart (LanguagePack router.personWish). */
    personWish: personWishPattern(
      alt((r) => r.personWish?.person),
      alt((r) => r.personWish?.contact),
    ),
  };
});

/** The clarification question of a vague text, in the thread's language (thanks are answered instead: routeText). */
function clarification(clarify: LanguagePack["replies"]["clarify"], kind: Exclude<VagueKind, "welcome" | "phatic">): string {
  return kind === "help" ? clarify.help : clarify.vagueProduct;
}

function colorOf(word: string): string | undefined {
  const { colors, adjectiveEndings } = router();
  if (colors[word]) return colors[word];
  // An inflected adjective ("blaue"): its colour word.
  for (const { ending, colors: own } of adjectiveEndings) {
    const m = ending.exec(word);
    if (m && own[m[1]!]) return own[m[1]!];
  }
  return undefined;
}

function cleanRef(ref: string, after = ""): { ref: string; quantity: number } {
  const { quantityWords, quantityLinks, quantityUnits, quantityAfter, determiners, referenceTails } = router();
  let tokens = ref
    .replace(/[?!.,]+$/g, "")
    .split(/\s+/)
    .filter(Boolean);
  let quantity = 1;
  const first = tokens[0];
  if (first !== undefined) {
    if (/^\d{1,3}$/.test(first)) {
      quantity = Number(first);
      tokens = tokens.slice(1);
    } else if (quantityWords[first] !== undefined) {
      quantity = quantityWords[first]!;
      tokens = tokens.slice(1);
    }
  }
  // "2 bags of the litter": the unit the quantity counts in is no part of the product.
  if (quantity !== 1 && quantityUnits.has(tokens[0] ?? "")) tokens = tokens.slice(1);
  if (tokens[0] === "x" || quantityLinks.has(tokens[0] ?? "")) tokens = tokens.slice(1);
  // "add the speaker to my cart, 2 of them": a quantity after the cart request.
  if (quantity === 1) {
    const said = quantityAfter.map((re) => re.exec(after)?.[1]).find((q) => q !== undefined);
    const n = said === undefined ? undefined : /^\d+$/.test(said) ? Number(said) : quantityWords[said];
    if (n !== undefined) quantity = n;
  }
  while (tokens.length > 0 && determiners.has(tokens[0]!)) tokens = tokens.slice(1);
  while (tokens.length > 0 && referenceTails.has(tokens[tokens.length - 1]!)) tokens = tokens.slice(0, -1);
  return { ref: tokens.join(" "), quantity: Math.min(99, Math.max(1, quantity)) };
}

const isVagueRef = (ref: string): boolean =>
  router().vagueReferences.test(ref) || router().propertyReferences.some((re) => re.test(ref)) || ref.length === 0;

/** What a text says of a product: colours, sizes, product-type nouns; price bounds in major units (converted by the caller). */
export function productHints(t: string): {
  filters: { color?: string[]; size?: string[]; category_id?: string[] };
  priceMin?: number;
  priceMax?: number;
  matched: string[];
} {
  const matched: string[] = [];
  const color = new Set<string>();
  const category = new Set<string>();
  for (const w of t.split(/[^\p{L}\p{N}-]+/u).filter(Boolean)) {
    const c = colorOf(w);
    if (c) color.add(c);
    const cat = router().categories.find(([re]) => re.test(w));
    if (cat) {
      category.add(w);
      cat[1].forEach((x) => category.add(x));
    }
  }
  const size: string[] = [];
  const sm = router().size.exec(t);
  if (sm) {
    const s = (sm[1] ?? sm[2] ?? sm[3])!;
    size.push(/^[a-z]+$/.test(s) ? s.toUpperCase() : s);
    matched.push(sm[0]);
  }
  let priceMin: number | undefined;
  let priceMax: number | undefined;
  const between = router().priceBetween.exec(t);
  if (between) {
    const a = parseNumber(between[1]!);
    const b = parseNumber(between[2]!);
    priceMin = Math.min(a, b);
    priceMax = Math.max(a, b);
    matched.push(between[0]);
  } else {
    const max = router().priceMax.exec(t);
    if (max) {
      priceMax = parseNumber(max[1]!);
      matched.push(max[0]);
    }
    const min = router().priceMin.exec(t);
    if (min) {
      priceMin = parseNumber(min[1]!);
      matched.push(min[0]);
    }
  }
  const filters: { color?: string[]; size?: string[]; category_id?: string[] } = {};
  if (color.size > 0) filters.color = [...color];
  if (size.length > 0) filters.size = size;
  if (category.size > 0) filters.category_id = [...category];
  return { filters, ...(priceMin !== undefined ? { priceMin } : {}), ...(priceMax !== undefined ? { priceMax } : {}), matched };
}

function productQuery(t: string, matched: string[]): string {
  let q = t;
  for (const m of matched) q = q.replace(m, " ");
  q = q
    .replace(router().requestStrip, " ")
    .replace(router().queryFillers, " ")
    // Punctuation goes, except a decimal point or comma between digits ("mens 10.5" is a size, not "10 5").
    .replace(/[?!;:]+|(?<!\p{N})[.,]+|[.,]+(?!\p{N})/gu, " ");
  q = q.replace(router().queryArticles, " ").replace(/\s+/g, " ").trim();
  return q || t.replace(/[?!.]+$/, "").trim();
}

/**
 * An order question that may be a policy question in disguise: no order id, no outright status
 * words ("where is my order", "track", "status"), only "my order" or "when will my order …". Returns
 * the question with "my order" made impersonal when it has at least two other content words ("I
 * ordered on saturday, when will my order be processed?" → "i ordered on saturday, when will the
 * order be processed?"), or one in a question for a procedure ("how do i track my parcel"), else
 * null. The engine answers it as a policy question when the policies hold evidence for that remainder.
 */
export function softOrderRemainder(text: string): string | null {
  const t = normalize(text).replace(/\s+/g, " ").trim();
  const { orderStatusOutright, orderId, orderOwn, ownOrder, orderWords, procedure } = router();
  // Asking how to follow an order ("how do i track my parcel") asks for the procedure, not its state.
  if ((orderStatusOutright.test(t) && !procedure.test(t)) || orderId.test(t)) return null;
  if (!orderOwn.test(t)) return null;
  // "my order was declined, …" → "it was declined, …": the clause stays the shopper's circumstance.
  const rest = ownOrder
    .reduce((x, [re, pronoun]) => x.replace(re, pronoun), t)
    .replace(/\s+/g, " ")
    .trim();
  const content = words(rest.replace(/[?!.,;:]+/g, " ")).filter((w) => !isStopWordOfAny(w) && !orderWords.has(w));
  // A procedure question needs one word of its own ("how do i track my parcel" → track): it asks how, not where.
  return content.length >= (procedure.test(t) ? 1 : 2) ? rest : null;
}

/**
 * Weights of the scored router (set on the dev half of eval/assistant/retailers/ and the
 * classify tests): an explicit "I want to return …" or an order status question outweighs policy
 * words; policy topics with a conditional question ("will I have to pay for shipping?") outweigh
 * a mention of "my order" or of an amount; a product feature or request outweighs a bare question.
 */
export const ROUTE_WEIGHTS = {
  returnOwn: 3,
  returnOrderId: 3,
  orderStatus: 3,
  myOrder: 1.5,
  orderId: 1.5,
  policyTopic: 1.5,
  maxTopics: 2,
  conditional: 1,
  moneyWithTopic: 0.5,
  requestAndFeature: 3,
  feature: 2,
  request: 1.5,
  question: 1,
  conditionsClause: 2,
} as const;

export function routeFeatures(
  t: string,
  bare: string,
  contentWords: number,
  hints: ReturnType<typeof productHints>,
  orderId: boolean,
): RouteFeatures {
  const r = router();
  const asksConditions = r.conditionsClause.test(t);
  // "how many days do I get to send my clothes back?": returning is the topic the clause asks about.
  const topics = Math.max(
    (t.match(r.policyWordsAll)?.length ?? 0) + (t.match(r.policyExtras)?.length ?? 0),
    asksConditions && r.returnWord.test(t) ? 1 : 0,
  );
  return {
    // "if I return my jacket, …", "what if I want to send it back": a hypothetical return is a question about the policy.
    returnOwn: r.returnOwn.test(t.replace(r.hypothetical, " ")),
    asksConditions,
    orderStatus: r.orderStatus.test(t) && r.orderOwn.test(t),
    myOrder: r.orderOwn.test(t),
    orderId,
    returnWord: r.returnWord.test(t),
    policyTopics: topics,
    conditional: r.conditional.test(bare),
    moneyMention: r.moneyMention.test(t),
    // "… when I buy a washer?" states a circumstance; it requests no product.
    request: r.request.test(t.replace(r.buyingClause, " ")),
    // A price bound next to a policy topic is the topic's threshold ("Was kostet eine Rücksendung unter 50 €?"), not a product filter.
    productFeature:
      Object.keys(hints.filters).length > 0 || (topics === 0 && (hints.priceMin !== undefined || hints.priceMax !== undefined)),
    questionForm: asksSomething(t),
    contentWords,
  };
}

export function routeScores(f: RouteFeatures): RouteScores {
  const w = ROUTE_WEIGHTS;
  const topics = Math.min(w.maxTopics, f.policyTopics);
  return {
    return: (f.returnOwn ? w.returnOwn : 0) + (f.orderId && f.returnWord ? w.returnOrderId : 0),
    order: (f.orderStatus ? w.orderStatus : 0) + (f.myOrder ? w.myOrder : 0) + (f.orderId ? w.orderId : 0),
    product:
      f.request && f.productFeature ? w.requestAndFeature : f.productFeature ? w.feature : f.request && f.contentWords > 0 ? w.request : 0,
    policy:
      topics * w.policyTopic +
      (topics > 0 && f.conditional ? w.conditional : 0) +
      (topics > 0 && f.moneyMention ? w.moneyWithTopic : 0) +
      (topics === 0 && !f.request && f.questionForm && f.contentWords >= 2 ? w.question : 0) +
      (topics > 0 && f.returnOwn && f.asksConditions ? w.conditionsClause : 0),
  };
}

/**
 * The bare text (lower case, no punctuation) of what a router reads: instructions to the assistant
 * left out; misspelt commerce words corrected in a language with a dictionary (English).
 */
function bareOf(text: string, lang: Lang): { t: string; bare: string } {
  const sanitized = normalize(sanitizeQuestion(text) || text);
  const t = correctWords(sanitized, commerceVocabulary(lang), lang).replace(/\s+/g, " ").trim();
  const bare = t
    .replace(/[?!.,;:]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return { t, bare };
}

type VagueKind = "help" | "welcome" | "phatic" | "vague_product";

/**
 * Rule 1: nothing, a greeting or "help" alone ("help"), a courtesy message (courtesyKind), or a
 * bare reference to a product ("the blue one?": "vague_product"). `t`: the text before its
 * punctuation was dropped (`bare`).
 */
function vagueKind(t: string, bare: string): VagueKind | null {
  if (bare.length === 0) return "help";
  const courtesy = courtesyKind(t, bare);
  if (courtesy) return courtesy;
  const reference = router().bareReference.exec(bare);
  // "the blue one?", "that red one", "die blaue?": which product is meant is not said.
  if (reference && (reference[2] !== undefined || colorOf(reference[1]!) !== undefined)) return "vague_product";
  if (isVagueRef(bare)) return "vague_product";
  return null;
}

/**
 * A courtesy message (LanguagePack router.courtesy): a greeting or "help" ("help"), or thanks or a
 * goodbye ("welcome"), or asking how the assistant is ("phatic": "hallo zusammen! wie gehts euch heute
 * so?"), with nothing else but fillers and stop words. With a question mark the stop words carry a
 * question ("hi, how much is it?"): then only courtesy words and fillers may follow.
 */
function courtesyKind(t: string, bare: string): "help" | "welcome" | "phatic" | null {
  const { greetings, thanks, fillers, phatic } = router().courtesy;
  const rest = bare.replace(phatic, " ");
  const asksHowWeAre = rest !== bare;
  // The question mark of "how are you?" is the phatic question's own.
  const asks = !asksHowWeAre && t.includes("?");
  // A contraction counts as its first word ("that's" → that); a greeting may be drawn out ("heyy", "hiii").
  const ws = words(rest).map((w) => {
    const first = w.split(/['’]/)[0]!;
    const drawnOut = first.replace(/(\p{L})\1+$/u, "$1");
    return greetings.has(drawnOut) ? drawnOut : first;
  });
  if (!ws.every((w) => greetings.has(w) || thanks.has(w) || fillers.has(w) || (!asks && isStopWordOfAny(w)))) return null;
  if (ws.some((w) => thanks.has(w))) return "welcome";
  if (asksHowWeAre) return "phatic";
  return ws.some((w) => greetings.has(w)) ? "help" : null;
}

/**
 * Whether the text asks for products outright ("show me", "do you have", "ich suche" …), read in
 * the thread's language (`locale`): only words of a language with a dictionary are spelling-corrected.
 */
export function requestsProducts(text: string, locale: string): boolean {
  const { request, buyingClause } = router();
  return request.test(bareOf(text, threadLanguage(locale)).t.replace(buyingClause, " "));
}

/**
 * Whether the text is a greeting, "help" or a bare product reference (rule 1): no question the
 * store's policies could answer, whatever words they use. Read in the thread's language (`locale`).
 */
export function isVague(text: string, locale: string): boolean {
  const { t, bare } = bareOf(text, threadLanguage(locale));
  return vagueKind(t, bare) !== null;
}

/** Whether a product intent says anything of the product (a colour, type, size or price bound). */
export function describesProduct(intent: Extract<Intent, { kind: "product" }>): boolean {
  return Object.keys(intent.filters).length > 0 || Object.keys(intent.features).length > 0;
}

/** Whether a message asks something (a question clause or a question mark), in any language. */
export function asksSomething(text: string): boolean {
  const t = normalize(text).replace(/\s+/g, " ").trim();
  return t.endsWith("?") || router().questionClause.test(t);
}

/**
 * The thread's context for the next message: the shopper's earlier messages (newest first) back to
 * and including the last one that asked something, at most `max`, oldest first — "hi, I bought a
 * trampoline last week" and "it's way too big for our yard" before "so can i return it?".
 */
export function threadContext(earlier: readonly string[], max: number): string | undefined {
  const kept: string[] = [];
  for (const text of earlier.slice(0, max)) {
    kept.unshift(/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
    if (asksSomething(text)) break;
  }
  return kept.length === 0 ? undefined : kept.join(" ");
}

/** Words that may stand between a person and reaching them in a wish to reach a person (router.personWish). */
export const PERSON_WISH_GAP = 4;

function personWishPattern(person: string, contact: string): RegExp {
  const gap = `(?:\\s+\\S+){0,${PERSON_WISH_GAP}}\\s+`;
  return new RegExp(`\\b(?:${person})\\b${gap}(?:${contact})\\b|\\b(?:${contact})\\b${gap}(?:${person})\\b`);
}

/**
 * Whether the text asks for a person or for the store's contact (rule 1b): one of personRequest's
 * phrases, or — in a statement, not a question ("do i have to call customer service to return it"
 * asks a policy) — a person and reaching them near each other (router.personWish).
 */
export function asksForPerson(bare: string): boolean {
  const { personRequest, personWish } = router();
  return personRequest.test(bare) || (!asksSomething(bare) && personWish.test(bare));
}

/**
 * Routes a text (see the header). `currency` is the store's (price bounds become its minor units).
 */
export function classifyText(text: string, locale: string, currency = "EUR"): Intent {
  return routeText(text, locale, currency).intent;
}

/** classifyText() with the rule that decided and, for the scored decision, its features and scores (the turn's intent.classified event, eval --explain). */
export function routeText(text: string, locale: string, currency = "EUR"): { intent: Intent; trace: RouteTrace } {
  const clarify = packOrDefault(threadLanguage(locale)).replies.clarify;
  // Instructions addressed to the assistant do not decide what is asked (sanitize.ts).
  const { t, bare } = bareOf(text, threadLanguage(locale));
  const content = words(bare).filter((w) => !isStopWordOfAny(w));
  // 1. empty or vague
  const vague = vagueKind(t, bare);
  // Thanks or a goodbye asks nothing: it is answered, not asked back.
  if (vague === "welcome") return { intent: { kind: "courtesy", reply: clarify.welcome }, trace: { rule: "courtesy" } };
  if (vague === "phatic") return { intent: { kind: "courtesy", reply: clarify.phatic }, trace: { rule: "courtesy" } };
  if (vague) return { intent: { kind: "ambiguous", question: clarification(clarify, vague) }, trace: { rule: "vague" } };
  // 1b. a person asked for: always a handoff with the store's contact
  if (asksForPerson(bare)) return { intent: { kind: "handoff", query: text.trim() }, trace: { rule: "person" } };

  // 2. add to cart
  // The first language whose cart request the text is.
  const cart = router()
    .carts.map((re) => re.exec(t))
    .find((m) => m !== null);
  if (cart) {
    const { ref, quantity } = cleanRef(cart[1]!.trim(), t.slice(cart.index + cart[0].length));
    const intent: Intent = isVagueRef(ref)
      ? { kind: "ambiguous", question: clarify.cart }
      : { kind: "action", name: "add_to_cart", product_ref: ref, quantity };
    return { intent, trace: { rule: "cart" } };
  }

  // 3–7. the scored decision between the shopper's own order / return, a product request and a
  // policy question (see ROUTE_WEIGHTS).
  const idMatch = router().orderId.exec(t);
  const orderId = idMatch ? (idMatch[1] ?? idMatch[2])?.toUpperCase() : undefined;
  const hints = productHints(t);
  const f = routeFeatures(t, bare, content.length, hints, orderId !== undefined);
  const scores = routeScores(f);
  const product = (): Intent => {
    const { color, category_id, size } = hints.filters;
    const filters: ProductFilters = size ? { size } : {};
    if (hints.priceMin !== undefined) filters.price_min_minor = toMinor(hints.priceMin, currency);
    if (hints.priceMax !== undefined) filters.price_max_minor = toMinor(hints.priceMax, currency);
    const features = { ...(color ? { color } : {}), ...(category_id ? { category: category_id } : {}) };
    return { kind: "product", query: productQuery(t, hints.matched), filters, features };
  };
  const best = (Object.entries(scores) as Array<[keyof RouteScores, number]>).sort((a, b) => b[1] - a[1])[0]!;
  const scored = (intent: Intent) => ({ intent, trace: { rule: "scored" as const, features: f, scores } });
  if (best[1] > 0) {
    if (best[0] === "return") return scored({ kind: "return", query: text.trim(), ...(orderId ? { order_id: orderId } : {}) });
    if (best[0] === "order") return scored({ kind: "order", query: text.trim(), ...(orderId ? { order_id: orderId } : {}) });
    if (best[0] === "product") return scored(product());
    return scored({ kind: "policy", query: text.trim() });
  }
  return {
    intent: { kind: "ambiguous", question: clarification(clarify, content.length === 0 ? "help" : "vague_product") },
    trace: { rule: "fallback", features: f, scores },
  };
}
