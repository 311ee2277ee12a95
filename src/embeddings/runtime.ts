// The CLIP runtime: loads CLIP_MODEL (a local folder in the transformers.js layout, or a Hugging
// Face model id downloaded once into DATA_DIR/models) with @huggingface/transformers on
// onnxruntime-node (CPU), and embeds images and texts into L2-normalised float32 vectors.
//
// Threading: a worker thread (runtime-worker.ts) owns the tokenizer and both ONNX sessions, so
// neither inference nor tokenisation nor tensor building ever runs on the HTTP event loop. Images
// are resized and centre-cropped here with sharp (preprocess.ts: asynchronous, on libuv threads) and only the
// small model-sized RGB bytes are sent to the worker (transferred, not copied; the vectors come
// back the same way and each caller gets a view of the returned buffer). Calls are queued per
// item; an idle worker gets the items of the current tick at once, and while the worker is busy
// items accumulate and go to it in micro-batches of up to `maxBatch` (the batch-16 throughput is
// several times batch-1), so batching costs a lone query nothing.
// The queue is bounded: past `maxQueue` waiting items a call is refused at once with a 503
// (AppError 'service_unavailable', Retry-After) instead of queueing without limit.

import os from "node:os";
import { Worker } from "node:worker_threads";
import type { Config } from "../platform/config.js";
import { AppError } from "../platform/errors/catalogue.js";
import type { LoadedInfo, ProgressEvent, WorkerRequest, WorkerResponse } from "./runtime-worker.js";
import type { DecodedImage, EmbeddingModel, EmbeddingStats, ModelFingerprint, PreprocessSpec } from "./types.js";

export type { DecodedImage, EmbeddingModel, EmbeddingStats, ModelFingerprint, PreprocessSpec } from "./types.js";
export {
  DTYPE_SUFFIX,
  EmbeddingModelLoadError,
  resolveModelSource,
  sha256File,
  type ModelDtype,
  type ModelSource,
} from "./model-source.js";
export { l2normalize, normalizeToChw, parsePreprocessorConfig, readPreprocessSpec, resizeForModel, toPixelTensor } from "./preprocess.js";
import { EmbeddingModelLoadError, resolveModelSource, type ModelDtype } from "./model-source.js";
import { channelsOf, resizeForModel } from "./preprocess.js";

/** Tuning knobs of the runtime; every field has a default. */
export interface RuntimeOptions {
  /** onnxruntime intra-op threads per session. Default: the number of CPUs, at most 4. */
  threads?: number;
  /**
   * Let onnxruntime's idle threads spin-wait for work. Default false: on a machine shared with the
   * HTTP event loop (or other processes) spinning burns CPU they need and, measured on 2 cores,
   * halves batch throughput under load; on an otherwise idle machine it is ~15% faster, so a
   * dedicated re-indexing process may turn it on.
   */
  spinning?: boolean;
  /** Largest micro-batch sent to the model. Default 16. */
  maxBatch?: number;
  /**
   * How long the first item of an idle runtime waits for others to join its batch. Default 0: an
   * idle runtime dispatches at the end of the current tick (calls made together share a batch; a
   * lone query waits for nothing); under load items gather while the running batch finishes.
   */
  batchWindowMs?: number;
  /** Most items (images + texts) allowed to wait; beyond it calls are refused. Default 128. */
  maxQueue?: number;
  /** ONNX weights variant (transformers.js dtype: file suffix). Default "fp32". */
  dtype?: ModelDtype;
  /** Receives download progress lines for Hugging Face ids. Default: written to stderr. */
  onProgress?: (line: string) => void;
}

/** Default intra-op thread count: all CPUs, at most 4 (more gives little for ViT-B/32). */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

interface Pending {
  seq: number;
  resolve: (v: Float32Array) => void;
  reject: (e: unknown) => void;
}
interface PendingImage extends Pending {
  pixels: Promise<Uint8Array>;
}
interface PendingText extends Pending {
  text: string;
}
interface Batch {
  id: number;
  items: Pending[];
  done: Promise<void>;
  finish: () => void;
  kind: "image" | "text";
  /** performance.now() when the batch was posted to the worker (inference time = result - sentAt). */
  sentAt: number;
}

/** One finished model batch, for metrics: input kind, items and seconds spent in the worker. */
export interface InferenceEvent {
  kind: "image" | "text";
  items: number;
  seconds: number;
}

function spawnWorker(): Worker {
  const here = new URL(import.meta.url);
  if (here.pathname.endsWith(".ts")) {
    // Running under tsx: register its loader inside the worker before importing the TypeScript entry.
    const entry = new URL("./runtime-worker.ts", here).href;
    const api = import.meta.resolve("tsx/esm/api");
    const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true, name: "clip-runtime" });
  }
  return new Worker(new URL("./runtime-worker.js", here), { name: "clip-runtime" });
}

function busyError(queued: number, limit: number): AppError {
  return new AppError("service_unavailable", "The embedding model is busy; try again shortly.", { queued, limit }, { "Retry-After": "1" });
}

/**
 * An EmbeddingModel whose sessions live in a worker thread, fed through a bounded micro-batching
 * queue. Create it with `loadEmbeddingModel`.
 */
export class WorkerEmbeddingModel implements EmbeddingModel {
  readonly fingerprint: ModelFingerprint;
  /** What the worker reported at load (model type, timings, files hashed). */
  readonly info: LoadedInfo;
  readonly preprocess: PreprocessSpec;
  private readonly maxBatch: number;
  private readonly batchWindowMs: number;
  private readonly maxQueue: number;
  private readonly images: PendingImage[] = [];
  private readonly texts: PendingText[] = [];
  private inFlight: Batch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private tickScheduled = false;
  private seq = 0;
  private batchId = 0;
  private state: "open" | "closing" | "failed" = "open";
  private readonly counters = { batches: 0, items: 0, largestBatch: 0, refused: 0 };
  private readonly inferenceListeners = new Set<(e: InferenceEvent) => void>();

  /** @internal Use `loadEmbeddingModel`. */
  constructor(
    private readonly worker: Worker,
    info: LoadedInfo,
    modelId: string,
    revision: string,
    options: Required<Pick<RuntimeOptions, "maxBatch" | "batchWindowMs" | "maxQueue">>,
  ) {
    this.info = info;
    this.preprocess = info.preprocess;
    this.fingerprint = Object.freeze({ id: modelId, revision, dim: info.dim, hash: info.hash });
    this.maxBatch = options.maxBatch;
    this.batchWindowMs = options.batchWindowMs;
    this.maxQueue = options.maxQueue;
    worker.on("message", (m: WorkerResponse) => this.onMessage(m));
    worker.on("error", (e) => this.fail(`the model worker crashed: ${e.message}`));
    worker.on("exit", (code) => {
      if (this.state !== "closing") this.fail(`the model worker exited (code ${code})`);
    });
    worker.unref();
  }

  /** The batching and queue limits in force (callers embedding many items should send at most `maxQueue` at a time). */
  get limits(): { maxBatch: number; maxQueue: number; batchWindowMs: number } {
    return { maxBatch: this.maxBatch, maxQueue: this.maxQueue, batchWindowMs: this.batchWindowMs };
  }

  get dim(): number {
    return this.fingerprint.dim;
  }

  /** False once the runtime worker failed or the model is closing (readiness checks). */
  get usable(): boolean {
    return this.state === "open";
  }

  /** Calls `fn` after every successful batch with its inference time; returns the unsubscribe function. */
  onInference(fn: (e: InferenceEvent) => void): () => void {
    this.inferenceListeners.add(fn);
    return () => this.inferenceListeners.delete(fn);
  }

  /** Queue and batch counters. */
  stats(): EmbeddingStats {
    return {
      queued: this.images.length + this.texts.length,
      inFlight: this.inFlight?.items.length ?? 0,
      ...this.counters,
    };
  }

  async embedImages(images: readonly DecodedImage[]): Promise<Float32Array[]> {
    this.admit(images.length);
    if (images.length === 0) return [];
    for (const image of images) channelsOf(image); // a bad buffer fails the whole call before anything is queued
    const promises = images.map((image) => {
      const pixels = resizeForModel(image, this.preprocess);
      pixels.catch(() => undefined); // handled when the batch is assembled
      return new Promise<Float32Array>((resolve, reject) => {
        this.images.push({ seq: this.seq++, resolve, reject, pixels });
      });
    });
    this.schedule(this.images.length);
    return Promise.all(promises);
  }

  async embedTexts(texts: readonly string[]): Promise<Float32Array[]> {
    this.admit(texts.length);
    if (texts.length === 0) return [];
    for (const t of texts) if (typeof t !== "string") throw new TypeError("embedTexts takes strings");
    const promises = texts.map(
      (text) =>
        new Promise<Float32Array>((resolve, reject) => {
          this.texts.push({ seq: this.seq++, resolve, reject, text });
        }),
    );
    this.schedule(this.texts.length);
    return Promise.all(promises);
  }

  async close(): Promise<void> {
    if (this.state === "closing") return;
    const wasOpen = this.state === "open";
    this.state = "closing";
    clearTimeout(this.timer);
    this.timer = undefined;
    const closing = new AppError("model_unavailable", "The embedding model is shutting down.");
    for (const item of [...this.images.splice(0), ...this.texts.splice(0)]) item.reject(closing);
    const running = this.inFlight;
    if (running) {
      // Let the running batch finish (its callers get their vectors), but not forever.
      const stuck = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 10_000).unref());
      if ((await Promise.race([running.done, stuck])) === "timeout") {
        running.items.forEach((item) => item.reject(closing));
        await this.worker.terminate();
        return;
      }
    }
    if (wasOpen) {
      this.worker.ref();
      const exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
      this.worker.postMessage({ type: "close" } satisfies WorkerRequest);
      const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 5000).unref());
      if ((await Promise.race([exited, timeout])) === "timeout") await this.worker.terminate();
    } else {
      await this.worker.terminate();
    }
  }

  // -------------------------------------------------------------- queue

  /** Refuses work when closed, failed or when `n` more items would overflow the queue. */
  private admit(n: number): void {
    if (this.state !== "open") {
      throw new AppError("model_unavailable", this.state === "closing" ? "The embedding model is shutting down." : undefined);
    }
    const queued = this.images.length + this.texts.length;
    if (queued + n > this.maxQueue) {
      this.counters.refused++;
      throw busyError(queued, this.maxQueue);
    }
  }

  /**
   * Dispatches when the worker is idle: at once for a full batch, else at the end of the current
   * tick (a microtask, so calls made together still share a batch but a lone query waits for
   * nothing), or after `batchWindowMs` when a window is configured. While a batch runs, items
   * wait and the finishing batch dispatches the next one (batching only under load).
   */
  private schedule(queuedOfKind: number): void {
    if (this.inFlight) return; // the batch in flight dispatches the next one when it finishes
    if (queuedOfKind >= this.maxBatch) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.dispatch();
    } else if (this.batchWindowMs <= 0) {
      if (this.tickScheduled) return;
      this.tickScheduled = true;
      queueMicrotask(() => {
        this.tickScheduled = false;
        this.dispatch();
      });
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.dispatch();
      }, this.batchWindowMs);
    }
  }

  /** Sends the next batch: up to `maxBatch` items of the kind whose oldest item waited longest. */
  private dispatch(): void {
    if (this.inFlight || this.state !== "open") return;
    const headImage = this.images[0]?.seq ?? Infinity;
    const headText = this.texts[0]?.seq ?? Infinity;
    if (headImage === Infinity && headText === Infinity) return;
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const id = ++this.batchId;
    if (headImage < headText) {
      const items = this.images.splice(0, this.maxBatch);
      this.inFlight = { id, items, done, finish, kind: "image", sentAt: performance.now() };
      this.worker.ref();
      void this.sendImages(id, items);
    } else {
      const items = this.texts.splice(0, this.maxBatch);
      this.inFlight = { id, items, done, finish, kind: "text", sentAt: performance.now() };
      this.worker.ref();
      this.worker.postMessage({ type: "texts", id, texts: items.map((i) => i.text) } satisfies WorkerRequest);
    }
  }

  private async sendImages(id: number, items: PendingImage[]): Promise<void> {
    const settled = await Promise.allSettled(items.map((i) => i.pixels));
    const ok: PendingImage[] = [];
    const pixels: Uint8Array[] = [];
    settled.forEach((s, k) => {
      if (s.status === "fulfilled") {
        ok.push(items[k]!);
        pixels.push(s.value);
      } else items[k]!.reject(s.reason);
    });
    const batch = this.inFlight;
    if (!batch || batch.id !== id) return; // failed meanwhile; items already rejected
    if (this.state !== "open") {
      const closing = new AppError("model_unavailable", "The embedding model is shutting down.");
      for (const item of ok) item.reject(closing);
      this.finishBatch();
      return;
    }
    batch.items = ok;
    if (ok.length === 0) {
      this.finishBatch();
      return;
    }
    const size = this.preprocess.width * this.preprocess.height * 3;
    const joined = new Uint8Array(size * ok.length);
    pixels.forEach((p, k) => joined.set(p, k * size));
    batch.sentAt = performance.now(); // after preprocessing: the metric is the worker's inference time
    this.worker.postMessage({ type: "images", id, pixels: joined, count: ok.length } satisfies WorkerRequest, [joined.buffer]);
  }

  private onMessage(m: WorkerResponse): void {
    if (m.type === "result" || m.type === "error") {
      const batch = this.inFlight;
      if (!batch || batch.id !== m.id) return;
      if (m.type === "result") {
        // Views into the buffer the worker transferred: no copy on either side of the boundary.
        batch.items.forEach((item, k) => item.resolve(m.vectors.subarray(k * m.dim, (k + 1) * m.dim)));
        this.counters.batches++;
        this.counters.items += batch.items.length;
        this.counters.largestBatch = Math.max(this.counters.largestBatch, batch.items.length);
        const event: InferenceEvent = { kind: batch.kind, items: batch.items.length, seconds: (performance.now() - batch.sentAt) / 1000 };
        for (const listener of this.inferenceListeners) {
          try {
            listener(event);
          } catch {
            // a metrics listener never breaks embedding
          }
        }
      } else {
        const err = new Error(`embedding failed: ${m.message}`);
        for (const item of batch.items) item.reject(err);
      }
      this.finishBatch();
    }
  }

  private finishBatch(): void {
    const batch = this.inFlight;
    this.inFlight = undefined;
    batch?.finish();
    if (this.state !== "open") return;
    if (this.images.length + this.texts.length > 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.dispatch(); // these items already waited for the previous batch
    } else {
      this.worker.unref();
    }
  }

  private fail(reason: string): void {
    if (this.state !== "open") return;
    this.state = "failed";
    clearTimeout(this.timer);
    const err = new AppError("model_unavailable", undefined, { reason });
    const batch = this.inFlight;
    this.inFlight = undefined;
    for (const item of [...(batch?.items ?? []), ...this.images.splice(0), ...this.texts.splice(0)]) item.reject(err);
    batch?.finish();
  }
}

function progressPrinter(modelId: string, cacheDir: string, write: (line: string) => void): (e: ProgressEvent) => void {
  let lastShown = -1;
  let lastFile = "";
  const mb = (n: number) => (n / 1e6).toFixed(1);
  return (e) => {
    if (e.status === "progress_total" && e.total) {
      const step = Math.floor(e.progress / 10);
      if (step === lastShown) return;
      lastShown = step;
      write(`Downloading ${modelId} into ${cacheDir}: ${e.progress.toFixed(0)}% (${mb(e.loaded)}/${mb(e.total)} MB)`);
    } else if (e.status === "download" && e.file && e.file !== lastFile) {
      lastFile = e.file;
      write(`Downloading ${modelId}/${e.file} into ${cacheDir} ...`);
    }
  };
}

/**
 * Loads and warms up the configured model (`config.model`: CLIP_MODEL and DATA_DIR/models) in a
 * worker thread. Throws EmbeddingModelLoadError — naming the CLIP_MODEL tried and how to point it
 * at a local folder — when no model can be loaded. Callers check `config.model.disabled` first.
 */
export async function loadEmbeddingModel(
  model: Pick<Config["model"], "id" | "cacheDir">,
  options: RuntimeOptions = {},
): Promise<WorkerEmbeddingModel> {
  const source = await resolveModelSource(model.id, model.cacheDir);
  const dtype = options.dtype ?? "fp32";
  const threads = options.threads ?? defaultThreads();
  const write = options.onProgress ?? ((line: string) => process.stderr.write(line + "\n"));
  const onProgress = source.kind === "hub" ? progressPrinter(source.id, source.cacheDir, write) : () => undefined;

  let worker: Worker;
  try {
    worker = spawnWorker();
  } catch (e) {
    throw new EmbeddingModelLoadError(model.id, `the model worker could not start: ${(e as Error).message}`);
  }
  const info = await new Promise<LoadedInfo>((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the model worker exited (code ${code}) while loading`));
    const onError = (e: Error) => reject(e);
    const onMessage = (m: WorkerResponse) => {
      if (m.type === "progress") onProgress(m.event);
      else if (m.type === "loaded" || m.type === "load-error") {
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (m.type === "loaded") resolve(m.info);
        else reject(new Error(m.message));
      }
    };
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    worker.postMessage({ type: "load", source, threads, spinning: options.spinning ?? false, dtype } satisfies WorkerRequest);
  }).catch(async (e: unknown) => {
    await worker.terminate();
    throw new EmbeddingModelLoadError(model.id, (e as Error).message);
  });

  return new WorkerEmbeddingModel(worker, info, model.id, source.kind === "hub" ? "main" : "local", {
    maxBatch: options.maxBatch ?? 16,
    batchWindowMs: options.batchWindowMs ?? 0,
    maxQueue: options.maxQueue ?? 128,
  });
}
