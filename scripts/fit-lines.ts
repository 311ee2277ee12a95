// Shared by the fitting scripts (fit-abstention.ts, fit-router.ts): the JSON lines eval:assistant
// wrote, split into the lines to fit on (dev and blind sets folded into dev) and the test half's
// (only reported), and a logistic regression's weights of class 1 (ml-logistic-regression).
import fs from "node:fs";
import LogisticRegression from "ml-logistic-regression";
import { Matrix } from "ml-matrix";

/** The lines of the files named on the command line; `what` names the eval:assistant flag that writes them. */
export function readFitLines<T extends { split: string }>(what: string): { dev: T[]; test: T[] } {
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error(`name the files written by eval:assistant ${what}`);
  const lines: T[] = files.flatMap((f) =>
    fs
      .readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as T),
  );
  return { dev: lines.filter((l) => l.split !== "test"), test: lines.filter((l) => l.split === "test") };
}

/** Logistic-regression weights (bias first when the inputs start with 1) of the probability that a row is of class 1. */
export function fitLogistic(inputs: number[][], labels: (0 | 1)[]): number[] {
  // The library adds the gradient summed over the rows at each step: a rate of 1 / rows is a step of
  // 1 on the mean gradient, which converges to the maximum-likelihood weights (checked against
  // Newton's method); a fixed rate overshoots on a thousand rows and leaves the probabilities
  // uncalibrated (a mean P(right) of 0.45 where 0.69 of the answers were right).
  const lr = new LogisticRegression({ numSteps: 20000, learningRate: 1 / inputs.length });
  lr.train(new Matrix(inputs), Matrix.columnVector(labels));
  // classifiers[0] is trained on "not class 0", i.e. on class 1.
  return lr.classifiers[0]!.weights.to1DArray();
}
