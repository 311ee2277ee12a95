// Typed facts of a policy sentence, for conflicts by facts (compose.ts):
//   - durations in days, each with the event it is counted from when the sentence says so
//     ("within 30 days of delivery" → delivery; "14 days from purchase" → purchase; "nach Erhalt"
//     → delivery; "of the issuance of the RMA" → rma);
//   - amounts in minor units with their currency; percentages; "free" / "kostenlos" = amount 0;
//   - calendar dates (deadlines, "through January 14, 2020");
//   - scope: the qualifiers the statement is limited to — membership (member, non-member),
//     season (holiday, a month), product class (cell phones, appliances, electronics, software,
//     used …), channel (online, in store, by mail), and the store's own scope and product words
//     (a tier "Elite", a region, "mattress": store-words.ts), not counting those inside an
//     "unless …" clause or an inclusive phrase ("including …"). Two statements with different
//     scopes are an exception and its rule, not a conflict.
// The words of each (start events, scope words, "free", negations, "unless") are the language
// packs' (src/assistant/language/: facts) and the store's (its assistant settings' vocabulary).
import { alternation, languages, packOrDefault, perRegistry, type LanguagePack, type StartEvent } from "../language/index.js";
import { NO_STORE_WORDS, type StoreVocabulary } from "./store-words.js";
import { namesOf } from "./lexicon.js";
import { analyze, datesIn, normalize, quantities, stem, type Lang } from "./text.js";

export type { StartEvent } from "../language/index.js";

export interface SentenceFacts {
  /** `lasts`: the time something takes ("may take 3 to 5 days"), not a window to act in. */
  durations: Array<{ days: number; start: StartEvent | null; lasts: boolean }>;
  amounts: Set<string>;
  /** The amounts written as a threshold ("FREE on orders over £40": GBP:4000), also among amounts. */
  thresholds: Set<string>;
  percents: Set<string>;
  dates: Set<string>;
  scope: Set<string>;
  /** The product classes among the scope's qualifiers ("mattress", "phone"). */
  productClasses: Set<string>;
  /** Stems of the words naming a duration's start event ("of delivery" → deliver): not the subject. */
  startTerms: Set<string>;
  /** The sentence enumerates (payment methods, countries, carriers …: enumerates()). */
  enumeration: boolean;
  /** The sentence gives a phone number (givesPhone()). */
  phone: boolean;
  /** Stems of the content words of a condition clause opening the sentence ("If your purchase was made with the Consumer Credit Card, …"): empty when none. */
  condition: Set<string>;
}

/** The start events in the order they are tried, each a pattern of every language's stem beginnings. */
const START_EVENT_ORDER: readonly StartEvent[] = ["delivery", "purchase", "shipment", "rma", "order"];

/** The patterns of facts of every language (a sentence's facts are read whatever its language). */
const patterns = perRegistry(() => {
  const stems = (pick: (f: LanguagePack["facts"]) => readonly string[]) =>
    new Set(languages().flatMap((p) => pick(p.facts).flatMap((w) => analyze(w, p.code))));
  return {
    startEvents: START_EVENT_ORDER.map((event) => [new RegExp(`^(?:${alternation((p) => p.facts.startEvents[event])})`), event] as const),
    /** "within 30 (calendar) days of|from|after … delivery", "14 Tage nach Erhalt": the start event's words follow. */
    startAfter: new RegExp(
      `^\\s*(?:(?:${alternation((p) => p.facts.durationStart.qualifiers)})\\s+)?(?:\\S+\\s+)??(?:${alternation((p) => p.facts.durationStart.words)})\\s+(.{0,40})`,
    ),
    /** The product classes among the scope words (each analysed in its own language). */
    productClasses: stems((f) => f.productClasses),
    free: new RegExp(`\\b(?:${alternation((p) => p.facts.free)})\\b`, "g"),
    negatedBefore: new RegExp(
      `(?:${alternation((p) => p.facts.negation)})\\s+(?:(?:${alternation((p) => p.facts.negationBridge)})\\s+){0,4}$`,
      "u",
    ),
    unless: new RegExp(`\\b(?:${alternation((p) => p.facts.unless)})\\b[^.;]*`),
    unlessHead: new RegExp(`^(?:${alternation((p) => p.facts.unless)})\\b`),
    /** An inclusive phrase up to the next comma, bracket or full stop ("(including products purchased online)"). */
    including: new RegExp(`\\b(?:${alternation((p) => p.facts.including)})\\b[^.;,()]*`, "g"),
    /** "may take (up to|about) 3 to 5 days": a duration right after these words is the time something takes. */
    lastsBefore: new RegExp(`\\b(?:${alternation((p) => p.facts.lasts)})\\s+(?:\\S+\\s+){0,3}$`, "u"),
    /** A condition clause at the sentence's start, up to its comma: its words are group 1. */
    condition: new RegExp(`^(?:${alternation((p) => p.facts.condition)})\\s+([^,;:.]{3,200})[,;:]`),
    /** Words that make an amount a threshold, not a price: before it, or after it. */
    threshold: {
      before: new RegExp(`\\b(?:${alternation((p) => p.answers.threshold.before)})\\s*$`, "i"),
      valueBefore: new RegExp(`\\b(?:${alternation((p) => p.answers.threshold.valueBefore)})$`, "i"),
      after: new RegExp(`^\\s*(?:${alternation((p) => p.answers.threshold.after)})\\b`, "i"),
    },
    /** Between an enumeration's items: a comma, semicolon or slash, or a joining word of any language ("and", "oder"). */
    listSeparator: new RegExp(`\\s*(?:[,;/]|\\s(?:${alternation((p) => p.answers.listJoiners) || "(?!)"})\\s)\\s*`, "i"),
  };
});

/** The scope stems of a language: its scope words analysed in it. */
const scopeStems = perRegistry(() => new Map(languages().map((p) => [p.code, new Set(p.facts.scope.flatMap((w) => analyze(w, p.code)))])));

/** Each language's one-word country names, analysed. */
const countryStems = perRegistry(
  () =>
    new Map(
      languages().map((p) => [
        p.code,
        new Set(Object.values(namesOf(p)).flatMap((names) => names.filter((n) => !n.includes(" ")).flatMap((n) => analyze(n, p.code)))),
      ]),
    ),
);

/**
 * The countries among analysed terms. A policy or section headed by a country ("Rückgaberecht –
 * Conrad Österreich", "Returns for Ireland") is scoped to it (compose.ts); a sentence that only
 * names one ("free within Germany") states the rule where the store is, no exception.
 */
export function countriesOf(terms: Iterable<string>, lang: Lang): Set<string> {
  const set = countryStems().get(lang);
  return set ? new Set([...terms].filter((t) => set.has(t))) : new Set();
}

/** The scope qualifiers among analysed terms: the language pack's and the store's (none in a language without a pack). */
export function scopeOf(terms: Iterable<string>, lang: Lang, store: StoreVocabulary = NO_STORE_WORDS): Set<string> {
  const set = scopeStems().get(lang);
  if (!set) return new Set();
  const own = store.scope(lang);
  return new Set([...terms].filter((t) => set.has(t) || own.has(t)));
}

/**
 * "Free" in policy wording (an amount of 0), and a negation that reaches it: directly ("not
 * free", "nicht kostenlos") or only through words that say whether something is eligible for,
 * includes or comes with it ("not eligible for free shipping", "does not include free returns",
 * "no longer free", "nicht mehr kostenlos"). Any other word in between ("No code needed for free
 * shipping", "Not only is shipping free") breaks it. Tested against the text just before one
 * "free". How far back a negation may stand before the "free" it negates:
 */
const NEGATION_REACH = 80;

/**
 * Whether a (normalised) text states that something is free — an amount of 0 — at least once
 * without negating it ("International orders are not eligible for free shipping" states no
 * amount). Each "free" is paired with its own negation by position. Also what makes a passage
 * speak of money in retrieval.
 */
export function statesFree(t: string): boolean {
  const { free, negatedBefore } = patterns();
  for (const m of t.matchAll(free)) {
    if (!negatedBefore.test(t.slice(Math.max(0, m.index - NEGATION_REACH), m.index))) return true;
  }
  return false;
}

function startAfter(text: string, index: number, lang: Lang, startTerms: Set<string>): StartEvent | null {
  const tail = text.slice(index, index + 60);
  const m = patterns().startAfter.exec(tail);
  if (!m) return null;
  for (const w of m[1]!.split(/\s+/).filter(Boolean).slice(0, 5)) {
    const s = stem(w.replace(/[^\p{L}]/gu, ""), packOrDefault(lang).code);
    const hit = patterns().startEvents.find(([re]) => re.test(s) || re.test(w));
    if (hit) {
      startTerms.add(s);
      return hit[1];
    }
  }
  return null;
}

/** Typed facts of one sentence; `store`: the store's own scope and product words. */
export function factsOf(text: string, terms: Iterable<string>, lang: Lang, store: StoreVocabulary = NO_STORE_WORDS): SentenceFacts {
  const t = normalize(text);
  const durations: SentenceFacts["durations"] = [];
  const amounts = new Set<string>();
  const thresholds = new Set<string>();
  const percents = new Set<string>();
  const startTerms = new Set<string>();
  for (const q of quantities(text)) {
    if (q.kind === "duration") {
      const at = t.indexOf(q.text);
      durations.push({
        days: Math.round(q.days * 100) / 100,
        start: at >= 0 ? startAfter(t, at + q.text.length, lang, startTerms) : null,
        lasts: at >= 0 && patterns().lastsBefore.test(t.slice(Math.max(0, at - 40), at)),
      });
    } else if (q.kind === "money") {
      amounts.add(`${q.currency}:${q.minor}`);
      if (isThreshold(text, q.text)) thresholds.add(`${q.currency}:${q.minor}`);
    } else percents.add(String(q.value));
  }
  if (statesFree(t)) amounts.add("*:0");
  const dates = new Set(datesIn(text).map((d) => `${d.year ?? "?"}-${d.month}-${d.day}`));
  // A qualifier inside an "unless …" clause names the exception to the statement, not its scope
  // ("… on the following Monday, unless Monday is a holiday"); one inside an inclusive phrase
  // widens it ("return your item to your preferred store (including products purchased online)").
  const { unless: clause, unlessHead } = patterns();
  const unless = new Set(
    analyze((clause.exec(t)?.[0] ?? "").replace(unlessHead, " ") + " " + inclusive(t).join(" "), packOrDefault(lang).code),
  );
  const enumeration = enumerates(text);
  // The names an enumeration lists are not scopes ("… Diners Club and American Express").
  const named = enumeration ? nameStems(text, lang) : new Set<string>();
  const scope = [...scopeOf(terms, lang, store)].filter((x) => (!unless.has(x) || ownScopeOutside(t, x, lang)) && !named.has(x));
  const ownClasses = store.productClasses(lang);
  const productClasses = new Set(scope.filter((x) => patterns().productClasses.has(x) || ownClasses.has(x)));
  return {
    durations,
    amounts,
    thresholds,
    percents,
    dates,
    scope: new Set(scope),
    productClasses,
    startTerms,
    enumeration,
    phone: givesPhone(text),
    condition: new Set(analyze(patterns().condition.exec(t)?.[1] ?? "", packOrDefault(lang).code)),
  };
}

/**
 * The stems of the words of names in an enumerating sentence, in a language that capitalises only
 * names mid-sentence: runs of two or more capitalised words after the sentence's first word ("We
 * accept Visa, Mastercard and American Express" → american, express).
 */
function nameStems(text: string, lang: Lang): Set<string> {
  const pack = packOrDefault(lang);
  const out = new Set<string>();
  if (!pack.facts.namesByCapitals) return out;
  const tokens = text.split(/\s+/).filter(Boolean);
  let run: string[] = [];
  const flush = () => {
    if (run.length >= 2) for (const w of run) for (const s of analyze(w, pack.code)) out.add(s);
    run = [];
  };
  tokens.forEach((token, i) => {
    const word = token.replace(/^[("'“‘]+|[)"'”’.,;:!?]+$/g, "");
    if (i > 0 && /^\p{Lu}/u.test(word)) run.push(word);
    else flush();
    // Punctuation after a word ends the name ("Visa, Mastercard").
    if (/[,;:.!?)]$/.test(token)) flush();
  });
  flush();
  return out;
}

/** Whether a sentence gives a phone number: a run of 7–15 digits in groups ("1-800-441-5713", "0344 499 4686"), not a date. */
export function givesPhone(text: string): boolean {
  for (const m of text.matchAll(/\+?\(?\d[\d\s()./-]{5,}\d/g)) {
    const digits = m[0].replace(/\D/g, "").length;
    if (digits >= 7 && digits <= 15 && !/^\d{4}-\d{2}-\d{2}$/.test(m[0].trim()) && /[\s()./-]/.test(m[0])) return true;
  }
  return false;
}

/** ENUMERATION_MIN_ITEMS short items (at most ENUMERATION_ITEM_WORDS words each) joined by commas, slashes or "and"/"or": an enumeration. */
export const ENUMERATION_MIN_ITEMS = 3;
export const ENUMERATION_ITEM_WORDS = 4;

/** Whether a sentence enumerates ("We accept Visa, Mastercard, Diners Club and American Express."): its last items are short. */
export function enumerates(text: string): boolean {
  const items = text
    .replace(/[.!?:]+\s*$/, "")
    .split(patterns().listSeparator)
    .map((x) => x.trim())
    .filter(Boolean);
  // The first item carries the lead ("We accept Visa"); the items after it must all be short.
  const rest = items.slice(1);
  return items.length >= ENUMERATION_MIN_ITEMS && rest.every((x) => x.split(/\s+/).length <= ENUMERATION_ITEM_WORDS);
}

/** Whether the amount is written as a threshold ("over $99", "ab 50 €"). */
export function isThreshold(text: string, amount: string): boolean {
  const t = normalize(text);
  const at = t.indexOf(amount);
  if (at < 0) return false;
  const { before, valueBefore, after } = patterns().threshold;
  return (
    before.test(t.slice(Math.max(0, at - 20), at)) ||
    valueBefore.test(t.slice(Math.max(0, at - 30), at)) ||
    after.test(t.slice(at + amount.length, at + amount.length + 30))
  );
}

/** The inclusive phrases of a sentence, without their opening word (facts.including). */
function inclusive(t: string): string[] {
  return [...t.matchAll(patterns().including)].map((m) => m[0].replace(/^\S+/, " "));
}

/** Whether a scope stem also occurs outside the sentence's "unless …" clause and its inclusive phrases. */
function ownScopeOutside(t: string, scopeStem: string, lang: Lang): boolean {
  const outside = t.replace(patterns().unless, " ").replace(patterns().including, " ");
  return analyze(outside, packOrDefault(lang).code).includes(scopeStem);
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
 * durations differ (or are counted from different events; the time something takes is never
 * compared with a window counted from an event), amounts differ ("free" vs a fee) or the
 * thresholds of two rules do ("free over £40" vs "free over £30"; a threshold rule and a flat
 * price compare only the rule's other prices),
 * percentages differ, deadlines differ.
 */
export function disagreement(a: SentenceFacts, b: SentenceFacts, asked: Set<"duration" | "money">): "duration" | "amount" | "date" | null {
  if (asked.has("duration")) {
    // The time something takes and a window counted from an event are different points.
    const counted = (d: SentenceFacts["durations"][number]) => d.start !== null && !d.lasts;
    const comparable = (x: SentenceFacts["durations"][number], y: SentenceFacts["durations"][number]) =>
      !(x.lasts && counted(y)) && !(y.lasts && counted(x));
    const da = a.durations.filter((x) => b.durations.some((y) => comparable(x, y)));
    const db = b.durations.filter((y) => a.durations.some((x) => comparable(x, y)));
    if (da.length > 0 && db.length > 0) {
      const va = new Set(da.map((d) => d.days));
      const overlap = db.some((d) => va.has(d.days));
      const startsA = new Set(da.map((d) => d.start).filter(Boolean));
      const startsB = new Set(db.map((d) => d.start).filter(Boolean));
      const differentStart = startsA.size > 0 && startsB.size > 0 && ![...startsA].some((s) => startsB.has(s));
      if (!overlap || differentStart) return "duration";
    }
    if (a.dates.size > 0 && b.dates.size > 0 && ![...a.dates].some((d) => b.dates.has(d))) return "date";
  }
  if (asked.has("money")) {
    // Two thresholds of the same rule ("FREE on orders over £40" / "over £30"): the rule disagrees;
    // the same threshold: the prices on either side of it are its branches, not a disagreement.
    // A threshold rule beside a flat price ("free over $100" / "a flat fee of $8.95"): its "free"
    // branch and its threshold are not prices to compare, only another price it states is.
    const branches = (x: SentenceFacts) => new Set([...x.amounts].filter((m) => !x.thresholds.has(m) && !m.endsWith(":0")));
    if (a.thresholds.size > 0 && b.thresholds.size > 0) {
      if (![...a.thresholds].some((x) => b.thresholds.has(x))) return "amount";
    } else if (a.thresholds.size > 0 || b.thresholds.size > 0) {
      if (amountsDisagree(a.thresholds.size > 0 ? branches(a) : a.amounts, b.thresholds.size > 0 ? branches(b) : b.amounts))
        return "amount";
    } else if (amountsDisagree(a.amounts, b.amounts)) return "amount";
    if (a.percents.size > 0 && b.percents.size > 0 && ![...a.percents].some((p) => b.percents.has(p))) return "amount";
  }
  return null;
}
