// The deterministic router: what a shopper's text asks for, from English and German keyword sets
// (both are tried whatever the thread locale, since shoppers switch language; the thread's
// language only picks the language of clarification questions). First matching rule wins:
//
//  1. empty or vague — a greeting or "help" alone, or a bare reference such as "the blue one?",
//     "this one", "die blaue?" → ambiguous, with a clarification question;
//  1b. a request for a person or for the store's contact ("I want to talk to a person", "how can
//     I contact you", "mit einem Mitarbeiter sprechen") → handoff, always (the store's contact);
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
//  7. a question of at least two content words → policy (the knowledge engine answers it or says
//     it has no evidence);
//  8. otherwise → ambiguous.
// Product features: colours (en/de → English names) and product-type nouns (the word as typed
// plus the English singular and plural, e.g. "Kleider" → kleider, dress, dresses) are evidence for
// routing only; the product search reads them in the query, against the store's own categories
// and colours (the Search API's text search). Filters: sizes ("size M", "Größe 38", XS…XXL) and
// price bounds ("under 50", "below €30", "between 20 and 40", "unter 50 €", "ab 20", "zwischen 20
// und 40") converted to minor units of the store currency.
import { toMinor } from "../../tenancy/currency.js";
import type { Intent, RouteTrace } from "./types.js";
import { EN_CROSS_VOCABULARY } from "./lexicon.js";
import { correctWords } from "./retrieval.js";
import { sanitizeQuestion } from "./sanitize.js";
import { isStopWord, langOf, normalize, NUMBER_WORDS, parseNumber, words } from "./text.js";

type ProductFilters = Extract<Intent, { kind: "product" }>["filters"];

const COLORS: Record<string, string> = {
  red: "red",
  blue: "blue",
  green: "green",
  black: "black",
  white: "white",
  yellow: "yellow",
  pink: "pink",
  purple: "purple",
  orange: "orange",
  brown: "brown",
  grey: "grey",
  gray: "grey",
  beige: "beige",
  navy: "navy",
  gold: "gold",
  silver: "silver",
  violet: "purple",
  turquoise: "turquoise",
  cream: "beige",
  rot: "red",
  blau: "blue",
  grün: "green",
  grun: "green",
  schwarz: "black",
  weiß: "white",
  weiss: "white",
  gelb: "yellow",
  rosa: "pink",
  lila: "purple",
  violett: "purple",
  braun: "brown",
  grau: "grey",
  silber: "silver",
  türkis: "turquoise",
};
const DE_ADJ = /^(.+?)(?:e|en|er|es|em)$/;

const CATEGORIES: Array<[RegExp, [string, string]]> = [
  [/^(dress|dresses|kleid|kleider|kleidern)$/, ["dress", "dresses"]],
  [/^(shirt|shirts|t-shirt|t-shirts|tshirt|tshirts|tee|tees|hemd|hemden)$/, ["shirt", "shirts"]],
  [/^(jeans)$/, ["jeans", "jeans"]],
  [/^(trousers|pants|hose|hosen)$/, ["trousers", "pants"]],
  [/^(shoe|shoes|schuh|schuhe|schuhen)$/, ["shoe", "shoes"]],
  [/^(sneaker|sneakers|trainers)$/, ["sneaker", "sneakers"]],
  [/^(boot|boots|stiefel)$/, ["boot", "boots"]],
  [/^(jacket|jackets|jacke|jacken)$/, ["jacket", "jackets"]],
  [/^(coat|coats|mantel|mäntel)$/, ["coat", "coats"]],
  [/^(sweater|sweaters|jumper|jumpers|pullover|pullovers|pulli|hoodie|hoodies)$/, ["sweater", "sweaters"]],
  [/^(skirt|skirts|rock|röcke)$/, ["skirt", "skirts"]],
  [/^(bag|bags|handbag|handbags|tasche|taschen|handtasche|handtaschen)$/, ["bag", "bags"]],
  [/^(hat|hats|cap|caps|mütze|mützen|hut|hüte)$/, ["hat", "hats"]],
  [/^(scarf|scarves|schal|schals)$/, ["scarf", "scarves"]],
  [/^(belt|belts|gürtel)$/, ["belt", "belts"]],
  [/^(sock|socks|socken)$/, ["sock", "socks"]],
  [/^(blouse|blouses|bluse|blusen)$/, ["blouse", "blouses"]],
  [/^(shorts)$/, ["shorts", "shorts"]],
];

/** Quantities written as words ("add two of …", "zwei davon"): the number words of the knowledge engine, and "a"/"an". */
const QUANTITY_WORDS: Record<string, number> = { a: 1, an: 1, ...NUMBER_WORDS };
const ARTICLES = new Set(["the", "this", "that", "these", "those", "some", "der", "die", "das", "den", "dem", "diese", "diesen", "dieses"]);
const VAGUE_REFS =
  /^(?:it|this|that|them|these|those|this one|that one|these ones|those ones|one|the one|es|das|dies|diese|diesen|dieses|den|die|das da|den da|die da)$/;

const POLICY_KW =
  /\b(?:returns?|returning|returned|refunds?|refunded|exchanges?|exchanging|shipping|ship|ships|shipped|shipment|deliver(?:y|ies|ed)?|postage|dispatch(?:ed)?|warrant(?:y|ies)|guarantees?|payments?|pay|paying|paypal|credit\s+cards?|klarna|invoices?|privacy|personal\s+data|gdpr|cookies?|cancel(?:l?ation|l?ed|ling)?|withdraw(?:al|ing|n)?|rücktritt\w*|zurücktret\w*|zurückzutreten|terms|conditions|polic(?:y|ies)|gift\s*cards?|vouchers?|\w*gutschein\w*|coupons?|discount\s+codes?|promo\s+codes?|price\s+match(?:ing)?|customs|duties|international(?:ly)?|abroad|countries|opening\s+hours|rückgabe\w*|rücksend\w*|zurück(?:schick|send|geb|gegeb|gesend|geschick)\w*|retoure\w*|umtausch\w*|umtauschen|erstattung\w*|rückerstattung\w*|widerruf\w*|versand\w*|versenden|lieferung\w*|lieferzeit\w*|liefern|porto|garantie\w*|gewährleistung\w*|zahlung\w*|bezahl\w*|zahlungsart\w*|rechnung|kreditkarte\w*|datenschutz\w*|agb|stornier\w*|gutschein\w*|rabatt\w*|zoll\w*|ausland\w*)\b/;
const REQUEST =
  /\b(?:show\s+me|looking\s+for|look\s+for|search(?:ing)?\s+for|find\s+me|find|do\s+you\s+(?:have|sell|carry|stock)|have\s+you\s+got|i(?:\s+(?:need|want|would\s+like)|'d\s+like)\s+(?:a|an|some|to\s+buy)|recommend|suggest|buy|shop\s+for|(?:are|is)\s+.+\s+(?:in\s+stock|available)|zeig(?:e|t)?\s+mir|ich\s+suche|suche\s+nach|suche|habt\s+ihr|haben\s+sie|führt\s+ihr|verkauft\s+ihr|ich\s+brauche|ich\s+(?:möchte|will|hätte\s+gerne?)\s+(?:ein|eine|einen)|empfiehl\w*|empfehl\w*|kaufen|auf\s+lager|verfügbar)\b/;
const QUESTION_START =
  /^(?:what|which|how|when|where|why|who|can|could|do|does|did|is|are|will|would|should|may|was|wie|welche\w*|wann|wo|warum|wer|kann|könnt|darf|gibt|muss|ist|sind|habe|hat|wird|werden)\b/;

const CART_EN = /\b(?:add|put|place|throw)\s+(.+?)\s+(?:to|in|into|onto)\s+(?:my\s+|the\s+|your\s+)?(?:shopping\s+)?(?:cart|basket|bag)\b/;
const CART_DE =
  /(?:\b(?:leg\w*|füg\w*|pack\w*|tu|tue|gib|mach\w*)\s+(?:mir\s+)?(?:bitte\s+)?|^)(.+?)\s+(?:in\s+(?:den|meinen)|zum|zu\s+(?:meinem|dem))\s+(?:warenkorb|einkaufswagen|korb)\b/;

const ORDER_ID =
  /(?:\border|\bbestellung|\bauftrag)\s*(?:number|no\.?|nr\.?|nummer)?\s*#?\s*([a-z]*-?\d[a-z0-9-]*)|#\s?([a-z]*-?\d[a-z0-9-]*)\b/;
const RETURN_OWN =
  /\b(?:i(?:\s+(?:want|would\s+like|wish)|'d\s+like)\s+to\s+(?:return|send\s+back|exchange)|i(?:\s+(?:want|would\s+like)|'d\s+like)\s+(?:a\s+)?(?:return|refund)\s+(?:for|of)\s+my|return\s+(?:my|order)\b|start\s+a\s+return|(?:make|initiate|open|create|begin)\s+a\s+return|send\s+back\s+my|send\s+my\s+\w+\s+back|ich\s+(?:möchte|will|würde\s+gerne?|muss)\s+(?:\w+\s+){0,5}(?:zurückschicken|zurücksenden|zurückgeben|retournieren|umtauschen|reklamieren)|retoure\s+(?:starten|anmelden|beginnen|einleiten)|meine\s+bestellung\s+(?:\w+\s+){0,2}(?:zurück\w*|retournieren))/;
const RETURN_WORD = /\b(?:return|send\s+(?:\w+\s+){0,3}back|refund|rücksend\w*|retoure\w*|zurück\w*|retournieren|umtauschen)\b/;
const ORDER_OWN =
  /\b(?:where(?:'s|\s+is|\s+are)\s+my\s+(?:order|package|parcel|delivery|stuff|things|items)|my\s+(?:last\s+|recent\s+|latest\s+)?orders?\b|track(?:ing)?\s+(?:of\s+)?(?:my\s+)?(?:order|package|parcel)|(?:order|delivery)\s+status|status\s+of\s+(?:my\s+)?order|(?:has|have)\s+my\s+(?:order|package|parcel)|when\s+will\s+my\s+(?:order|package|parcel)|did\s+my\s+order|wo\s+(?:ist|bleibt)\s+meine?\s+(?:bestellung|paket|lieferung|sendung)|meine[rn]?\s+(?:letzten?\s+)?bestellung(?:en)?|sendungsverfolgung|bestellstatus|status\s+meiner\s+bestellung|wann\s+kommt\s+meine?\s+(?:bestellung|paket|lieferung|sendung))\b/;

const SIZE_RE = /\b(?:size|größe|grösse|gr\.)\s*([a-z0-9]{1,4})\b|\b(xxs|xs|xl|xxl|xxxl)\b|\bin\s+(s|m|l)\b(?!\s*\w)/;
const PRICE_BETWEEN =
  /\b(?:between|zwischen)\s*(?:€|\$|£)?\s*(\d+(?:[.,]\d{1,2})?)\s*(?:euros?|eur|dollars?|usd|€|\$|£)?\s*(?:and|und|-|bis)\s*(?:€|\$|£)?\s*(\d+(?:[.,]\d{1,2})?)\s*(?:euros?|eur|dollars?|usd|€|\$|£)?/;
const PRICE_MAX =
  /(?:\b(?:under|below|less\s+than|cheaper\s+than|up\s+to|max(?:imum)?|at\s+most|no\s+more\s+than|unter|bis(?:\s+zu)?|höchstens|maximal|weniger\s+als|günstiger\s+als|billiger\s+als)|<)\s*(?:€|\$|£)?\s*(\d+(?:[.,]\d{1,2})?)\s*(?:euros?|eur|dollars?|usd|€|\$|£)?/;
const PRICE_MIN =
  /(?:\b(?:over|above|more\s+than|at\s+least|from|min(?:imum)?|über|ab|mindestens|mehr\s+als)|>)\s*(?:€|\$|£)?\s*(\d+(?:[.,]\d{1,2})?)\s*(?:euros?|eur|dollars?|usd|€|\$|£)?/;

function question(kind: "vague_product" | "help" | "cart", lang: "en" | "de"): string {
  if (lang === "de") {
    if (kind === "vague_product") return "Welches Produkt meinen Sie? Nennen Sie bitte den Namen oder beschreiben Sie es.";
    if (kind === "cart") return "Welches Produkt soll ich in Ihren Warenkorb legen? Nennen Sie bitte den Namen.";
    return "Wobei kann ich helfen? Sie können nach Produkten, Ihrer Bestellung oder den Richtlinien des Shops (Rückgabe, Versand, Zahlung) fragen.";
  }
  if (kind === "vague_product") return "Which product do you mean? Please tell me its name or describe it.";
  if (kind === "cart") return "Which product should I add to your cart? Please tell me its name.";
  return "What can I help you with? You can ask about a product, your order, or the store's policies (returns, shipping, payment).";
}

function colorOf(word: string): string | undefined {
  if (COLORS[word]) return COLORS[word];
  const m = DE_ADJ.exec(word);
  return m ? COLORS[m[1]!] : undefined;
}

function cleanRef(ref: string): { ref: string; quantity: number } {
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
    } else if (QUANTITY_WORDS[first] !== undefined) {
      quantity = QUANTITY_WORDS[first]!;
      tokens = tokens.slice(1);
    }
  }
  if (tokens[0] === "x" || tokens[0] === "of") tokens = tokens.slice(1);
  while (tokens.length > 0 && ARTICLES.has(tokens[0]!)) tokens = tokens.slice(1);
  while (tokens.length > 0 && ["please", "bitte", "mir"].includes(tokens[tokens.length - 1]!)) tokens = tokens.slice(0, -1);
  return { ref: tokens.join(" "), quantity: Math.min(99, Math.max(1, quantity)) };
}

const isVagueRef = (ref: string): boolean => VAGUE_REFS.test(ref) || /^(?:the\s+|that\s+|this\s+)?\w+\s+one$/.test(ref) || ref.length === 0;

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
    const cat = CATEGORIES.find(([re]) => re.test(w));
    if (cat) {
      category.add(w);
      cat[1].forEach((x) => category.add(x));
    }
  }
  const size: string[] = [];
  const sm = SIZE_RE.exec(t);
  if (sm) {
    const s = (sm[1] ?? sm[2] ?? sm[3])!;
    size.push(/^[a-z]+$/.test(s) ? s.toUpperCase() : s);
    matched.push(sm[0]);
  }
  let priceMin: number | undefined;
  let priceMax: number | undefined;
  const between = PRICE_BETWEEN.exec(t);
  if (between) {
    const a = parseNumber(between[1]!);
    const b = parseNumber(between[2]!);
    priceMin = Math.min(a, b);
    priceMax = Math.max(a, b);
    matched.push(between[0]);
  } else {
    const max = PRICE_MAX.exec(t);
    if (max) {
      priceMax = parseNumber(max[1]!);
      matched.push(max[0]);
    }
    const min = PRICE_MIN.exec(t);
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

const REQUEST_STRIP =
  /\b(?:can\s+you\s+|could\s+you\s+|please\s+)?(?:show\s+me|i'?m\s+looking\s+for|i\s+am\s+looking\s+for|looking\s+for|look\s+for|search(?:ing)?\s+for|find\s+me|find|do\s+you\s+(?:have|sell|carry|stock|offer)|have\s+you\s+got|i(?:\s+(?:need|want|would\s+like)|'d\s+like)(?:\s+to\s+buy)?|recommend(?:\s+me)?|suggest|buy|shop\s+for|zeig(?:e|t)?\s+mir|ich\s+suche(?:\s+nach)?|suche\s+nach|suche|habt\s+ihr|haben\s+sie|führt\s+ihr|verkauft\s+ihr|ich\s+brauche|ich\s+(?:möchte|will|hätte\s+gerne?))\b/g;

function productQuery(t: string, matched: string[]): string {
  let q = t;
  for (const m of matched) q = q.replace(m, " ");
  q = q
    .replace(REQUEST_STRIP, " ")
    .replace(/\b(?:please|bitte|any|some|irgendwelche|etwas)\b/g, " ")
    .replace(/[?!.,;:]+/g, " ");
  q = q
    .replace(/^\s*(?:a|an|the|ein|eine|einen)\s+/, " ")
    .replace(/\s+/g, " ")
    .trim();
  return q || t.replace(/[?!.]+$/, "").trim();
}

/** Words of policy topics beyond POLICY_KW: card brands and wallets, discounts, membership, fees. */
const POLICY_EXTRA =
  /\b(?:visa|mastercard|mc|amex|american\s+express|discover|afterpay|zip\s*pay|apple\s+pay|google\s+pay|shop\s+pay|discounts?|student|members?(?:hip)?|restocking|receipts?|fees?|expire[sd]?|price\s+(?:guarantee|adjustment|protection|drop)|rma|rabatt\w*|mitglied\w*|quittung|kassenbon|nachnahme|vorkasse|preisgarantie|verfallen|gebühr\w*|installation|installed|assembly|montage|aufbau|gpay)\b/g;
/** A subordinate clause about buying ("when I buy …", "wenn ich … kaufe"). */
const BUYING_CLAUSE =
  /\b(?:when|if|once|after|before|whenever)\s+(?:i|we|you)\s+(?:\w+\s+)?(?:buy|purchase|order|shop)\b|\b(?:wenn|falls|nachdem|sobald)\s+(?:ich|wir)\s+(?:\S+\s+){0,4}(?:kaufe|kaufen|bestelle|bestellen)\b/g;
/** Questions about conditions ("can I …", "how long …", "will I have to …", "wie lange …"). */
const CONDITIONAL =
  /\b(?:if|when|can\s+i|could\s+i|do\s+i|does|do\s+you|will\s+i|would\s+i|is\s+there|are\s+there|is|are|how\s+(?:do|can|long|much|many)|until\s+when|what\s+if|what\s+do|wenn|kann\s+ich|darf\s+ich|muss\s+ich|wie\s+lange|wie\s+viel|gibt\s+es|bis\s+wann|ist|sind)\b/;
/** A conditional clause up to its end ("if I return my jacket", "what if …", "wenn ich …", "falls …"): hypothetical, never the shopper's own request. */
const HYPOTHETICAL_CLAUSE = /\b(?:what\s+if|if|in\s+case|suppose|supposing|assuming|wenn|falls|angenommen)\b[^,;.!?]*/g;
/** The shopper asks about the state of their own order. */
const ORDER_STATUS =
  /\b(?:where(?:'s|\s+is|\s+are)\s+my|track(?:ing)?\b|(?:order|delivery)\s+status|status\s+of|(?:has|have)\s+my\s+(?:order|package|parcel)|when\s+will\s+my\s+(?:order|package|parcel)|did\s+my\s+order|wo\s+(?:ist|bleibt)|sendungsverfolgung|bestellstatus|status\s+meiner|wann\s+kommt\s+meine?)/;
const MONEY_MENTION = /(?:€|\$|£)\s?\d|\d\s?(?:€|eur|euros?|usd|dollars?)\b/;
/**
 * A clause that asks about conditions ("…, how long do I have?", "…, what's your return policy?",
 * "…, wie lange habe ich?"), or whether something is allowed ("Can I send back my jacket after 40
 * days?", "Darf ich … zurückschicken?"): a question, not the request to start a return.
 */
const CONDITIONS_CLAUSE =
  /(?:^|[,;.!?]\s*|\s[-–—]\s|\b(?:but|and|so|aber|und)\s+)(?:(?:can|could|may)\s+i|(?:kann|darf)\s+ich|do\s+you|(?:does|will|would)\s+(?:it|that|this)|how\s+(?:long|much|many)|what(?:'s|\s+is|\s+are)\s+(?:your|the)|is\s+there|are\s+there|do\s+i\s+(?:need|have)|is\s+(?:it|that|this)\s+(?:free|ok|okay|possible|allowed)|does\s+(?:it|that)\s+cost|will\s+i\s+(?:get|be\s+charged|have\s+to)|wie\s+(?:lange?|viel|mache|geht|funktioniert)|was\s+kostet|kostet\s+(?:das|es)|ist\s+(?:das|es)\s+(?:kostenlos|möglich|gratis)|gibt\s+es|muss\s+ich|brauche\s+ich)\b/;

/** Words that ask about the state of one's own order outright ("where is my …", "track", "status", "has my order …"). */
const ORDER_STATUS_OUTRIGHT =
  /\b(?:where(?:'s|\s+is|\s+are)\s+my|track(?:ing)?\b|(?:order|delivery)\s+status|status\s+of|(?:has|have)\s+my\s+(?:order|package|parcel)|did\s+my\s+order|wo\s+(?:ist|bleibt)|sendungsverfolgung|bestellstatus|status\s+meiner)/;

/**
 * An order question that may be a policy question in disguise: no order id, no outright status
 * words ("where is my order", "track", "status"), only "my order" or "when will my order …". Returns
 * the question with "my order" made impersonal when it has at least two other content words ("I
 * ordered on saturday, when will my order be processed?" → "i ordered on saturday, when will the
 * order be processed?"), else null. The engine answers it as a policy question when the policies hold
 * evidence for that remainder.
 */
const OWN_ORDER_EN = /\bmy\s+(?:last\s+|recent\s+|latest\s+)?(?:orders?|package|parcel|delivery|stuff|things|items)\b/g;
const OWN_ORDER_DE = /\bmeine[rn]?\s+(?:letzten?\s+)?(?:bestellung(?:en)?|paket|lieferung|sendung)\b/g;

export function softOrderRemainder(text: string): string | null {
  const t = normalize(text).replace(/\s+/g, " ").trim();
  if (ORDER_STATUS_OUTRIGHT.test(t) || ORDER_ID.test(t)) return null;
  if (!ORDER_OWN.test(t)) return null;
  // "my order was declined, …" → "it was declined, …": the clause stays the shopper's circumstance.
  const rest = t.replace(OWN_ORDER_EN, " it ").replace(OWN_ORDER_DE, " es ").replace(/\s+/g, " ").trim();
  const content = words(rest.replace(/[?!.,;:]+/g, " ")).filter(
    (w) => !isStopWord(w, "en") && !isStopWord(w, "de") && !/^(?:order|orders|bestellung|arrive|come|ship|kommt|it|es)$/.test(w),
  );
  return content.length >= 2 ? rest : null;
}

export interface RouteFeatures {
  returnOwn: boolean;
  /** Besides a return request, a clause asks about the conditions (a policy question, not the start of a return). */
  asksConditions: boolean;
  orderStatus: boolean;
  myOrder: boolean;
  orderId: boolean;
  returnWord: boolean;
  policyTopics: number;
  conditional: boolean;
  moneyMention: boolean;
  request: boolean;
  productFeature: boolean;
  questionForm: boolean;
  contentWords: number;
}

export interface RouteScores {
  return: number;
  order: number;
  product: number;
  policy: number;
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
  const asksConditions = CONDITIONS_CLAUSE.test(t);
  // "how many days do I get to send my clothes back?": returning is the topic the clause asks about.
  const topics = Math.max(
    (t.match(new RegExp(POLICY_KW.source, "g"))?.length ?? 0) + (t.match(POLICY_EXTRA)?.length ?? 0),
    asksConditions && RETURN_WORD.test(t) ? 1 : 0,
  );
  return {
    // "if I return my jacket, …", "what if I want to send it back": a hypothetical return is a question about the policy.
    returnOwn: RETURN_OWN.test(t.replace(HYPOTHETICAL_CLAUSE, " ")),
    asksConditions,
    orderStatus: ORDER_STATUS.test(t) && ORDER_OWN.test(t),
    myOrder: ORDER_OWN.test(t),
    orderId,
    returnWord: RETURN_WORD.test(t),
    policyTopics: topics,
    conditional: CONDITIONAL.test(bare),
    moneyMention: MONEY_MENTION.test(t),
    // "… when I buy a washer?" states a circumstance; it requests no product.
    request: REQUEST.test(t.replace(BUYING_CLAUSE, " ")),
    // A price bound next to a policy topic is the topic's threshold ("Was kostet eine Rücksendung unter 50 €?"), not a product filter.
    productFeature:
      Object.keys(hints.filters).length > 0 || (topics === 0 && (hints.priceMin !== undefined || hints.priceMax !== undefined)),
    questionForm: QUESTION_START.test(bare) || t.endsWith("?"),
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
 * left out; in an English thread, misspelt commerce words corrected.
 */
function bareOf(text: string, lang: "en" | "de" = "en"): { t: string; bare: string } {
  const sanitized = normalize(sanitizeQuestion(text) || text);
  const t = (lang === "en" ? correctWords(sanitized, EN_CROSS_VOCABULARY, "en") : sanitized).replace(/\s+/g, " ").trim();
  const bare = t
    .replace(/[?!.,;:]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return { t, bare };
}

/** Rule 1: nothing, a greeting or "help" alone ("help"), or a bare reference to a product ("the blue one?": "vague_product"). */
function vagueKind(bare: string): "help" | "vague_product" | null {
  if (bare.length === 0) return "help";
  if (/^(?:help|hilfe|hi|hello|hey|hallo|moin|servus|ok|okay|yes|no|ja|nein|thanks|danke|\?+)(?:\s+(?:me|please|bitte|there))?$/.test(bare))
    return "help";
  const reference =
    /^(?:and\s+|what\s+about\s+|how\s+about\s+|und\s+|was\s+ist\s+mit\s+)?(?:the|this|that|der|die|das|den|dem)\s+(\S+)(?:\s+(one|ones|da|hier))?$/.exec(
      bare,
    );
  // "the blue one?", "that red one", "die blaue?": which product is meant is not said.
  if (reference && (reference[2] !== undefined || colorOf(reference[1]!) !== undefined)) return "vague_product";
  if (isVagueRef(bare)) return "vague_product";
  return null;
}

/** The language a router reads a thread's text in (its locale's; English unless German). */
function routerLang(locale: string): "en" | "de" {
  return langOf(locale) === "de" ? "de" : "en";
}

/**
 * Whether the text asks for products outright ("show me", "do you have", "ich suche" …), read in
 * the thread's language (`locale`): only an English thread's words are spelling-corrected.
 */
export function requestsProducts(text: string, locale: string): boolean {
  return REQUEST.test(bareOf(text, routerLang(locale)).t.replace(BUYING_CLAUSE, " "));
}

/**
 * Whether the text is a greeting, "help" or a bare product reference (rule 1): no question the
 * store's policies could answer, whatever words they use. Read in the thread's language (`locale`).
 */
export function isVague(text: string, locale: string): boolean {
  return vagueKind(bareOf(text, routerLang(locale)).bare) !== null;
}

/** Whether a product intent says anything of the product (a colour, type, size or price bound). */
export function describesProduct(intent: Extract<Intent, { kind: "product" }>): boolean {
  return Object.keys(intent.filters).length > 0 || Object.keys(intent.features).length > 0;
}

/**
 * Rule 1b: the shopper asks for a person, or for how to reach the store's team ("I want to talk to
 * a person", "how can I contact you", "kann ich mit einem Mitarbeiter sprechen").
 */
const PERSON_REQUEST = new RegExp(
  [
    String.raw`\b(?:talk|speak|chat)\s+(?:to|with)\s+(?:a\s+|an\s+|your\s+|the\s+|some\s+)?(?:real\s+|live\s+|actual\s+)?(?:person|human|people|agent|some\s*one|somebody|representative|rep|staff|team|customer\s+(?:service|support|care)|support|manager|employee)\b`,
    String.raw`\b(?:how|where)\s+(?:can|do|could|should)\s+i\s+(?:contact|reach|call|e-?mail|phone|get\s+(?:in\s+touch|hold)\s+(?:with|of))\b`,
    // The shopper stating (or asking leave for) the wish to reach the store: "I need to contact your
    // team", "can I call you". Not when the parcel is the subject ("how long does it take to reach
    // you") or the question asks what a policy requires ("do I need to contact you before returning":
    // an inverted question, "do/does/must/should I need to …").
    String.raw`(?<!\b(?:do|does|did|must|should|will)\s)\b(?:i|we)(?:\s+(?:want|need|have)\s+to|\s+would\s+like\s+to|['’]d\s+like\s+to|\s+wanna)\s+(?:contact|reach|call|e-?mail|phone)\s+(?:you|your\s+(?:team|store|shop|support|staff)|the\s+(?:store|shop|team|support))\b`,
    String.raw`\b(?:can|could|may)\s+(?:i|we)\s+(?:contact|call|e-?mail|phone)\s+(?:you|your\s+(?:support\s+)?(?:team|store|shop|support|staff)|the\s+(?:store|shop|team|support))\s*\??$`,
    String.raw`\b(?:your|the\s+store'?s|the\s+shop'?s)\s+(?:phone\s+number|telephone\s+number|e-?mail\s+address|contact\s+(?:details|info(?:rmation)?))\b`,
    String.raw`\b(?:customer\s+(?:service|support|care)|support)\s+(?:phone|number|e-?mail|contact)\b`,
    String.raw`^(?:a\s+)?(?:human|real\s+person|live\s+agent|agent|representative)(?:\s+please)?$`,
    String.raw`\bmit\s+(?:einem|einer|jemandem|dem)\s+(?:echten\s+)?(?:mitarbeiter(?:in)?|menschen|person|berater(?:in)?|kundenservice|support)\s+(?:sprechen|reden|chatten|telefonieren)\b`,
    String.raw`\bwie\s+(?:kann\s+ich\s+(?:sie|euch|den\s+kundenservice|den\s+shop|das\s+team)\s+(?:erreichen|kontaktieren|anrufen|anschreiben)|(?:erreiche|kontaktiere)\s+ich\s+(?:sie|euch|den\s+kundenservice|den\s+shop|das\s+team))\b`,
    String.raw`\b(?:kundenservice|kundendienst|support)\s+(?:kontaktieren|erreichen|anrufen)\b`,
    String.raw`\b(?:ihre|eure|die)\s+(?:telefonnummer|e-?mail-?adresse|kontaktdaten)\b`,
  ].join("|"),
);

/** Whether the text asks for a person or for the store's contact (rule 1b). */
export function asksForPerson(bare: string): boolean {
  return PERSON_REQUEST.test(bare);
}

/**
 * Routes a text (see the header). `currency` is the store's (price bounds become its minor units).
 */
export function classifyText(text: string, locale: string, currency = "EUR"): Intent {
  return routeText(text, locale, currency).intent;
}

/** classifyText() with the rule that decided and, for the scored decision, its features and scores (the turn's intent.classified event, eval --explain). */
export function routeText(text: string, locale: string, currency = "EUR"): { intent: Intent; trace: RouteTrace } {
  const lang = routerLang(locale);
  // Instructions addressed to the assistant do not decide what is asked (sanitize.ts).
  const { t, bare } = bareOf(text, lang);
  const content = words(bare).filter((w) => !isStopWord(w, "en") && !isStopWord(w, "de"));
  // 1. empty or vague
  const vague = vagueKind(bare);
  if (vague) return { intent: { kind: "ambiguous", question: question(vague, lang) }, trace: { rule: "vague" } };
  // 1b. a person asked for: always a handoff with the store's contact
  if (asksForPerson(bare)) return { intent: { kind: "handoff", query: text.trim() }, trace: { rule: "person" } };

  // 2. add to cart
  const cart = CART_EN.exec(t) ?? CART_DE.exec(t);
  if (cart) {
    const { ref, quantity } = cleanRef(cart[1]!.trim());
    const intent: Intent = isVagueRef(ref)
      ? { kind: "ambiguous", question: question("cart", lang) }
      : { kind: "action", name: "add_to_cart", product_ref: ref, quantity };
    return { intent, trace: { rule: "cart" } };
  }

  // 3–7. the scored decision between the shopper's own order / return, a product request and a
  // policy question (see ROUTE_WEIGHTS).
  const idMatch = ORDER_ID.exec(t);
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
    intent: { kind: "ambiguous", question: question(content.length === 0 ? "help" : "vague_product", lang) },
    trace: { rule: "fallback", features: f, scores },
  };
}
