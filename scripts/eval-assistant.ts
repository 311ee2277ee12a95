// `npm run eval:assistant` (tsx scripts/eval-assistant.ts [--fixture northwind|retailers|all]
// [--postgres] [--quiet] [--show-test] [--only id,id]): asks the fixture questions through the
// real Assistant API and prints the figures.
//   northwind — eval/assistant/northwind.json (the original store): outcome accuracy, citation
//               precision/recall and the price check;
//   retailers — eval/assistant/retailers/ (twelve real retailers' policies): per split (dev/test)
//               and category: outcome, strict correctness, citation P/R, conflicts, avoidable
//               handoffs, invented numbers/prices, latency. Per-question lines are printed for
//               the dev half only unless --show-test is given (tuning happens on dev).
// Default: both. Exits 1 when any price in a Northwind reply matches neither a live fact nor a
// cited policy, or any retailer reply invents a price.
// --postgres runs on the TEST_DATABASE_URL server (a fresh schema) instead of SQLite.
// --set FILE (with --fixture retailers): a helper-written set instead of retailers/ — JSON
// {stores: RetailerStore[], questions: RetailQuestion[]} (eval/assistant/blind/README.md), every
// question reported as "blind"; "wrong answers" (answered without the key fact, or answered where
// another outcome was expected) are printed per split.
// --curve: the precision / coverage curve of abstention by the model's probability of being right; --features FILE:
// each extractive policy answer's confidence and verdict (input of `npm run fit:abstention`);
// --abstention: calibrated abstention on (ASSISTANT_ABSTENTION=on; the default is off, so without
// it every answer is given, as fitting needs).
// --route-features FILE: each question the router sent to product search with a product feature: the
// trained route model's inputs and whether products were expected (input of `npm run fit:router`).
// --explain ID: one question's reply, route and grounding (eval/assistant/explain.ts); --sentences N:
// how many of its best sentences to show (default 6).
// --llm fake-adversarial: the same questions in LLM agent mode with an adversarial local model
// (test/support/adversarial-llm.ts); the report adds how many of its replies were used and why
// the others were refused. Every figure should equal the run without a model.
import { parseArgs } from "node:util";
import { formatReport, runEval } from "../eval/assistant/run.js";
import fs from "node:fs";
import { formatAbstentionCurve, formatRetailReport, runRetailerEval } from "../eval/assistant/run-retailers.js";
import { explain } from "../eval/assistant/explain.js";
import { questions as fixtureQuestions, readRetailSet, stores as fixtureStores } from "../eval/assistant/retailers.js";
import { startAdversarialLlm } from "../test/support/adversarial-llm.js";

const { values: args } = parseArgs({
  options: {
    fixture: { type: "string", default: "all" },
    postgres: { type: "boolean", default: false },
    quiet: { type: "boolean", default: false },
    "show-test": { type: "boolean", default: false },
    only: { type: "string" },
    set: { type: "string" },
    curve: { type: "boolean", default: false },
    abstention: { type: "boolean", default: false },
    features: { type: "string" },
    "route-features": { type: "string" },
    explain: { type: "string" },
    sentences: { type: "string", default: "6" },
    llm: { type: "string" },
  },
});
// --llm fake-adversarial: LLM agent mode against test/support/adversarial-llm.ts, a local model
// that answers every question with an invented price, a stock or delivery promise, an unstated
// window, discount or eligibility, a claimed action, a link, a vacuous citation or a product line.
if (args.llm !== undefined && args.llm !== "fake-adversarial")
  throw new Error(`--llm: only "fake-adversarial" is known, not "${args.llm}"`);
const adversary = args.llm ? await startAdversarialLlm() : undefined;
const env: Record<string, string> = {
  ...(args.abstention ? { ASSISTANT_ABSTENTION: "on" } : {}),
  ...(adversary ? { LLM_BASE_URL: adversary.url, LLM_MODEL: "fake-adversarial", LLM_MODE: "agent", OUTBOUND_ALLOW_PRIVATE: "true" } : {}),
};
const dialect = args.postgres ? "postgres" : "sqlite";
const only = args.only ? args.only.split(",") : undefined;
let failed = false;

// --explain ID (with --set FILE for a blind set's question): the chat's reply line and text, then the
// router's decision and the grounding behind it (eval/assistant/explain.ts).
if (args.explain) {
  const set = args.set ? readRetailSet(args.set) : { stores: fixtureStores, questions: fixtureQuestions };
  const q = set.questions.find((x) => x.id === args.explain);
  if (!q) throw new Error(`no question ${args.explain}${args.set ? ` in ${args.set}` : " in eval/assistant/retailers/"}`);
  await runRetailerEval({
    dialect,
    only: [q.id],
    ...(args.set ? { set } : {}),
    env,
    log: (line, r) => process.stdout.write(`${line}\nreply: ${JSON.stringify(r.markdown)}\n`),
  });
  process.stdout.write(
    `${explain(
      q,
      set.stores.find((s) => s.key === q.store)!,
      Number(args.sentences),
    )}\n`,
  );
  process.exit(0);
}

if (args.fixture === "all" || args.fixture === "northwind") {
  const report = await runEval({
    dialect,
    env,
    ...(only ? { only } : {}),
    log: args.quiet ? () => {} : (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`\n${formatReport(report)}\n`);
  for (const r of report.results) {
    for (const p of r.prices.invented)
      process.stdout.write(`  invented price ${JSON.stringify(p)} in ${r.id}: ${JSON.stringify(r.markdown)}\n`);
  }
  if (report.prices.invented > 0) failed = true;
}

if (args.fixture === "all" || args.fixture === "retailers") {
  const set = args.set ? readRetailSet(args.set) : undefined;
  const results = await runRetailerEval({
    dialect,
    ...(set ? { set } : {}),
    env,
    ...(only ? { only } : {}),
    log: args.quiet
      ? undefined
      : (line, r) => {
          if (r.split !== "test" || args["show-test"]) process.stdout.write(`${line}\n`);
        },
  });
  process.stdout.write(`\n${formatRetailReport(results, dialect)}\n`);
  if (args.curve) process.stdout.write(`\n${formatAbstentionCurve(results, [0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95])}\n`);
  // --features FILE: each answered question's confidence and verdict, one JSON line (fitting abstention).
  if (args.features)
    fs.writeFileSync(
      args.features,
      results
        .filter((r) => r.confidence)
        .map((r) => JSON.stringify({ id: r.id, split: r.split, outcome: r.outcome, wrong: r.wrong, strict: r.strict, ...r.confidence }))
        .join("\n") + "\n",
    );
  // --route-features FILE: each product-routed question's route-model inputs and label (fitting the router: npm run fit:router).
  if (args["route-features"])
    fs.writeFileSync(
      args["route-features"],
      results
        .filter((r) => r.routeModel)
        .map((r) => JSON.stringify({ id: r.id, split: r.split, product: r.productExpected, ...r.routeModel }))
        .join("\n") + "\n",
    );
  if (results.some((r) => r.inventedPrices.length > 0)) failed = true;
}

await adversary?.close();
process.exit(failed ? 1 : 0);
