// Language handling of the grounding engine: tokenising, stop words, light stemming (English and
// German), sentence splitting and the quantities (durations, money, percentages) that answers and
// the conflict and LLM checks compare. Everything here is pure and deterministic.
//
// Stemming (no dictionary), so that the forms a shopper types and the forms a policy uses meet in
// one term:
// - en: possessive and plural endings (ies→y, sses→ss, (s|x|z|ch|sh)es→…, s), -ing / -ed (with a
//   doubled final consonant undone: shipping → ship), -able / -ible, then a final -e
//   (exchange, exchanged, exchanging → exchang).
// - de: Snowball's German stemmer (natural's PorterStemmerDe: ß → ss, ä/ö/ü → a/o/u, inflectional
//   and derivational suffixes in its R1/R2 regions: "Kosten" → kost, "Rückgabe" → ruckgab).
//   German compounds are met by prefix matching at search time (see retrieval.ts): "versand"
//   finds "versandkosten".
// - any other language: lower case only, no stop words.
// Stop words are the usual function words plus words that carry no subject in a shop question
// ("policy", "store", "please", "tell", …).

import { PorterStemmerDe } from "natural/lib/natural/stemmers/index.js";

export type Lang = "en" | "de" | "other";

/** Language of a BCP 47 tag: its primary subtag when supported, else "other". */
export function langOf(locale: string): Lang {
  const primary = locale.trim().toLowerCase().split(/[-_]/)[0] ?? "";
  return primary === "en" || primary === "de" ? primary : "other";
}

/**
 * The language a text is written in when its words say so, else the thread's: at least two more
 * stop words of one language than of the other ("Ignore the FAQ. How long is the return window?"
 * in a German thread is English). Languages without an analyser keep the thread's.
 */
export function textLang(text: string, thread: Lang): Lang {
  const ws = words(normalize(text));
  const en = ws.filter((w) => isStopWord(w, "en") && !isStopWord(w, "de")).length;
  const de = ws.filter((w) => isStopWord(w, "de") && !isStopWord(w, "en")).length;
  if (en >= de + 2) return "en";
  if (de >= en + 2) return "de";
  return thread;
}

/** Primary language subtag ("de" of "de-AT"), for matching a policy's locale with a thread's. */
export function primaryOf(locale: string): string {
  return locale.trim().toLowerCase().split(/[-_]/)[0] ?? "";
}

const EN_STOP = new Set(
  (
    "a an the and or but if then else of to in on at by for with from into onto about as is are was were be been being am do does did " +
    "doing have has had having i me my mine we us our ours you your yours he she it its they them their this that these those there here " +
    "what which who whom whose when where why how can could would should will shall may might must not no yes so than too very just also " +
    "any some all each every other such only own same more most less few many much own up down out over under again further once " +
    "please tell know want like need get got let lets ok okay hi hello hey thanks thank policy policies store rule rules info " +
    "information question questions ask asking regarding about anything something thing things say says said does dont don't im i'm " +
    "ive i've youre you're whats what's it's its there's theres able still already even ever really actually anyway maybe " +
    "after before during since within through among " +
    "though ago i'd i'll you've you'd you'll we're we've we'd they're they've isn't aren't doesn't didn't"
  ).split(/\s+/),
);

const DE_STOP = new Set(
  (
    "der die das den dem des ein eine einen einem einer eines und oder aber wenn dann sonst von zu zum zur in im ins an am auf bei mit " +
    "aus nach uber für fur um als ist sind war waren sein bin bist seid habe hast hat haben hatte hatten ich mich mir mein meine meinen " +
    "meinem meiner wir uns unser unsere ihr ihre ihren ihrem euch euer du dich dir dein deine er sie es man dies diese dieser dieses " +
    "jene was welche welcher welches wer wen wem wessen wann wo warum wie kann konnen können konnte könnte wurde würde werden wird soll " +
    "sollte darf durfen dürfen muss mussen müssen nicht kein keine ja nein so als auch nur noch schon sehr mehr viel viele alle jede " +
    "jeder jedes bitte sagen sag wissen mochte möchte mochten möchten hallo hi danke richtlinie richtlinien regel regeln shop laden " +
    "info infos frage fragen gibt geben es etwas denn doch mal bekomme bekommen bekommt bekommst erhalte erhalten erhält kriege kriegen " +
    "benutzen benutze verwenden verwende nutzen nutze machen mache tun noch vom beim ab ob eure euren eurem eurer deinen deinem deiner ihrer ihres " +
    "nachdem bevor sobald obwohl falls weil damit während dass gäbe wäre wären hätte hätten per"
  ).split(/\s+/),
);

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

function undoDouble(stem: string): string {
  return /([bdfgmnprt])\1$/.test(stem) ? stem.slice(0, -1) : stem;
}

/** Irregular forms that the suffix rules cannot reach. */
const EN_IRREGULAR: Record<string, string> = {
  paid: "pay",
  bought: "buy",
  sent: "send",
  sold: "sell",
  took: "take",
  taken: "take",
  gave: "give",
  given: "give",
};

export function stemEn(word: string): string {
  let w = word.replace(/'s$/, "").replace(/'/g, "");
  if (EN_IRREGULAR[w]) return EN_IRREGULAR[w]!;
  if (w.length <= 3 || /^\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(x|z|ch|sh|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = undoDouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undoDouble(w.slice(0, -2));
  if (/(able|ible)$/.test(w) && w.length > 6) w = w.slice(0, -4);
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  return w;
}

/** German words the umlaut folding would merge with another ("zählt" is not "zahlt"). */
const DE_IRREGULAR: Partial<Record<string, string>> = { zählt: "zaehl", zählen: "zaehl", gezählt: "zaehl", zählst: "zaehl" };

export function stemDe(word: string): string {
  const irregular = DE_IRREGULAR[word];
  if (irregular !== undefined) return irregular;
  const w = word.replace(/'/g, "");
  if (/^\d/.test(w)) return w;
  // Snowball's German stemmer (natural's PorterStemmerDe); it folds ä/ö/ü to a/o/u and ß to ss.
  return PorterStemmerDe.stem(w);
}

/** The stop words of a language. */
export function stopWords(lang: Lang): ReadonlySet<string> {
  return lang === "en" ? EN_STOP : lang === "de" ? DE_STOP : new Set();
}

export function isStopWord(word: string, lang: Lang): boolean {
  if (lang === "en") return EN_STOP.has(word);
  if (lang === "de") return DE_STOP.has(word) || DE_STOP.has(word.replace(/ä/g, "a").replace(/ö/g, "o").replace(/ü/g, "u"));
  return false;
}

export function stem(word: string, lang: Lang): string {
  if (lang === "en") return stemEn(word);
  if (lang === "de") return stemDe(word);
  return word;
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
const ABBREVIATIONS =
  /(?:\b(a\.m|p\.m|e\.g|i\.e|etc|approx|incl|z\.b|bzw|ca|inkl|ggf|usw|vs|no|nr|st|mr|mrs|dr)|(?<![\p{L}\p{N}])\p{L})\.$/iu;

/** Splits a passage into sentences (on . ! ? followed by space and a capital, digit or quote). */
export function sentences(text: string): string[] {
  const parts: string[] = [];
  const re = /[.!?]+["”»)]?\s+(?=[\p{Lu}\p{N}"„“«(])/gu;
  let start = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const end = m.index + m[0].trimEnd().length;
    const candidate = text.slice(start, end);
    if (ABBREVIATIONS.test(candidate.trim())) continue;
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

/** Numbers written as words, English and German. */
export const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fourteen: 14,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  ninety: 90,
  hundred: 100,
  ein: 1,
  eine: 1,
  einen: 1,
  einem: 1,
  einer: 1,
  eins: 1,
  zwei: 2,
  drei: 3,
  vier: 4,
  fünf: 5,
  funf: 5,
  sechs: 6,
  sieben: 7,
  acht: 8,
  neun: 9,
  zehn: 10,
  elf: 11,
  zwölf: 12,
  zwolf: 12,
  vierzehn: 14,
  fünfzehn: 15,
  zwanzig: 20,
  dreißig: 30,
  dreissig: 30,
  vierzig: 40,
  fünfzig: 50,
  sechzig: 60,
  neunzig: 90,
  hundert: 100,
};

const UNIT_DAYS: Array<[RegExp, number]> = [
  [/^(business |working |calendar )?days?$|^(werk|arbeits|kalender)?tag(e|en)?$|^werktag(e|en)?$/, 1],
  [/^weeks?$|^woche(n)?$/, 7],
  [/^months?$|^monat(e|en)?$/, 30],
  [/^years?$|^jahr(e|en)?$/, 365],
  [/^hours?$|^stunde(n)?$/, 1 / 24],
];

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

const CURRENCY_SIGNS: Record<string, string> = {
  "€": "EUR",
  $: "USD",
  "£": "GBP",
  "¥": "JPY",
  chf: "CHF",
  eur: "EUR",
  usd: "USD",
  gbp: "GBP",
  euro: "EUR",
  euros: "EUR",
  dollar: "USD",
  dollars: "USD",
  buck: "USD",
  bucks: "USD",
};

const NUM = "\\d+(?:[.,]\\d+)*";
const NUMWORD = Object.keys(NUMBER_WORDS).join("|");

/** Durations ("30 days", "30-day", "14 Tage", "two weeks"), money ("€4.95", "50 EUR") and percentages in a text. */
export function quantities(text: string): Quantity[] {
  const out: Quantity[] = [];
  // German whole amounts "50,- €" / "50,-- EUR" are 50 € (blanked in place, so that a match's
  // text is still read from the original at the same offsets).
  const written = normalize(text);
  const t = written.replace(/(\d),(-{1,2})(?=\s?(?:€|eur\b|euro))/g, (_m, d: string, dashes: string) => d + " ".repeat(1 + dashes.length));
  const durationRe = new RegExp(
    `\\b(${NUM}|${NUMWORD})(?:\\s*(?:-|–|to|bis)\\s*(${NUM}))?[\\s-]+((?:business |working |calendar )?(?:days?|weeks?|months?|years?|hours?)|(?:werk|arbeits|kalender)?(?:tage?n?|tagen)|wochen?|monate?n?|jahre?n?|stunden?)\\b`,
    "gu",
  );
  for (const m of t.matchAll(durationRe)) {
    const unit = UNIT_DAYS.find(([re]) => re.test(m[3]!));
    if (!unit) continue;
    const first = /^\d/.test(m[1]!) ? parseNumber(m[1]!) : (NUMBER_WORDS[m[1]!] ?? NaN);
    if (!Number.isFinite(first)) continue;
    out.push({ kind: "duration", days: first * unit[1], text: m[0] });
    if (m[2]) out.push({ kind: "duration", days: parseNumber(m[2]) * unit[1], text: m[0] });
  }
  const moneyBefore = new RegExp(`(€|\\$|£|¥|\\b(?:eur|usd|gbp|chf)\\b)\\s?(${NUM})`, "gu");
  for (const m of t.matchAll(moneyBefore)) {
    const currency = CURRENCY_SIGNS[m[1]!] ?? "EUR";
    out.push({ kind: "money", currency, minor: Math.round(parseNumber(m[2]!) * (currency === "JPY" ? 1 : 100)), text: m[0] });
  }
  const moneyAfter = new RegExp(`\\b(${NUM})\\s{0,4}(€|\\$|£|\\b(?:eur|usd|gbp|chf|euros?|dollars?|bucks?)\\b)`, "gu");
  for (const m of t.matchAll(moneyAfter)) {
    const currency = CURRENCY_SIGNS[m[2]!] ?? "EUR";
    const asWritten = written.slice(m.index, m.index + m[0].length);
    out.push({ kind: "money", currency, minor: Math.round(parseNumber(m[1]!) * (currency === "JPY" ? 1 : 100)), text: asWritten });
  }
  for (const m of t.matchAll(new RegExp(`\\b(${NUM})\\s?(%|percent|prozent)`, "gu"))) {
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
  for (const w of words(t)) {
    const n = NUMBER_WORDS[w];
    if (n !== undefined && !["ein", "eine", "einen", "einem", "einer", "one"].includes(w)) out.push(n);
  }
  return out;
}

// --- dates --------------------------------------------------------------------------------------

const MONTHS_EN = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const MONTHS_DE = ["januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember"];
const MONTH_ABBR = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DATE_RE = new RegExp(
  `\\b(?:(${[...MONTHS_EN, ...MONTH_ABBR].join("|")})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?|(\\d{1,2})\\.?\\s+(${[...MONTHS_DE, ...MONTHS_EN].join("|")})(?:\\s+(\\d{4}))?)\\b`,
  "giu",
);

export interface DateMention {
  month: number;
  day: number;
  year: number | null;
  text: string;
}

/** Calendar dates written "January 14, 2020", "Dec 3", "7. Januar 2025", "3 December 2019". */
export function datesIn(text: string): DateMention[] {
  const out: DateMention[] = [];
  for (const m of normalize(text).matchAll(DATE_RE)) {
    const monthWord = (m[1] ?? m[5])!.toLowerCase();
    const month = [MONTHS_EN, MONTHS_DE, MONTH_ABBR].map((list) => list.indexOf(monthWord)).find((i) => i >= 0)!;
    const day = Number(m[2] ?? m[4]);
    const year = m[3] ?? m[6];
    if (day < 1 || day > 31) continue;
    out.push({ month: month + 1, day, year: year ? Number(year) : null, text: m[0] });
  }
  return out;
}

export const hasDate = (text: string): boolean => datesIn(text).length > 0;

/** A day of the week named as the time something happens ("on the following Monday", "am Montag"). */
export const WEEKDAY =
  /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)s?\b/i;
