// The commerce lexicon of the grounding engine: what shoppers write → what policies say. The words
// are the language packs' (src/assistant/language/: rewrites, vocabulary); this module puts them
// to use:
// - translation(): a question asked in one language against policies published in another is
//   translated word by word through the asking language's table for the policies' language (only
//   the commerce vocabulary is covered; in a translated query the words left untranslated are kept
//   only when the store's policies use them as they are — brand names, "PayPal", "Klarna" — see
//   retrieval.ts), then its country names when the table says so;
// - commerceVocabulary(): the words a language's tables know, which a misspelt question word is
//   corrected against ("retrun" → return) when the policies' own words are in another language;
// - markCountries(): a country the shopper names is a country ("return it in Canada" meets "the
//   country or region in which …"; questions only: a policy naming the United States does not
//   speak about countries);
// - topics and goods: when a question names a policy topic the policies hold, words the policies
//   never use ("how do I return a *tent*?") are the item, not the subject, and weigh little
//   (retrieval.ts). Payment is not a topic: in "can I pay with bitcoin?" the unknown word is the
//   subject.
import {
  DEFAULT_LANGUAGE,
  anyOf,
  languagePack,
  languages,
  perRegistry,
  type Lang,
  type LanguagePack,
  type Rewrite,
} from "../language/index.js";

export type { Rewrite } from "../language/index.js";

export function applyRewrites(text: string, rewrites: readonly Rewrite[]): string {
  let t = text;
  for (const [re, to] of rewrites) t = t.replace(re, to);
  return t;
}

/** Any of the names as a whole word (letter boundaries, so "österreich" is found too), captured. */
const namesPattern = (names: readonly string[]) =>
  new RegExp(`(?<!\\p{L})(${anyOf(names.map((n) => n.replace(/ /g, "\\s+")))})(?!\\p{L})`, "gu");

/** Region codes of the CLDR that name no country or territory (groupings, test codes, the unknown region). */
const NOT_COUNTRIES = new Set(["EU", "EZ", "UN", "QO", "XA", "XB", "ZZ"]);

/**
 * The country names of each language by ISO 3166 code: its pack's vocabulary.countries (first, with
 * their aliases), then the Unicode CLDR's region names in that language (Intl.DisplayNames, built
 * into Node) of every code whose English name the default language says names only a place
 * (words.namesOnlyPlace: "singapore", not "jersey"). Names with punctuation ("Hong Kong SAR China",
 * "Bosnia & Herzegovina") are left to the packs.
 */
export const countryNames = perRegistry(() => {
  const english = new Intl.DisplayNames([DEFAULT_LANGUAGE], { type: "region", fallback: "none" });
  const onlyPlace = languagePack(DEFAULT_LANGUAGE)?.words.namesOnlyPlace;
  const letters = Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i));
  const codes = onlyPlace
    ? letters
        .flatMap((a) => letters.map((b) => a + b))
        .filter((code) => {
          const name = english.of(code)?.toLowerCase();
          return (
            !NOT_COUNTRIES.has(code) && name !== undefined && name !== code.toLowerCase() && /^[\p{L} -]+$/u.test(name) && onlyPlace(name)
          );
        })
    : [];
  return new Map(
    languages().map((p) => {
      let local: Intl.DisplayNames | null = null;
      try {
        local = new Intl.DisplayNames([p.code], { type: "region", fallback: "none" });
      } catch {
        // A language code ICU does not know: its pack's names only.
      }
      const out: Record<string, string[]> = Object.fromEntries(Object.entries(p.vocabulary.countries).map(([c, n]) => [c, [...n]]));
      for (const code of codes) {
        const name = local?.of(code)?.toLowerCase();
        if (name === undefined || !/^[\p{L} -]+$/u.test(name)) continue;
        const names = (out[code] ??= []);
        if (!names.includes(name)) names.push(name);
      }
      return [p.code, out] as const;
    }),
  );
});

/** The country names of a language (countryNames), or its pack's alone when the registry has no entry. */
export const namesOf = (p: LanguagePack): Readonly<Record<string, readonly string[]>> =>
  countryNames().get(p.code) ?? p.vocabulary.countries;

/** The country names of each language that has any. */
const countryPatterns = perRegistry(
  () =>
    new Map(
      languages().flatMap((p) => {
        const names = Object.values(namesOf(p)).flat();
        return names.length > 0 ? [[p.code, namesPattern(names)] as const] : [];
      }),
    ),
);

/**
 * A text with every country name marked as a country in the language `lang` ("japan" → "japan
 * country" in English, "japan land" in German): each pack's names are followed by its countryWord
 * when the text is read in that pack's language, and kept as they are otherwise. `pad` surrounds
 * each replacement.
 */
export function markCountries(text: string, lang: Lang, pad = " "): string {
  let t = text;
  for (const [code, names] of countryPatterns()) {
    const marked = lang === code ? `$1 ${languagePack(code)!.vocabulary.countryWord}` : "$1";
    t = t.replace(names, `${pad}${marked}${pad}`);
  }
  return t;
}

/**
 * The words of the country names of the default language ("united", "kingdom", "canada" …): an
 * unknown one is the question's object, not its subject (retrieval.ts weigh). (Only the default
 * language's names count, whatever the question's language: as the engine has always read them.)
 */
export const countryWords = perRegistry(
  (): ReadonlySet<string> =>
    new Set([
      ...Object.values(languagePack(DEFAULT_LANGUAGE)!.vocabulary.countries).flatMap((names) => names.flatMap((n) => n.split(" "))),
      // Of the other names only one-word ones: "new" or "south" name no country by themselves.
      ...Object.values(namesOf(languagePack(DEFAULT_LANGUAGE)!)).flatMap((names) => names.filter((n) => !n.includes(" "))),
    ]),
);

/** The rewrites translating a question in `from` for policies in `to` (the table, then country names), or undefined when `from` has no table for `to`. */
const translations = perRegistry(() => {
  const out = new Map<string, readonly Rewrite[]>();
  for (const from of languages())
    for (const [target, table] of Object.entries(from.rewrites.translations)) {
      const to = languagePack(target);
      if (!table || !to) continue;
      const countries = table.countries
        ? Object.entries(namesOf(from)).flatMap(([code, names]): Rewrite[] => {
            const name = namesOf(to)[code]?.[0];
            return name === undefined ? [] : [[namesPattern(names), ` ${name} `]];
          })
        : [];
      out.set(`${from.code}>${to.code}`, [...table.rewrites, ...countries]);
    }
  return out;
});

/** A question in `from` translated word by word for policies in `to`; undefined when there is no table (same language, or none written). */
export function translation(from: Lang, to: Lang): ((text: string) => string) | undefined {
  const rewrites = translations().get(`${from}>${to}`);
  return rewrites && ((text) => applyRewrites(text, rewrites));
}

/** The letters-only words (4+ letters) of a table's patterns, in order: "return", "window", "invoice" …. */
function tableWords(rewrites: readonly Rewrite[]): string[] {
  const out = new Set<string>();
  for (const [re] of rewrites)
    for (const w of re.source.replace(/\\[bswdp]\*?|\(\?:|[()|?*+\]\[]/g, " ").split(/[^\p{L}-]+/u))
      if (w.length >= 4 && /^\p{L}+$/u.test(w)) out.add(w);
  return [...out];
}

const vocabularies = perRegistry(
  () =>
    new Map(
      languages().map((p: LanguagePack) => [
        p.code,
        [...new Set(Object.values(p.rewrites.translations).flatMap((table) => (table ? tableWords(table.rewrites) : [])))],
      ]),
    ),
);

/**
 * The words a language's translation tables know (its commerce vocabulary): a misspelt question
 * word in that language is corrected against them (before translating, and in the router), since
 * the policies' own words may be in another language.
 */
export function commerceVocabulary(lang: Lang): readonly string[] {
  return vocabularies().get(lang) ?? [];
}

/** Whether a (normalised) text asks who pays, in any language. */
export function asksWhoPays(text: string): boolean {
  return languages().some((p) => p.rewrites.whoPays.asks.test(text));
}

/** Common goods of every language ("tent", "Jacke"). */
export const goods = perRegistry((): ReadonlySet<string> => new Set(languages().flatMap((p) => p.vocabulary.goods)));
