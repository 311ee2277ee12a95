// A store's own words for the policy engine: the vocabulary a store keeps in its assistant
// settings (PUT /v1/admin/settings/vocabulary), never in the engine or a language pack.
//   - synonyms: groups of words that mean the same at this store ("member", "elite" for a store
//     whose members' tier is called Elite). Every word of a group finds the others, weighed as a
//     synonym (retrieval.ts SYNONYM_STRENGTH), below the word itself.
//   - scope words: words that limit where a policy statement applies at this store — a membership
//     tier ("elite", "plus"), a programme ("re/supply"), a region ("alaska", "hawaii"). A statement
//     that names one is an exception to its rule, not a conflict with it, and answers a question
//     that names it before one that does not (facts.ts scope).
//   - product words: kinds of product the store's policies carve out ("mattress"): scope words
//     that are product classes (facts.ts productClasses) and the objects of a policy question
//     (retrieval.ts weigh: "can I return a mattress?" asks about returns).
//   - the store's name ("Harvey Norman", from its account): a question naming the store ("how
//     many days do i have to return something to harvey norman") says nothing of which policy
//     answers it, so the name is left out of the question (ground.ts prepareQuery) — also its
//     first word alone when no dictionary knows that word ("jojo" of "JoJo Maman Bébé", not
//     "harvey" of "Harvey Norman").
// Words are read in every language the engine analyses (each analysed in it), as the packs' are.
import { alternation, escapeRegExp, isStopWordOfAny, languages } from "../language/index.js";
import { analyze, normalize, words, type Lang } from "./text.js";

/** A store's vocabulary as it is saved (lower-case words; the settings service validates them). */
export interface StoreWordLists {
  synonyms: string[][];
  scope_words: string[];
  product_words: string[];
}

interface Analysed {
  /** A stem → the stems of every group it belongs to (itself excluded). */
  synonyms: Map<string, string[]>;
  /** Stems of the scope and product words. */
  scope: Set<string>;
  /** Stems of the product words. */
  productClasses: Set<string>;
}

export class StoreVocabulary {
  /** The product words as written (a question's object, before analysis). */
  readonly goods: ReadonlySet<string>;
  private readonly byLang = new Map<Lang, Analysed>();

  /** The store's name as a question writes it: its words in order, joined by "and", "&", a dash, a dot or nothing, possessive or not. */
  private readonly namePattern: RegExp | undefined;
  /** The first word of a longer name alone, when no dictionary knows it ("jojo" of "JoJo Maman Bébé"); decided on first use, once the dictionaries have loaded. */
  private shortName: RegExp | null | undefined;
  /** The name's words without a leading article. */
  private readonly nameWords: readonly string[];

  constructor(
    readonly lists: StoreWordLists,
    readonly name = "",
  ) {
    this.goods = new Set(lists.product_words.map(normalize));
    // The whole name or its first two words or more ("Harvey Norman" of "Harvey Norman New Zealand"),
    // without a leading article ("The Body Shop" as "body shop"); words joined as a list joins them.
    const nameWords = words(name);
    while (nameWords.length > 1 && isStopWordOfAny(nameWords[0]!)) nameWords.shift();
    this.nameWords = nameWords;
    const joined = (ws: string[]) =>
      ws.map(escapeRegExp).join(`(?:\\s+(?:${alternation((p) => p.answers.listJoiners)})\\s+|\\s*[-&.'’]?\\s*)`);
    const prefixes = nameWords
      .map((_, i) => nameWords.slice(0, nameWords.length - i))
      .filter((ws) => ws.length >= Math.min(2, nameWords.length));
    this.namePattern = prefixes.length === 0 ? undefined : new RegExp(`\\b(?:${prefixes.map(joined).join("|")})(?:['’]?s)?\\b`, "giu");
  }

  /** The text without the store's name ("… to return something to harvey norman" → "… to return something to"). */
  withoutName(text: string): string {
    const out = this.namePattern ? text.replace(this.namePattern, " ") : text;
    if (this.shortName === undefined) {
      const first = this.nameWords[0];
      const dictionaries = languages().flatMap((p) => (p.words.isKnownWord ? [p.words.isKnownWord] : []));
      this.shortName =
        this.nameWords.length > 1 &&
        first !== undefined &&
        /^\p{L}{3,}$/u.test(first) &&
        dictionaries.length > 0 &&
        !dictionaries.some((known) => known(first))
          ? new RegExp(`\\b${escapeRegExp(first)}(?:['’]?s)?\\b`, "giu")
          : null;
    }
    return this.shortName ? out.replace(this.shortName, " ") : out;
  }

  /** The stems of the store's synonyms of a stem, in a language (none when it has none). */
  synonymsOf(stem: string, lang: Lang): readonly string[] {
    return this.analysed(lang).synonyms.get(stem) ?? [];
  }

  /** The store's scope stems in a language (scope and product words). */
  scope(lang: Lang): ReadonlySet<string> {
    return this.analysed(lang).scope;
  }

  /** The store's product-class stems in a language (its product words). */
  productClasses(lang: Lang): ReadonlySet<string> {
    return this.analysed(lang).productClasses;
  }

  private analysed(lang: Lang): Analysed {
    let out = this.byLang.get(lang);
    if (!out) {
      const stems = (w: string) => analyze(w, lang);
      const synonyms = new Map<string, string[]>();
      for (const group of this.lists.synonyms) {
        const all = [...new Set(group.flatMap(stems))];
        for (const s of all) synonyms.set(s, [...new Set([...(synonyms.get(s) ?? []), ...all.filter((x) => x !== s)])]);
      }
      const productClasses = new Set(this.lists.product_words.flatMap(stems));
      out = { synonyms, scope: new Set([...this.lists.scope_words.flatMap(stems), ...productClasses]), productClasses };
      this.byLang.set(lang, out);
    }
    return out;
  }
}

/** The vocabulary of a store that keeps none. */
export const NO_STORE_WORDS = new StoreVocabulary({ synonyms: [], scope_words: [], product_words: [] });
