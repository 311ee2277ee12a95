// `npm run bench:embed [-- --model DIR] [--threads N] [--spinning] [--images DIR] [--quick] [--no-compare] [--wait-quiet S]`
//
// Throughput and latency of the embedding runtime for the configured model, through the same code
// the service uses (runtime.ts: sharp resize → worker → onnxruntime): images/s and texts/s at
// batch 1 and batch 16, p50/p95 latency per call, concurrent single-item calls (micro-batching),
// event-loop delay on the main thread while the model works, load/warm-up time and peak RSS.
// Also compares the sharp preprocessing with transformers.js's own RawImage + processor path.
//
// Other processes skew the figures on a shared machine: each row shows how many CPU cores they
// used meanwhile (Linux), and --wait-quiet SECONDS waits for a quiet machine before each row.
//
// Model: --model DIR, else CLIP_MODEL (folder or hub id, with DATA_DIR/models as cache), else a
// freshly generated tiny test model. Images and texts: the fashion-products sample set when it is
// present (--images DIR, default ../shared/datasets/fashion-products next to the project), else
// generated images and phrases.
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import sharp from "sharp";
import { loadConfig } from "../src/platform/config.js";
import { loadEmbeddingModel, resizeForModel, normalizeToChw, type WorkerEmbeddingModel } from "../src/embeddings/runtime.js";
import { dominantColors } from "../src/embeddings/colors.js";
import { writeTestModel } from "../src/embeddings/testmodel/build.js";
import { variedImage } from "../src/embeddings/fixtures.js";
import { PLAIN_WORDS, PALETTE } from "../src/embeddings/testmodel/vocabulary.js";
import type { DecodedImage } from "../src/embeddings/types.js";

const { values: args } = parseArgs({
  options: {
    model: { type: "string" },
    threads: { type: "string" },
    spinning: { type: "boolean", default: false },
    images: { type: "string" },
    quick: { type: "boolean", default: false },
    "no-compare": { type: "boolean", default: false },
    "wait-quiet": { type: "string" },
  },
});

const quick = args.quick ?? false;
const ITER = quick ? { b1: 8, b16: 3, warm: 1 } : { b1: 40, b16: 10, warm: 3 };

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const rssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** Machine-wide busy CPU seconds from /proc/stat (Linux), to tell how much other processes interfered. */
function machineBusySeconds(): number | undefined {
  try {
    const v = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return (v[0]! + v[1]! + v[2]! + v[5]! + v[6]!) / 100;
  } catch {
    return undefined;
  }
}
const ownSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
/** Runs `fn` and returns its result with the average number of CPU cores other processes used meanwhile. */
async function withForeignLoad<T>(fn: () => Promise<T>): Promise<{ result: T; foreign: number | undefined }> {
  const m0 = machineBusySeconds();
  const o0 = ownSeconds();
  const t0 = performance.now();
  const result = await fn();
  const m1 = machineBusySeconds();
  const wall = (performance.now() - t0) / 1000;
  const foreign = m0 === undefined || m1 === undefined ? undefined : Math.max(0, (m1 - m0 - (ownSeconds() - o0)) / wall);
  return { result, foreign };
}

/** Waits (up to `maxS` seconds) until other processes use less than 0.15 cores. */
async function waitQuiet(maxS: number): Promise<void> {
  const started = performance.now();
  for (;;) {
    const { foreign } = await withForeignLoad(() => new Promise((r) => setTimeout(r, 2000)));
    if (foreign === undefined || foreign < 0.15 || (performance.now() - started) / 1000 > maxS) return;
  }
}

interface Row {
  foreign?: number | undefined;
  label: string;
  batch: number;
  calls: number;
  p50: number;
  p95: number;
  perS: number;
}

async function timeCalls(label: string, batch: number, warm: number, calls: number, fn: (i: number) => Promise<unknown>): Promise<Row> {
  if (args["wait-quiet"]) await waitQuiet(Number(args["wait-quiet"]));
  // Warm-up calls run inside the window whose foreign load is reported; they are not timed.
  const { result, foreign } = await withForeignLoad(() => measureCalls(label, batch, warm, calls, fn));
  return { ...result, foreign };
}

async function measureCalls(label: string, batch: number, warm: number, calls: number, fn: (i: number) => Promise<unknown>): Promise<Row> {
  for (let i = 0; i < warm; i++) await fn(i);
  const ms: number[] = [];
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await fn(warm + i);
    ms.push(performance.now() - t);
  }
  const total = performance.now() - started;
  return { label, batch, calls, p50: pct(ms, 50), p95: pct(ms, 95), perS: (batch * calls * 1000) / total };
}

// ------------------------------------------------------------------ inputs

function findDataset(): string | undefined {
  const candidates = [
    args.images,
    process.env.BENCH_DATASET_DIR,
    path.resolve("../shared/datasets/fashion-products"),
    "/work/shared/datasets/fashion-products",
  ];
  return candidates.find((d): d is string => !!d && existsSync(path.join(d, "products.jsonl")));
}

async function decodeFile(file: string): Promise<DecodedImage> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

async function loadInputs(count: number): Promise<{ images: DecodedImage[]; files: string[]; texts: string[]; source: string }> {
  const dataset = findDataset();
  if (dataset) {
    const products = readFileSync(path.join(dataset, "products.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { name: string; image: string })
      .filter((p) => existsSync(path.join(dataset, p.image)))
      .slice(0, count);
    const files = products.map((p) => path.join(dataset, p.image));
    const images = await Promise.all(files.map(decodeFile));
    return { images, files, texts: products.map((p) => p.name), source: `${dataset} (${images.length} JPEGs)` };
  }
  const images = await Promise.all(Array.from({ length: count }, (_, i) => variedImage(i + 1)));
  const texts = Array.from({ length: count }, (_, i) => {
    const colour = PALETTE[i % PALETTE.length]!.name;
    return `${PLAIN_WORDS[(i * 7) % PLAIN_WORDS.length]} ${colour} ${PLAIN_WORDS[(i * 13 + 5) % PLAIN_WORDS.length]} for men`;
  });
  return { images, files: [], texts, source: `generated (${count} images)` };
}

// ------------------------------------------------------------------ main

const config = loadConfig();
let tmp: string | undefined;
let modelRef: { id: string; cacheDir: string };
if (args.model) modelRef = { id: path.resolve(args.model), cacheDir: config.model.cacheDir };
else if (process.env.CLIP_MODEL) modelRef = { id: config.model.id, cacheDir: config.model.cacheDir };
else {
  tmp = await mkdtemp(path.join(os.tmpdir(), "shopsight-bench-model-"));
  await writeTestModel(tmp);
  modelRef = { id: tmp, cacheDir: config.model.cacheDir };
}

const inputs = await loadInputs(quick ? 64 : 400);
const rssBeforeLoad = rssMB();
const loadStarted = performance.now();
const model: WorkerEmbeddingModel = await loadEmbeddingModel(modelRef, {
  ...(args.threads ? { threads: Number(args.threads) } : {}),
  spinning: args.spinning ?? false,
  maxQueue: 1024,
});
const loadMs = performance.now() - loadStarted;
const rssAfterLoad = rssMB();

console.log(`model       ${modelRef.id}${tmp ? " (generated tiny test model)" : ""}`);
console.log(
  `            ${model.info.modelType}, ${model.fingerprint.dim}-d, hash ${model.fingerprint.hash.slice(0, 16)}…, ${model.info.threads} intra-op threads${model.info.spinning ? " (spinning)" : ""}`,
);
console.log(`inputs      ${inputs.source}; ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), node ${process.version}`);
console.log(
  `load        ${loadMs.toFixed(0)} ms (sessions ${model.info.loadMs.toFixed(0)} ms incl. hashing ${model.info.hashMs.toFixed(0)} ms in parallel, warm-up ${model.info.warmupMs.toFixed(0)} ms); RSS ${rssBeforeLoad} → ${rssAfterLoad} MB`,
);

const imgs = inputs.images;
const texts = inputs.texts;
const at = <T>(xs: T[], i: number): T => xs[i % xs.length]!;
const slice16 = <T>(xs: T[], i: number): T[] => Array.from({ length: 16 }, (_, k) => at(xs, i * 16 + k));

const rows: Row[] = [];
rows.push(await timeCalls("texts  batch 1", 1, ITER.warm, ITER.b1, (i) => model.embedTexts([at(texts, i)])));
rows.push(await timeCalls("texts  batch 16", 16, ITER.warm, ITER.b16 * 2, (i) => model.embedTexts(slice16(texts, i + 7))));
rows.push(await timeCalls("images batch 1", 1, ITER.warm, ITER.b1, (i) => model.embedImages([at(imgs, i)])));

// Image batch 16 with the main thread's event-loop delay recorded.
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
rows.push(await timeCalls("images batch 16", 16, ITER.warm, ITER.b16, (i) => model.embedImages(slice16(imgs, i + 3))));
loopDelay.disable();

// Concurrent single-item calls: what the micro-batcher makes of 64 simultaneous requests.
const concurrent = async (label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<Row> => {
  if (args["wait-quiet"]) await waitQuiet(Number(args["wait-quiet"]));
  const { result, foreign } = await withForeignLoad(() => concurrentCalls(label, n, fn));
  return { ...result, foreign };
};
const concurrentCalls = async (label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<Row> => {
  const round = async (offset: number, latencies: number[]) =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const t = performance.now();
        await fn(offset + i);
        latencies.push(performance.now() - t);
      }),
    );
  await round(0, []); // warm-up round
  const rounds = quick ? 1 : 4;
  const latencies: number[] = [];
  const started = performance.now();
  for (let r = 1; r <= rounds; r++) await round(r * n, latencies);
  const total = performance.now() - started;
  return {
    label: `${label} (×${rounds})`,
    batch: 1,
    calls: n * rounds,
    p50: pct(latencies, 50),
    p95: pct(latencies, 95),
    perS: (n * rounds * 1000) / total,
  };
};
rows.push(await concurrent("texts  64 concurrent calls of 1", 64, (i) => model.embedTexts([at(texts, i + 100)])));
rows.push(await concurrent("images 64 concurrent calls of 1", 64, (i) => model.embedImages([at(imgs, i + 100)])));

console.log(`\n| measure | batch | calls | p50 ms/call | p95 ms/call | items/s | other processes (cores) |\n|---|---|---|---|---|---|---|`);
for (const r of rows) {
  const foreign = r.foreign === undefined ? "?" : r.foreign.toFixed(2);
  console.log(`| ${r.label} | ${r.batch} | ${r.calls} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.perS.toFixed(1)} | ${foreign} |`);
}
console.log(
  `\nmain event loop during image batch 16: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms (timer resolution 5 ms)`,
);
console.log(`batches     ${JSON.stringify(model.stats())}`);

const peakRssModel = rssMB();
console.log(`peak RSS    ${peakRssModel} MB during the runs above (whole process: main thread + model worker)\n`);

// ------------------------------------------------------------------ preprocessing comparison
if (!args["no-compare"]) {
  const { AutoImageProcessor, RawImage, env } = await import("@huggingface/transformers");
  const isFolder = existsSync(modelRef.id);
  env.allowRemoteModels = !isFolder;
  env.localModelPath = "/";
  if (!isFolder) env.cacheDir = modelRef.cacheDir;
  const processor = await AutoImageProcessor.from_pretrained(modelRef.id);
  const spec = model.preprocess;
  // The sample images may already be model-sized; add generated ones of other sizes so resizing is compared too.
  const sets: [string, DecodedImage[]][] = [
    ["sample images", imgs.slice(0, quick ? 16 : 100)],
    ["generated 256–416 px images", await Promise.all(Array.from({ length: quick ? 8 : 32 }, (_, i) => variedImage(1000 + i)))],
  ];
  for (const [label, set] of sets) {
    const n = set.length;
    // transformers.js path: RawImage from the same decoded RGB, then its image processor.
    const t0 = performance.now();
    const theirs: Float32Array[] = [];
    for (const im of set) {
      const out = (await processor(new RawImage(im.rgb, im.width, im.height, 3))) as { pixel_values: { data: Float32Array } };
      theirs.push(out.pixel_values.data);
    }
    const theirMs = (performance.now() - t0) / n;
    const t1 = performance.now();
    const ours: Float32Array[] = [];
    for (const im of set) ours.push(normalizeToChw(await resizeForModel(im, spec), spec));
    const ourMs = (performance.now() - t1) / n;
    let sum = 0;
    let max = 0;
    let count = 0;
    for (let i = 0; i < n; i++) {
      const a = ours[i]!;
      const b = theirs[i]!;
      for (let k = 0; k < a.length; k++) {
        const d = Math.abs(a[k]! - b[k]!);
        sum += d;
        max = Math.max(max, d);
        count++;
      }
    }
    // In 8-bit terms: one grey level is 1/(255·std) in normalised units.
    const level = 1 / (255 * spec.std[0]);
    console.log(
      `preprocessing, ${n} ${label}: sharp ${ourMs.toFixed(2)} ms/image vs transformers.js RawImage+processor ${theirMs.toFixed(2)} ms/image; ` +
        `difference mean ${(sum / count / level).toFixed(2)}, max ${(max / level).toFixed(1)} grey levels`,
    );
  }
  const n = Math.min(100, inputs.files.length);
  if (n > 0) {
    const tRead = performance.now();
    for (let i = 0; i < n; i++) await decodeFile(inputs.files[i]!);
    console.log(`JPEG decode with sharp (not included above): ${((performance.now() - tRead) / n).toFixed(2)} ms/image`);
  }
}

// CPU steps beside the model (figures that tests used to assert with timers).
{
  let seed = 7;
  const rand = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256;
  const rgb = Buffer.alloc(224 * 224 * 3);
  for (let y = 0; y < 224; y++) for (let x = 0; x < 224; x++) rgb.set([(x + rand()) & 255, (y * 2) & 255, rand()], (y * 224 + x) * 3);
  for (let i = 0; i < 20; i++) dominantColors(rgb, 224, 224);
  const runs = quick ? 30 : 200;
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) dominantColors(rgb, 224, 224);
  console.log(`dominant colours (224×224 RGB, ${runs} runs): ${((performance.now() - t0) / runs).toFixed(2)} ms/image`);
  const dir = await mkdtemp(path.join(os.tmpdir(), "shopsight-bench-gen-"));
  const t1 = performance.now();
  await writeTestModel(dir);
  console.log(`tiny test model generation: ${(performance.now() - t1).toFixed(0)} ms`);
  await rm(dir, { recursive: true, force: true });
}

console.log(`peak RSS    ${rssMB()} MB at the end (after the preprocessing comparison)`);
await model.close();
if (tmp) await rm(tmp, { recursive: true, force: true });
