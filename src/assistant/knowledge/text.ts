// Text handling of the grounding engine: tokenising, sentence splitting and the quantities
// (durations, money, percentages) that answers and the conflict and LLM checks compare. Everything
// here is pure and deterministic. What a language contributes — stop words, stemming, number and
// unit words, month and day names, sentence abbreviations — comes from its pack
// (src/assistant/language/); text in a language without a pack ("other") is lower-cased only, with
// no stop words.
import {
  alternation,
  anyOf,
  detectLanguage,
  isStopWord,
  languagePack,
  languages,
  mergedRecord,
  perRegistry,
  stem,
  wordAlternation,
  type Lang,
  type LanguagePack,
} from "../language/index.js";

export { isStopWord, langOf, primaryOf, stem, type Lang } from "../language/index.js";

/**
 * The language a text is written in when its words say so (language/index.ts detectLanguage),
 * else the thread's. Languages without a pack keep the thread's.
 */
export function textLang(text: string, thread: Lang): Lang {
  return detectLanguage(words(normalize(text))) ?? thread;
}

/** Lower case, NFC, typographic quotes and dashes made plain. */
export function normalize(text: string): string {
  return text
    .normalize("NFC")
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/[–—]/g, "-");
}

/** Word tokens (letters and digits, inner apostrophes and hyphens split off). */
export function words(text: string): string[] {
  return normalize(text).match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [];
}

/** The stop words of a language (none for a language without a pack). */
export function stopWords(lang: Lang): ReadonlySet<string> {
  return languagePack(lang)?.words.stopWords ?? new Set();
}

/** Content terms of a text: words minus stop words, stemmed. Numbers are kept as terms. */
export function analyze(text: string, lang: Lang): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (isStopWord(w, lang)) continue;
    const s = stem(w, lang);
    if (s.length === 0) continue;
    out.push(s);
  }
  return out;
}

// --- sentences ----------------------------------------------------------------------------------

// A single letter before the period is an abbreviation or initial too ("z. B.", "u. a.").
const abbreviation = perRegistry(
  () => new RegExp(`(?:\\b(${wordAlternation((p) => p.words.abbreviations)})|(?<![\\p{L}\\p{N}])\\p{L})\\.$`, "iu"),
);

/** Splits a passage into sentences (on . ! ? followed by space and a capital, digit or quote). */
export function sentences(text: string): string[] {
  const parts: string[] = [];
  const re = /[.!?]+["”»)]?\s+(?=[\p{Lu}\p{N}"„“«(])/gu;
  let start = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const end = m.index + m[0].trimEnd().length;
    const candidate = text.slice(start, end);
    if (abbreviation().test(candidate.trim())) continue;
    parts.push(candidate.trim());
    start = m.index + m[0].length;
  }
  const rest = text.slice(start).trim();
  if (rest) parts.push(rest);
  return parts.filter((s) => s.length > 0);
}

// --- quantities ---------------------------------------------------------------------------------

export type Quantity =
  | { kind: "duration"; days: number; text: string }
  | { kind: "money"; minor: number; currency: string; text: string }
  | { kind: "percent"; value: number; text: string };

/** Numbers written as words, of every language ("two", "zwei"). */
export const numberWords = perRegistry((): Readonly<Record<string, number>> => mergedRecord((p) => p.numbers.words));

/** Parses "4.95", "4,95", "1,000", "1.000,50" into a number (en and de separators). */
export function parseNumber(raw: string): number {
  const s = raw.trim();
  if (/^\d+$/.test(s)) return Number(s);
  if (/^\d+[.,]\d{1,2}$/.test(s)) return Number(s.replace(",", "."));
  if (/^\d{1,3}([.,]\d{3})+$/.test(s)) return Number(s.replace(/[.,]/g, ""));
  if (/^\d{1,3}(\.\d{3})+,\d{1,2}$/.test(s)) return Number(s.replace(/\./g, "").replace(",", "."));
  if (/^\d{1,3}(,\d{3})+\.\d{1,2}$/.test(s)) return Number(s.replace(/,/g, ""));
  return Number(s.replace(",", "."));
}

const NUM = "\\d+(?:[.,]\\d+)*";

/** The patterns of quantities() and numbersIn(), from every language's number, unit and currency words. */
const patterns = perRegistry(() => {
  /** Currency signs, codes and names (every language's) → ISO code. */
  const currencies: Record<string, string> = {
    "€": "EUR",
    $: "USD",
    "£": "GBP",
    "¥": "JPY",
    chf: "CHF",
    eur: "EUR",
    usd: "USD",
    gbp: "GBP",
    ...mergedRecord((p) => p.numbers.currencyNames),
  };
  return {
    wholeAmounts: languages().flatMap((p) => (p.numbers.wholeAmount ? [new RegExp(p.numbers.wholeAmount.source, "g")] : [])),
    numberWords: numberWords(),
    notStated: new Set(languages().flatMap((p) => p.numbers.notStated)),
    unitDays: languages().flatMap((p) => p.numbers.unitDays),
    currencies,
    duration: new RegExp(
      `\\b(${NUM}|${anyOf(Object.keys(numberWords()))})(?:\\s*(?:-|–|${alternation((p) => p.numbers.rangeWords)})\\s*(${NUM}))?[\\s-]+(${alternation((p) => p.numbers.durationUnits)})\\b`,
      "gu",
    ),
    moneyAfter: new RegExp(
      `\\b(${NUM})\\s{0,4}(€|\\$|£|\\b(?:eur|usd|gbp|chf|${wordAlternation((p) => Object.keys(p.numbers.currencyNames))})\\b)`,
      "gu",
    ),
    percent: new RegExp(`\\b(${NUM})\\s?(%|${wordAlternation((p) => p.numbers.percentWords)})`, "gu"),
  };
});

/** Durations ("30 days", "30-day", "14 Tage", "two weeks"), money ("€4.95", "50 EUR") and percentages in a text. */
export function quantities(text: string): Quantity[] {
  const out: Quantity[] = [];
  // Whole amounts written with a dash for the cents ("50,- €", "50,-- EUR": a language's
  // numbers.wholeAmount) are blanked in place, so that a match's text is still read from the
  // original at the same offsets.
  const written = normalize(text);
  const t = patterns().wholeAmounts.reduce(
    (x, re) => x.replace(re, (_m, d: string, dashes: string) => d + " ".repeat(1 + dashes.length)),
    written,
  );
  const { duration, moneyAfter, percent, unitDays, currencies } = patterns();
  for (const m of t.matchAll(duration)) {
    const unit = unitDays.find(([re]) => re.test(m[3]!));
    if (!unit) continue;
    const first = /^\d/.test(m[1]!) ? parseNumber(m[1]!) : (patterns().numberWords[m[1]!] ?? NaN);
    if (!Number.isFinite(first)) continue;
    out.push({ kind: "duration", days: first * unit[1], text: m[0] });
    if (m[2]) out.push({ kind: "duration", days: parseNumber(m[2]) * unit[1], text: m[0] });
  }
  const moneyBefore = new RegExp(`(€|\\$|£|¥|\\b(?:eur|usd|gbp|chf)\\b)\\s?(${NUM})`, "gu");
  for (const m of t.matchAll(moneyBefore)) {
    const currency = currencies[m[1]!] ?? "EUR";
    out.push({ kind: "money", currency, minor: Math.round(parseNumber(m[2]!) * (currency === "JPY" ? 1 : 100)), text: m[0] });
  }
  for (const m of t.matchAll(moneyAfter)) {
    const currency = currencies[m[2]!] ?? "EUR";
    const asWritten = written.slice(m.index, m.index + m[0].length);
    out.push({ kind: "money", currency, minor: Math.round(parseNumber(m[1]!) * (currency === "JPY" ? 1 : 100)), text: asWritten });
  }
  for (const m of t.matchAll(percent)) {
    out.push({ kind: "percent", value: parseNumber(m[1]!), text: m[0] });
  }
  return out;
}

/**
 * Every number a text states: digit groups (with en/de separators) and number words. Used by the
 * LLM check: a number in the model's text must be one of the cited passages' numbers.
 */
export function numbersIn(text: string): number[] {
  const t = normalize(text);
  const out: number[] = [];
  for (const m of t.matchAll(new RegExp(NUM, "gu"))) {
    const n = parseNumber(m[0]);
    if (Number.isFinite(n)) out.push(n);
    // "4.95" may be written "4,95" and vice versa; "1,000" may be 1000 or 1.000.
    const alt = Number(m[0].replace(/,/g, "."));
    if (Number.isFinite(alt) && alt !== n) out.push(alt);
  }
  const { numberWords: named, notStated } = patterns();
  for (const w of words(t)) {
    const n = named[w];
    if (n !== undefined && !notStated.has(w)) out.push(n);
  }
  return out;
}

// --- dates --------------------------------------------------------------------------------------

/**
 * Dates of every language: month first ("January 14, 2020", "Dec 3") in the languages that write
 * them so, day first ("7. Januar 2025", "3 December 2019") in all.
 */
const dates = perRegistry(() => {
  const monthFirst = languages().filter((p) => p.dates.monthFirst);
  const names = (packs: readonly LanguagePack[], abbreviated: boolean) =>
    anyOf(packs.flatMap((p) => [...p.dates.months, ...(abbreviated ? (p.dates.monthAbbreviations ?? []) : [])]));
  return {
    pattern: new RegExp(
      `\\b(?:(${names(monthFirst, true)})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?|(?<![\\d.,/])(\\d{1,2})\\.?\\s+(${names(languages(), false)})(?:\\s+(\\d{4}))?)\\b`,
      "giu",
    ),
    /** The month (0–11) of a month name or abbreviation, of any language. */
    month: new Map(
      languages().flatMap((p) => [...p.dates.months, ...(p.dates.monthAbbreviations ?? [])].map((m, i) => [m, i % 12] as const)),
    ),
    weekday: new RegExp(`\\b(?:${wordAlternation((p) => p.dates.weekdays)})s?\\b`, "i"),
  };
});

export interface DateMention {
  month: number;
  day: number;
  year: number | null;
  text: string;
}

/** Calendar dates written "January 14, 2020", "Dec 3", "7. Januar 2025", "3 December 2019". */
export function datesIn(text: string): DateMention[] {
  const out: DateMention[] = [];
  const { pattern, month: monthOf } = dates();
  for (const m of normalize(text).matchAll(pattern)) {
    const month = monthOf.get((m[1] ?? m[5])!.toLowerCase())!;
    const day = Number(m[2] ?? m[4]);
    const year = m[3] ?? m[6];
    if (day < 1 || day > 31) continue;
    out.push({ month: month + 1, day, year: year ? Number(year) : null, text: m[0] });
  }
  return out;
}

export const hasDate = (text: string): boolean => datesIn(text).length > 0;

/** Whether a text names a day of the week as the time something happens ("on the following Monday", "am Montag"). */
export const mentionsWeekday = (text: string): boolean => dates().weekday.test(text);
