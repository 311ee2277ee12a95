// `npm run bench:search [-- --count 50000] [--no-postgres] [--seconds 10] [--skip-vectors]
//                        [--model DIR] [--data real|synthetic] [--rounds 200]
//                        [--engines sqlite,postgres] [--stages]`
// `--stages`: also the mean time of each search stage (shopsight_search_stage_duration_seconds:
// http, auth, embed, lexical, filter, vector, fusion, hydrate, history, serialise) per request of
// each variant, to tell where a variant's extra time goes (history is written after the reply and
// charged to the request running then).
//
// 1. The vector stage alone (bench/vectors.ts): 50,000 clustered 512-d vectors, SQLite + usearch
//    and PostgreSQL + pgvector, p50/p95 unfiltered and filtered, recall@10 vs exact.
// 2. Full HTTP text search through the real Search API: one store with `--count` products
//    (synthetic clustered vectors of the model's dimension, real rows and metadata), a real
//    listener on loopback; p50/p95 of sequential requests unfiltered and with a price filter
//    (price_max 49: 20 % of the store), then requests/s with 2 concurrent clients for `--seconds`
//    (autocannon). For SQLite and, when TEST_DATABASE_URL is set, PostgreSQL. The model is the
//    built-in tiny test model unless `--model DIR` names a model folder (e.g.
//    ../shared/models/fashion-clip-small: real text-encoding cost; the tiny model's is near zero).
// 3. Fused vs visual text search (issue 15): p50/p95 of `semantic_weight: 1` (visual only)
//    against fused ranking (`semantic_weight: 0.5` blend and rrf, and the model's default), lexical
//    only, unfiltered and filtered (price_max 49: 20 % of the store); the variants' requests interleaved (one of each per round, same
//    query), so load from elsewhere weighs on all alike. Two query streams:
//      repeated — eight popular queries over and over (the query-embedding cache and the lexical
//                 ranking cache answer all but the first of each; on PostgreSQL a ranking serves
//                 for up to 30 s, src/lexical/cache.ts);
//      new      — every request a query never seen: both caches emptied before each request.
//    Product text (`--data`): `real` (the default when ../shared/datasets/fashion-products is
//    present) gives product i the name, article type (category), base colour and other labels of
//    dataset product i mod 9,583, and the queries are the dataset's "{colour} {type}",
//    "{gender} {type}" and "{type}" phrases (so a query's words match as many products as they
//    would in a real catalogue of that size); `synthetic` names products from 10 colours, 15 types
//    and 4 styles (each word in 7–25 % of the store; most queries' words never occur together, so
//    they fall back to matching any word: thousands of matches), the queries eight such phrases.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { loadConfig } from "../src/platform/config.js";
import { createContext, type AppContext } from "../src/context/context.js";
import { buildSearchApp } from "../src/search/app.js";
import { ensureTestModel } from "../src/embeddings/load.js";
import { TEST_MODEL_VERSION } from "../src/embeddings/testmodel/build.js";
import { composeSearch } from "../src/search/compose.js";
import { clusteredVectors } from "../src/vectors/synthetic.js";
import { LexicalRepository } from "../src/lexical/repository.js";
import { lexicalCacheOf } from "../src/lexical/cache.js";
import { formatVectorBench, runVectorBench } from "./vectors.js";
import { testEnv } from "../test/support/env.js";
import { readDataset } from "../eval/search/dataset.js";
import { mulberry32 } from "../src/platform/prng.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const DATASET = path.resolve(here, "../../shared/datasets/fashion-products/products.jsonl");
const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "50000" },
    seconds: { type: "string", default: "10" },
    "no-postgres": { type: "boolean", default: false },
    "skip-vectors": { type: "boolean", default: false },
    model: { type: "string" },
    data: { type: "string", default: fs.existsSync(DATASET) ? "real" : "synthetic" },
    rounds: { type: "string", default: "200" },
    engines: { type: "string", default: "sqlite,postgres" },
    stages: { type: "boolean", default: false },
  },
});
const ROUNDS = Number(args.rounds);
if (args.data !== "real" && args.data !== "synthetic") throw new Error("--data is real or synthetic");
if (args.data === "real" && !fs.existsSync(DATASET)) throw new Error(`--data real needs ${DATASET}`);
const COUNT = Number(args.count);
const SECONDS = Number(args.seconds);
const PG_URL = testEnv.databaseUrl;
const SYNTHETIC_CATEGORIES = ["dresses", "tops", "bottoms", "shoes", "bags"];
const SYNTHETIC_QUERIES = [
  "red dress",
  "blue jeans",
  "black bag",
  "white sneakers",
  "green top",
  "yellow scarf",
  "navy coat",
  "pink skirt",
];
const COLOURS = ["red", "blue", "black", "white", "green", "yellow", "navy", "pink", "grey", "brown"];
const TYPES: Record<string, string[]> = {
  dresses: ["dress", "gown", "sundress"],
  tops: ["top", "shirt", "blouse"],
  bottoms: ["jeans", "skirt", "trousers"],
  shoes: ["sneakers", "boots", "sandals"],
  bags: ["bag", "tote", "scarf"],
};
/** A product name of colour, type and brand words (lexical matches for QUERIES). */
const productName = (i: number, category: string) =>
  `${COLOURS[(i * 7) % COLOURS.length]} ${TYPES[category]![i % 3]} ${["classic", "slim", "summer", "winter"][i % 4]} ${i}`;

/** A deterministic shuffle (mulberry32), so every run asks the same queries in the same order. */
function shuffled<T>(xs: T[], seed: number): T[] {
  const rand = mulberry32(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** What the store holds and what it is asked: product i's metadata, the query streams. */
interface Catalogue {
  metadata(i: number): Record<string, unknown> & { name: string; category: string };
  repeated: string[];
  fresh: string[];
}

function realCatalogue(): Catalogue {
  const products = readDataset(DATASET);
  const phrases = new Set<string>();
  for (const p of products) {
    phrases.add(`${p.baseColour} ${p.articleType}`);
    phrases.add(`${p.gender} ${p.articleType}`);
    phrases.add(p.articleType);
  }
  const fresh = shuffled([...phrases], 15);
  return {
    metadata: (i) => {
      const p = products[i % products.length]!;
      const extra = Object.fromEntries(
        (["gender", "masterCategory", "subCategory", "season", "usage"] as const).filter((k) => p[k]).map((k) => [k, p[k]]),
      );
      return { name: p.name, category: p.articleType, color_name: p.baseColour, price: 10 + (i % 200), ...extra };
    },
    repeated: fresh.slice(0, 8),
    fresh,
  };
}

function syntheticCatalogue(): Catalogue {
  const fresh: string[] = [];
  for (const c of COLOURS)
    for (const types of Object.values(TYPES))
      for (const t of types) for (const style of ["", " classic", " slim", " summer"]) fresh.push(`${c} ${t}${style}`);
  return {
    metadata: (i) => {
      const category = SYNTHETIC_CATEGORIES[i % SYNTHETIC_CATEGORIES.length]!;
      return { name: productName(i, category), category, price: 10 + (i % 200), brand: `brand-${i % 20}` };
    },
    repeated: SYNTHETIC_QUERIES,
    fresh: shuffled(fresh, 15),
  };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

async function seed(ctx: AppContext, storeId: string, dim: number, catalogue: Catalogue): Promise<void> {
  const data = clusteredVectors({ count: COUNT, dim, clusters: 50, seed: 7 });
  const now = Date.now();
  const model = ctx.images.modelKey();
  const image = { sha256: "bench", bytes: randomBytes(64) };
  await ctx.database.db
    .insertInto("product_images")
    .values({
      store_id: storeId,
      sha256: image.sha256,
      content_type: "image/jpeg",
      width: 1,
      height: 1,
      bytes: image.bytes,
      created_at: now,
    })
    .execute();
  const BATCH = 1000;
  for (let start = 0; start < COUNT; start += BATCH) {
    const upserted: { vectorId: string; productId: string; vector: Float32Array }[] = [];
    await ctx.database.transaction(async (tx) => {
      const rows = [];
      for (let i = start; i < Math.min(COUNT, start + BATCH); i++) {
        const metadata = catalogue.metadata(i);
        rows.push({
          store_id: storeId,
          product_id: `p${i}`,
          vector_id: `v${i}`,
          image_url: `https://cdn.example/p${i}.jpg`,
          image_sha256: image.sha256,
          name: metadata.name,
          category: metadata.category,
          brand: typeof metadata.brand === "string" ? metadata.brand : null,
          price: Number(metadata.price),
          color_name: typeof metadata.color_name === "string" ? metadata.color_name : null,
          metadata: JSON.stringify(metadata),
          dominant_colors: "[]",
          model,
          created_at: now + i,
          updated_at: now + i,
        });
      }
      await tx.insertInto("products").values(rows).execute();
      const lexical = new LexicalRepository(tx, ctx.database.dialect);
      for (const r of rows) await lexical.upsert(storeId, r.product_id, JSON.parse(r.metadata) as Record<string, unknown>);
      for (const r of rows) {
        const idx = Number(r.product_id.slice(1));
        const vector = data.row(idx);
        await ctx.vectors.upsert(tx, storeId, { vectorId: r.vector_id, productId: r.product_id, model, vector });
        upserted.push({ vectorId: r.vector_id, productId: r.product_id, vector });
      }
    });
    ctx.vectors.afterCommit(storeId, { upserted });
  }
  await ctx.vectors.settled();
}

type Timing = { p50: number; p95: number };
/** The request variants of the fused-vs-visual comparison (semantic_weight 1 = visual only). */
const VARIANTS = {
  visual: { ranking: { semantic_weight: 1 }, filtered: false },
  blend: { ranking: { semantic_weight: 0.5, fusion_method: "blend" }, filtered: false },
  rrf: { ranking: { semantic_weight: 0.5, fusion_method: "rrf" }, filtered: false },
  default: { ranking: {}, filtered: false },
  lexical: { ranking: { semantic_weight: 0 }, filtered: false },
  visualFiltered: { ranking: { semantic_weight: 1 }, filtered: true },
  blendFiltered: { ranking: { semantic_weight: 0.5, fusion_method: "blend" }, filtered: true },
} as const;
type VariantName = keyof typeof VARIANTS;

async function httpBench(kind: "sqlite" | "postgres", catalogue: Catalogue) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-bench-"));
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const modelDir = args.model
    ? path.resolve(args.model)
    : await ensureTestModel(path.join(os.tmpdir(), `shopsight-test-model-v${TEST_MODEL_VERSION}`));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    CLIP_MODEL: modelDir,
    ...(kind === "postgres" ? { DATABASE_URL: PG_URL } : {}),
  });
  const ctx = await createContext(config, kind === "postgres" ? { pgSchema: schema } : {});
  try {
    const services = composeSearch(ctx);
    const accounts = services.accounts;
    const reg = await accounts.register(
      { client_name: "Bench", email: `bench-${schema}@example.com`, password: "Bench-pass-123" },
      "127.0.0.1",
    );
    await ctx.database.db.updateTable("stores").set({ status: "active", plan: "enterprise" }).where("id", "=", reg.client_id).execute();
    const t0 = performance.now();
    await seed(ctx, reg.client_id, ctx.model!.fingerprint.dim, catalogue);
    const seedS = (performance.now() - t0) / 1000;
    const token = (await ctx.signer.issue({ sub: reg.client_id, user_type: "client", memberships: [], is_super_admin: false }))
      .access_token;
    const app = await buildSearchApp(ctx, { logger: false, services });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const port = (app.server.address() as { port: number }).port;
    const url = `http://127.0.0.1:${port}/v1/search/text`;
    const call = async (body: object) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
      return res.json();
    };
    const lexicalCache = lexicalCacheOf(ctx.database.db);
    const names = Object.keys(VARIANTS) as VariantName[];
    // --stages: each stage's time, charged to the variant whose request is running.
    let running: VariantName | undefined;
    /** The round being measured (the first 20 warm up and are not charged). */
    let i = 0;
    const stageMs = new Map<string, number>();
    const observeStage = ctx.metrics.observeSearchStage.bind(ctx.metrics);
    ctx.metrics.observeSearchStage = (stage, seconds) => {
      observeStage(stage, seconds);
      const key = `${running}\u0000${stage}`;
      if (running && i >= 20) stageMs.set(key, (stageMs.get(key) ?? 0) + seconds * 1000);
    };
    /**
     * p50/p95 of each variant, measured interleaved (one request of each per round, same query),
     * so that other work on the machine weighs on all of them alike. `fresh`: every round a query
     * not asked before, and the query-embedding and lexical ranking caches emptied before every
     * request (as for a query never seen); otherwise the repeated queries, caches kept.
     */
    const measure = async (fresh: boolean) => {
      const queries = fresh ? catalogue.fresh : catalogue.repeated;
      const body = (v: (typeof VARIANTS)[VariantName], i: number) => ({
        query: queries[i % queries.length],
        limit: 10,
        ...v.ranking,
        ...(v.filtered ? { price_max: 49 } : {}),
      });
      const ms = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<VariantName, number[]>;
      stageMs.clear();
      for (i = 0; i < ROUNDS + 20; i++) {
        for (const n of names) {
          running = n;
          if (fresh) {
            lexicalCache.clear();
            ctx.images.queryCache.clear();
          }
          const s = performance.now();
          await call(body(VARIANTS[n], i));
          if (i >= 20) ms[n].push(performance.now() - s); // the first 20 rounds warm up
        }
      }
      running = undefined;
      if (args.stages) {
        console.log(`${kind} ${fresh ? "new" : "repeated"}: mean ms per request by stage`);
        for (const n of names) {
          const parts = [...stageMs].filter(([key]) => key.startsWith(`${n}\u0000`));
          console.log(
            `  ${n.padEnd(16)} ${parts.map(([key, total]) => `${key.split("\u0000")[1]} ${(total / ROUNDS).toFixed(2)}`).join(", ")}`,
          );
        }
      }
      return Object.fromEntries(names.map((n) => [n, { p50: pct(ms[n], 50), p95: pct(ms[n], 95) }])) as Record<VariantName, Timing>;
    };
    const repeated = await measure(false);
    const fresh = await measure(true);
    const load = await autocannon({
      url,
      method: "POST",
      connections: 2,
      duration: SECONDS,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: catalogue.repeated[0], limit: 10, semantic_weight: 1 }),
    });
    await app.close();
    return {
      engine: kind === "sqlite" ? "SQLite + usearch" : "PostgreSQL + pgvector",
      seedS,
      repeated,
      fresh,
      rps: load.requests.average,
      non2xx: load.non2xx,
      errors: load.errors,
      latency: { p50: load.latency.p50, p97_5: load.latency.p97_5 },
    };
  } finally {
    await ctx.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (kind === "postgres" && PG_URL) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
}

function formatFused(engine: string, stream: string, t: Record<VariantName, Timing>): string {
  const v = (n: VariantName, base: VariantName = "visual") =>
    `${t[n].p50.toFixed(2)} / ${t[n].p95.toFixed(2)} (${(t[n].p50 / t[base].p50).toFixed(2)}×)`;
  return [
    engine.padEnd(22),
    stream.padEnd(9),
    `${t.visual.p50.toFixed(2)} / ${t.visual.p95.toFixed(2)}`.padEnd(16),
    v("blend").padEnd(24),
    v("rrf").padEnd(24),
    v("default").padEnd(24),
    v("blendFiltered", "visualFiltered").padEnd(24),
    `${t.lexical.p50.toFixed(2)} / ${t.lexical.p95.toFixed(2)}`,
  ].join(" | ");
}

async function main() {
  console.log(`Search benchmark on ${os.cpus().length} cores, Node ${process.version}, ${COUNT} products\n`);
  if (!args["skip-vectors"]) {
    console.log("== Vector stage (512-d synthetic clustered vectors)");
    const rows = await runVectorBench({ count: COUNT, postgresUrl: args["no-postgres"] ? undefined : PG_URL });
    console.log(formatVectorBench(rows));
  }
  const catalogue = args.data === "real" ? realCatalogue() : syntheticCatalogue();
  const model = args.model ? path.basename(path.resolve(args.model)) : "tiny test model";
  console.log(`\n== Full HTTP text search (${model}; ${args.data} product text; real listener on loopback); visual = semantic_weight 1`);
  const wanted = args.engines.split(",");
  const engines = (["sqlite", "postgres"] as const).filter(
    (e) => wanted.includes(e) && (e === "sqlite" || (PG_URL !== undefined && !args["no-postgres"])),
  );
  if (!PG_URL && !args["no-postgres"]) console.log("(PostgreSQL skipped: TEST_DATABASE_URL is not set)");
  const fusedLines: string[] = [];
  for (const kind of engines) {
    const r = await httpBench(kind, catalogue);
    const t = r.repeated;
    console.log(
      `${r.engine.padEnd(24)} seed ${r.seedS.toFixed(1)} s | unfiltered p50 ${t.visual.p50.toFixed(2)} ms p95 ${t.visual.p95.toFixed(2)} ms | ` +
        `price filter p50 ${t.visualFiltered.p50.toFixed(2)} ms p95 ${t.visualFiltered.p95.toFixed(2)} ms | ` +
        `2 clients ${SECONDS} s: ${r.rps.toFixed(0)} req/s (p50 ${r.latency.p50} ms, p97.5 ${r.latency.p97_5} ms, non-2xx ${r.non2xx}, errors ${r.errors})`,
    );
    fusedLines.push(formatFused(r.engine, "repeated", r.repeated), formatFused(r.engine, "new", r.fresh));
  }
  console.log(
    `\n== Fused vs visual text search, ${ROUNDS} rounds, p50 / p95 ms (p50 × visual's); fused = semantic_weight 0.5, default = the model's`,
  );
  console.log(
    [
      "engine".padEnd(22),
      "queries".padEnd(9),
      "visual".padEnd(16),
      "blend".padEnd(24),
      "rrf".padEnd(24),
      "default".padEnd(24),
      "blend + price filter (× visual filtered)".padEnd(24),
      "lexical only",
    ].join(" | "),
  );
  for (const line of fusedLines) console.log(line);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
