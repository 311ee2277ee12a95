// Where a CLIP model comes from and how its files are named and identified: a local folder in the
// transformers.js layout or a Hugging Face id (checked before anything loads, without network
// access), the ONNX weight variants, and the streamed file hash the model fingerprint uses.
// Shared by the runtime (runtime.ts) and its worker thread (runtime-worker.ts).
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";

/** A model to load: a local folder, or a Hugging Face id downloaded once into cacheDir. */
export type ModelSource = { kind: "folder"; dir: string } | { kind: "hub"; id: string; cacheDir: string };

/** transformers.js dtypes and the ONNX file suffix each selects. */
export const DTYPE_SUFFIX = {
  fp32: "",
  fp16: "_fp16",
  q8: "_quantized",
  int8: "_int8",
  uint8: "_uint8",
  q4: "_q4",
  q4f16: "_q4f16",
  bnb4: "_bnb4",
} as const;
export type ModelDtype = keyof typeof DTYPE_SUFFIX;

/** The model could not be loaded; the message says which CLIP_MODEL was tried and how to fix it. */
export class EmbeddingModelLoadError extends Error {
  override name = "EmbeddingModelLoadError";
  constructor(
    readonly modelId: string,
    readonly reason: string,
  ) {
    super(
      `Could not load the CLIP model CLIP_MODEL="${modelId}": ${reason}\n` +
        `Point CLIP_MODEL at a local model folder in the transformers.js layout (config.json, preprocessor_config.json, ` +
        `tokenizer.json, onnx/text_model.onnx, onnx/vision_model.onnx), e.g. CLIP_MODEL=/srv/models/clip-vit-base-patch32 ` +
        `(download it once on a machine with internet access), or create the tiny test model with ` +
        `\`npm run make:test-model -- --out ./data/models/test-clip\` and set CLIP_MODEL=./data/models/test-clip. ` +
        `Set MODEL_DISABLED=true to start without a model.`,
    );
  }
}

const HUB_ID = /^[\w.-]+(\/[\w.-]+)?$/;

/**
 * Decides whether `id` is a local folder (it exists as a directory, or looks like a path) or a
 * Hugging Face model id. A path that does not exist fails here, without any network access.
 */
export async function resolveModelSource(id: string, cacheDir: string): Promise<ModelSource> {
  const resolved = path.resolve(id);
  const info = await stat(resolved).catch(() => undefined);
  if (info?.isDirectory()) {
    for (const required of ["config.json", "preprocessor_config.json", "tokenizer.json"]) {
      if (!(await stat(path.join(resolved, required)).catch(() => undefined))?.isFile()) {
        throw new EmbeddingModelLoadError(id, `the folder ${resolved} has no ${required}.`);
      }
    }
    return { kind: "folder", dir: resolved };
  }
  if (info) throw new EmbeddingModelLoadError(id, `${resolved} is a file, not a model folder.`);
  const looksLikePath = path.isAbsolute(id) || id.startsWith(".") || id.startsWith("~") || id.includes("\\");
  if (looksLikePath || !HUB_ID.test(id) || id.includes("..") || id.includes("--")) {
    throw new EmbeddingModelLoadError(id, `no such folder: ${resolved}.`);
  }
  return { kind: "hub", id, cacheDir: path.resolve(cacheDir) };
}

/** sha256 (hex) of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 22 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
