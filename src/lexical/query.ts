// What a text query asks of the lexical index (issue 35), pure: its words, grouped, each group with
// the alternatives that count as that word in this store.
//   A group is one word of the query, or a phrase of up to three words that the synonyms know
//   ("flip flops", "t shirt"), or two words the store writes as one ("hand bag" → handbag).
//   Alternatives and their weights (the "exactness" of a match):
//     exact    1      — the word itself, when the store's vocabulary holds it or a word of the same
//                       Porter stem ("sock" finds "socks");
//     joined   0.95   — two query words the store writes as one;
//     synonym  0.8    — a synonym of the word or phrase (built-in and the store's own), when the
//                       store's vocabulary holds it; 0.7 for a broader one (a colour's family,
//                       not its shade: synonyms/index.ts); 0.6 for a one-way synonym of a
//                       synonym's typo-corrected key;
//     typo     0.75   — a word of the store's vocabulary within the typo budget of the word
//                       (Damerau–Levenshtein distance, a different first letter counting one
//                       more: lexicon.ts typoDistance; 0 below 4 letters, 1 from 4, 2 from 8;
//                       0.6 at distance 2), only when the word itself is not in the vocabulary;
//              0.5    — the same when the word is a correctly spelled word of the language
//                       (Lexicon.isWord, src/lexical/dictionary.ts; 0.4 at distance 2): "heals"
//                       may mean heels, but "food" in a clothing store is seldom a typo of
//                       "hood" — half a word, so the minimum word share of ranking (fusion.ts)
//                       drops "dog food" while "heals" still finds heels;
//   Stop words (the `stopword` package's English and German lists) that are no synonym key form no
//   group, even when the store's text holds them ("Scullers For Her" must not make "for" a matched
//   word of "jeans for women"), unless the query is nothing but stop words; a word with no
//   alternative in the store forms none either (`unmatched`): it matches nothing, so it can never
//   pull a ranking toward anything — visual evidence carries it.
//   `corrected`: the query with each typo replaced by its best correction (did_you_mean), or null;
//   a correctly spelled word is never corrected.
import { stemmer } from "stemmer";
import { deu, eng } from "stopword";
import { MAX_PHRASE_WORDS } from "./synonyms/index.js";

export const WEIGHTS = {
  exact: 1,
  joined: 0.95,
  prefix: 0.9,
  synonym: 0.8,
  typo: 0.75,
  broader: 0.7,
  typo2: 0.6,
  synonymOfTypo: 0.6,
  realWordTypo: 0.5,
  realWordTypo2: 0.4,
} as const;
/** A last word is matched as a prefix from this many letters. */
export const PREFIX_MIN = 2;

export type AlternativeKind = "exact" | "joined" | "synonym" | "typo" | "prefix";

export interface Alternative {
  /** The words of the alternative, as the index is asked for them (one word, or a phrase). */
  words: string[];
  weight: number;
  kind: AlternativeKind;
  /** The last word, matched as the beginning of words (a word still being typed). */
  prefix?: boolean;
}

export interface Group {
  /** The query's own word(s). */
  text: string;
  alternatives: Alternative[];
}

export interface AnalysedQuery {
  groups: Group[];
  unmatched: string[];
  /**
   * The unmatched words before a matched head noun (headIndex): what modifies the kind asked
   * ("date night" of "date night dress"). They are no content word of the minimum word share
   * (fusion.ts): a dress is evidence for "date night dress", the store's text just never says
   * what it is worn for.
   */
  modifiers: string[];
  stopwords: string[];
  corrected: string | null;
  /** Each corrected word of the query and its correction. */
  corrections: ReadonlyMap<string, string>;
}

/** What the analysis needs of a store: its vocabulary and synonyms. */
export interface Lexicon {
  /** Whether the store's text holds the word, or another of the same stem. */
  has(word: string): boolean;
  /** Words of the store's vocabulary (and synonym keys) within `maxDistance` of `word`, closest first. */
  near(word: string, maxDistance: number): { word: string; distance: number }[];
  /** Whether words of the store begin with `prefix`. */
  completes(prefix: string): boolean;
  /** The synonyms of a word or phrase (compared by stems: "flip flop" finds "flip flops"), or undefined when it is no synonym key. */
  synonymsOf(phrase: string): readonly string[] | undefined;
  /** Whether `synonym`, one of the phrase's synonyms, is its broader family (weighed WEIGHTS.broader); absent: none is. */
  isBroader?(phrase: string, synonym: string): boolean;
  /** Whether the word is correctly spelled in the language (then it is no typo); absent: no dictionary. */
  isWord?(word: string): boolean;
  /** Whether the word is a word of one of the store's category values (compared by stems: "dress" of "Dresses"); absent: no categories known. */
  namesKind?(word: string): boolean;
}

const STOPWORDS = new Set([...eng, ...deu]);
/** Whether a word is a stop word (the `stopword` package's English and German lists). */
export const isStopword = (word: string): boolean => STOPWORDS.has(word);
const MAX_TYPO_ALTERNATIVES = 3;

/** `text`'s words with the corrections of an analysis of it or of part of it (did_you_mean), or null when none applies. */
export function correctedText(text: string, corrections: ReadonlyMap<string, string>): string | null {
  const tokens = words(text);
  return tokens.some((t) => corrections.has(t)) ? tokens.map((t) => corrections.get(t) ?? t).join(" ") : null;
}

/** The words of a query as the index sees them: lower-case letters and digits, in order. */
export const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Words that end the head's noun phrase. */
const PREPOSITIONS = new Set([
  "for",
  "to",
  "with",
  "in",
  "on",
  "at",
  "from",
  "of",
  "under",
  "below",
  "over",
  "above",
  "without",
  "by",
  "near",
  "like",
  "that",
  "which",
  "who",
]);

/** Where the head noun of a query's words is: the last word before the first preposition (-1 when there is none). */
export function headIndex(words: readonly string[]): number {
  const end = words.findIndex((w) => PREPOSITIONS.has(w));
  for (let i = (end < 0 ? words.length : end) - 1; i >= 0; i--) if (/\p{L}/u.test(words[i]!)) return i;
  return -1;
}

/** The head noun of a query's words (headIndex), or undefined when there is none. */
export function headWord(words: readonly string[]): string | undefined {
  return words[headIndex(words)];
}

/** The typo budget of a word of `length` letters (see the header). */
export function typoBudget(length: number): number {
  return length >= 8 ? 2 : length >= 4 ? 1 : 0;
}

/**
 * Words' Porter stems, remembered: every search asks for those of its words and of the
 * vocabulary words it compares them with (lexicon.ts), mostly the same ones, and a stem costs
 * a few regular expressions. Emptied when full.
 */
const STEM_MEMO_MAX = 100_000;
const stemMemo = new Map<string, string>();

/** Stem of a word (Porter), as the lexicon compares words. */
export function stemOf(word: string): string {
  let stem = stemMemo.get(word);
  if (stem === undefined) {
    if (stemMemo.size >= STEM_MEMO_MAX) stemMemo.clear();
    stemMemo.set(word, (stem = stemmer(word)));
  }
  return stem;
}

/** A synonym of a query's word or phrase that the store's text holds (storeSynonyms). */
interface StoreSynonym {
  readonly words: readonly string[];
  /** Whether it is the phrase's broader family (Lexicon.isBroader). */
  readonly broader: boolean;
}
/** Phrases' store synonyms per lexicon, at most SYNONYM_MEMO_MAX phrases per lexicon (emptied when full). */
const SYNONYM_MEMO_MAX = 10_000;
const synonymMemo = new WeakMap<Lexicon, Map<string, readonly StoreSynonym[]>>();

/** Whether the store's text holds every word of `phrase` (words separated by single spaces). */
const holdsAll = (lexicon: Lexicon, phrase: string) => phrase.split(" ").every((w) => lexicon.has(w));

/**
 * The synonyms of `phrase` whose every word the store's text holds, remembered per lexicon: a
 * common word has tens of synonyms ("red": the shades, "shoes": the kinds), each checked word by
 * word against the vocabulary on every query that holds it (a third of the analysis of
 * bench:index's queries: 17.3 → 12.3 µs, docs/benchmarks.md). A lexicon answers the same while
 * it lives: a store's is built again when its text or synonyms change (lexicon.ts), which starts
 * a new memo.
 */
function storeSynonyms(lexicon: Lexicon, phrase: string): readonly StoreSynonym[] {
  let memo = synonymMemo.get(lexicon);
  if (!memo) synonymMemo.set(lexicon, (memo = new Map<string, readonly StoreSynonym[]>()));
  let found = memo.get(phrase);
  if (found === undefined) {
    found = (lexicon.synonymsOf(phrase) ?? [])
      .filter((s) => holdsAll(lexicon, s))
      .map((s) => ({ words: s.split(" "), broader: lexicon.isBroader?.(phrase, s) ?? false }));
    if (memo.size >= SYNONYM_MEMO_MAX) memo.clear();
    memo.set(phrase, found);
  }
  return found;
}

export function analyseQuery(text: string, lexicon: Lexicon, maxWords = 16): AnalysedQuery {
  const tokens = words(text).slice(0, maxWords);
  const groups: Group[] = [];
  /** Positions of the words with no alternative in the store (`unmatched`). */
  const unmatchedAt: number[] = [];
  /** The group each token of a group belongs to, by the token's position. */
  const groupAt = new Map<number, Group>();
  const stopwords: string[] = [];
  const corrections = new Map<number, string>();
  const allStopwords = tokens.every((t) => STOPWORDS.has(t));
  const synonymAlternatives = (phrase: string, weight: number): Alternative[] =>
    storeSynonyms(lexicon, phrase).map((s) => ({
      words: [...s.words],
      weight: s.broader ? Math.min(weight, WEIGHTS.broader) : weight,
      kind: "synonym" as const,
    }));

  for (let i = 0; i < tokens.length;) {
    // A phrase the synonyms know, longest first, or two words the store writes as one.
    let taken = 0;
    for (let n = Math.min(MAX_PHRASE_WORDS, tokens.length - i); n >= 2 && taken === 0; n--) {
      const phrase = tokens.slice(i, i + n).join(" ");
      const alternatives: Alternative[] = [];
      if (holdsAll(lexicon, phrase)) alternatives.push({ words: phrase.split(" "), weight: WEIGHTS.exact, kind: "exact" });
      const joined = tokens.slice(i, i + n).join("");
      if (n === 2 && lexicon.has(joined)) alternatives.push({ words: [joined], weight: WEIGHTS.joined, kind: "joined" });
      if (lexicon.synonymsOf(phrase) !== undefined || alternatives.some((a) => a.kind === "joined")) {
        alternatives.push(...synonymAlternatives(phrase, WEIGHTS.synonym));
        if (alternatives.length > 0) {
          groups.push({ text: phrase, alternatives: dedupe(alternatives) });
          for (let t = i; t < i + n; t++) groupAt.set(t, groups.at(-1)!);
          taken = n;
        }
      }
    }
    if (taken > 0) {
      i += taken;
      continue;
    }
    const word = tokens[i]!;
    const alternatives: Alternative[] = [];
    const exact = lexicon.has(word);
    if (exact) alternatives.push({ words: [word], weight: WEIGHTS.exact, kind: "exact" });
    alternatives.push(...synonymAlternatives(word, WEIGHTS.synonym));
    const synonymKey = lexicon.synonymsOf(word) !== undefined && alternatives.length > 0;
    if (STOPWORDS.has(word) && !synonymKey && !allStopwords) {
      stopwords.push(word);
      i++;
      continue;
    }
    if (!exact && lexicon.synonymsOf(word) === undefined) {
      const realWord = lexicon.isWord?.(word) ?? false;
      const near = lexicon.near(word, typoBudget(word.length)).slice(0, MAX_TYPO_ALTERNATIVES);
      for (const n of near) {
        const far = n.distance >= 2;
        const weight = realWord ? (far ? WEIGHTS.realWordTypo2 : WEIGHTS.realWordTypo) : far ? WEIGHTS.typo2 : WEIGHTS.typo;
        if (lexicon.has(n.word)) alternatives.push({ words: [n.word], weight, kind: "typo" });
        alternatives.push(...synonymAlternatives(n.word, Math.min(weight, WEIGHTS.synonymOfTypo)));
      }
      if (near[0] && !realWord) corrections.set(i, near[0].word);
    }
    if (alternatives.length === 0 && i === tokens.length - 1 && word.length >= PREFIX_MIN && lexicon.completes(word)) {
      alternatives.push({ words: [word], weight: WEIGHTS.prefix, kind: "prefix", prefix: true });
    }
    if (alternatives.length > 0) {
      groups.push({ text: word, alternatives: dedupe(alternatives) });
      groupAt.set(i, groups.at(-1)!);
    } else unmatchedAt.push(i);
    i++;
  }
  // The head names the kind asked when the store writes it (as typed, joined or misspelt, or as a
  // phrase the synonyms know: "t shirt") and it is a word of one of the store's categories ("dress"
  // of Dresses; not "men" of "office wear men", an audience): a one-word synonym, which may be of
  // another sense or a colour ("hose" socks, "lipstick" red), or a prefix ("ring" of "ringer")
  // says too little of the kind.
  const head = headIndex(tokens);
  const headGroup = head >= 0 ? groupAt.get(head) : undefined;
  const names = (a: Alternative) =>
    (a.kind === "exact" ||
      a.kind === "joined" ||
      (a.kind === "typo" && a.weight >= WEIGHTS.typo2) ||
      (a.kind === "synonym" && headGroup!.text.includes(" "))) &&
    a.words.some((w) => lexicon.namesKind?.(w) ?? false);
  const headMatched = headGroup?.alternatives.some(names) ?? false;
  const modifiers = headMatched ? unmatchedAt.filter((at) => at < head).map((at) => tokens[at]!) : [];
  const corrected = corrections.size > 0 ? tokens.map((t, i) => corrections.get(i) ?? t).join(" ") : null;
  return {
    groups,
    unmatched: unmatchedAt.map((at) => tokens[at]!),
    modifiers,
    stopwords,
    corrected,
    corrections: new Map([...corrections].map(([i, c]) => [tokens[i]!, c])),
  };
}

/** The query's content words for the minimum word share (fusion.ts): its groups and the words the store lacks, but not the modifiers of a matched head. */
export function contentWords(a: Pick<AnalysedQuery, "groups" | "unmatched" | "modifiers">): number {
  return a.groups.length + a.unmatched.length - a.modifiers.length;
}

/** One alternative per phrase, the heaviest. */
function dedupe(alternatives: Alternative[]): Alternative[] {
  const best = new Map<string, Alternative>();
  for (const a of alternatives) {
    const key = a.words.join(" ");
    if ((best.get(key)?.weight ?? -1) < a.weight) best.set(key, a);
  }
  return [...best.values()].sort((a, b) => b.weight - a.weight);
}

/** Each word of a text as its own group, matched as typed (callers without a store's lexicon). */
export function plainGroups(text: string): Group[] {
  return [...new Set(words(text))].map((w) => ({ text: w, alternatives: [{ words: [w], weight: WEIGHTS.exact, kind: "exact" as const }] }));
}

// Coverage is computed for every hit of a lexical query (up to SCORED_MAX per query), so its
// inputs are remembered: each word's Porter stem as a small integer (equal stems, equal numbers),
// and each product text's words and stem numbers, by the text itself. Product texts come back in
// the results of query after query; splitting and stemming them, and comparing stems as strings,
// was most of the cost of ranking a long result list. Both are bounded and emptied together when
// full.
const STEM_CACHE_MAX = 200_000;
/** Characters of product text remembered at most (about 50,000 texts of 160 characters). */
const TEXT_CACHE_MAX_CHARS = 8_000_000;
const stemNumbers = new Map<string, number>();
const wordStems = new Map<string, number>();
const textCache = new Map<string, { words: string[]; stems: Int32Array; nameWords?: number }>();
let textCacheChars = 0;
/** Incremented whenever the numbers are forgotten: numbers taken before are then void. */
let stemGeneration = 0;

function forgetStems(): void {
  stemGeneration++;
  stemNumbers.clear();
  wordStems.clear();
  textCache.clear();
  textCacheChars = 0;
}

/** The number of a word's Porter stem (equal for words of one stem). */
function stemNumber(word: string): number {
  let n = wordStems.get(word);
  if (n === undefined) {
    if (wordStems.size >= STEM_CACHE_MAX) forgetStems();
    const stem = stemOf(word);
    n = stemNumbers.get(stem);
    if (n === undefined) stemNumbers.set(stem, (n = stemNumbers.size));
    wordStems.set(word, n);
  }
  return n;
}

/** A text's words and their stem numbers (remembered, see above). */
function wordsAndStems(text: string): { words: string[]; stems: Int32Array; nameWords?: number } {
  let entry = textCache.get(text);
  if (entry === undefined) {
    const ws = words(text);
    const generation = stemGeneration;
    let stems = Int32Array.from(ws, stemNumber);
    if (generation !== stemGeneration) stems = Int32Array.from(ws, stemNumber); // emptied halfway
    if (textCacheChars + text.length > TEXT_CACHE_MAX_CHARS) {
      textCache.clear();
      textCacheChars = 0;
    }
    entry = { words: ws, stems };
    textCache.set(text, entry);
    textCacheChars += text.length;
  }
  return entry;
}

/** How a product's text matches a query's groups (coverageOf). */
export interface Coverage {
  /** The summed weights of the best alternative of each group the text holds. */
  weight: number;
  /** How many groups it holds. */
  matched: number;
  /**
   * Where they stand (the attribute and exactness rules of Meilisearch's ranking): each held
   * group's weight counted whole when its first occurrence is in the name (the text's first
   * `nameWords` words), OUTSIDE_NAME of it elsewhere, plus the share of the name's words the
   * query's matches take (a name that is nothing but the query is the most exact). Without
   * `nameWords` the whole text is the name.
   */
  attribute: number;
}

/** The share of a group's weight that an occurrence outside the name counts in `attribute`. */
export const OUTSIDE_NAME = 0.5;

/**
 * How well a product's text matches the groups (Coverage). Words are compared by their Porter
 * stem, as the engines do; a phrase's words must follow one another. Returns the measure for the
 * groups, to apply to many texts (a result list): the alternatives' stems are taken once,
 * heaviest alternative first, so a group's first hit is its best. `nameWords` — how many of the
 * text's first words are the product's name — is remembered with the text's words.
 */
export function coverageOf(groups: readonly Group[]): (text: string, name?: string) => Coverage {
  const compile = () =>
    groups.map((g) =>
      g.alternatives
        .filter((a) => a.weight > 0)
        .map((a) => ({ weight: a.weight, prefix: a.prefix === true ? a.words[0]! : undefined, stems: a.words.map(stemNumber) }))
        .sort((a, b) => b.weight - a.weight),
    );
  let compiled = compile();
  let generation = stemGeneration;
  return (text, name) => {
    const entry = wordsAndStems(text);
    const { words: textWords, stems } = entry;
    if (name !== undefined) entry.nameWords ??= words(name).length;
    const nameWords = name === undefined ? textWords.length : entry.nameWords!;
    // The numbers were forgotten since the alternatives' were taken: take them again.
    if (generation !== stemGeneration) {
      compiled = compile();
      generation = stemGeneration;
    }
    let weight = 0;
    let matched = 0;
    let attribute = 0;
    let inName = 0;
    for (const alternatives of compiled) {
      for (const a of alternatives) {
        const at = a.prefix !== undefined ? textWords.findIndex((w) => w.startsWith(a.prefix!)) : position(a.stems, stems);
        if (at >= 0) {
          matched++;
          weight += a.weight;
          if (at < nameWords) {
            attribute += a.weight;
            inName += a.stems.length;
          } else attribute += a.weight * OUTSIDE_NAME;
          break;
        }
      }
    }
    if (nameWords > 0) attribute += Math.min(1, inName / nameWords);
    return { weight, matched, attribute };
  };
}

/** Where `stems` holds the phrase's stems one after another first (-1: nowhere). */
function position(phrase: readonly number[], stems: Int32Array): number {
  const first = stems.indexOf(phrase[0]!);
  if (first < 0 || phrase.length === 1) return first;
  for (let i = first; i + phrase.length <= stems.length; i++) {
    let j = 0;
    while (j < phrase.length && stems[i + j] === phrase[j]) j++;
    if (j === phrase.length) return i;
  }
  return -1;
}
