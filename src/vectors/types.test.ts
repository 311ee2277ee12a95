import { test } from "node:test";
import assert from "node:assert/strict";
import { answerApart, type VectorMatch } from "./types.js";

const match = (productId: string, score: number): VectorMatch => ({ productId, vectorId: `v-${productId}`, score });
/** Ten products, nearest first. */
const nearby = Array.from({ length: 10 }, (_, i) => match(`p${i}`, 1 - i / 10));
const view = (found: VectorMatch[] | undefined) => found?.map((m) => `${m.productId}${m.also ? "*" : ""}`);

test("answerApart: the k nearest not apart, then those apart it holds, marked, as a search with them asked apart answers", () => {
  const apart = new Set(["p1", "p3", "p-far"]);
  assert.deepEqual(view(answerApart(nearby, 10, 5, apart)), ["p0", "p2", "p4", "p5", "p6", "p1*", "p3*"]);
  assert.equal(answerApart(nearby, 10, 5, apart)![5]!.score, 0.9, "the similarity kept");
  assert.deepEqual(view(answerApart(nearby, 10, 3, undefined)), ["p0", "p1", "p2"], "nothing apart: the k nearest");
});

test("answerApart: undefined when a full answer holds fewer than k others; a short one is all there is", () => {
  const apart = new Set(["p0", "p1", "p2", "p3", "p4", "p5", "p6"]);
  assert.equal(answerApart(nearby, 10, 5, apart), undefined, "full: the 5th other may lie past it");
  assert.deepEqual(
    view(answerApart(nearby, 20, 5, apart)),
    ["p7", "p8", "p9", "p0*", "p1*", "p2*", "p3*", "p4*", "p5*", "p6*"],
    "short: every product was read",
  );
});
