// Which model is active, as the service names it to its users (issue 15): GET /v1/search/model,
// the X-Shopsight-Model header and /health/ready.
//   id            — CLIP_MODEL as configured: a hub id, or the folder's name for a local folder;
//                   the built-in tiny test model is "shopsight-tiny-test-model";
//   is_test_model — the built-in test model (colour histograms, no learnt meaning) is active.
import fs from "node:fs";
import path from "node:path";
import type { EmbeddingModel } from "./types.js";

export const TEST_MODEL_ID = "shopsight-tiny-test-model";

export interface ModelIdentity {
  id: string;
  is_test_model: boolean;
  dimensions: number;
}

const testModelDirs = new Map<string, boolean>();

/** True when `dir` holds the built-in test model (its marker file, or its config block). */
export function isTestModelDir(dir: string): boolean {
  let known = testModelDirs.get(dir);
  if (known === undefined) {
    known = fs.existsSync(path.join(dir, ".shopsight-test-model"));
    if (!known) {
      try {
        known = "shopsight_test_model" in JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8"));
      } catch {
        known = false;
      }
    }
    testModelDirs.set(dir, known);
  }
  return known;
}

/** The loaded model's identity, or the configured id (dimensions 0) when none is loaded. */
export function modelIdentity(model: EmbeddingModel | null, configuredId: string): ModelIdentity {
  const id = model?.fingerprint.id ?? configuredId;
  const isTest = model !== null && isTestModelDir(id);
  const local = path.isAbsolute(id) || id.startsWith(".");
  return { id: isTest ? TEST_MODEL_ID : local ? path.basename(id) : id, is_test_model: isTest, dimensions: model?.fingerprint.dim ?? 0 };
}
