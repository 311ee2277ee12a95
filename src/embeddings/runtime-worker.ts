// The model worker: owns the tokenizer and the two ONNX sessions (transformers.js on
// onnxruntime-node, CPU) and answers one batch at a time. Started by runtime.ts; never imported
// by the main thread except for its types.

import { stat } from "node:fs/promises";
import path from "node:path";
import { createHash } from "node:crypto";
import { parentPort } from "node:worker_threads";
import { DTYPE_SUFFIX, sha256File, type ModelDtype, type ModelSource } from "./model-source.js";
import { normalizeToChw, parsePreprocessorConfig } from "./preprocess.js";
import type { PreprocessSpec } from "./types.js";
import { messageOf } from "../platform/errors/catalogue.js";

/** Where the model comes from. */
export type { ModelSource } from "./model-source.js";

/** Download progress, as reported by transformers.js (the fields the runtime uses). */
export interface ProgressEvent {
  status: string;
  file?: string;
  progress: number;
  loaded: number;
  total: number;
}

/** What the worker reports once the model is loaded and warmed up. */
export interface LoadedInfo {
  modelType: string;
  dim: number;
  hash: string;
  /** Files that went into `hash`, relative to the model folder. */
  hashedFiles: string[];
  /** Their total size in bytes: the least memory a worker holding the model takes. */
  fileBytes: number;
  preprocess: PreprocessSpec;
  loadMs: number;
  hashMs: number;
  warmupMs: number;
  threads: number;
  spinning: boolean;
}

export type WorkerRequest =
  | { type: "load"; source: ModelSource; threads: number; spinning: boolean; dtype: ModelDtype }
  /** `count` images of the model's input size, interleaved RGB bytes, back to back. */
  | { type: "images"; id: number; pixels: Uint8Array; count: number }
  | { type: "texts"; id: number; texts: string[] }
  | { type: "close" };

export type WorkerResponse =
  | { type: "progress"; event: ProgressEvent }
  | { type: "loaded"; info: LoadedInfo }
  | { type: "load-error"; message: string }
  /** `vectors` holds one L2-normalised row of `dim` floats per input, in order. */
  | { type: "result"; id: number; vectors: Float32Array; dim: number }
  | { type: "error"; id: number; message: string };

// transformers.js model classes are typed loosely (callables returning `any`); this is the part used.
type ModelOutput = Record<string, { data: unknown; dims: number[] } | undefined>;
interface CallableModel {
  (inputs: Record<string, unknown>): Promise<ModelOutput>;
  dispose(): Promise<unknown>;
}
type Tokenize = (texts: string[], options: Record<string, unknown>) => Record<string, unknown>;

interface Family {
  text: "CLIPTextModelWithProjection" | "SiglipTextModel";
  vision: "CLIPVisionModelWithProjection" | "SiglipVisionModel";
  textOutputs: string[];
  imageOutputs: string[];
  tokenizerOptions: Record<string, unknown>;
}

/** Model families with separate text and vision ONNX models, by config.model_type. */
const FAMILIES: Record<string, Family> = {
  clip: {
    text: "CLIPTextModelWithProjection",
    vision: "CLIPVisionModelWithProjection",
    textOutputs: ["text_embeds"],
    imageOutputs: ["image_embeds"],
    tokenizerOptions: { padding: true, truncation: true },
  },
  siglip: {
    text: "SiglipTextModel",
    vision: "SiglipVisionModel",
    textOutputs: ["pooler_output", "text_embeds"],
    imageOutputs: ["pooler_output", "image_embeds"],
    tokenizerOptions: { padding: "max_length", truncation: true },
  },
};

interface Loaded {
  tokenize: Tokenize;
  text: CallableModel;
  vision: CallableModel;
  family: Family;
  spec: PreprocessSpec;
  makeTensor: (type: "float32", data: Float32Array, dims: number[]) => unknown;
  dim: number;
}

let loaded: Loaded | undefined;

function post(message: WorkerResponse, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message, transfer);
}

/** Picks the first present output, checks it is [rows, dim] float32 and returns normalised rows. */
function embeddings(out: ModelOutput, names: string[], rows: number): { vectors: Float32Array; dim: number } {
  const t = names.map((n) => out[n]).find((x) => x !== undefined);
  if (!t) throw new Error(`the model gave none of the outputs ${names.join(", ")} (it gave ${Object.keys(out).join(", ")})`);
  if (!(t.data instanceof Float32Array) || t.dims.length !== 2 || t.dims[0] !== rows) {
    throw new Error(`unexpected embedding output of shape [${t.dims.join(", ")}]`);
  }
  const dim = t.dims[1]!;
  const vectors = new Float32Array(t.data); // own copy: the output tensor may be reused
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = r * dim; j < (r + 1) * dim; j++) s += vectors[j]! * vectors[j]!;
    if (s > 0) {
      const inv = 1 / Math.sqrt(s);
      for (let j = r * dim; j < (r + 1) * dim; j++) vectors[j] = vectors[j]! * inv;
    }
  }
  return { vectors, dim };
}

async function embedTexts(m: Loaded, texts: string[]): Promise<{ vectors: Float32Array; dim: number }> {
  const inputs = m.tokenize(texts, m.family.tokenizerOptions);
  return embeddings(await m.text(inputs), m.family.textOutputs, texts.length);
}

async function embedPixels(m: Loaded, pixels: Uint8Array, count: number): Promise<{ vectors: Float32Array; dim: number }> {
  const { width, height } = m.spec;
  const size = width * height * 3;
  if (pixels.length !== size * count) throw new Error(`expected ${count} images of ${width}x${height}`);
  const chw = new Float32Array(count * size);
  for (let k = 0; k < count; k++) normalizeToChw(pixels.subarray(k * size, (k + 1) * size), m.spec, chw, k * size);
  const out = await m.vision({ pixel_values: m.makeTensor("float32", chw, [count, 3, height, width]) });
  return embeddings(out, m.family.imageOutputs, count);
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() ?? false;
}

async function load(source: ModelSource, threads: number, spinning: boolean, dtype: ModelDtype): Promise<LoadedInfo> {
  const started = performance.now();
  const T = await import("@huggingface/transformers");
  const { env } = T;
  env.logLevel = T.LogLevel.ERROR;
  let ref: string;
  let dir: string;
  if (source.kind === "folder") {
    // A folder: never touch the network. An absolute path is not a valid hub id, so transformers.js
    // reads `<path>/<file>` directly.
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = "/";
    ref = source.dir;
    dir = source.dir;
  } else {
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.useFSCache = true;
    env.cacheDir = source.cacheDir;
    ref = source.id;
    dir = path.join(source.cacheDir, source.id); // transformers.js FileCache layout (revision "main")
  }
  const suffix = DTYPE_SUFFIX[dtype];
  const onnxFiles = [`onnx/text_model${suffix}.onnx`, `onnx/vision_model${suffix}.onnx`];
  const cached = (await Promise.all(onnxFiles.map((f) => exists(path.join(dir, f))))).every(Boolean);
  const progress_callback =
    source.kind === "hub" && !cached
      ? (e: { status: string; file?: string; progress?: number; loaded?: number; total?: number }) =>
          post({
            type: "progress",
            event: { status: e.status, file: e.file, progress: e.progress ?? 0, loaded: e.loaded ?? 0, total: e.total ?? 0 },
          })
      : undefined;
  const common = progress_callback ? { progress_callback } : {};

  // Fingerprint: sha256 over the ONNX graphs, the preprocessor config and the tokenizer. Runs
  // while the sessions are created (for a folder model; a download must finish first).
  const fingerprint = async (): Promise<{ hash: string; hashedFiles: string[]; fileBytes: number; hashMs: number }> => {
    const hashStarted = performance.now();
    const hashedFiles: string[] = [];
    let fileBytes = 0;
    const outer = createHash("sha256");
    for (const rel of [...onnxFiles, ...onnxFiles.map((f) => `${f}_data`), "preprocessor_config.json", "tokenizer.json"]) {
      const file = path.join(dir, rel);
      if (!(await exists(file))) continue;
      hashedFiles.push(rel);
      fileBytes += (await stat(file)).size;
      outer.update(`${rel}:${await sha256File(file)}\n`);
    }
    if (!onnxFiles.every((f) => hashedFiles.includes(f))) {
      throw new Error(`could not find ${onnxFiles.join(" and ")} under ${dir} to fingerprint them`);
    }
    return { hash: outer.digest("hex"), hashedFiles, fileBytes, hashMs: performance.now() - hashStarted };
  };
  const early = source.kind === "folder" ? fingerprint() : undefined;
  early?.catch(() => undefined);

  const config = (await T.AutoConfig.from_pretrained(ref, common)) as unknown as { model_type?: string };
  const modelType = config.model_type ?? "(none)";
  const family = FAMILIES[modelType];
  if (!family) {
    throw new Error(
      `config.json has model_type "${modelType}"; supported: ${Object.keys(FAMILIES).join(", ")} (models with separate text and vision ONNX files).`,
    );
  }
  const tokenizer = await T.AutoTokenizer.from_pretrained(ref, common);
  const processor = await T.AutoImageProcessor.from_pretrained(ref, common);
  const spec = parsePreprocessorConfig((processor as unknown as { config: Record<string, unknown> }).config);
  const modelOptions = {
    ...common,
    dtype,
    device: "cpu" as const,
    session_options: {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: "sequential" as const,
      graphOptimizationLevel: "all" as const,
      extra: { session: { intra_op: { allow_spinning: spinning ? "1" : "0" } } },
    },
  };
  const [textModel, visionModel] = await Promise.all([
    T[family.text].from_pretrained(ref, modelOptions),
    T[family.vision].from_pretrained(ref, modelOptions),
  ]);
  const text = textModel as unknown as CallableModel;
  const vision = visionModel as unknown as CallableModel;
  const { hash, hashedFiles, fileBytes, hashMs } = await (early ?? fingerprint());
  const loadMs = performance.now() - started;

  const m: Loaded = {
    tokenize: tokenizer,
    text,
    vision,
    family,
    spec,
    makeTensor: (type, data, dims) => new T.Tensor(type, data, dims),
    dim: 0,
  };
  const warmStarted = performance.now();
  const t = await embedTexts(m, ["a photo of a red dress"]);
  const v = await embedPixels(m, new Uint8Array(spec.width * spec.height * 3).fill(128), 1);
  const warmupMs = performance.now() - warmStarted;
  if (t.dim !== v.dim) throw new Error(`text embeddings have ${t.dim} dimensions but image embeddings ${v.dim}`);
  m.dim = v.dim;
  loaded = m;
  return { modelType, dim: m.dim, hash, hashedFiles, fileBytes, preprocess: spec, loadMs, hashMs, warmupMs, threads, spinning };
}

function describe(e: unknown): string {
  const msg = messageOf(e);
  return msg.length > 600 ? msg.slice(0, 600) + "…" : msg;
}

// One request at a time, in arrival order.
let chain: Promise<void> = Promise.resolve();

parentPort!.on("message", (req: WorkerRequest) => {
  chain = chain.then(async () => {
    switch (req.type) {
      case "load":
        try {
          post({ type: "loaded", info: await load(req.source, req.threads, req.spinning, req.dtype) });
        } catch (e) {
          let message = describe(e);
          if (req.source.kind === "hub" && /fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|network/i.test(message)) {
            message = `could not download it from https://huggingface.co (${message}) and no complete copy is cached in ${req.source.cacheDir}.`;
          }
          post({ type: "load-error", message });
        }
        break;
      case "images":
      case "texts":
        try {
          if (!loaded) throw new Error("the model is not loaded");
          const r = req.type === "images" ? await embedPixels(loaded, req.pixels, req.count) : await embedTexts(loaded, req.texts);
          post({ type: "result", id: req.id, vectors: r.vectors, dim: r.dim }, [r.vectors.buffer as ArrayBuffer]);
        } catch (e) {
          post({ type: "error", id: req.id, message: describe(e) });
        }
        break;
      case "close":
        await Promise.allSettled([loaded?.text.dispose(), loaded?.vision.dispose()]);
        loaded = undefined;
        parentPort!.close();
        break;
    }
  });
});
