// Calibrated abstention (issue 36): an extractive policy answer is given only when the model of
// abstention.json (logistic regression fitted by `npm run fit:abstention` on the dev questions'
// outcomes; see that script) says it is right with at least `minRight` probability; otherwise
// the question is handed off as having no evidence. The features are the best sentence's match,
// score, margin over another passage's best, the share of the question's words its text holds,
// and whether it states the value the question asks for (types.ts AnswerConfidence).
import type { AnswerConfidence } from "./types.js";
import fitted from "./abstention.json" with { type: "json" };

export interface AbstentionModel {
  /** Logistic-regression weights of "wrong" over abstentionFeatures(). */
  weights: number[];
  /** Least probability of being right at which the engine answers (0: always). */
  minRight: number;
}

export const ABSTENTION: AbstentionModel = { weights: fitted.weights, minRight: fitted.minRight };
/** Every answer given (ASSISTANT_ABSTENTION=off: fitting the model needs the answers it would withhold). */
export const NO_ABSTENTION: AbstentionModel = { weights: fitted.weights, minRight: 0 };

/** The model's inputs: [1, match, score, margin, coverage, asked value missing, asked value stated]. */
export function abstentionFeatures(c: AnswerConfidence): number[] {
  return [1, c.match, c.score, c.margin, c.coverage, c.typed === false ? 1 : 0, c.typed === true ? 1 : 0];
}

/** The probability that an answer with this confidence is right. */
export function probabilityRight(c: AnswerConfidence, model: AbstentionModel = ABSTENTION): number {
  const z = abstentionFeatures(c).reduce((s, x, i) => s + x * (model.weights[i] ?? 0), 0);
  return 1 - 1 / (1 + Math.exp(-z));
}

/** Whether to give the answer (true) or hand the question off (false). */
export function confident(c: AnswerConfidence | undefined, model: AbstentionModel = ABSTENTION): boolean {
  return c === undefined || model.minRight <= 0 || probabilityRight(c, model) >= model.minRight;
}
