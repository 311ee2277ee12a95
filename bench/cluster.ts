// `npm run bench:cluster [-- --seconds 30 --connections 2 --keep]`: load and fault test of the
// scale-out layout on loopback, bounded in time (about 1.5–3 minutes in all).
//
//   1. PostgreSQL+pgvector and Redis from DATABASE_URL/REDIS_URL (or TEST_DATABASE_URL/
//      TEST_REDIS_URL). Without them, as root, `.ci/run` is run with SHOPSIGHT_CI_SERVICES_ONLY=1
//      (installs and starts both, as CI does); otherwise the script says why it cannot run and
//      exits 2. A fresh database `shopsight_bench_<hex>` is created (dropped at the end unless
//      --keep).
//   2. Starts two API processes (`serve --role api`, ports of their own) and one worker
//      (`serve --role worker`, METRICS_PORT for its /health/ready), sharing JWT_SIGNING_KEY,
//      CONNECTOR_ENCRYPTION_KEY, DATA_DIR (mail outbox) and the tiny test model;
//      OUTBOUND_ALLOW_PRIVATE=true so they fetch images from, and deliver webhooks to, loopback.
//   3. Seeds through the API: registers a store (verification link from the mail outbox), buys
//      the enterprise plan through the local TEST MODE checkout, registers a webhook to a local
//      receiver that verifies every X-Webhook-Signature; registers a second store left on the
//      free plan (10 requests a minute) for the rate-limit check.
//   4. Drives mixed traffic with autocannon for --seconds across both API ports (per connection:
//      text search, index a product by image URL from a local image host, text search, feedback
//      event), plus a 4-item bulk import job every 4 s. At 1/3 of the run it submits a 200-item
//      bulk job, SIGKILLs API process 2 and the worker once the worker is inside that job,
//      restarts both at once, and sends API 2 traffic again once it is ready (the way a load
//      balancer's health check takes a backend out and back; for 300 ms after the kill the dead
//      port keeps getting traffic, counted as connection errors). The interrupted job is
//      re-claimed by the new worker when its 30 s lease lapses.
//   5. Checks integrity: every acknowledged (2xx) product is in the database with its vector and
//      listed by the API; every acknowledged feedback event is stored; every job finished
//      (completed, every item succeeded) and its products are present; every webhook delivery row
//      is delivered and was received at least once with a valid signature, and every indexed
//      product's product.indexed event arrived; a burst of 40 requests split across both ports
//      against the free-plan store got at most 10 2xx (the plan budget, shared through Redis).
//   6. Prints throughput, p50/p95 latency per request kind, errors by kind and the verdict
//      (PASS/FAIL; exit 1 on FAIL).
//
// --replica URL (replica mode): the API processes read from that streaming replica of the
// primary (DATABASE_READ_URLS, with the bench database's name); at the fault the replica's
// postmaster is SIGKILLed too (pid from --replica-data/postmaster.pid) and restarted with
// `pg_ctlcluster --replica-cluster start` after 5 s. Reads must fall back to the primary: any 5xx
// fails the verdict. `--replica ci` means .ci/run's replica (TEST_DATABASE_READ_URL or
// 127.0.0.1:5433, cluster 15/replica).
// --no-redis starts the processes without REDIS_URL: a negative control whose rate-limit check
// fails (each process then keeps its own budget).
// Everything runs at lower CPU priority (nice 10) by default: --nice 0 to measure undisturbed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import pg from "pg";
import { ensureTestModel } from "../src/embeddings/load.js";
import { TEST_MODEL_VERSION } from "../src/embeddings/testmodel/build.js";
import { solidImage, startImageHost, startReceiver, type Receiver } from "../test/support/servers.js";
import { freePort, ROOT } from "../test/support/process.js";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    connections: { type: "string", default: "2" },
    nice: { type: "string", default: "10" },
    keep: { type: "boolean", default: false },
    /** Negative control: API processes without REDIS_URL (per-process limits; the rate-limit check should FAIL). */
    "no-redis": { type: "boolean", default: false },
    replica: { type: "string" },
    "replica-data": { type: "string", default: "/var/lib/postgresql/15/replica" },
    "replica-cluster": { type: "string", default: "15/replica" },
  },
});
const REPLICA_URL =
  args.replica === "ci"
    ? (process.env.TEST_DATABASE_READ_URL ?? "postgres://shopsight:shopsight@127.0.0.1:5433/shopsight_test")
    : args.replica;

/** SIGKILLs the replica's postmaster; resolves with its pid. */
function killReplica(): number {
  const pid = Number(fs.readFileSync(path.join(args["replica-data"]!, "postmaster.pid"), "utf8").split("\n")[0]);
  process.kill(pid, "SIGKILL");
  return pid;
}

async function restartReplica(): Promise<void> {
  const [version, cluster] = args["replica-cluster"]!.split("/");
  for (let i = 0; i < 20; i++) {
    const r = spawnSync("pg_ctlcluster", [version!, cluster!, "start"], { stdio: "ignore" });
    if (r.status === 0) return;
    await sleep(500);
  }
  throw new Error(`pg_ctlcluster ${version} ${cluster} start kept failing`);
}
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const NICE = Number(args.nice);
const HOOK_SECRET = `whsec-bench-${randomBytes(8).toString("hex")}`;
const COLOURS = ["#d01010", "#10b020", "#1030d0", "#e0d020", "#d010d0", "#10d0d0", "#202020", "#f0f0f0", "#f08010", "#805020"];
const QUERIES = ["red", "green", "blue", "yellow", "purple shirt", "cyan", "black", "white", "orange", "brown bag"];
const FREE_BUDGET = 10;
const BURST = 40;
/** Items of the bulk job running when the worker is killed. */
const BIG_JOB = 200;
const SETTLE_TIMEOUT_MS = 120_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

// ------------------------------------------------------------- services ---

function services(): { databaseUrl: string; redisUrl: string } {
  let databaseUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  let redisUrl = process.env.REDIS_URL || process.env.TEST_REDIS_URL;
  if (databaseUrl && redisUrl) return { databaseUrl, redisUrl };
  const missing = [!databaseUrl && "DATABASE_URL/TEST_DATABASE_URL", !redisUrl && "REDIS_URL/TEST_REDIS_URL"].filter(Boolean).join(" and ");
  if (process.getuid?.() !== 0) {
    process.stderr.write(
      `bench:cluster cannot run: ${missing} not set, and starting PostgreSQL+pgvector and Redis needs root.\n` +
        "Run `sudo SHOPSIGHT_CI_SERVICES_ONLY=1 bash .ci/run` (installs and starts both) and export the URLs it prints, " +
        "or point DATABASE_URL (PostgreSQL 15 with pgvector 0.8, a role that may CREATE DATABASE) and REDIS_URL at your own.\n",
    );
    process.exit(2);
  }
  log(`${missing} not set: starting PostgreSQL and Redis with .ci/run (services only)`);
  const r = spawnSync("bash", [path.join(ROOT, ".ci/run")], {
    env: { ...process.env, SHOPSIGHT_CI_SERVICES_ONLY: "1" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (r.status !== 0) {
    process.stderr.write(`bench:cluster cannot run: .ci/run failed (exit ${r.status}) to start PostgreSQL and Redis.\n`);
    process.exit(2);
  }
  databaseUrl ??= "postgres://shopsight:shopsight@127.0.0.1:5432/shopsight_test";
  redisUrl ??= "redis://127.0.0.1:6379";
  return { databaseUrl, redisUrl };
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

// ------------------------------------------------------------- processes ---

interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<number | null>;
}

function startProc(name: string, role: "api" | "worker", env: Record<string, string>, dir: string, generation: number): Proc {
  const logFile = path.join(dir, `${name}.${generation}.log`);
  const out = fs.openSync(logFile, "a");
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "src/cli.ts"), "serve", "--role", role], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", out, out],
  });
  fs.closeSync(out);
  if (NICE > 0 && child.pid) {
    try {
      os.setPriority(child.pid, NICE);
    } catch {
      // not permitted: run at normal priority
    }
  }
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { name, child, logFile, exited };
}

async function waitReady(proc: Proc, url: string, timeoutMs = 90_000): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    if (proc.child.exitCode !== null)
      throw new Error(`${proc.name} exited (${proc.child.exitCode}) while starting:\n${tail(proc.logFile)}`);
    try {
      const res = await fetch(url);
      if (res.status === 200) return performance.now() - t0;
    } catch {
      // not listening yet
    }
    await sleep(150);
  }
  throw new Error(`${proc.name} not ready at ${url} within ${timeoutMs} ms:\n${tail(proc.logFile)}`);
}

const tail = (file: string, lines = 30) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").slice(-lines).join("\n") : "");

// ---------------------------------------------------------------- seeding ---

async function http(base: string, method: string, url: string, body?: unknown, token?: string, form = false) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined;
  if (body !== undefined) {
    headers["content-type"] = form ? "application/x-www-form-urlencoded" : "application/json";
    payload = form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body);
  }
  const res = await fetch(`${base}${url}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const text = await res.text();
  let json: any = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // html page or empty
  }
  return { status: res.status, json, text, headers: res.headers };
}

function verificationToken(outbox: string, email: string): string {
  const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).sort().reverse() : [];
  for (const f of files) {
    const text = fs
      .readFileSync(path.join(outbox, f), "utf8")
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    if (!text.includes(`To: ${email}`)) continue;
    const m = /\/verify\?token=([A-Za-z0-9_%-]+)/.exec(text);
    if (m) return decodeURIComponent(m[1]!);
  }
  throw new Error(`no verification mail to ${email} in ${outbox}`);
}

interface Store {
  id: string;
  slug: string;
  token: string;
}

async function seedStore(base: string, outbox: string, name: string, plan: "enterprise" | "free"): Promise<Store> {
  const email = `${name}-${randomBytes(4).toString("hex")}@bench.example`;
  const reg = await http(base, "POST", "/register", { client_name: `Bench ${name}`, email, password: "Bench-password-42" });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${reg.text}`);
  const verify = await http(base, "GET", `/verify?token=${encodeURIComponent(verificationToken(outbox, email))}`);
  if (verify.status !== 200) throw new Error(`verify: ${verify.status} ${verify.text}`);
  const grant = await http(
    base,
    "POST",
    "/oauth/token",
    { grant_type: "client_credentials", client_id: reg.json.client_id, client_secret: verify.json.client_secret },
    undefined,
    true,
  );
  if (grant.status !== 200) throw new Error(`token: ${grant.status} ${grant.text}`);
  const token = grant.json.access_token as string;
  if (plan !== "free") {
    const checkout = await http(base, "POST", "/v1/billing/checkout", { plan_name: plan }, token);
    if (checkout.status !== 200) throw new Error(`checkout: ${checkout.status} ${checkout.text}`);
    const sessionPath = new URL(checkout.json.checkout_url as string).pathname;
    const done = await http(base, "POST", `${sessionPath}/complete`);
    if (done.status !== 200) throw new Error(`checkout complete: ${done.status} ${done.text.slice(0, 200)}`);
    const current = await http(base, "GET", "/v1/billing/current-plan", undefined, token);
    if (current.json?.plan_name !== plan) throw new Error(`plan is ${current.json?.plan_name}, wanted ${plan}`);
  }
  return { id: reg.json.client_id, slug: reg.json.slug, token };
}

// ---------------------------------------------------------------- traffic ---

type Kind = "search" | "index" | "feedback" | "bulk";

class Tally {
  readonly latencies = new Map<Kind, number[]>();
  readonly statuses = new Map<string, number>();
  readonly errors = new Map<string, number>();
  readonly ackedProducts = new Set<string>();
  readonly ackedFeedback = new Set<string>();
  readonly ackedJobs = new Map<string, string[]>();
  readonly searches: { id: string; top: string }[] = [];
  responses = 0;
  ok = 0;

  response(kind: Kind, status: number, ms: number, body: string) {
    this.responses += 1;
    if (!this.latencies.has(kind)) this.latencies.set(kind, []);
    this.latencies.get(kind)!.push(ms);
    if (status >= 200 && status < 300) {
      this.ok += 1;
      return;
    }
    let code = "";
    try {
      code = (JSON.parse(body) as { error?: string }).error ?? "";
    } catch {
      // not JSON
    }
    const key = `${kind} ${status}${code ? ` ${code}` : ""}`;
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
  }

  error(key: string) {
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
  }
}

interface Ctx {
  kind?: Kind;
  t0?: number;
  productId?: string;
}

let productSeq = 0;

interface Cannon {
  instance: autocannon.Instance;
  done: Promise<void>;
}

function cannon(port: number, token: string, images: string[], tally: Tally): Cannon {
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  const timed = (kind: Kind, build: (ctx: Ctx) => object) => ({
    method: "POST" as const,
    headers,
    setupRequest: (req: any, context: Ctx) => {
      context.kind = kind;
      context.t0 = performance.now();
      return { ...req, body: JSON.stringify(build(context)) };
    },
  });
  const record = (context: Ctx, status: number, body: string) => {
    tally.response(context.kind!, status, performance.now() - (context.t0 ?? performance.now()), body);
  };
  const search = {
    ...timed("search", () => ({ query: pick(QUERIES), limit: 5 })),
    path: "/v1/search/text",
    onResponse: (status: number, body: string, context: Ctx) => {
      record(context, status, body);
      if (status === 200) {
        const json = JSON.parse(body) as { search_id: string; results: { product_id: string }[] };
        if (json.results[0]) tally.searches.push({ id: json.search_id, top: json.results[0].product_id });
        if (tally.searches.length > 200) tally.searches.splice(0, 100);
      }
    },
  };
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const instance = autocannon(
    {
      url: `http://127.0.0.1:${port}`,
      connections: CONNECTIONS,
      pipelining: 1,
      duration: SECONDS * 4,
      timeout: 15,
      requests: [
        search,
        {
          ...timed("index", (ctx) => {
            productSeq += 1;
            ctx.productId = `p${port}-${productSeq}`;
            return {
              product_id: ctx.productId,
              image_url: pick(images),
              metadata: { name: `Bench product ${productSeq}`, category: pick(["shirts", "bags", "shoes"]), price: 5 + (productSeq % 95) },
            };
          }),
          path: "/v1/products",
          onResponse: (status: number, body: string, context: Ctx) => {
            record(context, status, body);
            if (status === 201 || status === 200) tally.ackedProducts.add(context.productId!);
          },
        },
        search,
        {
          ...timed("feedback", () => {
            const s = tally.searches.at(-1);
            return s
              ? { search_id: s.id, result_product_id: s.top, action: pick(["click", "click", "add_to_cart"]) }
              : { result_product_id: "unknown", action: "click" };
          }),
          path: "/v1/search/feedback",
          onResponse: (status: number, body: string, context: Ctx) => {
            record(context, status, body);
            if (status === 201) tally.ackedFeedback.add((JSON.parse(body) as { id: string }).id);
          },
        },
      ],
    },
    () => resolveDone(),
  );
  instance.on("reqError", (error: Error & { code?: string }) => tally.error(`connection ${error.code ?? error.message}`));
  return { instance, done };
}

// ---------------------------------------------------------------- main -------

async function main(): Promise<number> {
  if (NICE > 0) {
    try {
      os.setPriority(NICE);
    } catch {
      // keep the current priority
    }
  }
  const { databaseUrl, redisUrl } = services();
  const dbName = `shopsight_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  const benchUrl = withDatabase(databaseUrl, dbName);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-bench-cluster-"));
  const procs: Proc[] = [];
  const closers: (() => Promise<void>)[] = [];
  const db = new pg.Client({ connectionString: benchUrl });
  let verdict = false;
  try {
    const model = await ensureTestModel(path.join(os.tmpdir(), `shopsight-test-model-v${TEST_MODEL_VERSION}`));
    const [api1, api2, chat1, chat2, metricsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const common = {
      NODE_ENV: "development",
      HOST: "127.0.0.1",
      DATABASE_URL: benchUrl,
      ...(args["no-redis"] ? {} : { REDIS_URL: redisUrl }),
      ...(REPLICA_URL ? { DATABASE_READ_URLS: withDatabase(REPLICA_URL, dbName) } : {}),
      DATA_DIR: dir,
      JWT_SIGNING_KEY: randomBytes(32).toString("hex"),
      CONNECTOR_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      CLIP_MODEL: model,
      OUTBOUND_ALLOW_PRIVATE: "true",
      LOG_LEVEL: "warn",
      PUBLIC_BASE_URL: `http://127.0.0.1:${api1}`,
    };
    const envOf = {
      api1: { ...common, PORT: String(api1), CHAT_PORT: String(chat1) },
      api2: { ...common, PORT: String(api2), CHAT_PORT: String(chat2) },
      worker: { ...common, METRICS_PORT: String(metricsPort) },
    };
    const ready = {
      api1: `http://127.0.0.1:${api1}/health/ready`,
      api2: `http://127.0.0.1:${api2}/health/ready`,
      worker: `http://127.0.0.1:${metricsPort}/health/ready`,
    };
    log(`database ${dbName}, redis ${redisUrl}; logs in ${dir}`);
    // The first process applies the migrations; the others then start in parallel.
    const p1 = startProc("api1", "api", envOf.api1, dir, 0);
    procs.push(p1);
    const firstStart = await waitReady(p1, ready.api1);
    let p2 = startProc("api2", "api", envOf.api2, dir, 0);
    let pw = startProc("worker", "worker", envOf.worker, dir, 0);
    procs.push(p2, pw);
    await Promise.all([waitReady(p2, ready.api2), waitReady(pw, ready.worker)]);
    log(`2 API processes (:${api1}, :${api2}) and 1 worker ready (first start ${(firstStart / 1000).toFixed(1)} s)`);

    const host = await startImageHost();
    closers.push(() => host.close());
    const images: string[] = [];
    for (const [i, hex] of COLOURS.entries()) images.push(host.put(`/img${i}.png`, await solidImage(hex, { seed: i + 1 })));
    const receiver: Receiver = await startReceiver(HOOK_SECRET);
    closers.push(() => receiver.close());

    const base1 = `http://127.0.0.1:${api1}`;
    const base2 = `http://127.0.0.1:${api2}`;
    const outbox = path.join(dir, "outbox");
    const store = await seedStore(base1, outbox, "main", "enterprise");
    const small = await seedStore(base2, outbox, "small", "free");
    const hook = await http(
      base2,
      "POST",
      "/v1/search/webhooks",
      { url: `${receiver.url}/hook`, events: ["product.indexed"], secret: HOOK_SECRET },
      store.token,
    );
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${hook.text}`);
    log(`seeded store ${store.slug} (enterprise, webhook ${hook.json.id}) and ${small.slug} (free)`);

    // ------------------------------------------------------------ traffic ---
    const tally = new Tally();
    const t0 = performance.now();
    const deadline = t0 + SECONDS * 1000;
    const a = cannon(api1, store.token, images, tally);
    let b: Cannon | undefined = cannon(api2, store.token, images, tally);

    let bulkSeq = 0;
    const bulkLoop = (async () => {
      while (performance.now() < deadline - 2000) {
        bulkSeq += 1;
        const ids = Array.from({ length: 4 }, (_, i) => `bulk${bulkSeq}-${i}`);
        const started = performance.now();
        try {
          const res = await http(
            bulkSeq % 2 ? base1 : base2,
            "POST",
            "/v1/products/bulk",
            {
              products: ids.map((id, i) => ({
                product_id: id,
                image_url: images[(bulkSeq + i) % images.length],
                metadata: { category: "bulk" },
              })),
            },
            store.token,
          );
          tally.response("bulk", res.status, performance.now() - started, res.text);
          if (res.status === 202) tally.ackedJobs.set(res.json.job_id, ids);
        } catch (e) {
          tally.error(`connection ${(e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message}`);
        }
        await sleep(4000);
      }
    })();

    // Fault: at a third of the run, kill API 2 and the worker (while the worker runs a bigger bulk
    // job, so a job is interrupted mid-way), restart both at once.
    await sleep(Math.max(0, (SECONDS * 1000) / 3 - 500));
    const bigIds = Array.from({ length: BIG_JOB }, (_, i) => `big-${i}`);
    const big = await http(
      base1,
      "POST",
      "/v1/products/bulk",
      {
        products: bigIds.map((id, i) => ({ product_id: id, image_url: images[i % images.length], metadata: { category: "big" } })),
      },
      store.token,
    );
    if (big.status === 202) tally.ackedJobs.set(big.json.job_id, bigIds);
    // Kill while the worker is inside that job (some items done, most not), or after 3 s at most.
    const pollUntil = performance.now() + 3000;
    while (performance.now() < pollUntil) {
      const progress = await http(base1, "GET", `/v1/jobs/${big.json?.job_id}`, undefined, store.token);
      if ((progress.json?.processed ?? 0) >= 5) break;
      await sleep(100);
    }
    const killedAt = performance.now();
    const bigProgress = await http(base1, "GET", `/v1/jobs/${big.json?.job_id}`, undefined, store.token);
    const inFlightKill = { api2: p2.child.pid, worker: pw.child.pid };
    p2.child.kill("SIGKILL");
    pw.child.kill("SIGKILL");
    let replicaBack: Promise<void> = Promise.resolve();
    if (REPLICA_URL) {
      const pid = killReplica();
      log(`SIGKILLed the replica's postmaster (pid ${pid}); restarting it in 5 s`);
      replicaBack = sleep(5_000)
        .then(restartReplica)
        .then(() => {
          log("replica restarted");
        });
    }
    await Promise.all([p2.exited, pw.exited]);
    log(
      `SIGKILLed api2 (pid ${inFlightKill.api2}) and the worker (pid ${inFlightKill.worker}) at ${((killedAt - t0) / 1000).toFixed(1)} s ` +
        `(bulk job of ${BIG_JOB} at ${bigProgress.json?.processed ?? "?"} processed); restarting`,
    );
    p2 = startProc("api2", "api", envOf.api2, dir, 1);
    pw = startProc("worker", "worker", envOf.worker, dir, 1);
    procs.push(p2, pw);
    // Let the dead backend's connections fail for a moment (counted), then take it out of rotation.
    await sleep(300);
    b.instance.stop();
    await b.done;
    b = undefined;
    let trafficOver = false;
    let downMs = NaN;
    const restarted = Promise.all([waitReady(p2, ready.api2), waitReady(pw, ready.worker)]).then(([api2Back, workerBack]) => {
      downMs = performance.now() - killedAt;
      log(`api2 ready again after ${(api2Back / 1000).toFixed(1)} s, worker after ${(workerBack / 1000).toFixed(1)} s`);
      // Back into rotation (the load balancer's health check passes again).
      if (!trafficOver && performance.now() < deadline - 1000) b = cannon(api2, store.token, images, tally);
    });
    await sleep(Math.max(0, deadline - performance.now()));
    trafficOver = true;
    a.instance.stop();
    (b as Cannon | undefined)?.instance.stop();
    const elapsed = (performance.now() - t0) / 1000;
    await Promise.all([a.done, (b as Cannon | undefined)?.done, bulkLoop]);
    if (Number.isNaN(downMs)) log("traffic over before api2 was back; waiting for api2 and the worker");
    await restarted;
    await replicaBack;
    log(`traffic done: ${tally.responses} responses in ${elapsed.toFixed(1)} s`);

    // ---------------------------------------------------------- integrity ---
    await db.connect();
    const failures: string[] = [];
    const q = async <T = any>(text: string, params: unknown[] = []) => (await db.query(text, params)).rows as T[];

    // Jobs and deliveries settle (a job claimed by the killed worker is re-claimed once its lease lapses).
    const settleStart = performance.now();
    let jobsOpen = 0;
    let deliveriesOpen = 0;
    for (;;) {
      jobsOpen = Number((await q(`SELECT count(*)::int AS n FROM jobs WHERE status NOT IN ('completed', 'failed')`))[0].n);
      deliveriesOpen = Number((await q(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`))[0].n);
      if ((jobsOpen === 0 && deliveriesOpen === 0) || performance.now() - settleStart > SETTLE_TIMEOUT_MS) break;
      await sleep(1000);
    }
    const settleS = (performance.now() - settleStart) / 1000;
    await sleep(500); // the receiver has answered the last delivery before the row turned "delivered"

    const products = new Set(
      (await q<{ product_id: string }>(`SELECT product_id FROM products WHERE store_id = $1`, [store.id])).map((r) => r.product_id),
    );
    const vectors = new Set(
      (await q<{ product_id: string }>(`SELECT product_id FROM product_vectors WHERE store_id = $1`, [store.id])).map((r) => r.product_id),
    );
    const missingProducts = [...tally.ackedProducts].filter((p) => !products.has(p) || !vectors.has(p));
    if (missingProducts.length > 0)
      failures.push(`${missingProducts.length} acknowledged products missing (e.g. ${missingProducts.slice(0, 3).join(", ")})`);
    const listed = await http(base1, "GET", "/v1/products?limit=1", undefined, store.token);
    if (listed.json?.total !== products.size) failures.push(`GET /v1/products total ${listed.json?.total} ≠ ${products.size} rows`);

    const feedback = new Set((await q<{ id: string }>(`SELECT id FROM search_feedback WHERE store_id = $1`, [store.id])).map((r) => r.id));
    const missingFeedback = [...tally.ackedFeedback].filter((id) => !feedback.has(id));
    if (missingFeedback.length > 0) failures.push(`${missingFeedback.length} acknowledged feedback events missing`);

    const jobs = await q<{ id: string; status: string; attempts: number }>(`SELECT id, status, attempts FROM jobs WHERE store_id = $1`, [
      store.id,
    ]);
    const bulk = new Map(
      (await q<{ job_id: string; status: string }>(`SELECT job_id, status FROM bulk_jobs WHERE store_id = $1`, [store.id])).map((r) => [
        r.job_id,
        r.status,
      ]),
    );
    const items = await q<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM bulk_job_items WHERE store_id = $1 GROUP BY status`,
      [store.id],
    );
    const unfinished = jobs.filter((j) => j.status !== "completed");
    if (unfinished.length > 0)
      failures.push(`${unfinished.length} jobs not completed: ${unfinished.map((j) => `${j.id} ${j.status}`).join(", ")}`);
    for (const [jobId, ids] of tally.ackedJobs) {
      if (bulk.get(jobId) !== "completed") failures.push(`bulk job ${jobId} is ${bulk.get(jobId) ?? "missing"}`);
      const absent = ids.filter((p) => !products.has(p));
      if (absent.length > 0) failures.push(`bulk job ${jobId}: products ${absent.join(", ")} missing`);
    }
    const badItems = items.filter((i) => i.status !== "succeeded");
    if (badItems.length > 0) failures.push(`bulk items not succeeded: ${badItems.map((i) => `${i.status} ${i.n}`).join(", ")}`);
    const rerun = jobs.filter((j) => j.attempts > 1).length;

    const deliveries = await q<{ id: string; status: string; event: string; body: string }>(
      `SELECT id, status, event, body FROM webhook_deliveries WHERE store_id = $1`,
      [store.id],
    );
    const received = new Map<string, number>();
    let badSignatures = 0;
    const indexedEvents = new Set<string>();
    for (const call of receiver.calls) {
      if (!call.signatureValid) {
        badSignatures += 1;
        continue;
      }
      const id = String(call.headers["x-webhook-delivery"] ?? "");
      received.set(id, (received.get(id) ?? 0) + 1);
      if (call.json.event === "product.indexed") indexedEvents.add(String(call.json.data?.product_id));
    }
    if (badSignatures > 0) failures.push(`${badSignatures} webhook calls with an invalid signature`);
    const undelivered = deliveries.filter((d) => d.status !== "delivered" || !received.has(d.id));
    if (undelivered.length > 0)
      failures.push(
        `${undelivered.length} webhook deliveries not delivered with a valid signature (${undelivered
          .slice(0, 3)
          .map((d) => `${d.id} ${d.status}`)
          .join(", ")})`,
      );
    const withoutEvent = [...products].filter((p) => !indexedEvents.has(p));
    if (withoutEvent.length > 0)
      failures.push(
        `${withoutEvent.length} indexed products without a received product.indexed (e.g. ${withoutEvent.slice(0, 3).join(", ")})`,
      );
    const duplicates = [...received.values()].filter((n) => n > 1).length;

    // Rate limit: a burst split across both API processes against the free plan.
    const burst = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        http(i % 2 ? base2 : base1, "GET", "/v1/billing/current-plan", undefined, small.token).catch(() => ({
          status: 0,
          headers: new Headers(),
        })),
      ),
    );
    const burst2xx = burst.filter((r) => r.status >= 200 && r.status < 300).length;
    const burst429 = burst.filter((r) => r.status === 429);
    const byPort = [0, 1].map((k) => burst.filter((r, i) => i % 2 === k && r.status === 200).length);
    if (burst2xx > FREE_BUDGET) failures.push(`rate limit: ${burst2xx} 2xx > free plan budget ${FREE_BUDGET}`);
    if (burst2xx + burst429.length !== BURST)
      failures.push(`rate limit burst: ${BURST - burst2xx - burst429.length} answers neither 2xx nor 429`);
    if (burst429.some((r) => !r.headers.get("retry-after"))) failures.push("rate limit: a 429 without Retry-After");

    const serverErrors = [...tally.statuses].filter(([k]) => / 5\d\d/.test(k));
    if (REPLICA_URL && serverErrors.length > 0)
      failures.push(`replica mode: ${serverErrors.map(([k, n]) => `${n} × ${k}`).join(", ")} (reads must fall back to the primary)`);
    verdict = failures.length === 0;

    // --------------------------------------------------------------- report ---
    const lines: string[] = [];
    const rps = tally.responses / elapsed;
    const all = [...tally.latencies.values()].flat();
    lines.push("");
    lines.push(
      `bench:cluster — 2 API processes + 1 worker${REPLICA_URL ? ", search/listing/analytics reads from a streaming replica (SIGKILLed with api2, restarted after 5 s)" : ""}, PostgreSQL ${(await q(`SHOW server_version`))[0].server_version} + pgvector ${(await q(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`))[0]?.extversion}, ${args["no-redis"] ? "NO Redis (negative control)" : "Redis"}; ${CONNECTIONS} connections per API port, ${SECONDS} s, nice ${NICE}, ${os.cpus().length} CPUs`,
    );
    lines.push(
      `fault: api2 and worker SIGKILLed at ${((killedAt - t0) / 1000).toFixed(1)} s (a ${BIG_JOB}-item bulk job at ${bigProgress.json?.processed ?? "?"} processed); both ready again after ${(downMs / 1000).toFixed(1)} s${killedAt - t0 + downMs > SECONDS * 1000 ? " (after the traffic ended: api2 got no more traffic)" : ""}`,
    );
    lines.push("");
    lines.push(
      `throughput: ${tally.responses} responses in ${elapsed.toFixed(1)} s = ${rps.toFixed(1)} req/s (${tally.ok} 2xx = ${(tally.ok / elapsed).toFixed(1)}/s)`,
    );
    lines.push(`latency all: p50 ${pct(all, 50).toFixed(1)} ms, p95 ${pct(all, 95).toFixed(1)} ms`);
    for (const kind of ["search", "index", "feedback", "bulk"] as Kind[]) {
      const xs = tally.latencies.get(kind) ?? [];
      lines.push(
        `  ${kind.padEnd(8)} n=${String(xs.length).padStart(5)}  p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms  p95 ${pct(xs, 95).toFixed(1).padStart(7)} ms`,
      );
    }
    lines.push("errors by kind (connection errors: requests sent to api2 in the 300 ms after its kill):");
    if (tally.statuses.size === 0 && tally.errors.size === 0) lines.push("  none");
    for (const [k, n] of [...tally.statuses, ...tally.errors].sort((x, y) => y[1] - x[1])) lines.push(`  ${k}: ${n}`);
    lines.push("");
    lines.push("integrity:");
    const bulkIds = new Set([...tally.ackedJobs.values()].flat());
    const unacked = [...products].filter((p) => !tally.ackedProducts.has(p) && !bulkIds.has(p)).length;
    lines.push(
      `  products acknowledged ${tally.ackedProducts.size} (+ ${bulkIds.size} in bulk jobs), in database ${products.size} with ${vectors.size} vectors, missing ${missingProducts.length}` +
        `${unacked > 0 ? `; ${unacked} stored whose answer never arrived (cut off by the kill or by the end of the run: allowed)` : ""}`,
    );
    lines.push(`  feedback acknowledged ${tally.ackedFeedback.size}, stored ${feedback.size}, missing ${missingFeedback.length}`);
    lines.push(
      `  jobs ${jobs.length}: ${jobs.length - unfinished.length} completed, ${rerun} run more than once (re-claimed after the kill); settled ${settleS.toFixed(1)} s after the traffic`,
    );
    lines.push(
      `  webhook deliveries ${deliveries.length}: ${deliveries.length - undelivered.length} delivered with valid signature, ${duplicates} received more than once, ${badSignatures} bad signatures; product.indexed received for ${products.size - withoutEvent.length}/${products.size} products`,
    );
    lines.push(
      `  rate limit (free plan, ${FREE_BUDGET}/min): burst of ${BURST} at once, ${BURST / 2} per port → ${burst2xx} 2xx (port1 ${byPort[0]}, port2 ${byPort[1]}), ${burst429.length} 429 with Retry-After`,
    );
    lines.push("");
    lines.push(verdict ? "VERDICT: PASS" : `VERDICT: FAIL\n${failures.map((f) => `  - ${f}`).join("\n")}`);
    console.log(lines.join("\n"));
    return verdict ? 0 : 1;
  } catch (error) {
    process.stderr.write(`bench:cluster failed: ${(error as Error).stack ?? error}\n`);
    for (const p of procs.slice(-3)) process.stderr.write(`--- ${p.name} (${p.logFile}):\n${tail(p.logFile)}\n`);
    return 1;
  } finally {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGTERM");
    await Promise.race([Promise.all(procs.map((p) => p.exited)), sleep(10_000)]);
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    for (const close of closers) await close().catch(() => undefined);
    await db.end().catch(() => undefined);
    if (!args.keep) {
      await admin
        .query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`)
        .catch((e: Error) => log(`could not drop ${dbName}: ${e.message}`));
      if (verdict) fs.rmSync(dir, { recursive: true, force: true });
      else log(`process logs kept in ${dir}`);
    } else log(`kept database ${dbName} (${benchUrl}) and logs in ${dir}`);
    await admin.end();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:cluster failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
