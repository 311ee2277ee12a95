// Loads the model the configuration names. An explicitly configured CLIP_MODEL that cannot be
// loaded stops start-up (EmbeddingModelLoadError names it and says how to fix it). With
// CLIP_MODEL unset, the default hub model is tried; on a machine that cannot download it the
// service starts on the built-in tiny test model (generated into DATA_DIR/models) and warns
// loudly, so `npm install && npm start` works offline while search quality is for testing only.
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../platform/config.js";
import { defaultParallelWorkers, loadEmbeddingModel, type RuntimeOptions } from "./runtime.js";
import { TEST_MODEL_VERSION, writeTestModel } from "./testmodel/build.js";
import type { EmbeddingModel } from "./types.js";

export interface LoadLog {
  warn(message: string): void;
}

/** Writes the tiny test model into `dir` unless a complete copy of this version is there. */
export async function ensureTestModel(dir: string): Promise<string> {
  const marker = path.join(dir, ".shopsight-test-model");
  if (fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === String(TEST_MODEL_VERSION)) return dir;
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  await writeTestModel(tmp);
  fs.writeFileSync(path.join(tmp, ".shopsight-test-model"), String(TEST_MODEL_VERSION));
  fs.rmSync(dir, { recursive: true, force: true });
  try {
    fs.renameSync(tmp, dir);
  } catch (e) {
    // Another process won the race with an identical copy.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(marker)) throw e;
  }
  return dir;
}

export async function loadConfiguredModel(
  model: Config["model"],
  log: LoadLog,
  options: RuntimeOptions = {},
): Promise<EmbeddingModel | null> {
  if (model.disabled) return null;
  options = {
    parallelWorkers: model.parallelWorkers ?? defaultParallelWorkers(),
    ...(model.batchWaitMs !== undefined && { batchWaitMs: model.batchWaitMs }),
    onWarning: (line) => log.warn(line),
    ...options,
  };
  try {
    return await loadEmbeddingModel(model, options);
  } catch (error) {
    if (model.explicit) throw error;
    const dir = await ensureTestModel(path.join(model.cacheDir, `shopsight-tiny-clip-v${TEST_MODEL_VERSION}`));
    log.warn(
      `CLIP_MODEL is unset and ${model.id} could not be loaded (${(error as Error).message.split("\n")[0]}). ` +
        `Starting with the built-in TINY TEST MODEL at ${dir}: it only knows coarse colours, so search results ` +
        `are for trying the service out. Set CLIP_MODEL to a real CLIP model folder for production.`,
    );
    return loadEmbeddingModel({ id: dir, cacheDir: model.cacheDir }, options);
  }
}
