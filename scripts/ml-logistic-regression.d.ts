// The part of ml-logistic-regression (mljs, no bundled types) that scripts/fit-abstention.ts uses.
declare module "ml-logistic-regression" {
  import type { Matrix } from "ml-matrix";
  export default class LogisticRegression {
    constructor(options?: { numSteps?: number; learningRate?: number });
    train(X: Matrix, Y: Matrix): void;
    /** One-vs-all: classifiers[c].weights (1 × features) scores the probability of "not c". */
    classifiers: Array<{ weights: Matrix }>;
  }
}
