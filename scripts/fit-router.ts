// `npm run fit:router -- ROUTES.jsonl [ROUTES.jsonl …]`: fits the router's trained product-or-policy
// decision (issue 36 item 1, src/assistant/knowledge/route-model.ts) and writes
// src/assistant/knowledge/route-model.json.
// Input: the lines `npm run eval:assistant -- --fixture retailers --route-features FILE` writes (with
// `--set FILE` for a blind set already folded into dev), one per question the rule router sent to
// product search with a product feature: the model's inputs, the split and whether the question
// asks for products. Model: logistic regression (ml-logistic-regression) of "a policy question" on
// route-model.ts routeModelInputs(), trained on the dev and blind lines only; the test lines are
// only reported.
import fs from "node:fs";
import path from "node:path";
import { fitLogistic, readFitLines } from "./fit-lines.js";
import { POLICY_MIN_PROBABILITY, ROUTE_MODEL_INPUTS, probabilityPolicy, type RouteModel } from "../src/assistant/knowledge/route-model.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const OUT = path.resolve(here, "../src/assistant/knowledge/route-model.json");

interface Line {
  id: string;
  split: string;
  product: boolean;
  inputs: number[];
}
const { dev, test } = readFitLines<Line>("--route-features");
// Class 1: a policy question (0: a product request).
const weights = fitLogistic(
  dev.map((l) => l.inputs),
  dev.map((l) => (l.product ? 0 : 1)),
);
const model: RouteModel = { weights: weights.map((w) => Math.round(w * 1e4) / 1e4) };

const report = (name: string, ls: Line[]) => {
  const policy = ls.filter((l) => !l.product);
  const product = ls.filter((l) => l.product);
  const asPolicy = (l: Line) => probabilityPolicy(l.inputs, model) >= POLICY_MIN_PROBABILITY;
  process.stdout.write(
    `${name.padEnd(5)} ${ls.length} questions: policy questions sent to the policies ${policy.filter(asPolicy).length}/${policy.length}, ` +
      `product requests kept ${product.filter((l) => !asPolicy(l)).length}/${product.length}\n`,
  );
  for (const l of ls.filter((x) => asPolicy(x) === x.product))
    process.stdout.write(
      `      wrong: ${l.id} (${l.product ? "product" : "policy"}) p(policy) ${probabilityPolicy(l.inputs, model).toFixed(2)}\n`,
    );
};
process.stdout.write(`weights: ${ROUTE_MODEL_INPUTS.map((n, i) => `${n} ${model.weights[i]}`).join(", ")}\n`);
report("dev", dev);
report("test", test);
// Written as Prettier formats it (npm run lint checks the file).
fs.writeFileSync(OUT, `{ "weights": [${model.weights.join(", ")}] }\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), OUT)}\n`);
