// Short forms of a store's brand names (issue 35), pure: shoppers write "U.S. Polo Assn." as
// "us polo" or "uspa", "United Colors of Benetton" as "ucb", "H&M" as "hm", while the index reads
// those brands as the words u, s, polo, assn / united, colors, of, benetton / h, m. Each brand of
// two words or more gives one-way synonyms (synonyms/index.ts) from its short forms to its full
// phrase, as an acronym dictionary derived from the catalogue's own entity names would:
//   initials     — the first letters of all its words ("uspa", "ucob"), and of its words that are
//                  no stop words ("ucb");
//   letters      — its single letters run together, alone ("hm") or with the next words of the
//                  brand, two or three in all ("us polo", "us polo assn").
// Every form has two letters or more (a brand has two words or more). A one-word form is kept
// only when it could not mean something else in the store: no stop word, not a word of the
// store's text, not a correctly spelled word of the language (`isWord`); a form of several words
// ("us polo") always is.
import { MAX_PHRASE_WORDS, phraseOf, type SynonymEntry } from "./synonyms/index.js";
import { isStopword } from "./query.js";

export interface AcronymContext {
  /** Whether the store's text holds the word. */
  has(word: string): boolean;
  /** Whether the word is correctly spelled in the language. */
  isWord?(word: string): boolean;
}

/** The one-way synonyms from the short forms of `brands` to the brands' phrases. */
export function brandAcronyms(brands: Iterable<string>, store: AcronymContext): SynonymEntry[] {
  const byForm = new Map<string, Set<string>>();
  const add = (form: string, brand: string) => {
    // A form of one word (initials, or letters that are the whole brand) could be another word.
    if (!form.includes(" ") && (isStopword(form) || store.has(form) || (store.isWord?.(form) ?? false))) return;
    let set = byForm.get(form);
    if (!set) byForm.set(form, (set = new Set()));
    set.add(brand);
  };
  for (const raw of new Set(brands)) {
    const brand = phraseOf(raw);
    const ws = brand.split(" ").filter(Boolean);
    if (ws.length < 2) continue;
    add(ws.map((w) => w[0]).join(""), brand);
    const content = ws.filter((w) => w.length === 1 || !isStopword(w));
    if (content.length >= 2) add(content.map((w) => w[0]).join(""), brand);
    const joined = joinLetters(ws);
    if (joined.length < ws.length) {
      // Alone only when the letters are the whole brand ("hm"): "us" alone is the pronoun.
      for (let n = joined.length === 1 ? 1 : 2; n <= Math.min(MAX_PHRASE_WORDS, joined.length); n++)
        add(joined.slice(0, n).join(" "), brand);
    }
  }
  return [...byForm].map(([form, to]) => ({ kind: "one_way" as const, words: [form], synonyms: [...to] }));
}

/** The words with each run of single letters written as one word ("u s polo assn" → "us polo assn"). */
function joinLetters(ws: readonly string[]): string[] {
  const out: string[] = [];
  let run = "";
  for (const w of ws) {
    if (w.length === 1) {
      run += w;
      continue;
    }
    if (run) out.push(run);
    run = "";
    out.push(w);
  }
  if (run) out.push(run);
  return out;
}
