// The router's trained decision between a product request and a policy question (issue 36 item 1).
// A text the rule router (classify.ts) scores as a product request because it names a product
// feature ("bought a sweater at the mall 5 weeks ago, still ok to bring it back?", "the zip on my
// jacket broke after 10 months, what can I do") may be a policy question about that product. A
// logistic regression (ml-logistic-regression, fitted by `npm run fit:router` on the dev questions'
// expected outcomes, `eval:assistant -- --route-features FILE`) weighs the router's own features
// with the one thing the keyword rules cannot see: how much of the question the store's published
// policies cover (the best passage's coverage, retrieval.ts). When it gives a policy question at
// least POLICY_MIN_PROBABILITY, the engine answers the text as one (trace: rerouted "classifier").
import type { RouteFeatures } from "./types.js";
import fitted from "./route-model.json" with { type: "json" };

export interface RouteModel {
  /** Logistic-regression weights of "a policy question" over routeModelInputs(). */
  weights: number[];
}

export const ROUTE_MODEL: RouteModel = { weights: fitted.weights };
export const POLICY_MIN_PROBABILITY = 0.5;

/** The names of routeModelInputs(), in order (the fit's report and the trace). */
export const ROUTE_MODEL_INPUTS = [
  "bias",
  "request",
  "policyTopics",
  "conditional",
  "questionForm",
  "moneyMention",
  "contentWords",
  "policyEvidence",
] as const;

/** The model's inputs: the rule router's features of the text and the policies' best coverage of it (0–1). */
export function routeModelInputs(f: RouteFeatures, policyEvidence: number): number[] {
  return [
    1,
    f.request ? 1 : 0,
    Math.min(2, f.policyTopics) / 2,
    f.conditional ? 1 : 0,
    f.questionForm ? 1 : 0,
    f.moneyMention ? 1 : 0,
    Math.min(10, f.contentWords) / 10,
    policyEvidence,
  ];
}

/** The probability that the text is a policy question rather than a product request. */
export function probabilityPolicy(inputs: readonly number[], model: RouteModel = ROUTE_MODEL): number {
  const z = inputs.reduce((s, x, i) => s + x * (model.weights[i] ?? 0), 0);
  return 1 / (1 + Math.exp(-z));
}
