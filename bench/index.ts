// `npm run bench:index [-- --model DIR] [--images 300] [--contend] [--seconds 8] [--warmup 20] [--dataset DIR] [--parallel N] [--perf FILE]`
//
// The service (createContext + the Search API on a loopback listener + the background workers,
// embedded SQLite) against the raw cost of its model (loadEmbeddingModel alone: no HTTP, no
// database), both in the same process, each measure alternating with its raw counterpart so that
// both see the same machine load:
//   - bulk indexing of `--images` real JPEGs served over HTTP, as three bulk jobs of a third each
//     (products/s from submission to `completed`), each right after the raw model embedded the
//     same third, decoded beforehand, at batch 16;
//   - text search p50 (every query new, so the query cache never answers) against raw batch-1
//     text encoding, request by request; the same with a repeated query (cache hits);
//   - image-URL search p50 (new URLs) against raw batch-1 image encoding plus one fetch from the
//     local image host, request by request;
//   - CPU per text search with 16 concurrent clients (new queries, autocannon) against the raw
//     model's CPU per text at batch 16, in four alternating windows of a quarter of `--seconds`,
//     the service warmed first by `--warmup` seconds of the same load, not counted (printed apart):
//     V8 compiles the service's hot functions with TurboFan on its background threads for the
//     first ~20–30 s of load (re-compiling some after deoptimisations), a one-off cost per process
//     that would otherwise be read as a cost per search (docs/benchmarks.md, "the JIT's warm-up");
//     the request-by-request searches above come after a warm-up of their own (the same load):
//     they reach other code and other object shapes, after which V8 drops optimised code of the
//     search path and compiles it again, so the windows are warmed again right before them
//     (docs/benchmarks.md, "Issue 39: the warm-up right before the windows");
//     this process's CPU (process.cpuUsage, user + system, every thread: the model's workers
//     included) over the service's windows (the raw model idle; the search-history rows written
//     after the last reply included) ÷ requests served, and over the raw windows (the service
//     idle) ÷ texts encoded. Requests per second are printed too, but the load generator shares
//     the cores, so CPU per request is the measure. The service's text batches in those windows
//     (their mean size, the model's inference time per text) are printed beside the raw model's
//     time per text at batch 16. Ratios are printed to three decimals: on 2 shared cores this one
//     moves by ±0.03 from run to run, as much as its margin to the 1.1 goal, so the goal is judged
//     by the mean of several runs (docs/benchmarks.md, "Issue 39: twelve runs of one build");
//   - the same 16 clients with one repeated query (no model time): req/s and the service's CPU per
//     request, i.e. what everything but the model costs, and its event-loop time per request
//     (BENCH_PROFILE=FILE writes a CPU profile of the main thread over that window: V8's sampler,
//     which charges the time the thread waited for a core too; --perf counts only CPU time);
//   - the same 16 clients on GET /health: the service's CPU per request that any request pays
//     (the HTTP server, the framework and the hooks every route runs: request id, metrics, logs,
//     headers), the floor under every search's own work;
//   - the same 16 clients on the text search route with the search service answering at once (its
//     answer to one query, kept): what the route costs around the service (HTTP, hooks,
//     authentication, body parsing and validation, serialisation, the reply), so that the rest of
//     a search's CPU is the service's own (lexical, vector, fusion, history);
//   - the CPU of those windows by thread (Linux, /proc/self/task): the model's threads (its worker
//     and onnxruntime's pool, told apart as the threads that appeared while each model loaded)
//     per search against the raw model's threads per text at batch 16, the event loop and the
//     other threads (V8's optimising compiler and garbage collection, libuv) per search, so that the gap splits into what
//     the model costs under load and what the rest of the service costs; and what the service
//     adds apart from the model's threads (its event loop and other threads per search less the
//     raw windows' own per text) as a share of the raw model's CPU per text: the ratio were the
//     model's threads to cost what the raw model's do, free of their window-to-window spread;
//   - the mean server time per search by stage (the service's shopsight_search_stage_duration_seconds:
//     http, auth, lexical, vector, fusion, hydrate, history, serialise beside the model's embed),
//     for the request-by-request text searches and for the 16-client windows, with the sum of the
//     non-model stages and the server's whole time per request (its HTTP duration histogram).
// The clients run in a process of their own (client-process.ts): this process's CPU is the
// service's (and the raw model's), nothing of the clients runs on the service's event loop, nor do
// they wait for its work after a reply.
// `--contend` keeps one core busy with a spinning child process for the whole run (both parts).
// `--parallel N` sets MODEL_PARALLEL_WORKERS (default: the service's); they are started before
// measuring. The raw model is one worker with the default threads, as the service's main worker.
// `--dataset` defaults to ../shared/datasets/fashion-products/images (JPEG product photos).
// `--perf FILE` records the event loop's thread on the CPU over the four 16-client windows and the
// raw windows between them (Linux `perf record -e cpu-clock --call-graph dwarf`; perf must be
// installed): what its CPU per search is spent on, where a sampling profiler of wall time would
// also charge the time the thread waited for a core. Run node with --perf-basic-prof so that
// compiled JavaScript has names (`node --perf-basic-prof --import tsx bench/index.ts ...`), then
// `perf report -i FILE --no-children --sort dso,sym` (docs/benchmarks.md, "the event loop's CPU
// read on the CPU").
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import { performance as perfHooks } from "node:perf_hooks";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/platform/config.js";
import { createContext } from "../src/context/context.js";
import { buildSearchApp } from "../src/search/app.js";
import { createWorkers } from "../src/search/workers.js";
import { composeSearch } from "../src/search/compose.js";
import { ensureTestModel } from "../src/embeddings/load.js";
import { TEST_MODEL_VERSION } from "../src/embeddings/testmodel/build.js";
import { loadEmbeddingModel, WorkerEmbeddingModel } from "../src/embeddings/runtime.js";
import { decodeImage } from "../src/embeddings/image.js";
import type { DecodedImage } from "../src/embeddings/types.js";
import type { Histogram } from "prom-client";
import { SEARCH_STAGES } from "../src/platform/metrics.js";
import { historyWriter } from "../src/search/query/history-writer.js";
import { wholeFlag } from "./flags.js";
import { startClientProcess } from "./client-process.js";

const { values: args } = parseArgs({
  options: {
    model: { type: "string" },
    images: { type: "string", default: "300" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "20" },
    contend: { type: "boolean", default: false },
    parallel: { type: "string" },
    dataset: { type: "string", default: path.resolve("../shared/datasets/fashion-products/images") },
    perf: { type: "string" },
  },
});
const N = wholeFlag("images", args.images, 1);
const SECONDS = wholeFlag("seconds", args.seconds, 1);
const WARMUP = wholeFlag("warmup", args.warmup, 0);
const WORDS = [
  "red",
  "blue",
  "black",
  "white",
  "green",
  "linen",
  "silk",
  "summer",
  "dress",
  "shirt",
  "jeans",
  "bag",
  "shoes",
  "coat",
  "skirt",
  "scarf",
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
/**
 * A different, plausible query for every i: no query repeats, and no set of words either within
 * 65,536 consecutive i (four words, one base-16 digit of i each), so that the service's caches of
 * lexical rankings answer none of them as its query cache answers none. With three words
 * (4,096 sets) the lexical cache answered a whole 16-client window or none of it, depending on
 * which sets earlier windows had read and it still held: a window's lexical work was 0 or 2
 * full-text statements per search (docs/benchmarks.md, "Issue 39: every query new to every cache").
 */
const query = (i: number) => `${WORDS[i % 16]} ${WORDS[(i >> 4) % 16]} ${WORDS[(i >> 8) % 16]} ${WORDS[(i >> 12) % 16]} ${i}`;

async function timeEach(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await fn(i);
    ms.push(performance.now() - s);
  }
  return ms;
}

/** CPU clock ticks so far of each thread of this process (Linux /proc; empty elsewhere): tid → user + system. */
function threadTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  let tids: string[];
  try {
    tids = fs.readdirSync("/proc/self/task");
  } catch {
    return ticks;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      // Fields after the command's closing parenthesis start at the third (state); utime and stime are the 14th and 15th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(Number(tid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return ticks;
}

/** The threads that appeared since `before` (a threadTicks() reading). */
function newThreads(before: Map<number, number>): Set<number> {
  return new Set([...threadTicks().keys()].filter((tid) => !before.has(tid)));
}

/** CPU ticks of a model's threads, of the main thread (the event loop) and of the other threads. */
interface ThreadSplit {
  model: number;
  main: number;
  other: number;
}
const noTicks = (): ThreadSplit => ({ model: 0, main: 0, other: 0 });
/** Adds the ticks spent from `before` to `after` to `into`, the threads in `model` counted as the model's. */
function addTicks(into: ThreadSplit, before: Map<number, number>, after: Map<number, number>, model: Set<number>): void {
  for (const [tid, t] of after) {
    const spent = t - (before.get(tid) ?? 0);
    if (model.has(tid)) into.model += spent;
    else if (tid === process.pid) into.main += spent;
    else into.other += spent;
  }
}

/** `perf record` of this process's main thread (the event loop) on the CPU into `file`, until stop(). */
async function recordOnCpu(file: string): Promise<{ stop(): Promise<string> }> {
  const argv = ["record", "-e", "cpu-clock", "-F", "1999", "--call-graph", "dwarf,16384", "-t", String(process.pid), "-o", file];
  const perf = spawn("perf", argv, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  perf.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<string>((resolve, reject) => {
    perf.on("error", (e) => reject(new Error(`--perf: could not run perf (${e.message}); install Linux perf or leave --perf out`)));
    perf.on("exit", (code, signal) => resolve(signal ?? String(code)));
  });
  // perf prints nothing once attached; a moment lets it open its counters before the windows.
  const early = await Promise.race([exited, new Promise<"running">((r) => setTimeout(() => r("running"), 500))]);
  if (early !== "running") throw new Error(`--perf: perf exited (${early}): ${stderr.trim()}`);
  return {
    async stop() {
      perf.kill("SIGINT");
      const end = await exited; // 0, or the SIGINT it was stopped with
      if (end !== "0" && end !== "SIGINT") throw new Error(`--perf: perf exited (${end}): ${stderr.trim()}`);
      return file;
    },
  };
}

async function main() {
  const modelDir = args.model
    ? path.resolve(args.model)
    : await ensureTestModel(path.join(os.tmpdir(), `shopsight-test-model-v${TEST_MODEL_VERSION}`));
  if (!fs.existsSync(args.dataset!)) throw new Error(`no image folder ${args.dataset}: pass --dataset DIR with JPEG files`);
  const files = fs
    .readdirSync(args.dataset!)
    .filter((f) => /\.jpe?g$/i.test(f))
    .sort()
    .slice(0, N);
  if (files.length < N) throw new Error(`only ${files.length} JPEGs in ${args.dataset}`);
  const bytes = new Map(files.map((f) => [`/${f}`, fs.readFileSync(path.join(args.dataset!, f))]));

  let spinner: ChildProcess | undefined;
  if (args.contend) spinner = spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" });
  const host = http.createServer((req, res) => {
    const body = bytes.get((req.url ?? "").split("?")[0]!);
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": body.length }).end(body);
  });
  await new Promise<void>((r) => host.listen(0, "127.0.0.1", r));
  const imageBase = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-bench-index-"));
  console.log(
    `Indexing and query benchmark: ${os.cpus().length} cores (load average ${os.loadavg()[0]!.toFixed(1)} at start), Node ${process.version}, ` +
      `model ${modelDir}, ${N} JPEGs${args.contend ? ", one core kept busy by a spinning process" : ""}\n`,
  );
  try {
    // ---------------------------------------------------------------- raw model
    // Decoded first: sharp starts libuv's pool and its own threads, so that the threads that
    // appear while each model loads are that model's.
    const decoded: DecodedImage[] = [];
    for (const body of bytes.values()) decoded.push(await decodeImage(body, { maxPixels: 50_000_000, maxSide: 512 }));
    const beforeRaw = threadTicks();
    const raw = await loadEmbeddingModel({ id: modelDir, cacheDir: path.join(dataDir, "models") });
    const rawThreads = newThreads(beforeRaw);
    const rawSplit = noTicks();
    await raw.embedImages(decoded.slice(0, 16)); // warm
    /** Raw batch-16 image encoding of `images`: seconds taken. */
    const rawImageRound = async (images: DecodedImage[]): Promise<number> => {
      const started = performance.now();
      for (let i = 0; i < images.length; i += 16) await raw.embedImages(images.slice(i, i + 16));
      return (performance.now() - started) / 1000;
    };
    await raw.embedTexts([query(99_999)]);
    let nextRaw = 200_000;
    /** Raw batch-16 text encoding for `seconds` (new texts): [texts, seconds, this process's CPU in µs]. */
    const rawTextWindow = async (seconds: number): Promise<[number, number, number]> => {
      const ticksFrom = threadTicks();
      const cpuFrom = process.cpuUsage();
      const started = performance.now();
      let texts = 0;
      while (performance.now() - started < seconds * 1000) {
        await raw.embedTexts(Array.from({ length: 16 }, () => query(nextRaw++)));
        texts += 16;
      }
      const cpu = process.cpuUsage(cpuFrom);
      addTicks(rawSplit, ticksFrom, threadTicks(), rawThreads);
      return [texts, (performance.now() - started) / 1000, cpu.user + cpu.system];
    };

    // ---------------------------------------------------------------- the service
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      CLIP_MODEL: modelDir,
      OUTBOUND_ALLOW_PRIVATE: "true",
      ...(args.parallel !== undefined ? { MODEL_PARALLEL_WORKERS: args.parallel } : {}),
    });
    const beforeService = threadTicks();
    const ctx = await createContext(config);
    const serviceThreads = newThreads(beforeService);
    const services = composeSearch(ctx);
    const workers = createWorkers(ctx, services);
    const app = await buildSearchApp(ctx, { logger: false, services });
    const client = startClientProcess();
    try {
      const reg = await services.accounts.register(
        { client_name: "Bench", email: "bench-index@example.com", password: "Bench-pass-123" },
        "127.0.0.1",
      );
      await ctx.database.db.updateTable("stores").set({ status: "active", plan: "enterprise" }).where("id", "=", reg.client_id).execute();
      const token = (await ctx.signer.issue({ sub: reg.client_id, user_type: "client", memberships: [], is_super_admin: false }))
        .access_token;
      await app.listen({ port: 0, host: "127.0.0.1" });
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      /** One request from the client process: the answer's JSON and the round trip in ms. */
      const timedCall = async (method: string, url: string, body?: object) => {
        const res = await client.call(method, `${base}${url}`, headers, body ? JSON.stringify(body) : undefined);
        if (res.status >= 300) throw new Error(`${url} answered ${res.status}: ${res.text}`);
        return { json: JSON.parse(res.text) as Record<string, unknown>, ms: res.ms };
      };
      const call = async (method: string, url: string, body?: object) => (await timedCall(method, url, body)).json;
      /** The round trip of one request (ms), as its client measured it. */
      const roundTrip = async (method: string, url: string, body?: object) => (await timedCall(method, url, body)).ms;
      await workers.start();
      // The parallel model workers start at the first backlog of images; a process pays that once,
      // so they are started (and timed) before measuring.
      const runtime = ctx.model instanceof WorkerEmbeddingModel ? ctx.model : undefined;
      const parallelStarted = performance.now();
      const beforeParallel = threadTicks();
      const parallelReady = await runtime?.parallelReady();
      for (const tid of newThreads(beforeParallel)) serviceThreads.add(tid);
      if (parallelReady) {
        const seconds = (performance.now() - parallelStarted) / 1000;
        console.log(`${runtime!.limits.parallelWorkers} parallel model workers, started in ${seconds.toFixed(1)} s before measuring`);
      } else console.log("no parallel model workers (MODEL_PARALLEL_WORKERS)");
      const batches = { image: { n: 0, items: 0, seconds: 0 }, text: { n: 0, items: 0, seconds: 0 } };
      ctx.model?.onInference?.((e) => {
        batches[e.kind].n++;
        batches[e.kind].items += e.items;
        batches[e.kind].seconds += e.seconds;
      });
      // Three bulk jobs of a third of the images each, every one right after the raw model encoded
      // the same third at batch 16, so that both see the same machine load.
      let rawImageSeconds = 0;
      let bulkSeconds = 0;
      for (let round = 0; round < 3; round++) {
        const from = Math.floor((round * N) / 3);
        const to = Math.floor(((round + 1) * N) / 3);
        rawImageSeconds += await rawImageRound(decoded.slice(from, to));
        const started = performance.now();
        const products = files.slice(from, to).map((f, i) => ({
          product_id: `b${from + i}`,
          image_url: `${imageBase}/${f}`,
          metadata: { category: WORDS[(from + i) % 16] },
        }));
        const { job_id } = await call("POST", "/v1/products/bulk", { products });
        let job: Record<string, unknown>;
        do {
          // Polled often so that the measure ends within ~20 ms of the job's completion.
          await new Promise((r) => setTimeout(r, 20));
          job = await call("GET", `/v1/jobs/${job_id}`);
        } while (job.status === "processing");
        bulkSeconds += (performance.now() - started) / 1000;
        if (job.succeeded !== to - from) throw new Error(`bulk job: ${JSON.stringify(job).slice(0, 500)}`);
      }
      const rawImagesPerS = N / rawImageSeconds;
      const bulkPerS = N / bulkSeconds;
      await ctx.vectors.settled();

      /** Observations per search stage so far, read without rendering the whole registry. */
      const stageCounts = async () => {
        const counts = new Map<string, number>();
        const histogram = ctx.metrics.registry.getSingleMetric("shopsight_search_stage_duration_seconds") as Histogram;
        for (const v of (await histogram.get()).values) if (v.metricName?.endsWith("_count")) counts.set(String(v.labels.stage), v.value);
        return counts;
      };
      /**
       * Waits until every search that reached its handler has answered (some were in flight when
       * the clients stopped) and their search-history rows are written (the searches' `history`
       * stage): this process's CPU meanwhile, in µs.
       */
      const settled = async () => {
        const from = process.cpuUsage();
        const until = performance.now() + 5000;
        for (let c = await stageCounts(); (c.get("serialise") ?? 0) < (c.get("http") ?? 0); c = await stageCounts()) {
          if (performance.now() > until) break; // an error answer is never serialised by the search's serialiser
          await new Promise((r) => setTimeout(r, 5));
        }
        await historyWriter(ctx).flush();
        const cpu = process.cpuUsage(from);
        return cpu.user + cpu.system;
      };
      /** The service's stage histogram so far (seconds per stage, searches) and its text searches' HTTP duration. */
      const snapshot = async (): Promise<Snapshot> => {
        const text = await ctx.metrics.render();
        const stages = new Map<string, number>();
        for (const m of text.matchAll(/^shopsight_search_stage_duration_seconds_sum\{stage="([^"]+)"\} (\S+)$/gm)) {
          stages.set(m[1]!, Number(m[2]));
        }
        const searches = Number(text.match(/^shopsight_search_stage_duration_seconds_count\{stage="http"\} (\S+)$/m)?.[1] ?? 0);
        const request = (part: "sum" | "count") =>
          text
            .split("\n")
            .filter((l) => l.startsWith(`shopsight_http_request_duration_seconds_${part}{`) && l.includes('route="/v1/search/text"'))
            .reduce((sum, l) => sum + Number(l.split(" ").pop()), 0);
        return { stages, searches, requestSeconds: request("sum"), requests: request("count") };
      };
      /** Stage seconds, searches and requests from `before` to `after`, added to `into`. */
      const addDelta = (into: Snapshot, before: Snapshot, after: Snapshot) => {
        for (const [stage, sum] of after.stages)
          into.stages.set(stage, (into.stages.get(stage) ?? 0) + sum - (before.stages.get(stage) ?? 0));
        into.searches += after.searches - before.searches;
        into.requestSeconds += after.requestSeconds - before.requestSeconds;
        into.requests += after.requests - before.requests;
      };
      const empty = (): Snapshot => ({ stages: new Map(), searches: 0, requestSeconds: 0, requests: 0 });

      // 16 concurrent clients searching text, first for --warmup seconds, not counted, so that every
      // search figure below is the warm service's (the JIT's warm-up: see the header).
      let next = 400_000;
      /**
       * 16 clients searching text for `seconds` (a quarter of --seconds unless told), the requests' bodies `bodies` in turn:
       * what they counted, the service's CPU (µs) from their start until every search they started
       * answered and wrote its history row, and the service's stage histogram over the window; its
       * CPU ticks by thread are added to `ticks` when given.
       */
      const sixteenClients = async (bodies: object[], cycle = false, ticks?: ThreadSplit, seconds = SECONDS / 4) => {
        const stages = empty();
        const before = await snapshot();
        const ticksFrom = ticks && threadTicks();
        const volley = await client.cannon({
          url: `${base}/v1/search/text`,
          headers,
          connections: 16,
          seconds,
          bodies: bodies.map((b) => JSON.stringify(b)),
          cycle,
        });
        const cpu = volley.cpu.user + volley.cpu.system + (await settled());
        if (ticks && ticksFrom) addTicks(ticks, ticksFrom, threadTicks(), serviceThreads);
        addDelta(stages, before, await snapshot());
        return { volley, cpu, stages };
      };
      /** More new queries than 16 clients can send in a window of `seconds` (they would repeat past them). */
      const newQueries = (seconds = SECONDS / 4) =>
        Array.from({ length: Math.ceil(seconds * 1000) }, () => ({ query: query(next++), limit: 10 }));
      if (WARMUP > 0) await sixteenClients(newQueries(WARMUP), false, undefined, WARMUP);

      await call("POST", "/v1/search/text", { query: "warm up", limit: 10 });
      await settled();
      // Raw and service alternate request by request, so both see the same machine load.
      const rawText: number[] = [];
      const serviceText: number[] = [];
      const idleStages = empty();
      const idleBefore = await snapshot();
      await timeEach(60, async (i) => {
        rawText.push((await timeEach(1, () => raw.embedTexts([query(100_000 + i)])))[0]!);
        serviceText.push(await roundTrip("POST", "/v1/search/text", { query: query(next++), limit: 10 }));
      });
      await settled();
      addDelta(idleStages, idleBefore, await snapshot());
      const rawText1 = pct(rawText, 50);
      const text1 = pct(serviceText, 50);
      const cachedText: number[] = [];
      for (let i = 0; i < 60; i++) cachedText.push(await roundTrip("POST", "/v1/search/text", { query: "red silk dress", limit: 10 }));
      const textCached = pct(cachedText, 50);
      const rawImage: number[] = [];
      const fetchImage: number[] = [];
      const serviceImage: number[] = [];
      await timeEach(30, async (i) => {
        rawImage.push((await timeEach(1, () => raw.embedImages([decoded[i % decoded.length]!])))[0]!);
        fetchImage.push((await client.call("GET", `${imageBase}/${files[i % files.length]}`, {})).ms);
        const url = `${imageBase}/${files[(i * 7) % files.length]}?q=${i}`;
        serviceImage.push(await roundTrip("POST", "/v1/search/url", { image_url: url, limit: 10 }));
      });
      const rawImage1 = pct(rawImage, 50);
      const fetch1 = pct(fetchImage, 50);
      const imageUrl1 = pct(serviceImage, 50);
      // 16 concurrent clients against raw batch-16 encoding, in alternating windows (4 of each, a
      // quarter of --seconds each) so that both see the same machine load.
      let rawTexts = 0;
      let rawSeconds = 0;
      let rawCpu = 0;
      let served = 0;
      let servedSeconds = 0;
      let servedCpu = 0;
      let non2xx = 0;
      const busyStages = empty();
      /** The service's text batches in the 16-client windows of new queries alone. */
      const busyBatches = { n: 0, items: 0, seconds: 0 };
      /** The service's CPU ticks by thread over those windows. */
      const busySplit = noTicks();
      // The same load again right before them: the single requests and image searches above reach
      // other code and other object shapes, so V8 drops optimised code of the search path and
      // compiles it again (--trace-opt --trace-deopt: ~0.5 s of its compiler threads inside the
      // windows when they followed those requests directly; see the header). Printed apart below.
      const warmSplit = noTicks();
      const warm = WARMUP > 0 ? await sixteenClients(newQueries(WARMUP), false, warmSplit, WARMUP) : undefined;
      const recording = args.perf ? await recordOnCpu(args.perf) : undefined;
      for (let round = 0; round < 4; round++) {
        const [texts, seconds, cpu] = await rawTextWindow(SECONDS / 4);
        rawTexts += texts;
        rawSeconds += seconds;
        rawCpu += cpu;
        const batchesBefore = { ...batches.text };
        const { volley, cpu: windowCpu, stages } = await sixteenClients(newQueries(), false, busySplit);
        for (const key of ["n", "items", "seconds"] as const) busyBatches[key] += batches.text[key] - batchesBefore[key];
        servedCpu += windowCpu;
        addDelta(busyStages, empty(), stages);
        served += volley.requests;
        servedSeconds += volley.seconds;
        non2xx += volley.non2xx + volley.errors + volley.timeouts;
      }
      if (recording) console.log(`event loop's CPU samples over the windows written to ${await recording.stop()}`);
      const rawTextsPerS = rawTexts / rawSeconds;
      const rawCpuMs = rawCpu / 1000 / rawTexts;
      // Per search the service answered (a few more than the clients counted: those in flight when they stopped).
      const servedCpuMs = servedCpu / 1000 / busyStages.searches;
      // The same 16 clients with one repeated query (every embedding from the cache): what the rest
      // of the pipeline costs in CPU per request, and how long the service's event loop was busy per
      // request.
      const profiler = process.env.BENCH_PROFILE ? new (await import("node:inspector/promises")).Session() : undefined;
      if (profiler) {
        profiler.connect();
        await profiler.post("Profiler.enable");
        await profiler.post("Profiler.start");
      }
      const eluBefore = perfHooks.eventLoopUtilization();
      const {
        volley: cachedWindow,
        cpu: cachedCpu,
        stages: cachedStages,
      } = await sixteenClients([{ query: "red silk dress", limit: 10 }], true);
      // The time the service's event loop (this thread) was busy, per request.
      const serviceMs = perfHooks.eventLoopUtilization(eluBefore).active / cachedStages.searches;
      if (profiler) {
        const { profile } = await profiler.post("Profiler.stop");
        fs.writeFileSync(process.env.BENCH_PROFILE!, JSON.stringify(profile));
      }
      // The same 16 clients on GET /health: what any request costs the service.
      const floor = await client.cannon({
        url: `${base}/health`,
        method: "GET",
        headers: {},
        connections: 16,
        seconds: SECONDS / 4,
        bodies: [],
      });
      const floorCpuMs = (floor.cpu.user + floor.cpu.system) / 1000 / floor.requests;
      // The same 16 clients on the text search route with the search service answering at once
      // (its answer to one query, kept): what the route costs around the service (HTTP, the
      // hooks, authentication, body parsing and validation, serialisation, the reply), so that
      // the rest of a search's CPU is the service's own.
      const service = services.search;
      const kept = await service.text(reg.client_id, "red silk dress", { limit: 10, threshold: 0 }, "api", { understand: "auto" });
      const text = service.text;
      service.text = async () => kept;
      let route: Awaited<ReturnType<typeof client.cannon>>;
      try {
        route = await client.cannon({
          url: `${base}/v1/search/text`,
          headers,
          connections: 16,
          seconds: SECONDS / 4,
          bodies: [JSON.stringify({ query: "red silk dress", limit: 10 })],
          cycle: true,
        });
      } finally {
        service.text = text;
      }
      const routeCpuMs = (route.cpu.user + route.cpu.system) / 1000 / route.requests;
      const cachedCpuMs = cachedCpu / 1000 / cachedStages.searches;
      const cachedPerS = cachedWindow.requests / cachedWindow.seconds;
      const servedPerS = served / servedSeconds;
      const rows: [string, string, string, number, string][] = [
        [
          `bulk indexing (${N} JPEGs)`,
          `${bulkPerS.toFixed(1)} products/s`,
          `${rawImagesPerS.toFixed(1)} images/s at batch 16`,
          bulkPerS / rawImagesPerS,
          "≥ 0.9 (≥ 0.8 contended)",
        ],
        ["text search p50 (new queries)", `${text1.toFixed(1)} ms`, `${rawText1.toFixed(1)} ms (batch 1)`, text1 / rawText1, "≤ 1.3"],
        [
          "text search p50 (repeated query)",
          `${textCached.toFixed(1)} ms`,
          `${rawText1.toFixed(1)} ms (batch 1)`,
          textCached / rawText1,
          "(cache hit)",
        ],
        [
          "image-URL search p50",
          `${imageUrl1.toFixed(1)} ms`,
          `${rawImage1.toFixed(1)} ms + ${fetch1.toFixed(1)} ms fetch`,
          imageUrl1 / (rawImage1 + fetch1),
          "≤ 1.2",
        ],
        [
          "text search CPU, 16 clients (new queries)",
          `${servedCpuMs.toFixed(2)} ms CPU/search (${servedPerS.toFixed(0)} req/s, non-2xx or failed ${non2xx})`,
          `${rawCpuMs.toFixed(2)} ms CPU/text at batch 16 (${rawTextsPerS.toFixed(0)} texts/s)`,
          servedCpuMs / rawCpuMs,
          "≤ 1.1",
        ],
      ];
      if (warm) {
        const warmCpuMs = warm.cpu / 1000 / warm.stages.searches;
        rows.push([
          `text search CPU, 16 clients, the ${WARMUP} s before (the JIT's warm-up, not counted above)`,
          `${warmCpuMs.toFixed(2)} ms CPU/search (${(warm.volley.requests / warm.volley.seconds).toFixed(0)} req/s)`,
          `${rawCpuMs.toFixed(2)} ms CPU/text at batch 16`,
          warmCpuMs / rawCpuMs,
          "–",
        ]);
      }
      rows.push([
        "text search, 16 clients, repeated query",
        `${cachedPerS.toFixed(0)} req/s, ${cachedCpuMs.toFixed(2)} ms CPU/request (service's event loop ${serviceMs.toFixed(2)} ms)`,
        "– (no model time)",
        NaN,
        "–",
      ]);
      rows.push([
        "text search route, 16 clients, the search service answering at once (what the route costs around it)",
        `${(route.requests / route.seconds).toFixed(0)} req/s, ${routeCpuMs.toFixed(2)} ms CPU/request (${kept.count} results a reply; non-2xx or failed ${route.non2xx + route.errors + route.timeouts})`,
        `${rawCpuMs.toFixed(2)} ms CPU/text at batch 16`,
        routeCpuMs / rawCpuMs,
        "–",
      ]);
      rows.push([
        "GET /health, 16 clients (what any request costs)",
        `${(floor.requests / floor.seconds).toFixed(0)} req/s, ${floorCpuMs.toFixed(2)} ms CPU/request (non-2xx or failed ${floor.non2xx + floor.errors + floor.timeouts})`,
        `${rawCpuMs.toFixed(2)} ms CPU/text at batch 16`,
        floorCpuMs / rawCpuMs,
        "–",
      ]);
      console.log("| measure | product | raw model | ratio | goal |\n|---|---|---|---|---|");
      for (const [m, p, r, ratio, goal] of rows)
        console.log(`| ${m} | ${p} | ${r} | ${Number.isNaN(ratio) ? "–" : ratio.toFixed(3)} | ${goal} |`);
      printStages([
        [`request by request (${idleStages.searches} new queries)`, idleStages],
        [`16 clients, new queries (${busyStages.searches} searches)`, busyStages],
      ]);
      const describe = (kind: string, b: { n: number; items: number; seconds: number }) =>
        `${b.n} ${kind} batches of ${(b.items / b.n).toFixed(1)} on average, ${((1000 * b.seconds) / b.items).toFixed(1)} ms per ${kind}`;
      const described = Object.entries(batches).map(([kind, b]) => describe(kind, b));
      console.log(`\nmodel: ${described.join("; ")}; ${runtime?.stats().parallelBatches ?? 0} batches on parallel workers`);
      console.log(
        `model under 16 clients (new queries): ${describe("text", busyBatches)} (raw at batch 16: ${((1000 * rawSeconds) / rawTexts).toFixed(1)} ms per text)`,
      );
      // Each group's share of the ticks times the window's CPU (process.cpuUsage, finer than ticks).
      const perItem = (split: ThreadSplit, group: keyof ThreadSplit, cpuUs: number, items: number) =>
        ((split[group] / (split.model + split.main + split.other)) * cpuUs) / 1000 / items;
      /** The event loop's and the other threads' CPU per item (all but the model's threads). */
      const rest = (split: ThreadSplit, cpuUs: number, items: number) =>
        perItem(split, "main", cpuUs, items) + perItem(split, "other", cpuUs, items);
      if (busySplit.model > 0 && rawSplit.model > 0) {
        const modelMs = perItem(busySplit, "model", servedCpu, busyStages.searches);
        const rawModelMs = perItem(rawSplit, "model", rawCpu, rawTexts);
        const rawRestMs = rest(rawSplit, rawCpu, rawTexts);
        console.log(
          `CPU by thread under 16 clients (new queries), per search: the model's threads ${modelMs.toFixed(2)} ms ` +
            `(the raw model's threads ${rawModelMs.toFixed(2)} ms per text at batch 16: ${(modelMs / rawModelMs).toFixed(2)}×), ` +
            `the event loop ${perItem(busySplit, "main", servedCpu, busyStages.searches).toFixed(2)} ms, ` +
            `other threads (V8's compiler and garbage collection, libuv) ${perItem(busySplit, "other", servedCpu, busyStages.searches).toFixed(2)} ms; ` +
            `the raw windows' event loop and other threads ${rawRestMs.toFixed(2)} ms per text ` +
            `(threads counted as the models': ${serviceThreads.size} of the service's, ${rawThreads.size} of the raw model's)`,
        );
        // What the service's code adds, apart from the model's threads, whose CPU per text moves by
        // up to ±8 % from window to window on 2 shared cores (docs/benchmarks.md, thirty-fourth
        // session): the ratio above, were the model's threads to cost what the raw model's do.
        const addedMs = rest(busySplit, servedCpu, busyStages.searches) - rawRestMs;
        console.log(
          `the service's CPU apart from the model's threads, beyond the raw windows' own: ${addedMs.toFixed(2)} ms per search, ` +
            `${(addedMs / rawCpuMs).toFixed(3)} of the raw model's CPU per text at batch 16 ` +
            `(the ratio with the model's threads at the raw model's cost: ${(1 + addedMs / rawCpuMs).toFixed(3)})`,
        );
        if (warm && warmSplit.model > 0)
          console.log(
            `the same in the ${WARMUP} s of warm-up before: the model's threads ${perItem(warmSplit, "model", warm.cpu, warm.stages.searches).toFixed(2)} ms, ` +
              `the event loop ${perItem(warmSplit, "main", warm.cpu, warm.stages.searches).toFixed(2)} ms, ` +
              `other threads ${perItem(warmSplit, "other", warm.cpu, warm.stages.searches).toFixed(2)} ms per search`,
          );
      }
      console.log(`\nload average at end ${os.loadavg()[0]!.toFixed(1)}; query cache ${JSON.stringify(ctx.images.queryCache.stats())}`);
    } finally {
      await client.close();
      await workers.stop();
      await app.close();
      await ctx.close();
      await raw.close();
    }
  } finally {
    spinner?.kill("SIGKILL");
    host.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Snapshot {
  /** Seconds per search stage (shopsight_search_stage_duration_seconds_sum). */
  stages: Map<string, number>;
  /** Searches that reached their handler (the `http` stage's count). */
  searches: number;
  /** The text searches' HTTP duration (shopsight_http_request_duration_seconds, route /v1/search/text): seconds and requests. */
  requestSeconds: number;
  requests: number;
}

/** The mean server time per search by stage of each run, the sum of the non-model stages and the whole request's. */
function printStages(runs: [string, Snapshot][]): void {
  const ms = (seconds: number, searches: number) => ((seconds * 1000) / searches).toFixed(2);
  console.log(`\nServer time per search by stage (mean ms per search; stages overlap: embed beside lexical, vector beside lexical):`);
  console.log(`| stage | ${runs.map(([name]) => name).join(" | ")} |\n|---|${runs.map(() => "---|").join("")}`);
  const stages = [...SEARCH_STAGES.filter((s) => s !== "embed"), "embed"] as const;
  for (const stage of stages) {
    const label = stage === "embed" ? "embed (the model)" : stage;
    console.log(`| ${label} | ${runs.map(([, d]) => ms(d.stages.get(stage) ?? 0, d.searches)).join(" | ")} |`);
  }
  const nonModel = (d: Snapshot) => [...d.stages].filter(([stage]) => stage !== "embed").reduce((sum, [, s]) => sum + s, 0);
  console.log(`| **non-model stages, sum** | ${runs.map(([, d]) => ms(nonModel(d), d.searches)).join(" | ")} |`);
  console.log(`| request in the server (HTTP duration) | ${runs.map(([, d]) => ms(d.requestSeconds, d.requests)).join(" | ")} |`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
