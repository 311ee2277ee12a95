// `npm run fit:associations -- SET.json [SET.json …]`: learns the policy engine's word associations
// (issue 36; src/assistant/knowledge/associations.ts says the rule) and writes
// src/assistant/knowledge/associations.json.
// Input: the dev half of the retailers fixture and the blind sets named (eval/assistant/blind/*.json,
// only sets already folded into dev — never an unrun set or the fixture's test half). A question
// counts when its expected outcome is an answer that quotes a fact: the answering sentences are the
// sentences of its cited policies (in the question's language) that hold one of its facts.
// Questions and sentences are read as the engine reads them (the language pack's rewrites, stop
// words and stemmer).
import fs from "node:fs";
import path from "node:path";
import { format, resolveConfig } from "prettier";
import { readRetailSet, questions, splitOf, stores, type RetailerStore, type RetailQuestion } from "../eval/assistant/retailers.js";
import { associate, type AssociationPair } from "../src/assistant/knowledge/associations.js";
import { rewrite } from "../src/assistant/knowledge/retrieval.js";
import { analyze, langOf, sentences } from "../src/assistant/knowledge/text.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const OUT = path.resolve(here, "../src/assistant/knowledge/associations.json");

function pairsOf(source: string, storeList: readonly RetailerStore[], qs: readonly RetailQuestion[]): AssociationPair[] {
  const byKey = new Map(storeList.map((s) => [s.key, s]));
  const pairs: AssociationPair[] = [];
  for (const q of qs) {
    const e = q.expect;
    const outcomes = Array.isArray(e.outcome) ? e.outcome : [e.outcome];
    if (!outcomes.includes("answer") || e.conflicts || !e.cites?.length || !e.facts?.length) continue;
    const lang = langOf(q.locale ?? "en");
    const facts = e.facts.flatMap((f) => f.split("|")).map((f) => f.toLowerCase());
    const answering = (byKey.get(q.store)?.policies ?? [])
      .filter((p) => e.cites!.includes(p.concept_id) && langOf(p.locale ?? "en") === lang)
      .flatMap((p) => p.body_markdown.split(/\n+/).flatMap(sentences))
      .filter((s) => facts.some((f) => s.toLowerCase().includes(f)));
    if (answering.length === 0) continue;
    const answer = new Set(answering.flatMap((s) => analyze(s, lang)));
    const question = new Set(analyze(rewrite(q.text, lang), lang).filter((w) => !answer.has(w)));
    pairs.push({ store: `${source}:${q.store}`, lang, question, answer });
  }
  return pairs;
}

const sets = process.argv.slice(2);
if (sets.length === 0) throw new Error("name the blind sets folded into dev (eval/assistant/blind/set-*.json)");
const pairs = [
  ...pairsOf(
    "retailers",
    stores,
    questions.filter((q) => splitOf(q.id) === "dev"),
  ),
  ...sets.flatMap((file) => {
    if (file.includes(`${path.sep}unrun${path.sep}`)) throw new Error(`${file} is not run yet: it is no dev material`);
    const set = readRetailSet(file);
    return pairsOf(path.basename(file, ".json"), set.stores, set.questions);
  }),
];
const table = associate(pairs);
for (const [lang, byWord] of Object.entries(table)) {
  const n = pairs.filter((p) => p.lang === lang).length;
  process.stdout.write(`${lang}: ${n} questions, ${Object.keys(byWord).length} question words associated\n`);
  for (const [word, alts] of Object.entries(byWord)) process.stdout.write(`  ${word} → ${alts.join(", ")}\n`);
}
// Written as Prettier formats it (npm run lint checks the file).
const json = await format(JSON.stringify(table), { ...(await resolveConfig(OUT)), filepath: OUT });
fs.writeFileSync(OUT, json);
process.stdout.write(`wrote ${path.relative(process.cwd(), OUT)}\n`);
