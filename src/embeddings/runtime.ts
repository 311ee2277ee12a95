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
//
// Parallel lanes under load (`parallelWorkers`): one worker whose sessions use every thread gives
// the lowest latency to a lone call, but under load its threads meet at a barrier after every
// operator, so any other thread that takes a core (the HTTP event loop, image decoding, another
// process) stalls both of them. When images pile up (bulk indexing), the runtime instead spreads
// batches over single-threaded workers (each with its own copy of the model, started the first
// time images pile up), which never wait for each other. At most one kind of lane runs at a time
// — the many-threaded worker or the single-threaded ones — so the model never has more threads at
// work than the machine has cores. Texts stay on the main worker unless the parallel lanes are
// already running (see dispatch()). Measured on 2 cores with a full-size CLIP (docs/operations.md "The
// embedding model").
// The queue is bounded: past `maxQueue` waiting items a call is refused at once with a 503
// (AppError 'service_unavailable', Retry-After) instead of queueing without limit.

import os from "node:os";
import { Worker, type Transferable } from "node:worker_threads";
import type { Config } from "../platform/config.js";
import { AppError, messageOf } from "../platform/errors/catalogue.js";
import type { LoadedInfo, ProgressEvent, WorkerRequest, WorkerResponse } from "./runtime-worker.js";
import type { DecodedImage, EmbeddingModel, EmbeddingStats, ModelFingerprint, PreprocessSpec } from "./types.js";
import "./errors.js"; // registers the error codes thrown here

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
import { EmbeddingModelLoadError, resolveModelSource, type ModelDtype, type ModelSource } from "./model-source.js";
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
   * Under concurrent load, how long the free main worker holds a batch that is smaller than the
   * recent concurrency (the most calls waiting or running at once in the last one to two seconds)
   * for the others to arrive. Default 25 (DEFAULT_BATCH_WAIT_MS); 0 never holds. A lone caller
   * (concurrency 1) is never held: an idle runtime dispatches at the end of the current tick. See
   * `schedule()`.
   */
  batchWaitMs?: number;
  /** Most items (images + texts) allowed to wait; beyond it calls are refused. Default 128. */
  maxQueue?: number;
  /**
   * Single-threaded workers that take batches in parallel while calls pile up (0: none, every batch
   * goes to the one worker with `threads` threads). Each holds its own copy of the model; they are
   * started the first time images pile up. Default 0 here; the service's default is
   * `defaultParallelWorkers()` (MODEL_PARALLEL_WORKERS sets it).
   */
  parallelWorkers?: number;
  /**
   * Available memory in bytes (default `os.freemem()`, MemAvailable on Linux). The parallel workers
   * start only while it holds twice their expected size (each as large as the main worker).
   */
  freeMemory?: () => number;
  /** The parallel workers are stopped (their memory freed) after this long without a batch. Default 60,000. */
  parallelIdleMs?: number;
  /** ONNX weights variant (transformers.js dtype: file suffix). Default "fp32". */
  dtype?: ModelDtype;
  /** Receives download progress lines for Hugging Face ids. Default: written to stderr. */
  onProgress?: (line: string) => void;
  /** Receives why the parallel workers could not start. Default: written to stderr. */
  onWarning?: (line: string) => void;
}

/** Default intra-op thread count: all CPUs, at most 4 (more gives little for ViT-B/32). */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/** The service's default parallel workers: one per default thread, so they use the same cores; none on one CPU. */
export function defaultParallelWorkers(): number {
  const threads = defaultThreads();
  return threads >= 2 ? threads : 0;
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

/** A model worker and the batch it runs, if any. */
interface Lane {
  worker: Worker;
  batch: Batch | undefined;
  /** Being stopped after idling: its exit is expected. */
  retired?: boolean;
  /**
   * Settles when the worker answers the batch last posted to it (or exits), also a batch whose
   * callers fail() already answered. A worker terminated while onnxruntime runs a batch aborts the
   * whole process (the run's completion calls into the torn-down thread: "terminate called after
   * throwing an instance of 'Napi::Error'"), so close() waits for this before terminating one.
   */
  running?: Promise<void>;
  answered?: () => void;
}

/** Recent concurrency is the peak number of calls in the current and previous bucket of this length. */
const DEMAND_BUCKET_MS = 1000;

/** How long close() waits for a batch in a worker before giving it up as stuck. */
const STUCK_MS = 10_000;

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

/** Spawns a model worker and loads the model into it with `threads` intra-op threads. */
async function startWorker(
  source: ModelSource,
  threads: number,
  spinning: boolean,
  dtype: ModelDtype,
  onProgress: (e: ProgressEvent) => void,
): Promise<{ worker: Worker; info: LoadedInfo }> {
  const worker = spawnWorker();
  try {
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
      worker.postMessage({ type: "load", source, threads, spinning, dtype } satisfies WorkerRequest);
    });
    return { worker, info };
  } catch (e) {
    await worker.terminate();
    throw e;
  }
}

/** Whether `promise` settles within `ms` (it must not reject). */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref());
  return Promise.race([promise.then(() => true), timeout]);
}

function busyError(queued: number, limit: number): AppError {
  return new AppError("service_unavailable", "The embedding model is busy; try again shortly.", { queued, limit }, { "Retry-After": "1" });
}

/** Starts the single-threaded parallel workers of a model (see `RuntimeOptions.parallelWorkers`). */
export type ParallelStarter = () => Promise<{ worker: Worker; info: LoadedInfo }>;

/**
 * An EmbeddingModel whose sessions live in worker threads, fed through a bounded micro-batching
 * queue. Create it with `loadEmbeddingModel`.
 */
export class WorkerEmbeddingModel implements EmbeddingModel {
  readonly fingerprint: ModelFingerprint;
  /** What the worker reported at load (model type, timings, files hashed). */
  readonly info: LoadedInfo;
  readonly preprocess: PreprocessSpec;
  private readonly maxBatch: number;
  private readonly batchWaitMs: number;
  private readonly maxQueue: number;
  private readonly images: PendingImage[] = [];
  private readonly texts: PendingText[] = [];
  /** The worker with every thread: lone calls, and everything while there are no parallel lanes. */
  private readonly main: Lane;
  /** Single-threaded lanes, used while calls pile up; empty until started. */
  private parallel: Lane[] = [];
  private readonly parallelCount: number;
  private parallelState: "off" | "idle" | "starting" | "ready" | "failed";
  private parallelStarting: Promise<void> | undefined;
  private parallelIdleTimer: NodeJS.Timeout | undefined;
  /** Parallel workers being stopped after idling (close() waits for them). */
  private retiring: Promise<unknown> = Promise.resolve();
  /** Dispatches a batch held by `holdForCallers` when its wait is over. */
  private timer: NodeJS.Timeout | undefined;
  /** performance.now() since when the free main worker has held a short batch. */
  private holdSince: number | undefined;
  /** Calls (embedImages/embedTexts) waiting or running now. */
  private callers = 0;
  /** Peak of `callers` in the current bucket and the one before (recent concurrency). */
  private demand = { since: 0, peak: 0, previous: 0 };
  private tickScheduled = false;
  private seq = 0;
  private batchId = 0;
  private state: "open" | "closing" | "failed" = "open";
  private readonly counters = { batches: 0, items: 0, largestBatch: 0, refused: 0, parallelBatches: 0 };
  private readonly inferenceListeners = new Set<(e: InferenceEvent) => void>();

  /** @internal Use `loadEmbeddingModel`. */
  constructor(
    worker: Worker,
    info: LoadedInfo,
    modelId: string,
    revision: string,
    options: Required<Pick<RuntimeOptions, "maxBatch" | "batchWaitMs" | "maxQueue" | "parallelWorkers">>,
    private readonly startParallel?: ParallelStarter,
    private readonly warn: (line: string) => void = () => undefined,
    /** What loading the main worker added to this process's memory: the size expected of each parallel worker. */
    private readonly workerBytes = 0,
    private readonly freeMemory: () => number = () => os.freemem(),
    private readonly parallelIdleMs = 60_000,
  ) {
    this.info = info;
    this.preprocess = info.preprocess;
    this.fingerprint = Object.freeze({ id: modelId, revision, dim: info.dim, hash: info.hash });
    this.maxBatch = options.maxBatch;
    this.batchWaitMs = options.batchWaitMs;
    this.maxQueue = options.maxQueue;
    this.parallelCount = startParallel ? options.parallelWorkers : 0;
    this.parallelState = this.parallelCount >= 2 ? "idle" : "off";
    this.main = this.attach(worker);
  }

  /** The batching and queue limits in force (callers embedding many items should send at most `maxQueue` at a time). */
  get limits(): { maxBatch: number; maxQueue: number; batchWaitMs: number; parallelWorkers: number } {
    return { maxBatch: this.maxBatch, maxQueue: this.maxQueue, batchWaitMs: this.batchWaitMs, parallelWorkers: this.parallelCount };
  }

  get dim(): number {
    return this.fingerprint.dim;
  }

  /** False once a runtime worker failed or the model is closing (readiness checks). */
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
      inFlight: this.lanes().reduce((n, lane) => n + (lane.batch?.items.length ?? 0), 0),
      parallelWorkers: this.parallel.length,
      ...this.counters,
    };
  }

  /** Resolves once the parallel workers are started (or could not be); for tests and benchmarks. */
  async parallelReady(): Promise<boolean> {
    this.wantParallel();
    await this.parallelStarting;
    return this.parallelState === "ready";
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
    return this.enter(Promise.all(promises));
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
    return this.enter(Promise.all(promises));
  }

  async close(): Promise<void> {
    if (this.state === "closing") return;
    const wasOpen = this.state === "open";
    this.state = "closing";
    clearTimeout(this.timer);
    this.timer = undefined;
    const closing = new AppError("model_unavailable", "The embedding model is shutting down.");
    for (const item of [...this.images.splice(0), ...this.texts.splice(0)]) item.reject(closing);
    clearTimeout(this.parallelIdleTimer);
    await this.parallelStarting; // a worker still loading is closed with the others
    await this.retiring;
    await Promise.all(this.lanes().map((lane) => this.closeLane(lane, wasOpen, closing)));
  }

  private async closeLane(lane: Lane, wasOpen: boolean, closing: AppError): Promise<void> {
    // Let the running batch finish (its callers get their vectors) and the worker answer any batch
    // it was given (fail() answers callers early; see Lane.running), but not forever.
    const batch = lane.batch;
    if (!(await settlesWithin(Promise.all([batch?.done, lane.running]), STUCK_MS))) {
      batch?.items.forEach((item) => item.reject(closing));
      await lane.worker.terminate();
      return;
    }
    if (wasOpen) {
      lane.worker.ref();
      const exited = new Promise<void>((resolve) => lane.worker.once("exit", () => resolve()));
      lane.worker.postMessage({ type: "close" } satisfies WorkerRequest);
      if (!(await settlesWithin(exited, 5000))) await lane.worker.terminate();
    } else {
      await lane.worker.terminate();
    }
  }

  /** Posts a batch to a lane's worker; `lane.running` settles when it answers. */
  private post(lane: Lane, message: WorkerRequest, transfer: Transferable[] = []): void {
    lane.running = new Promise<void>((resolve) => (lane.answered = resolve));
    lane.worker.postMessage(message, transfer);
  }

  /** The lane's worker answered its batch (or exited). */
  private settled(lane: Lane): void {
    lane.answered?.();
    lane.running = undefined;
    lane.answered = undefined;
  }

  // -------------------------------------------------------------- lanes

  private lanes(): Lane[] {
    return [this.main, ...this.parallel];
  }

  private attach(worker: Worker): Lane {
    const lane: Lane = { worker, batch: undefined };
    worker.on("message", (m: WorkerResponse) => this.onMessage(lane, m));
    worker.on("error", (e) => this.fail(`the model worker crashed: ${e.message}`));
    worker.on("exit", (code) => {
      this.settled(lane);
      if (this.state !== "closing" && !lane.retired) this.fail(`the model worker exited (code ${code})`);
    });
    worker.unref();
    return lane;
  }

  /** Starts the parallel workers in the background the first time calls pile up. */
  private wantParallel(): void {
    if (this.parallelState !== "idle" || !this.startParallel) return;
    const needed = 2 * this.parallelCount * this.workerBytes;
    const free = this.freeMemory();
    if (free < needed) {
      this.parallelState = "failed";
      const gb = (n: number) => (n / 2 ** 30).toFixed(1);
      this.warn(
        `The ${this.parallelCount} parallel model workers were not started: they need about ${gb(needed / 2)} GB of memory ` +
          `and ${gb(free)} GB is available (twice their size is required); every batch goes to the one worker. ` +
          `MODEL_PARALLEL_WORKERS=0 turns them off.`,
      );
      return;
    }
    this.parallelState = "starting";
    const start = this.startParallel;
    this.parallelStarting = (async () => {
      const started = await Promise.allSettled(Array.from({ length: this.parallelCount }, () => start()));
      const workers = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
      const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
      const foreign = workers.find((w) => w.info.hash !== this.fingerprint.hash || w.info.dim !== this.fingerprint.dim);
      if (failed || foreign || this.state !== "open") {
        await Promise.all(workers.map((w) => w.worker.terminate()));
        this.parallelState = "failed";
        if (this.state === "open") {
          const why = failed ? messageOf(failed.reason) : "the model files changed on disk since the first worker loaded them";
          this.warn(`The ${this.parallelCount} parallel model workers could not start (${why}); every batch goes to the one worker.`);
        }
        return;
      }
      this.parallel = workers.map((w) => this.attach(w.worker));
      this.parallelState = "ready";
      this.retireWhenIdle();
      this.dispatch();
    })();
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
   * Dispatches when a lane may take work: at once for a full batch, else at the end of the current
   * tick (a microtask, so calls made together still share a batch but a lone query waits for
   * nothing). While batches run, items wait and a finishing batch dispatches the next one
   * (batching only under load); dispatch() may then hold a short batch (see `holdForCallers`).
   */
  private schedule(queuedOfKind: number): void {
    if (this.main.batch) {
      if (this.images.length > 0) this.wantParallel(); // images pile up behind the running batch
      return; // it dispatches the next one when it finishes
    }
    if (queuedOfKind >= this.maxBatch) {
      this.dispatch();
    } else if (!this.tickScheduled) {
      this.tickScheduled = true;
      queueMicrotask(() => {
        this.tickScheduled = false;
        this.dispatch();
      });
    }
  }

  /** Counts a call as waiting or running until it settles, and keeps the recent peak of such calls. */
  private enter<T>(call: Promise<T>): Promise<T> {
    this.callers++;
    const now = performance.now();
    const age = now - this.demand.since;
    if (age >= DEMAND_BUCKET_MS) this.demand = { since: now, peak: 0, previous: age < 2 * DEMAND_BUCKET_MS ? this.demand.peak : 0 };
    this.demand.peak = Math.max(this.demand.peak, this.callers);
    return call.finally(() => this.callers--);
  }

  /**
   * Whether the free main worker should hold a batch of `queued` items for more callers. Under a
   * closed loop of N clients (each sends its next search when the last one is answered), sending
   * whatever waits as soon as the worker is free splits the clients into groups that take turns in
   * small batches, and a text costs the model more CPU in a small batch (measured: batches of 6.5
   * on average under 16 clients, ~1.4× the CPU per text of batch 16). So while the recent peak of
   * concurrent callers is above what waits, the worker waits up to `batchWaitMs` from the moment it
   * could have started, and a timer dispatches whatever is there then. A caller alone is never
   * held, and a wait that runs out lowers the estimate to the calls there are (see the timer).
   */
  private holdForCallers(queued: number): boolean {
    const wanted = Math.min(this.maxBatch, Math.max(this.demand.peak, this.demand.previous));
    if (this.batchWaitMs <= 0 || queued >= wanted) return false;
    const now = performance.now();
    this.holdSince ??= now;
    const left = this.holdSince + this.batchWaitMs - now;
    if (left <= 0) return false;
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        // The wait ran out: the concurrency seen earlier is gone (a burst that ended), so the
        // estimate falls to the calls there are now and the next lone call is not held.
        this.demand.peak = this.demand.previous = this.callers;
        this.dispatch();
      }, left);
    }
    return true;
  }

  /**
   * Hands out the queue, oldest kind first. Two or more waiting images start parallel mode: they
   * are spread over the free parallel lanes, and while any parallel lane runs, texts go to a free
   * one too. Otherwise everything goes to the main worker, up to `maxBatch` (texts under load
   * included: spread over single-threaded lanes, 16 clients ran in batches of ~3 at 19.7 ms per text
   * against 7.5 ms at batch 16 on the main worker). Never both kinds of lane at once.
   */
  private dispatch(): void {
    while (this.state === "open" && !this.main.batch) {
      const headImage = this.images[0]?.seq ?? Infinity;
      const headText = this.texts[0]?.seq ?? Infinity;
      if (headImage === Infinity && headText === Infinity) return;
      const kind = headImage < headText ? "image" : "text";
      const queue: Pending[] = kind === "image" ? this.images : this.texts;
      if (this.images.length >= 2) this.wantParallel();
      const parallelBusy = this.parallel.some((lane) => lane.batch);
      if (!parallelBusy && (kind === "text" || this.images.length < 2 || this.parallel.length === 0)) {
        if (this.holdForCallers(queue.length)) return;
        this.send(this.main, kind, queue.splice(0, this.maxBatch));
        return;
      }
      const free = this.parallel.filter((lane) => !lane.batch);
      if (free.length === 0) return; // the first parallel lane to finish takes what waits
      const share = Math.min(this.maxBatch, Math.ceil(queue.length / free.length));
      this.counters.parallelBatches++;
      this.send(free[0]!, kind, queue.splice(0, share));
    }
  }

  private send(lane: Lane, kind: "image" | "text", items: Pending[]): void {
    if (lane === this.main) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.holdSince = undefined;
    }
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const id = ++this.batchId;
    lane.batch = { id, items, done, finish, kind, sentAt: performance.now() };
    lane.worker.ref();
    if (kind === "image") void this.sendImages(lane, id, items as PendingImage[]);
    else this.post(lane, { type: "texts", id, texts: (items as PendingText[]).map((i) => i.text) });
  }

  private async sendImages(lane: Lane, id: number, items: PendingImage[]): Promise<void> {
    const settled = await Promise.allSettled(items.map((i) => i.pixels));
    const ok: PendingImage[] = [];
    const pixels: Uint8Array[] = [];
    settled.forEach((s, k) => {
      if (s.status === "fulfilled") {
        ok.push(items[k]!);
        pixels.push(s.value);
      } else items[k]!.reject(s.reason);
    });
    const batch = lane.batch;
    if (!batch || batch.id !== id) return; // failed meanwhile; items already rejected
    if (this.state !== "open") {
      const closing = new AppError("model_unavailable", "The embedding model is shutting down.");
      for (const item of ok) item.reject(closing);
      this.finishBatch(lane);
      return;
    }
    batch.items = ok;
    if (ok.length === 0) {
      this.finishBatch(lane);
      return;
    }
    const size = this.preprocess.width * this.preprocess.height * 3;
    const joined = new Uint8Array(size * ok.length);
    pixels.forEach((p, k) => joined.set(p, k * size));
    batch.sentAt = performance.now(); // after preprocessing: the metric is the worker's inference time
    this.post(lane, { type: "images", id, pixels: joined, count: ok.length }, [joined.buffer]);
  }

  private onMessage(lane: Lane, m: WorkerResponse): void {
    if (m.type === "result" || m.type === "error") {
      this.settled(lane);
      const batch = lane.batch;
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
      this.finishBatch(lane);
    }
  }

  private finishBatch(lane: Lane): void {
    const batch = lane.batch;
    lane.batch = undefined;
    lane.worker.unref();
    batch?.finish();
    if (this.state !== "open") return;
    if (this.images.length + this.texts.length > 0) this.dispatch(); // these items waited for the previous batch
    if (lane !== this.main && this.parallel.length > 0) this.retireWhenIdle();
  }

  /** (Re)arms the timer that stops the parallel workers once none has had a batch for `parallelIdleMs`. */
  private retireWhenIdle(): void {
    clearTimeout(this.parallelIdleTimer);
    this.parallelIdleTimer = setTimeout(() => {
      if (this.state !== "open" || this.parallel.some((l) => l.batch)) return; // a later batch re-arms it
      const idle = this.parallel;
      this.parallel = [];
      this.parallelState = "idle"; // started again by the next backlog of images
      for (const lane of idle) lane.retired = true;
      this.retiring = Promise.all([this.retiring, ...idle.map((lane) => this.closeLane(lane, true, new AppError("model_unavailable")))]);
    }, this.parallelIdleMs).unref();
  }

  private fail(reason: string): void {
    if (this.state !== "open") return;
    this.state = "failed";
    clearTimeout(this.timer);
    const err = new AppError("model_unavailable", undefined, { reason });
    const running = this.lanes().flatMap((lane) => {
      const batch = lane.batch;
      lane.batch = undefined;
      return batch ? [batch] : [];
    });
    for (const item of [...running.flatMap((b) => b.items), ...this.images.splice(0), ...this.texts.splice(0)]) item.reject(err);
    for (const batch of running) batch.finish();
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
 * How long the free main worker holds a short batch under concurrent load, at most (holdForCallers;
 * MODEL_BATCH_WAIT_MS). After a batch, the searches it answered finish their other stages one
 * after another on the event loop (~1.3–1.9 ms each under 16 clients, bench:index), so the last of
 * 16 clients sends its next query ~25 ms after the first: held 10 ms, batches under 16 clients
 * held 10.8–12.0 texts on average; held 25 ms, 14.8–15.1 (docs/benchmarks.md, eighteenth session).
 */
const DEFAULT_BATCH_WAIT_MS = 25;

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

  const spinning = options.spinning ?? false;
  const rssBefore = process.memoryUsage().rss;
  const { worker, info } = await startWorker(source, threads, spinning, dtype, onProgress).catch((e: unknown) => {
    throw new EmbeddingModelLoadError(model.id, (e as Error).message);
  });
  const parallelWorkers = options.parallelWorkers ?? 0;
  const startParallel: ParallelStarter | undefined =
    parallelWorkers >= 2 ? () => startWorker(source, 1, spinning, dtype, () => undefined) : undefined;
  return new WorkerEmbeddingModel(
    worker,
    info,
    model.id,
    source.kind === "hub" ? "main" : "local",
    {
      maxBatch: options.maxBatch ?? 16,
      batchWaitMs: options.batchWaitMs ?? DEFAULT_BATCH_WAIT_MS,
      maxQueue: options.maxQueue ?? 128,
      parallelWorkers,
    },
    startParallel,
    options.onWarning ?? ((line: string) => process.stderr.write(line + "\n")),
    // The process's growth while the worker loaded, at least the model files' size (the growth
    // reads 0 when the load reused memory the process had freed before).
    Math.max(process.memoryUsage().rss - rssBefore, info.fileBytes),
    options.freeMemory,
    options.parallelIdleMs,
  );
}
