// The CLIP runtime, exercised with the generated tiny model: loading and fail-fast errors,
// batching, the bounded queue, shutdown, fingerprints and image preprocessing.
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { AppError } from "../platform/errors/catalogue.js";
import {
  EmbeddingModelLoadError,
  loadEmbeddingModel,
  normalizeToChw,
  parsePreprocessorConfig,
  resizeForModel,
  toPixelTensor,
  type RuntimeOptions,
  type WorkerEmbeddingModel,
} from "./runtime.js";
import { writeTestModel } from "./testmodel/build.js";
import { TEST_COLOURS, cosine, solidImage, variedImage } from "./fixtures.js";
import { fingerprintKey, sameEmbeddingSpace, type DecodedImage } from "./types.js";

let root: string;
let modelDir: string;
let model: WorkerEmbeddingModel;
let images: DecodedImage[];
const TEXTS = ["red", "a navy blue shirt", "Green Dress", "cotton socks", "white sneakers", "a purple bag", "beige", "teal"];

function assertClose(a: Float32Array, b: Float32Array, tol = 1e-5): void {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i]! - b[i]!) <= tol, `component ${i}: ${a[i]} vs ${b[i]}`);
}

async function rejectsWith(p: Promise<unknown>, check: (e: unknown) => boolean): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(check(e), `unexpected error: ${String(e)}`);
    return true;
  });
}

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "shopsight-runtime-"));
  modelDir = path.join(root, "tiny-clip");
  await writeTestModel(modelDir);
  model = await loadEmbeddingModel({ id: modelDir, cacheDir: path.join(root, "cache") });
  images = await Promise.all([
    solidImage(TEST_COLOURS.red!),
    solidImage(TEST_COLOURS.blue!, { width: 200, height: 480, seed: 2 }),
    variedImage(1),
    variedImage(2),
    variedImage(3),
    solidImage(TEST_COLOURS.yellow!, { width: 1000, height: 90, seed: 3 }),
  ]);
});

after(async () => {
  await model?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("embedding", () => {
  test("gives one L2-normalised vector of the model's dimension per input, in order", async () => {
    const iv = await model.embedImages(images);
    const tv = await model.embedTexts(TEXTS);
    assert.equal(iv.length, images.length);
    assert.equal(tv.length, TEXTS.length);
    for (const v of [...iv, ...tv]) {
      assert.ok(v instanceof Float32Array);
      assert.equal(v.length, model.fingerprint.dim);
      assert.ok(Math.abs(cosine(v, v) - 1) < 1e-5);
    }
    assert.deepEqual(await model.embedImages([]), []);
    assert.deepEqual(await model.embedTexts([]), []);
  });

  test("a batch gives the same vectors as one call per input", async () => {
    const batchImages = await model.embedImages(images);
    const batchTexts = await model.embedTexts(TEXTS);
    for (const [i, image] of images.entries()) assertClose((await model.embedImages([image]))[0]!, batchImages[i]!);
    for (const [i, text] of TEXTS.entries()) assertClose((await model.embedTexts([text]))[0]!, batchTexts[i]!);
  });

  test("micro-batches concurrent calls and hands each caller the vector of its own input", async () => {
    const singleImages = await Promise.all(images.map(async (im) => (await model.embedImages([im]))[0]!));
    const singleTexts: Float32Array[] = [];
    for (const t of TEXTS) singleTexts.push((await model.embedTexts([t]))[0]!);

    const before = model.stats();
    // Interleaved single-item calls, all issued in the same tick.
    const calls: Promise<{ kind: "image" | "text"; index: number; vector: Float32Array }>[] = [];
    for (let k = 0; k < Math.max(images.length, TEXTS.length); k++) {
      if (k < TEXTS.length) calls.push(model.embedTexts([TEXTS[k]!]).then(([v]) => ({ kind: "text", index: k, vector: v! })));
      if (k < images.length) calls.push(model.embedImages([images[k]!]).then(([v]) => ({ kind: "image", index: k, vector: v! })));
    }
    const results = await Promise.all(calls);
    const after = model.stats();
    for (const r of results) assertClose(r.vector, r.kind === "image" ? singleImages[r.index]! : singleTexts[r.index]!);
    // All texts went in one batch and all images in another.
    assert.equal(after.batches - before.batches, 2);
    assert.equal(after.items - before.items, images.length + TEXTS.length);
    assert.ok(after.largestBatch >= TEXTS.length);
  });

  test("splits more items than the batch size into several batches", async () => {
    const many = Array.from({ length: 40 }, (_, i) => `${["red", "blue", "green", "black"][i % 4]} shirt ${i}`);
    const before = model.stats();
    const vectors = await model.embedTexts(many);
    const after = model.stats();
    assert.equal(vectors.length, 40);
    assert.equal(after.batches - before.batches, 3); // 16 + 16 + 8
    assertClose(vectors[5]!, (await model.embedTexts([many[5]!]))[0]!);
  });

  test("refuses an image whose buffer does not match its size, queueing nothing", async () => {
    const before = model.stats();
    await assert.rejects(model.embedImages([images[0]!, { rgb: new Uint8Array(10), width: 4, height: 4 }]), TypeError);
    assert.equal(model.stats().queued, 0);
    assert.equal(model.stats().items, before.items);
  });
});

describe("holding a batch for concurrent callers", () => {
  // A long wait, so that "held" never depends on the machine's speed; the hold ends by its callers arriving.
  const WAIT_MS = 500;
  let held: WorkerEmbeddingModel;
  before(async () => {
    held = await loadEmbeddingModel({ id: modelDir, cacheDir: path.join(root, "cache") }, { batchWaitMs: WAIT_MS, threads: 1 });
  });
  after(async () => held?.close());

  test("an idle runtime sends a lone call to the model within the same tick, and gathers calls while a batch runs", async () => {
    const before = held.stats();
    const lone = held.embedTexts(["red"]);
    await null; // one microtask: no timer has had a chance to fire
    assert.equal(held.stats().inFlight, 1, "a lone caller is not held");
    const waiting = [held.embedTexts(["blue"]), held.embedTexts(["green"]), held.embedTexts(["white"])];
    assert.equal(held.stats().queued, 3, "later calls wait for the running batch");
    // Four callers were waiting or running at once: when the first batch ends, the three that
    // waited are held for the fourth, which sends its next call as soon as it has its answer.
    const next = lone.then(() => {
      assert.equal(held.stats().inFlight, 0, "the three waiting calls are held, not sent");
      assert.equal(held.stats().queued, 3);
      return held.embedTexts(["black"]);
    });
    await Promise.all([next, ...waiting]);
    const after = held.stats();
    assert.equal(after.batches - before.batches, 2, "the three waiting calls and the fourth caller's next one went together");
    assert.equal(after.largestBatch, 4);
  });

  test("a wait that runs out sends what there is and lowers the estimate, so the next lone call is not held", async () => {
    // The last test saw four callers at once; a lone call now is held for the others...
    const lone = held.embedTexts(["navy"]);
    await null;
    assert.equal(held.stats().inFlight, 0, "held while the recent concurrency is four");
    assert.equal(held.stats().queued, 1);
    await lone; // ...until the wait runs out and the timer sends it
    const alone = held.embedTexts(["beige"]);
    await null;
    assert.equal(held.stats().inFlight, 1, "after a wait ran out, a lone call goes at once");
    await alone;
  });

  test("batchWaitMs 0 never holds", async () => {
    const never = await loadEmbeddingModel({ id: modelDir, cacheDir: path.join(root, "cache") }, { batchWaitMs: 0, threads: 1 });
    try {
      const first = never.embedTexts(["red"]);
      await null; // sent alone; the next two wait behind it
      const rest = [never.embedTexts(["blue"]), never.embedTexts(["green"])];
      await first;
      assert.equal(never.stats().inFlight, 2, "what waited is sent as soon as the first batch ends");
      await Promise.all(rest);
      assert.equal(never.limits.batchWaitMs, 0);
    } finally {
      await never.close();
    }
  });
});

describe("bounded queue and shutdown", () => {
  let small: WorkerEmbeddingModel;
  before(async () => {
    small = await loadEmbeddingModel({ id: modelDir, cacheDir: path.join(root, "cache") }, { maxQueue: 4, threads: 1 });
  });
  after(async () => small?.close());

  test("refuses work past the queue bound with a 503 and Retry-After instead of queueing it", async () => {
    const busy = (e: unknown) =>
      e instanceof AppError && e.code === "service_unavailable" && e.status === 503 && e.headers["Retry-After"] === "1";
    await rejectsWith(small.embedTexts(["a", "b", "c", "d", "e"]), busy);

    const first = small.embedTexts(["red", "green", "blue"]);
    const second = small.embedTexts(["black", "white"]); // 3 + 2 > 4 while the first still waits
    await rejectsWith(second, busy);
    assert.equal((await first).length, 3);
    assert.equal(small.stats().refused, 2);
    assert.equal((await small.embedTexts(["a", "b", "c", "d"])).length, 4); // room again once drained
  });

  test("close() refuses queued and later work with model_unavailable", async () => {
    const unavailable = (e: unknown) => e instanceof AppError && e.code === "model_unavailable" && e.status === 503;
    const queued = rejectsWith(small.embedTexts(["red"]), unavailable);
    await small.close();
    await queued;
    await rejectsWith(small.embedTexts(["red"]), unavailable);
    await rejectsWith(small.embedImages([images[0]!]), unavailable);
    await small.close(); // idempotent
  });
});

describe("worker failure", () => {
  test("a dead model worker turns pending and later calls into model_unavailable", async () => {
    const doomed = await loadEmbeddingModel({ id: modelDir, cacheDir: root }, { threads: 1 });
    const unavailable = (e: unknown) => e instanceof AppError && e.code === "model_unavailable";
    const pending = rejectsWith(doomed.embedTexts(["red"]), unavailable);
    // Simulate a crash of the native runtime: stop the worker behind the model's back.
    await (doomed as unknown as { main: { worker: { terminate(): Promise<number> } } }).main.worker.terminate();
    await pending;
    await rejectsWith(doomed.embedImages([images[0]!]), unavailable);
    await doomed.close();
  });
});

describe("parallel lanes under load", () => {
  let lanes: WorkerEmbeddingModel;
  before(async () => {
    lanes = await loadEmbeddingModel({ id: modelDir, cacheDir: path.join(root, "cache") }, { parallelWorkers: 2 });
  });
  after(async () => lanes?.close());

  test("start only when images pile up, and not for a lone call", async () => {
    await lanes.embedTexts(["red"]);
    await lanes.embedImages([images[0]!]);
    assert.equal(lanes.stats().parallelWorkers, 0, "no backlog yet: no parallel worker started");
    await lanes.embedImages(images.slice(0, 3)); // a burst: goes to the main worker while they start
    assert.ok(await lanes.parallelReady());
    assert.equal(lanes.stats().parallelWorkers, 2);
    assert.equal(lanes.limits.parallelWorkers, 2);
  });

  test("spread a burst of images over the parallel lanes, with the main worker's vectors; lone calls stay on the main worker", async () => {
    assert.ok(await lanes.parallelReady());
    const single: Float32Array[] = [];
    const beforeSingles = lanes.stats().parallelBatches;
    for (const image of images) single.push((await lanes.embedImages([image]))[0]!);
    for (const text of TEXTS.slice(0, 3)) await lanes.embedTexts([text]);
    assert.equal(lanes.stats().parallelBatches, beforeSingles, "one call at a time never leaves the main worker");

    const before = lanes.stats();
    const burst = await lanes.embedImages(images); // 6 images: 3 + 3
    const after = lanes.stats();
    assert.equal(after.parallelBatches - before.parallelBatches, 2);
    assert.equal(after.batches - before.batches, 2);
    burst.forEach((v, i) => assertClose(v, single[i]!, 1e-4));
  });

  test("texts that arrive while parallel lanes run images wait for the first free lane, never for the main worker", async () => {
    const text = (await lanes.embedTexts(["a navy blue shirt"]))[0]!;
    const before = lanes.stats();
    const [imageVectors, textVectors] = await Promise.all([lanes.embedImages(images), lanes.embedTexts(["a navy blue shirt"])]);
    const after = lanes.stats();
    assert.equal(imageVectors.length, images.length);
    assertClose(textVectors[0]!, text, 1e-4);
    assert.equal(after.parallelBatches - before.parallelBatches, 3, "3 + 3 images, then the text on a parallel lane");
  });

  test("close() while the parallel workers are starting ends them too", async () => {
    const closing = await loadEmbeddingModel({ id: modelDir, cacheDir: path.join(root, "cache") }, { parallelWorkers: 2 });
    const burst = closing.embedImages(images.slice(0, 4)); // starts them
    await burst;
    await closing.close();
    assert.equal(closing.stats().parallelWorkers, 0, "workers that finished starting after close() were ended, not kept");
    await rejectsWith(closing.embedImages(images.slice(0, 2)), (e) => e instanceof AppError && e.code === "model_unavailable");
  });

  test("parallel workers stop after idling, freeing their memory, and start again at the next backlog", async () => {
    const brief = await loadEmbeddingModel({ id: modelDir, cacheDir: root }, { parallelWorkers: 2, parallelIdleMs: 200 });
    try {
      const single = await Promise.all(images.map(async (image) => (await brief.embedImages([image]))[0]!));
      assert.ok(await brief.parallelReady());
      await brief.embedImages(images);
      const deadline = Date.now() + 10_000;
      while (brief.stats().parallelWorkers > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(brief.stats().parallelWorkers, 0, "stopped after idling");
      assert.ok(brief.usable, "their exit is no failure");
      const before = brief.stats().parallelBatches;
      assert.ok(await brief.parallelReady(), "started again");
      const again = await brief.embedImages(images);
      assert.ok(brief.stats().parallelBatches > before);
      again.forEach((v, i) => assertClose(v, single[i]!, 1e-4));
    } finally {
      await brief.close();
    }
  });

  /**
   * Loads a copy of the model with parallel workers, spoils their start with `spoil` (run before
   * they start), and checks that they do not start, that one warning matching `warning` says so,
   * and that the main worker alone embeds every image.
   */
  async function refusedParallel(name: string, options: RuntimeOptions, spoil: (dir: string) => Promise<unknown>, warning: RegExp) {
    const dir = path.join(root, name);
    await cp(modelDir, dir, { recursive: true });
    const warnings: string[] = [];
    const m = await loadEmbeddingModel({ id: dir, cacheDir: root }, { parallelWorkers: 2, onWarning: (l) => warnings.push(l), ...options });
    try {
      await spoil(dir);
      assert.equal(await m.parallelReady(), false);
      assert.equal(warnings.length, 1, "said once");
      assert.match(warnings[0]!, warning);
      assert.equal((await m.embedImages(images)).length, images.length);
      assert.equal(m.stats().parallelWorkers, 0);
      assert.equal(m.stats().parallelBatches, 0);
    } finally {
      await m.close();
    }
  }

  test("parallel workers that cannot load are reported, and the main worker keeps serving", async () => {
    await refusedParallel(
      "vanishing",
      {},
      (dir) => rm(path.join(dir, "onnx"), { recursive: true }), // the files are gone when they start
      /2 parallel model workers could not start .*every batch goes to the one worker/,
    );
  });

  test("parallel workers are not started without twice their size of memory available", async () => {
    await refusedParallel(
      "tight",
      { freeMemory: () => 0 },
      async () => undefined,
      /2 parallel model workers were not started: they need about [\d.]+ GB of memory and 0\.0 GB is available/,
    );
  });

  test("parallel workers loading other model files than the main worker are not used", async () => {
    await refusedParallel(
      "edited",
      {},
      async (dir) => writeFile(path.join(dir, "tokenizer.json"), (await readFile(path.join(dir, "tokenizer.json"), "utf8")) + " "),
      /model files changed on disk/,
    );
  });

  test("a dead parallel worker turns pending and later calls into model_unavailable", async () => {
    const doomed = await loadEmbeddingModel({ id: modelDir, cacheDir: root }, { parallelWorkers: 2 });
    assert.ok(await doomed.parallelReady());
    const unavailable = (e: unknown) => e instanceof AppError && e.code === "model_unavailable";
    const pending = rejectsWith(doomed.embedImages(images), unavailable);
    type LaneView = { worker: { terminate(): Promise<number> }; running?: Promise<void> };
    const lanes = doomed as unknown as { main: LaneView; parallel: LaneView[] };
    await lanes.parallel[1]!.worker.terminate();
    // The other workers may still be running a batch of the burst, whose callers were answered:
    // close() terminates none of them before it answers (terminating a worker while onnxruntime
    // runs aborts the process; this test did so under CPU contention before).
    const midRun: string[] = [];
    for (const [name, lane] of [
      ["main", lanes.main],
      ["parallel 0", lanes.parallel[0]!],
    ] as const) {
      const terminate = lane.worker.terminate.bind(lane.worker);
      lane.worker.terminate = () => {
        if (lane.running) midRun.push(name);
        return terminate();
      };
    }
    await pending;
    await rejectsWith(doomed.embedTexts(["red"]), unavailable);
    await doomed.close();
    assert.deepEqual(midRun, [], "no worker terminated while its batch ran");
  });
});

describe("loading", () => {
  const documented = (id: string) => (e: unknown) =>
    e instanceof EmbeddingModelLoadError &&
    e.modelId === id &&
    e.message.includes(`CLIP_MODEL="${id}"`) &&
    e.message.includes("CLIP_MODEL=/") &&
    e.message.includes("npm run make:test-model -- --out");

  test("a missing folder fails fast, naming CLIP_MODEL and how to point it at a local folder", async () => {
    for (const id of [path.join(root, "does-not-exist"), "./no/such/model-folder"]) {
      await rejectsWith(
        loadEmbeddingModel({ id, cacheDir: path.join(root, "cache") }),
        (e) => documented(id)(e) && /no such folder/.test((e as Error).message),
      );
    }
  });

  test("a folder without model files fails with the documented message", async () => {
    const dir = path.join(root, "not-a-model");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "config.json"), "{}");
    await rejectsWith(
      loadEmbeddingModel({ id: dir, cacheDir: root }),
      (e) => documented(dir)(e) && (e as Error).message.includes("preprocessor_config.json"),
    );
  });

  test("an unsupported model type or a corrupt ONNX file fails with the documented message", async () => {
    const other = path.join(root, "bert-like");
    await cp(modelDir, other, { recursive: true });
    const config = JSON.parse(await readFile(path.join(other, "config.json"), "utf8")) as Record<string, unknown>;
    await writeFile(path.join(other, "config.json"), JSON.stringify({ ...config, model_type: "bert" }));
    await rejectsWith(
      loadEmbeddingModel({ id: other, cacheDir: root }),
      (e) => documented(other)(e) && (e as Error).message.includes('model_type "bert"'),
    );

    const corrupt = path.join(root, "corrupt");
    await cp(modelDir, corrupt, { recursive: true });
    await writeFile(path.join(corrupt, "onnx", "vision_model.onnx"), "not an onnx file");
    await rejectsWith(loadEmbeddingModel({ id: corrupt, cacheDir: root }), documented(corrupt));
  });

  test("the fingerprint is stable across loads and changes when a model file changes", async () => {
    const again = await loadEmbeddingModel({ id: modelDir, cacheDir: root }, { threads: 1 });
    try {
      assert.deepEqual(again.fingerprint, model.fingerprint);
      assert.equal(model.fingerprint.revision, "local");
      assert.equal(model.fingerprint.id, modelDir);
      assert.ok(sameEmbeddingSpace(again.fingerprint, model.fingerprint));
      assert.equal(fingerprintKey(model.fingerprint), `${model.fingerprint.hash.slice(0, 16)}/128`);
    } finally {
      await again.close();
    }
    const changed = path.join(root, "changed");
    await cp(modelDir, changed, { recursive: true });
    await writeFile(path.join(changed, "tokenizer.json"), (await readFile(path.join(changed, "tokenizer.json"), "utf8")) + " ");
    const other = await loadEmbeddingModel({ id: changed, cacheDir: root }, { threads: 1 });
    try {
      assert.notEqual(other.fingerprint.hash, model.fingerprint.hash);
      assert.ok(!sameEmbeddingSpace(other.fingerprint, model.fingerprint));
    } finally {
      await other.close();
    }
  });
});

describe("preprocessing", () => {
  const clipSpec = parsePreprocessorConfig({
    crop_size: { height: 224, width: 224 },
    do_center_crop: true,
    do_normalize: true,
    do_rescale: true,
    do_resize: true,
    image_mean: [0.48145466, 0.4578275, 0.40821073],
    image_std: [0.26862954, 0.26130258, 0.27577711],
    resample: 3,
    rescale_factor: 1 / 255,
    size: { shortest_edge: 224 },
  });

  test("reads CLIP and SigLIP preprocessor configs", () => {
    assert.deepEqual(clipSpec.resize, { shortestEdge: 224 });
    assert.deepEqual(clipSpec.crop, { width: 224, height: 224 });
    assert.equal(clipSpec.width, 224);
    const siglip = parsePreprocessorConfig({
      do_normalize: true,
      do_rescale: true,
      do_resize: true,
      image_mean: [0.5, 0.5, 0.5],
      image_std: [0.5, 0.5, 0.5],
      resample: 2,
      rescale_factor: 1 / 255,
      size: { height: 256, width: 256 },
    });
    assert.deepEqual(siglip.resize, { width: 256, height: 256 });
    assert.equal(siglip.crop, null);
    assert.deepEqual([siglip.width, siglip.height], [256, 256]);
    assert.throws(() => parsePreprocessorConfig({ size: { shortest_edge: 224 } }), /crop size/);
  });

  test("resizes the shortest edge, centre-crops and normalises into a CHW float tensor", async () => {
    // 896×448: left half red, right half blue → resized to 448×224, crop keeps x 112..335.
    const width = 896;
    const height = 448;
    const rgb = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) rgb.set(x < width / 2 ? [255, 0, 0] : [0, 0, 255], (y * width + x) * 3);
    }
    const { data, dims } = await toPixelTensor({ rgb, width, height }, clipSpec);
    assert.deepEqual(dims, [1, 3, 224, 224]);
    const n = 224 * 224;
    const at = (c: number, x: number, y: number) => data[c * n + y * 224 + x]!;
    const norm = (v: number, c: number) => (v / 255 - clipSpec.mean[c]!) / clipSpec.std[c]!;
    assert.ok(Math.abs(at(0, 10, 100) - norm(255, 0)) < 1e-5, "left of the crop is red");
    assert.ok(Math.abs(at(2, 10, 100) - norm(0, 2)) < 1e-5);
    assert.ok(Math.abs(at(2, 200, 100) - norm(255, 2)) < 1e-5, "right of the crop is blue");
    assert.ok(Math.abs(at(0, 200, 100) - norm(0, 0)) < 1e-5);
  });

  test("accepts RGBA and very small or very wide images", async () => {
    const rgba = { rgb: new Uint8Array(3 * 5 * 4).fill(200), width: 3, height: 5 };
    assert.equal((await resizeForModel(rgba, clipSpec)).length, 224 * 224 * 3);
    const wide = { rgb: new Uint8Array(2000 * 3 * 3).fill(7), width: 2000, height: 3 };
    const out = normalizeToChw(await resizeForModel(wide, clipSpec), clipSpec);
    assert.equal(out.length, 3 * 224 * 224);
    assert.ok(out.every(Number.isFinite));
  });
});
