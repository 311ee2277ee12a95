// Query understanding for text search (issue 15), pure: finds in a query
//   colours   — the colour names the colour filter knows (COLOR_NAMES and their aliases, e.g.
//               "navy", "gray") and German colour words in their inflected forms ("rotes Kleid");
//   prices    — "under 50", "below $50", "less than 50", "up to 50", "max 50", "over 20",
//               "above 20", "from 20", "at least 20", "between 20 and 40", "20-40", "from 20 to 40",
//               German "unter 50 €", "bis 50", "höchstens 50", "über 20", "ab 20", "mindestens 20",
//               "zwischen 20 und 40", "von 20 bis 40"; amounts may carry €, $, £, EUR, USD, "euro",
//               "dollars" and a decimal comma ("49,99");
//   categories — the store's own category values, matched word by word after Porter stemming
//               ("dresses" finds the category "Dress", "running shoes" finds "Running Shoe").
// A price phrase that a product name of the store holds word for word stays words ("nike air max 1":
// the store sells an "Air Max 1"; the service asks the lexical index, pricePhrases/namePhrases).
// Price phrases are cut from the text that is embedded and looked up lexically (`remaining_text`);
// colour and category words stay in it.
import { stemOf } from "../../lexical/query.js";
import { COLOR_NAMES, normalizeColorName } from "../../embeddings/colors.js";

export interface Understanding {
  colors: string[];
  categories: string[];
  price_min: number | null;
  price_max: number | null;
  remaining_text: string;
}

const GERMAN_COLORS: Record<string, string> = {
  rot: "red",
  blau: "blue",
  schwarz: "black",
  weiss: "white",
  weiß: "white",
  grün: "green",
  gruen: "green",
  gelb: "yellow",
  grau: "grey",
  braun: "brown",
  rosa: "pink",
  pink: "pink",
  lila: "purple",
  violett: "violet",
  orange: "orange",
  beige: "beige",
  silber: "silver",
  silbern: "silver",
  gold: "gold",
  golden: "gold",
  türkis: "turquoise",
  marineblau: "navy blue",
  dunkelblau: "dark blue",
  hellblau: "light blue",
  dunkelgrün: "dark green",
  hellgrau: "light grey",
  dunkelgrau: "dark grey",
  bordeaux: "burgundy",
  oliv: "olive",
};
const GERMAN_ENDINGS = ["", "e", "er", "es", "en", "em"];

const AMOUNT = String.raw`(?:[€$£]\s*)?(\d+(?:[.,]\d{1,2})?)\s*(?:[€$£]|eur(?:o|os)?\b|usd\b|dollars?\b)?`;
/**
 * Where a keyword or an amount may begin: not inside a word. JavaScript's `\b` knows ASCII letters
 * only, so it finds no boundary between a space and "über".
 */
const START = String.raw`(?<![\p{L}\p{N}])`;
const NUM = (s: string) => Number(s.replace(",", "."));

interface PricePattern {
  re: RegExp;
  apply(m: RegExpMatchArray): { min?: number; max?: number };
}

const PRICE_PATTERNS: PricePattern[] = [
  {
    re: new RegExp(String.raw`${START}(?:between|zwischen)\s+${AMOUNT}\s+(?:and|und)\s+${AMOUNT}`, "iu"),
    apply: (m) => ({ min: NUM(m[1]!), max: NUM(m[2]!) }),
  },
  {
    re: new RegExp(String.raw`${START}(?:from|von)\s+${AMOUNT}\s+(?:to|bis)\s+${AMOUNT}`, "iu"),
    apply: (m) => ({ min: NUM(m[1]!), max: NUM(m[2]!) }),
  },
  {
    re: new RegExp(
      String.raw`${START}(?:under|below|less than|cheaper than|up to|max(?:imum)?|unter|bis|höchstens|hoechstens|weniger als|maximal)\s+${AMOUNT}`,
      "iu",
    ),
    apply: (m) => ({ max: NUM(m[1]!) }),
  },
  { re: /(?:^|\s)<\s*(\d+(?:[.,]\d{1,2})?)\s*(?:[€$£])?/u, apply: (m) => ({ max: NUM(m[1]!) }) },
  {
    re: new RegExp(
      String.raw`${START}(?:over|above|more than|at least|from|min(?:imum)?|über|ueber|ab|mindestens|mehr als)\s+${AMOUNT}`,
      "iu",
    ),
    apply: (m) => ({ min: NUM(m[1]!) }),
  },
  { re: /(?:^|\s)>\s*(\d+(?:[.,]\d{1,2})?)\s*(?:[€$£])?/u, apply: (m) => ({ min: NUM(m[1]!) }) },
  {
    re: new RegExp(
      String.raw`(?:[€$£]\s*)?${START}(\d+(?:[.,]\d{1,2})?)\s*(?:[€$£]|eur\b|euro\b)?\s*(?:-|–|to|bis)\s*(?:[€$£]\s*)?(\d+(?:[.,]\d{1,2})?)\s*(?:[€$£]|eur(?:o|os)?\b|usd\b|dollars?\b)`,
      "iu",
    ),
    apply: (m) => ({ min: NUM(m[1]!), max: NUM(m[2]!) }),
  },
];

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const stems = (s: string) => words(s).map(stemOf);

/** Colour phrases of the vocabulary, longest first (so "navy blue" wins over "blue"). */
const COLOR_PHRASES: { words: string[]; color: string }[] = (() => {
  const out: { words: string[]; color: string }[] = [];
  const add = (phrase: string, color: string) => out.push({ words: words(phrase), color });
  for (const k of Object.keys(COLOR_NAMES)) if (COLOR_NAMES[k] !== null) add(k, k);
  for (const alias of ["gray", "light gray", "dark gray", "navy", "offwhite", "off-white", "golden", "lime", "aqua"]) {
    const c = normalizeColorName(alias);
    if (c && COLOR_NAMES[c] !== null) add(alias, c);
  }
  for (const [de, en] of Object.entries(GERMAN_COLORS)) for (const e of GERMAN_ENDINGS) add(de + e, en);
  return out.sort((a, b) => b.words.length - a.words.length);
})();

const COLOR_VALUES = phraseList(COLOR_PHRASES.map((p) => ({ words: p.words, value: p.color })));

/** Phrases to find in a query (longest first), with the positions of those beginning with each word. */
export interface PhraseList<T> {
  phrases: { words: string[]; value: T }[];
  /** First word → positions in `phrases` of the phrases beginning with it, ascending. */
  byFirstWord: Map<string, number[]>;
}

/** `phrases` (in their order) with their index by first word; phrases without words are left out. */
function phraseList<T>(phrases: { words: string[]; value: T }[]): PhraseList<T> {
  const kept = phrases.filter((p) => p.words.length > 0);
  const byFirstWord = new Map<string, number[]>();
  kept.forEach((p, i) => {
    const at = byFirstWord.get(p.words[0]!);
    if (at) at.push(i);
    else byFirstWord.set(p.words[0]!, [i]);
  });
  return { phrases: kept, byFirstWord };
}

/**
 * The values of the phrases found in `tokens`, each token used by one phrase at most: phrases are
 * tried in their order (longest first), each at every position. Only phrases whose first word is a
 * token are tried (found by the list's index, so the cost follows the query, not the number of
 * colour phrases or of the store's categories), and the scan allocates nothing per phrase: this
 * runs for every search.
 */
function findPhrases<T>(tokens: string[], list: PhraseList<T>): T[] {
  const tried: number[] = [];
  for (const token of new Set(tokens)) for (const i of list.byFirstWord.get(token) ?? []) tried.push(i);
  if (tried.length === 0) return [];
  tried.sort((a, b) => a - b);
  const used = new Array<boolean>(tokens.length).fill(false);
  const found: T[] = [];
  for (const at of tried) {
    const p = list.phrases[at]!;
    const n = p.words.length;
    for (let i = 0; i + n <= tokens.length; i++) {
      let free = true;
      let same = true;
      for (let j = 0; j < n && free && same; j++) {
        free = !used[i + j];
        same = tokens[i + j] === p.words[j];
      }
      if (!free || !same) continue;
      for (let j = i; j < i + n; j++) used[j] = true;
      if (!found.includes(p.value)) found.push(p.value);
    }
  }
  return found;
}

/** A store's category values, stemmed for matching (build once per store: see categories.ts). */
export type CategoryVocabulary = PhraseList<string>;

/** Stems the store's category values, longest phrase first. */
export function categoryVocabulary(storeCategories: readonly string[]): CategoryVocabulary {
  return phraseList(storeCategories.map((c) => ({ words: stems(c), value: c })).sort((a, b) => b.words.length - a.words.length));
}

const globally = (re: RegExp) => new RegExp(re.source, re.flags + "g");
/** PRICE_PATTERNS, global (matchesOf). Each needs a digit, so a query without one is not tried against them. */
const GLOBAL_PRICE_PATTERNS = PRICE_PATTERNS.map((p) => ({ ...p, re: globally(p.re) }));
const pricePatternsFor = (query: string) => (/\d/.test(query) ? GLOBAL_PRICE_PATTERNS : []);

/**
 * Every match of the global pattern `re` in `text`, as `text.matchAll(re)` gives them, read with
 * `re.exec` from the start: matchAll copies its pattern on every call (a new RegExp, set up anew),
 * which for the seven price patterns was most of a query's price reading.
 */
function matchesOf(re: RegExp, text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    found.push(m);
    if (m[0] === "") re.lastIndex++; // an empty match moves on, as matchAll does
  }
  return found;
}

/**
 * The words of every price phrase the patterns find in `query` ("max 1" of "nike air max 1"), to
 * ask the store whether its names hold them (understandQuery's `names`).
 */
export function pricePhrases(query: string): string[][] {
  return pricePatternsFor(query).flatMap((p) => matchesOf(p.re, ` ${query} `).map((m) => words(m[0])));
}

/**
 * Understands `query` against the store's category values. `names`: the price phrases (their
 * words joined by a space) that a product name of the store holds; they stay words ("Air Max 1"
 * is a name, not a price up to 1). `phrases`: pricePhrases(query), when the caller has it; none
 * means no pattern can match (a cut is only made where one did), so the patterns are not tried again.
 */
export function understandQuery(
  query: string,
  categories: CategoryVocabulary | readonly string[],
  names: ReadonlySet<string> = new Set(),
  phrases: readonly string[][] = pricePhrases(query),
): Understanding {
  let text = ` ${query} `;
  let min: number | null = null;
  let max: number | null = null;
  for (const p of phrases.length > 0 ? pricePatternsFor(query) : []) {
    const cuts: [number, number][] = [];
    for (const m of matchesOf(p.re, text)) {
      if (names.has(words(m[0]).join(" "))) continue;
      const r = p.apply(m);
      if (r.min !== undefined && Number.isFinite(r.min)) min = min === null ? r.min : Math.max(min, r.min);
      if (r.max !== undefined && Number.isFinite(r.max)) max = max === null ? r.max : Math.min(max, r.max);
      cuts.push([m.index, m.index + m[0].length]);
    }
    for (const [from, to] of cuts.reverse()) text = text.slice(0, from) + " " + text.slice(to);
  }
  if (min !== null && max !== null && min > max) [min, max] = [max, min];
  const remaining = text.replace(/\s+/g, " ").trim();

  const tokens = words(remaining);
  const colors = findPhrases(tokens, COLOR_VALUES);
  const vocabulary = "byFirstWord" in categories ? categories : categoryVocabulary(categories);
  const found = findPhrases(tokens.map(stemOf), vocabulary);
  return { colors, categories: found, price_min: min, price_max: max, remaining_text: remaining };
}
