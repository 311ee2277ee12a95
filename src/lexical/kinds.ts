// Which kind of thing a query asks for, as far as the store's words can tell (issue 35, the
// relevance cut-off): "diamond engagement ring" or "red lipstick" in a clothing store name a kind
// of product the store does not sell, and a page of wallets or red T-shirts is no answer to them.
//
// The rule (askedKindUnsold): the query's head noun (query.ts headWord: its last word before the
// first preposition, as English noun phrases put the head last: "anti dandruff shampoo", "tie for
// office") is
//   1. not a word of the store (no exact word, synonym or joined form: query.ts's analysis);
//   2. a noun naming a specific artifact in WordNet 3.1: one of its senses is in the
//      lexicographer file noun.artifact (objects made by people — "ring", "lipstick", "helmet",
//      "tent"; not occasions, places of nature, times or people: "wedding", "beach", "winter",
//      "dad") at least MIN_ARTIFACT_DEPTH hypernym steps below the root (the taxonomy depth of
//      Wu–Palmer similarity): placeholders such as "stuff" (3), "item" (4), "goods" (5) or
//      "wear" (6) name no kind;
//   2b. no typo away from a store word (within query.ts's typo budget: "sketchers" may mean
//      Skechers);
//   3. not a kind of anything the store names: no lemma of its hypernyms up to HYPERNYM_DEPTH
//      steps is a store word ("sneakers" → shoe, "nightgown" → nightwear are sold where "shoe",
//      "nightwear" are store words).
// Such a query has no evidence in the store: text search answers it with nothing (and counts it
// in the zero-result rate). WordNet is read by src/lexical/wordnet.ts, with the store's first
// lexicon (SearchService.lexicon); a synset is parsed when first met.
import { headWord, typoBudget, words, type Lexicon } from "./query.js";
import { NOUN_ARTIFACT, NOUN_FOOD, NOUN_PLANT, NOUN_SUBSTANCE, type NounSynset, type WordNetNouns } from "./wordnet.js";

/** Hypernym steps searched for a store word (beyond them the kinds are too general: "commodity", "artifact"). */
export const HYPERNYM_DEPTH = 3;
/** Taxonomy depth from which an artifact sense names a specific kind of object (measured: stuff 3, item 4, goods 5, wear 6; lipstick 9, mug 9, tent 7, charger 7). */
export const MIN_ARTIFACT_DEPTH = 7;
/** The noun senses of a word: as written, else its singular ("earrings" → earring, "dresses" → dress). */
function sensesOf(n: WordNetNouns, word: string): string[] {
  for (const form of [word, word.replace(/ies$/, "y"), word.replace(/(?:s|x|z|ch|sh)es$/, (m) => m.slice(0, -2)), word.replace(/s$/, "")]) {
    const s = n.senses(form);
    if (s.length > 0) return s;
  }
  return [];
}

/** A synset's taxonomy depth: hypernym steps to the root by the shortest path. */
function depthOf(n: WordNetNouns, s: NounSynset, seen = new Set<NounSynset>()): number {
  if (s.hypernyms.length === 0 || seen.has(s)) return 0;
  seen.add(s);
  return 1 + Math.min(...s.hypernyms.map((o) => depthOf(n, n.synset(o), seen)));
}

/**
 * Whether `word` names an artifact none of whose kinds up to HYPERNYM_DEPTH steps is a store
 * word (`storeHas`: the lexicon's stem-aware test). False when WordNet does not know the word.
 */
export function unsoldArtifact(word: string, storeHas: (w: string) => boolean, nouns: WordNetNouns): boolean {
  let level = sensesOf(nouns, word)
    .map((o) => nouns.synset(o))
    .filter((s) => s.lexfile === NOUN_ARTIFACT && depthOf(nouns, s) >= MIN_ARTIFACT_DEPTH);
  if (level.length === 0) return false;
  for (let depth = 0; depth <= HYPERNYM_DEPTH && level.length > 0; depth++) {
    // The word's own synonyms (depth 0) and its kinds: a store word among them means the store sells the kind.
    if (level.some((s) => s.lemmas.some((l) => !l.includes(" ") && l !== word && storeHas(l)))) return false;
    level = level.flatMap((s) => s.hypernyms.map((o) => nouns.synset(o)));
  }
  return true;
}

/**
 * Whether a query asks for a kind of product the store does not sell (the rule of the header):
 * its head noun is no word, synonym key or joined form of the store and an unsold artifact.
 */
export function askedKindUnsold(text: string, lexicon: Lexicon, nouns: WordNetNouns | null): boolean {
  if (!nouns) return false; // without WordNet no query is judged unsold (the behaviour before the rule)
  // A store word, or a synonym key with a store word among its synonyms ("jewelry" → jewellery).
  const named = (w: string) => lexicon.has(w) || (lexicon.synonymsOf(w) ?? []).some((s) => s.split(" ").every((x) => lexicon.has(x)));
  const tokens = words(text);
  const head = headWord(tokens);
  if (head === undefined || named(head)) return false;
  if (lexicon.near(head, typoBudget(head.length)).length > 0) return false;
  // Part of a phrase the store or its synonyms know ("t shirt", "flip flops", "hand bag" → handbag).
  const at = tokens.lastIndexOf(head);
  if (at > 0 && (named(`${tokens[at - 1]} ${head}`) || lexicon.has(`${tokens[at - 1]}${head}`))) return false;
  return unsoldArtifact(head, named, nouns);
}

/** The lexicographer files of things one buys: artifacts, foods, plants and substances. */
const GOODS_LEXFILES: ReadonlySet<number> = new Set([NOUN_ARTIFACT, NOUN_FOOD, NOUN_PLANT, NOUN_SUBSTANCE]);

/**
 * Whether a word names goods: its most frequent noun sense (as written, else its singular) is an
 * artifact, a food, a plant or a substance in WordNet ("bowl", "salad", "pants", "lotion"; not
 * "points", "receipt", "student", "wedding"). False when WordNet does not know it as a noun.
 */
export function namesGoods(word: string, nouns: WordNetNouns): boolean {
  const first = sensesOf(nouns, word)[0];
  return first !== undefined && GOODS_LEXFILES.has(nouns.synset(first).lexfile);
}
