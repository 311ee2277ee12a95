// The router's trained product-or-policy decision, pure (the engine around it: knowledge.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RouteFeatures } from "./types.js";
import { POLICY_MIN_PROBABILITY, ROUTE_MODEL, ROUTE_MODEL_INPUTS, probabilityPolicy, routeModelInputs } from "./route-model.js";

const features = (over: Partial<RouteFeatures> = {}): RouteFeatures => ({
  returnOwn: false,
  asksConditions: false,
  orderStatus: false,
  myOrder: false,
  orderId: false,
  returnWord: false,
  policyTopics: 0,
  conditional: false,
  moneyMention: false,
  request: false,
  productFeature: true,
  questionForm: false,
  contentWords: 2,
  ...over,
});

test("route model: one weight per input, inputs in [0, 1]", () => {
  assert.equal(ROUTE_MODEL.weights.length, ROUTE_MODEL_INPUTS.length);
  const inputs = routeModelInputs(features({ policyTopics: 5, contentWords: 40, request: true }), 1);
  assert.equal(inputs.length, ROUTE_MODEL_INPUTS.length);
  for (const x of inputs) assert.ok(x >= 0 && x <= 1);
});

test("route model: a long circumstance the policies cover is a policy question; a short request or one the policies do not cover is not", () => {
  const policy = (f: Partial<RouteFeatures>, evidence: number) => probabilityPolicy(routeModelInputs(features(f), evidence));
  // "the zip on my jacket broke after 10 months of normal use, what can i do" beside a warranty policy
  assert.ok(policy({ conditional: true, contentWords: 7 }, 0.6) >= POLICY_MIN_PROBABILITY);
  // "do you have red sweaters under 50": a request with a price
  assert.ok(policy({ request: true, moneyMention: true, questionForm: true, contentWords: 3 }, 0.2) < POLICY_MIN_PROBABILITY);
  // "any black sweaters?": short, no policy covers it
  assert.ok(policy({ questionForm: true, contentWords: 2 }, 0) < POLICY_MIN_PROBABILITY);
  // More of the question covered by the policies never lowers the probability of a policy question.
  let last = 0;
  for (let e = 0; e <= 1; e += 0.1) {
    const p = policy({ contentWords: 6 }, e);
    assert.ok(p >= last);
    last = p;
  }
});
