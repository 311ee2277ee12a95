// Calibrated abstention (issue 36): the model's probability, the bar, and ground() withholding an
// extractive answer the model judges probably wrong (handed off as no evidence, with the reason).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { splitPassages } from "./passages.js";
import { PassageIndex } from "./retrieval.js";
import { ground } from "./ground.js";
import { ABSTENTION, NO_ABSTENTION, abstentionFeatures, confident, probabilityRight, type AbstentionModel } from "./abstain.js";
import type { AnswerConfidence } from "./types.js";
import { policySource as policy } from "../../../test/support/policies.js";

const index = new PassageIndex(
  [
    policy("returns", "# Returns\n\nYou can return any item within 30 days of delivery. Items must be unworn."),
    policy("shipping", "# Shipping\n\nStandard delivery takes 3-5 business days. Orders over €50 ship free of charge."),
  ].flatMap(splitPassages),
);
const sure: AnswerConfidence = { match: 1, score: 1, margin: 0.5, typed: true, coverage: 1 };
const unsure: AnswerConfidence = { match: 0.4, score: 0.4, margin: 0, typed: false, coverage: 0.3 };
/** A model that judges an answer right unless the asked value is missing from its best sentence. */
const VALUE_MODEL: AbstentionModel = { weights: [-3, 0, 0, 0, 0, 6, 0], minRight: 0.5 };

describe("calibrated abstention", () => {
  test("the features and the probability of being right", () => {
    assert.deepEqual(abstentionFeatures(unsure), [1, 0.4, 0.4, 0, 0.3, 1, 0]);
    assert.ok(probabilityRight(sure, VALUE_MODEL) > 0.9);
    assert.ok(probabilityRight(unsure, VALUE_MODEL) < 0.1);
    assert.equal(confident(unsure, VALUE_MODEL), false);
    assert.equal(confident(unsure, { ...VALUE_MODEL, minRight: 0 }), true, "a bar of 0 always answers");
    assert.equal(confident(undefined, VALUE_MODEL), true, "an answer without confidence (LLM-phrased) is not judged here");
    assert.equal(NO_ABSTENTION.minRight, 0);
    // The shipped model: fitted weights, one per feature, and a bar in [0, 1).
    assert.equal(ABSTENTION.weights.length, abstentionFeatures(sure).length);
    assert.ok(ABSTENTION.minRight >= 0 && ABSTENTION.minRight < 1);
    assert.ok(probabilityRight(sure) > probabilityRight(unsure), "the shipped model prefers a sure answer");
  });

  test("ground() answers with its confidence, and withholds what the model judges probably wrong", async () => {
    const answered = await ground(index, "how many days do I have to return something", "en", undefined, undefined, NO_ABSTENTION);
    assert.equal(answered.kind, "answer");
    if (answered.kind !== "answer") return;
    assert.equal(answered.confidence?.typed, true, "the best sentence states the asked duration");
    assert.ok(answered.confidence!.coverage > 0 && answered.confidence!.match > 0);

    // A model whose bar no answer clears: handed off as no evidence, saying why.
    const never: AbstentionModel = { weights: [10, 0, 0, 0, 0, 0, 0], minRight: 0.5 }; // always "probably wrong"
    const withheld = await ground(index, "how many days do I have to return something", "en", undefined, undefined, never);
    assert.equal(withheld.kind, "no_evidence");
    if (withheld.kind !== "no_evidence") return;
    assert.deepEqual(withheld.abstained?.confidence, answered.confidence);
    assert.ok(withheld.abstained!.probability_right < 0.5);
  });
});
