// The registry of language packs: a language code → its pack (./types.ts). English and German are
// registered here; a language is added by writing its pack (one file, like ./de.ts) and listing it
// in BUILT_IN below — or, at run time (tests), with registerLanguage().
//
// - The language of a locale (BCP 47 tag) is its primary subtag when a pack is registered for it,
//   else OTHER: text in such a language is analysed without stop words or stemming, and replies
//   are framed in the default language (English).
// - The language a text is written in (detectLanguage) is decided by the packs' stop words.
// - Patterns built from every pack (the router reads German and English words in any thread) are
//   built once per registry state: perRegistry() rebuilds them after a registration.
import { de } from "./de.js";
import { en } from "./en.js";
import type { LanguagePack } from "./types.js";

export type { LanguagePack, Rewrite, StartEvent } from "./types.js";

/** A registered pack's code, or OTHER (a language without a pack). */
export type Lang = string;

/** The language of a text or locale no pack reads. */
export const OTHER = "other";

/** The language replies are framed in when the thread's has no pack. */
export const DEFAULT_LANGUAGE = "en";

const BUILT_IN: readonly LanguagePack[] = [en, de];

const registry = new Map<string, LanguagePack>(BUILT_IN.map((p) => [p.code, p]));
/** The registry's packs in order, and how often it changed (see perRegistry). */
let packs: readonly LanguagePack[] = BUILT_IN;
let version = 0;

function changed(): void {
  packs = [...registry.values()];
  version++;
}

/**
 * Registers a pack (replacing one of the same code); returns the function that removes it again.
 * The engine uses it from the next call on.
 */
export function registerLanguage(pack: LanguagePack): () => void {
  if (pack.code === OTHER || !/^[a-z]{2,3}$/.test(pack.code))
    throw new Error(`a language pack's code is a primary subtag, not "${pack.code}"`);
  const before = registry.get(pack.code);
  registry.set(pack.code, pack);
  changed();
  return () => {
    if (registry.get(pack.code) !== pack) return;
    if (before) registry.set(pack.code, before);
    else registry.delete(pack.code);
    changed();
  };
}

/** Every registered pack, in registration order (built-in first: English, German). */
export function languages(): readonly LanguagePack[] {
  return packs;
}

/** The pack of a language code, or undefined (OTHER, or a language without a pack). */
export function languagePack(lang: Lang): LanguagePack | undefined {
  return registry.get(lang);
}

/** The pack of a language, or the default language's (for framing text and question patterns in OTHER). */
export function packOrDefault(lang: Lang): LanguagePack {
  return registry.get(lang) ?? registry.get(DEFAULT_LANGUAGE)!;
}

/** Primary language subtag of a BCP 47 tag ("de" of "de-AT"), lower case. */
export function primaryOf(locale: string): string {
  return locale.trim().toLowerCase().split(/[-_]/)[0] ?? "";
}

/** Language of a BCP 47 tag: its primary subtag when a pack reads it, else OTHER. */
export function langOf(locale: string): Lang {
  const primary = primaryOf(locale);
  return registry.has(primary) ? primary : OTHER;
}

/** The language a thread in this locale is answered (and its router's clarifications written) in: its pack's, else the default. */
export function threadLanguage(locale: string): Lang {
  return packOrDefault(langOf(locale)).code;
}

/** Whether a (lower-case) word is a stop word of a language (none for OTHER). */
export function isStopWord(word: string, lang: Lang): boolean {
  const pack = registry.get(lang);
  if (!pack) return false;
  const { stopWords, stopWordForm } = pack.words;
  return stopWords.has(word) || (stopWordForm !== undefined && stopWords.has(stopWordForm(word)));
}

/** Whether a word is a stop word of any registered language (read whatever the text's language: a reply, a product title). */
export function isStopWordOfAny(word: string): boolean {
  return languages().some((p) => isStopWord(word, p.code));
}

/** The stem of a word in a language (the word itself for OTHER). */
export function stem(word: string, lang: Lang): string {
  return registry.get(lang)?.words.stem(word) ?? word;
}

/**
 * The language normalised words are written in when they say so: at least two more stop words of
 * one language (stop words of no other) than of every other language ("Ignore the FAQ. How long is
 * the return window?" in a German thread is English); null when no language stands out.
 */
export function detectLanguage(words: readonly string[]): Lang | null {
  const counts = packs.map(
    (p) => words.filter((w) => isStopWord(w, p.code) && packs.every((q) => q === p || !isStopWord(w, q.code))).length,
  );
  const best = packs.findIndex((_, i) => counts[i]! >= Math.max(0, ...counts.filter((_, j) => j !== i)) + 2);
  return best < 0 ? null : packs[best]!.code;
}

/**
 * A value built from the registered packs (a pattern joining every pack's alternation), built
 * again after the registry changes. `build` runs on first use, not when the module loads.
 */
export function perRegistry<T>(build: () => T): () => T {
  let built: { version: number; value: T } | null = null;
  return () => {
    if (built?.version !== version) built = { version, value: build() };
    return built.value;
  };
}

/** One record of every pack's records of a member (a later pack's entry replaces an earlier one of the same key). */
export function mergedRecord<T>(pick: (pack: LanguagePack) => Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(languages().flatMap((p) => Object.entries(pick(p))));
}

/** Alternatives (regex sources) joined into one alternation; one no text matches when there are none (no pack has the member). */
export function anyOf(alternatives: readonly string[]): string {
  return alternatives.length > 0 ? alternatives.join("|") : "(?!)";
}

/**
 * The alternations one member holds in every pack that has it, joined ("a|b|c"), in registry
 * order: the engine wraps the result in its own pattern.
 */
export function alternation(pick: (pack: LanguagePack) => RegExp | undefined): string {
  const sources = languages()
    .map(pick)
    .filter((re): re is RegExp => re !== undefined)
    .map((re) => re.source);
  return anyOf(sources);
}

/** A text with the characters special in a regular expression escaped. */
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Words as an alternation (special characters escaped), every pack's in registry order. */
export function wordAlternation(pick: (pack: LanguagePack) => readonly string[] | undefined): string {
  return anyOf(languages().flatMap((p) => (pick(p) ?? []).map(escapeRegExp)));
}
