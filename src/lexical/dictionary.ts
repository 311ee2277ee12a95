// The English dictionary of text search's typo tolerance (issue 35): Hunspell's en_US word list
// and affix rules (package dictionary-en, from SCOWL) read by nspell, a JavaScript Hunspell. A
// query word the store lacks but the dictionary knows ("food", "wedding") is a real word, not a
// typo of a store word ("hood", "webbing"): it gets no typo alternatives and no correction, as a
// spell checker leaves a correctly spelled word alone. Synonyms still apply to it. Loaded once per
// process, with the first lexicon (about 120 ms and 17 MB of heap).
import nspell from "nspell";

export type WordCheck = (word: string) => boolean;

let loading: Promise<WordCheck> | undefined;

/** Whether a word is correctly spelled English (any case, inflections by the affix rules). */
export function englishWords(): Promise<WordCheck> {
  loading ??= import("dictionary-en").then(({ default: en }) => {
    const speller = nspell(Buffer.from(en.aff), Buffer.from(en.dic));
    return (word: string) => speller.correct(word);
  });
  return loading;
}
