// Synonyms of text search (issue 35): the built-in commerce vocabulary (builtin.json, made by
// scripts/build-synonyms.ts from WordNet, the XKCD and X11 colour names and a list of everyday
// gender and product words in en and de) and a store's own entries (API: /v1/search/synonyms).
//   multi-way — every phrase of the group finds the others ("hoodie" ↔ "sweatshirt");
//   one-way   — the phrase on the left also finds those on the right, never the reverse
//               ("ladies" → women; "cobalt" → blue, dark blue);
//   broader   — (built-in only) of a colour's one-way synonyms, those that are its family rather
//               than its shade ("army green" → green, where olive is its shade): weighed lower
//               (query.ts WEIGHTS.broader).
// Phrases are lower-case words separated by one space (at most MAX_PHRASE_WORDS words).
import builtin from "./builtin.json" with { type: "json" };

export const MAX_PHRASE_WORDS = 3;

export interface SynonymEntry {
  kind: "one_way" | "multi_way";
  /** one_way: the phrases that are looked up; multi_way: the whole group. */
  words: string[];
  /** one_way: what they also find (empty for multi_way). */
  synonyms: string[];
}

/** phrase → the phrases it also finds. */
export type SynonymMap = ReadonlyMap<string, readonly string[]>;

/** A phrase as the synonym maps hold it: lower-case words joined by one space. */
export const phraseOf = (text: string): string => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");

/** The map of a list of entries (later entries add to earlier ones). */
export function synonymMap(entries: Iterable<SynonymEntry>, base?: SynonymMap): SynonymMap {
  const out = new Map<string, Set<string>>();
  const add = (from: string, to: string) => {
    const f = phraseOf(from);
    const t = phraseOf(to);
    if (!f || !t || f === t) return;
    let set = out.get(f);
    if (!set) out.set(f, (set = new Set(base?.get(f) ?? [])));
    set.add(t);
  };
  for (const e of entries) {
    if (e.kind === "multi_way") for (const a of e.words) for (const b of e.words) add(a, b);
    else for (const a of e.words) for (const b of e.synonyms) add(a, b);
  }
  if (!base) return new Map([...out].map(([k, v]) => [k, [...v]]));
  const merged = new Map<string, readonly string[]>(base);
  for (const [k, v] of out) merged.set(k, [...v]);
  return merged;
}

/** The built-in vocabulary. */
export const BUILTIN_SYNONYMS: SynonymMap = synonymMap([
  ...builtin.multi_way.map((words) => ({ kind: "multi_way" as const, words, synonyms: [] })),
  ...Object.entries(builtin.one_way as Record<string, string[]>).map(([from, to]) => ({
    kind: "one_way" as const,
    words: [from],
    synonyms: to,
  })),
]);

/** The built-in broader synonyms: phrase → those of its one-way synonyms that are its family. */
export const BUILTIN_BROADER: ReadonlyMap<string, readonly string[]> = new Map(Object.entries(builtin.broader as Record<string, string[]>));
