// Typed facts of a policy sentence, for conflicts by facts (compose.ts):
//   - durations in days, each with the event it is counted from when the sentence says so
//     ("within 30 days of delivery" → delivery; "14 days from purchase" → purchase; "nach Erhalt"
//     → delivery; "of the issuance of the RMA" → rma);
//   - amounts in minor units with their currency; percentages; "free" / "kostenlos" = amount 0;
//   - calendar dates (deadlines, "through January 14, 2020");
//   - scope: the qualifiers the statement is limited to — membership (member, Elite, non-member),
//     season (holiday, a month), product class (cell phones, appliances, electronics, mattress,
//     software, used gear …), channel (online, in store, by mail) — plus the row label of a table
//     row. Two statements with different scopes are an exception and its rule, not a conflict.
import { analyze, datesIn, normalize, quantities, stem, type Lang } from "./text.js";

export type StartEvent = "delivery" | "purchase" | "shipment" | "rma" | "order";

export interface SentenceFacts {
  durations: Array<{ days: number; start: StartEvent | null }>;
  amounts: Set<string>;
  percents: Set<string>;
  dates: Set<string>;
  scope: Set<string>;
  /** Stems of the words naming a duration's start event ("of delivery" → deliver): not the subject. */
  startTerms: Set<string>;
}

const START_EVENTS: Array<[RegExp, StartEvent]> = [
  [/^(?:deliver|receiv|receipt|arriv|empfang|erhalt|liefer|zustell|besitz)/, "delivery"],
  [/^(?:purchas|buy|bought|kauf|gekauft)/, "purchase"],
  [/^(?:ship|dispatch|versand|versend)/, "shipment"],
  [/^(?:rma|issuanc)/, "rma"],
  [/^(?:order|bestell|placing)/, "order"],
];

const SCOPE_WORDS: Record<"en" | "de", string[]> = {
  en: [
    "member",
    "members",
    "membership",
    "elite",
    "plus",
    "non-member",
    "nonmember",
    "holiday",
    "holidays",
    "christmas",
    "november",
    "december",
    "phone",
    "phones",
    "cellular",
    "tablet",
    "tablets",
    "wearable",
    "wearables",
    "appliance",
    "appliances",
    "electronics",
    "mattress",
    "mattresses",
    "software",
    "used",
    "re/supply",
    "refurbished",
    "clearance",
    "online",
    "in-store",
    "mail",
    "custom",
    "personalized",
    "international",
    "express",
    "overnight",
    "alaska",
    "hawaii",
  ],
  de: [
    "mitglied",
    "mitglieder",
    "weihnachten",
    "november",
    "dezember",
    "elektronik",
    "matratze",
    "software",
    "gebraucht",
    "online",
    "filiale",
    "express",
    "ausland",
  ],
};

const scopeStems: Record<"en" | "de", Set<string>> = {
  en: new Set(SCOPE_WORDS.en.flatMap((w) => analyze(w, "en"))),
  de: new Set(SCOPE_WORDS.de.flatMap((w) => analyze(w, "de"))),
};

/** The product classes among the scope words (en, de): a statement about them is narrower than one about "most products". */
const PRODUCT_CLASS = new Set(
  [
    ...["phone", "phones", "cellular", "tablet", "tablets", "wearable", "wearables", "appliance", "appliances", "electronics"],
    ...["mattress", "mattresses", "software", "used", "refurbished", "clearance", "custom", "personalized"],
  ].flatMap((w) => analyze(w, "en")),
);
const PRODUCT_CLASS_DE = new Set(["elektronik", "matratze", "software", "gebraucht"].flatMap((w) => analyze(w, "de")));

/** The product-class qualifiers of a scope. */
export function productClasses(scope: Set<string>): string[] {
  return [...scope].filter((x) => PRODUCT_CLASS.has(x) || PRODUCT_CLASS_DE.has(x));
}

/** The scope qualifiers among analysed terms. */
export function scopeOf(terms: Iterable<string>, lang: Lang): Set<string> {
  if (lang === "other") return new Set();
  const set = scopeStems[lang];
  return new Set([...terms].filter((t) => set.has(t)));
}

/** "Free" in policy wording (an amount of 0). */
export const FREE = /\b(?:free(?:\s+of\s+charge)?|no\s+charge|at\s+no\s+cost|kostenlos|kostenfrei|gratis|versandkostenfrei)\b/g;
/**
 * A negation that reaches the "free" right after it: directly ("not free", "nicht kostenlos") or
 * only through words that say whether something is eligible for, includes or comes with it ("not
 * eligible for free shipping", "does not include free returns", "no longer free", "nicht mehr
 * kostenlos"). Any other word in between ("No code needed for free shipping", "Not only is
 * shipping free") breaks it. Tested against the text just before one "free".
 */
const NEGATED_BEFORE = new RegExp(
  "(?:\\b(?:not|no|never|nicht|kein\\w*)|n't)\\s+(?:(?:" +
    [
      "be|been|longer|always|a|an|eligible|qualify|qualifies|qualified|include|includes|included|including|apply|applies|available|offered|provided|entitled|come|comes|for|with|as|to",
      "mehr|immer|ganz|berechtigt|inklusive|inbegriffen|enthalten|erhältlich|verfügbar|gilt|gelten|für|mit|als|zu",
    ].join("|") +
    ")\\s+){0,4}$",
  "u",
);
/** How far back a negation may stand before the "free" it negates. */
const NEGATION_REACH = 80;

/**
 * Whether a (normalised) text states that something is free — an amount of 0 — at least once
 * without negating it ("International orders are not eligible for free shipping" states no
 * amount). Each "free" is paired with its own negation by position. Also what makes a passage
 * speak of money in retrieval.
 */
export function statesFree(t: string): boolean {
  for (const m of t.matchAll(FREE)) {
    if (!NEGATED_BEFORE.test(t.slice(Math.max(0, m.index - NEGATION_REACH), m.index))) return true;
  }
  return false;
}

function startAfter(text: string, index: number, lang: Lang, startTerms: Set<string>): StartEvent | null {
  const tail = text.slice(index, index + 60);
  const m = /^\s*(?:calendar\s+|business\s+)?(?:\S+\s+)??(?:of|from|after|since|nach|ab|seit)\s+(.{0,40})/.exec(tail);
  if (!m) return null;
  for (const w of m[1]!.split(/\s+/).filter(Boolean).slice(0, 5)) {
    const s = stem(w.replace(/[^\p{L}]/gu, ""), lang === "other" ? "en" : lang);
    const hit = START_EVENTS.find(([re]) => re.test(s) || re.test(w));
    if (hit) {
      startTerms.add(s);
      return hit[1];
    }
  }
  return null;
}

/** Typed facts of one sentence; `extraScope` adds qualifiers (a table row's label). */
export function factsOf(text: string, terms: Iterable<string>, lang: Lang, extraScope: Iterable<string> = []): SentenceFacts {
  const t = normalize(text);
  const durations: SentenceFacts["durations"] = [];
  const amounts = new Set<string>();
  const percents = new Set<string>();
  const startTerms = new Set<string>();
  for (const q of quantities(text)) {
    if (q.kind === "duration") {
      const at = t.indexOf(q.text);
      durations.push({ days: Math.round(q.days * 100) / 100, start: at >= 0 ? startAfter(t, at + q.text.length, lang, startTerms) : null });
    } else if (q.kind === "money") amounts.add(`${q.currency}:${q.minor}`);
    else percents.add(String(q.value));
  }
  if (statesFree(t)) amounts.add("*:0");
  const dates = new Set(datesIn(text).map((d) => `${d.year ?? "?"}-${d.month}-${d.day}`));
  // A qualifier inside an "unless …" clause names the exception to the statement, not its scope
  // ("… on the following Monday, unless Monday is a holiday").
  const unless = new Set(analyze((UNLESS_CLAUSE.exec(t)?.[0] ?? "").replace(UNLESS_CLAUSE_HEAD, " "), lang === "other" ? "en" : lang));
  const scope = [...scopeOf(terms, lang)].filter((x) => !unless.has(x) || ownScopeOutside(t, x, lang));
  return { durations, amounts, percents, dates, scope: new Set([...scope, ...extraScope]), startTerms };
}

const UNLESS_CLAUSE = /\b(?:unless|except\s+(?:if|when)|es\s+sei\s+denn|außer\s+wenn)\b[^.;]*/;
const UNLESS_CLAUSE_HEAD = /^(?:unless|except\s+(?:if|when)|es\s+sei\s+denn|außer\s+wenn)\b/;

/** Whether a scope stem also occurs outside the sentence's "unless …" clause. */
function ownScopeOutside(t: string, scopeStem: string, lang: Lang): boolean {
  const outside = t.replace(UNLESS_CLAUSE, " ");
  return analyze(outside, lang === "other" ? "en" : lang).includes(scopeStem);
}

const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

/** Whether two scopes are the same statement's scope (an exception is not a conflict with its rule). */
export const sameScope = sameSet;

/** Amount sets disagree: disjoint, where "*:0" (free) equals a 0 of any currency. */
function amountsDisagree(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  const zero = (s: Set<string>) => [...s].some((x) => x.endsWith(":0"));
  if (zero(a) && zero(b)) return false;
  return ![...a].some((x) => b.has(x));
}

/**
 * The kind of disagreement between two sentences' facts on the kinds asked for, or null:
 * durations differ (or are counted from different events), amounts differ ("free" vs a fee),
 * percentages differ, deadlines differ.
 */
export function disagreement(a: SentenceFacts, b: SentenceFacts, asked: Set<"duration" | "money">): "duration" | "amount" | "date" | null {
  if (asked.has("duration")) {
    if (a.durations.length > 0 && b.durations.length > 0) {
      const va = new Set(a.durations.map((d) => d.days));
      const overlap = b.durations.some((d) => va.has(d.days));
      const startsA = new Set(a.durations.map((d) => d.start).filter(Boolean));
      const startsB = new Set(b.durations.map((d) => d.start).filter(Boolean));
      const differentStart = startsA.size > 0 && startsB.size > 0 && ![...startsA].some((s) => startsB.has(s));
      if (!overlap || differentStart) return "duration";
    }
    if (a.dates.size > 0 && b.dates.size > 0 && ![...a.dates].some((d) => b.dates.has(d))) return "date";
  }
  if (asked.has("money")) {
    if (amountsDisagree(a.amounts, b.amounts)) return "amount";
    if (a.percents.size > 0 && b.percents.size > 0 && ![...a.percents].some((p) => b.percents.has(p))) return "amount";
  }
  return null;
}
