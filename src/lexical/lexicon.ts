// A store's lexicon (issue 35): the words of its products' text (`product_terms`, written with
// each product's lexical row) and its synonyms (the built-in vocabulary and the store's own), as
// query analysis (query.ts) asks for them:
//   has          — words compared by their Porter stem ("sock" is held when "socks" is);
//   near         — typo candidates: a Pass-Join index (mnemonist's PassjoinIndex, Li et al. 2011)
//                  of the words and the single-word synonym keys finds every word within
//                  Levenshtein distance 2, verified by the restricted Damerau–Levenshtein distance (natural's,
//                  transpositions count 1), a different first letter counting one more (typoDistance:
//                  Meilisearch's rule, a typo on the first character costs two — shoppers seldom
//                  miss the first letter, so "night" is no typo of "light" while "sandels" is one of
//                  "sandals"); built on the first typo a store's queries meet;
//   completes    — whether words begin with a prefix (a binary search of the vocabulary sorted
//                  once, only for a last word that matched nothing else).
// Lexicons are cached per store (storeCached: rebuilt after the store's text or synonyms change
// in this process, and at the latest LEXICON_TTL_MS after they were built).
import type { WordCheck } from "./dictionary.js";
import { PassjoinIndex } from "mnemonist";
import { DamerauLevenshteinDistance } from "natural/lib/natural/distance/index.js";
import { stemOf, words, type Lexicon } from "./query.js";
import { BUILTIN_BROADER, type SynonymMap } from "./synonyms/index.js";

/** Longest word considered for typo candidates (longer ones are ids, codes, URLs' remains). */
const MAX_FUZZY_LENGTH = 30;

const stemPhrase = (phrase: string) => phrase.split(" ").map(stemOf).join(" ");
// The restricted form (optimal string alignment: a swap of neighbours is one edit, no substring
// edited twice). natural's unrestricted form returns 0 for some pairs one insertion apart
// ("yelow" → "yellow"), which the candidate filter below took for the word itself.
const distance = (a: string, b: string) => DamerauLevenshteinDistance(a, b, { restricted: true });
/** The typo distance of a query word from a store word: the edit distance, plus one when the first letters differ (see the header). */
export const typoDistance = (a: string, b: string): number => distance(a, b) + (a[0] === b[0] ? 0 : 1);

let broader: Map<string, Set<string>> | undefined;
/** The built-in broader synonyms (synonyms/index.ts) by their keys' stems, made once per process. */
function broaderByStem(): Map<string, Set<string>> {
  if (broader) return broader;
  broader = new Map();
  for (const [key, to] of BUILTIN_BROADER) {
    const k = stemPhrase(key);
    broader.set(k, new Set([...(broader.get(k) ?? []), ...to]));
  }
  return broader;
}

export class StoreLexicon implements Lexicon {
  private readonly byStem = new Map<string, string[]>();
  /** Stems of the words of the store's category values. */
  private readonly kindStems = new Set<string>();
  /** Synonym keys by their words' stems. */
  private readonly synonymsByStem = new Map<string, string[]>();
  private fuzzy: PassjoinIndex<string> | undefined;
  /** The store's words in code-unit order (completes()), made at the first prefix asked. */
  private sortedWords: string[] | undefined;

  constructor(
    terms: Iterable<string>,
    readonly synonyms: SynonymMap,
    /** The language's dictionary (src/lexical/dictionary.ts); without it every unknown word may be a typo. */
    private readonly dictionary?: WordCheck,
    /** The store's category values (query.ts namesKind); without them no word names a kind. */
    categories: Iterable<string> = [],
  ) {
    for (const c of categories) for (const w of words(c)) this.kindStems.add(stemOf(w));
    for (const t of terms) {
      const s = stemOf(t);
      const list = this.byStem.get(s);
      if (list) list.push(t);
      else this.byStem.set(s, [t]);
    }
    for (const [key, to] of synonyms) {
      const k = stemPhrase(key);
      this.synonymsByStem.set(k, [...new Set([...(this.synonymsByStem.get(k) ?? []), ...to])]);
    }
  }

  synonymsOf(phrase: string): readonly string[] | undefined {
    return this.synonymsByStem.get(stemPhrase(phrase));
  }

  isBroader(phrase: string, synonym: string): boolean {
    return broaderByStem().get(stemPhrase(phrase))?.has(synonym) ?? false;
  }

  isWord(word: string): boolean {
    return this.dictionary?.(word) ?? false;
  }

  namesKind(word: string): boolean {
    return this.kindStems.has(stemOf(word));
  }

  has(word: string): boolean {
    return this.byStem.has(stemOf(word));
  }

  /**
   * Whether a word of the store begins with `prefix`. The words are sorted once (code-unit order,
   * as `<` compares): those beginning with a prefix follow one another from the first word not
   * below it, so one binary search answers (a scan of every word cost a query ending in an
   * unknown word time in proportion to the store's vocabulary).
   */
  completes(prefix: string): boolean {
    const sorted = (this.sortedWords ??= [...this.byStem.values()].flat().sort());
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sorted[middle]! < prefix) low = middle + 1;
      else high = middle;
    }
    return low < sorted.length && sorted[low]!.startsWith(prefix);
  }

  near(word: string, maxDistance: number): { word: string; distance: number }[] {
    if (maxDistance <= 0 || word.length > MAX_FUZZY_LENGTH) return [];
    this.fuzzy ??= this.buildFuzzy();
    return [...this.fuzzy.search(word)]
      .map((w) => ({ word: w, distance: typoDistance(word, w) }))
      .filter((c) => c.distance > 0 && c.distance <= maxDistance)
      .sort(
        (a, b) =>
          a.distance - b.distance ||
          Math.abs(a.word.length - word.length) - Math.abs(b.word.length - word.length) ||
          (a.word < b.word ? -1 : 1),
      );
  }

  private buildFuzzy(): PassjoinIndex<string> {
    const index = new PassjoinIndex<string>(distance, 2);
    const seen = new Set<string>();
    const add = (w: string) => {
      if (w.length < 3 || w.length > MAX_FUZZY_LENGTH || seen.has(w)) return;
      seen.add(w);
      index.add(w);
    };
    for (const list of this.byStem.values()) for (const w of list) add(w);
    for (const key of this.synonyms.keys()) if (!key.includes(" ")) add(key);
    return index;
  }
}
