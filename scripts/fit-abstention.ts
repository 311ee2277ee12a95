// `npm run fit:abstention -- FEATURES.jsonl [FEATURES.jsonl …]`: fits calibrated abstention for
// the assistant's extractive policy answers (issue 36) and writes
// src/assistant/knowledge/abstention.json.
// Input: the lines `npm run eval:assistant -- --fixture retailers --features FILE` writes (with
// `--set FILE` for a blind set), one per extractive policy answer: its confidence features
// (types.ts AnswerConfidence), its split and whether it was wrong (answered without the key fact, or
// answered where another outcome was expected).
// Model: logistic regression (ml-logistic-regression) of "wrong" on [1, match, score, margin,
// coverage, asked value not stated, asked value stated], trained on dev and blind lines only.
// Threshold: the least probability of being right at which the engine still answers, chosen on
// dev to maximise right answers kept − 2 × wrong answers kept (a wrong answer costs a store more
// than a handoff). The test lines are only reported.
import fs from "node:fs";
import path from "node:path";
import { format, resolveConfig } from "prettier";
import { fitLogistic, readFitLines } from "./fit-lines.js";
import { abstentionFeatures, probabilityRight, type AbstentionModel } from "../src/assistant/knowledge/abstain.js";
import type { AnswerConfidence } from "../src/assistant/knowledge/types.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const OUT = path.resolve(here, "../src/assistant/knowledge/abstention.json");
const WRONG_COST = 2;

type Line = AnswerConfidence & { id: string; split: string; wrong: boolean };
const { dev, test } = readFitLines<Line>("--features");
const weights = fitLogistic(
  dev.map(abstentionFeatures),
  dev.map((l) => (l.wrong ? 1 : 0)),
);
const model: AbstentionModel = { weights, minRight: 0 };
const pRight = (l: Line) => probabilityRight(l, model);

const outcome = (ls: Line[], bar: number) => {
  const kept = ls.filter((l) => pRight(l) >= bar);
  const wrong = kept.filter((l) => l.wrong).length;
  return { kept: kept.length, wrong, right: kept.length - wrong, dropped: ls.filter((l) => pRight(l) < bar && !l.wrong).length };
};
const bars = Array.from({ length: 41 }, (_, i) => 0.6 + i * 0.01);
let best = { bar: 0, utility: -Infinity };
for (const bar of [0, ...bars]) {
  const o = outcome(dev, bar);
  const utility = o.right - WRONG_COST * o.wrong;
  if (utility > best.utility) best = { bar, utility };
}
model.minRight = Math.round(best.bar * 100) / 100;

const report = (name: string, ls: Line[]) => {
  const all = outcome(ls, 0);
  const at = outcome(ls, model.minRight);
  console.log(
    `${name.padEnd(5)} ${ls.length} answers: wrong ${all.wrong} → ${at.wrong} kept; right ${all.right} → ${at.right} kept (${at.dropped} handed off)`,
  );
};
console.log(`weights [1, match, score, margin, coverage, value missing, value stated]: ${weights.map((w) => w.toFixed(3)).join(", ")}`);
console.log(`least probability of being right: ${model.minRight} (dev utility right − ${WRONG_COST} × wrong)`);
report("dev", dev);
report("test", test);
console.log("curve (dev / test): bar  kept  wrong");
for (const bar of [0.7, 0.75, 0.8, 0.85, 0.9, 0.95]) {
  const d = outcome(dev, bar);
  const t = outcome(test, bar);
  console.log(`  ${bar.toFixed(2)}  ${d.kept}/${t.kept}  ${d.wrong}/${t.wrong}`);
}
// Written in the repository's code style (prettier), so that `npm run lint` passes on a fresh fit.
const json = JSON.stringify({ ...model, about: "Written by scripts/fit-abstention.ts; do not edit by hand." });
fs.writeFileSync(OUT, await format(json, { ...(await resolveConfig(OUT)), filepath: OUT }));
console.log(`wrote ${OUT}`);
