// `npm run bench:search [-- --count 50000] [--no-postgres] [--seconds 10] [--skip-vectors]`
//
// 1. The vector stage alone (bench/vectors.ts): 50,000 clustered 512-d vectors, SQLite + usearch
//    and PostgreSQL + pgvector, p50/p95 unfiltered and filtered, recall@10 vs exact.
// 2. Full HTTP text search through the real Search API with the tiny test model: one store with
//    `--count` products (synthetic clustered vectors of the model's dimension, real rows and
//    metadata), a real listener on loopback; p50/p95 of sequential requests unfiltered and with a
//    category filter (~20 % of the store), then requests/s with 2 concurrent clients for
//    `--seconds` (autocannon). For SQLite and, when TEST_DATABASE_URL is set, PostgreSQL.
// 3. Fused vs visual text search (issue 15): the same store, whose product names are made of
//    colour, type and brand words (so the queries' words match thousands of products lexically),
//    p50/p95 of `semantic_weight: 1` (visual only) against fused ranking (`semantic_weight: 0.5`,
//    blend and rrf), unfiltered and filtered, requests of the variants interleaved (so load from
//    elsewhere weighs on all alike); on SQLite also with the lexical ranking cache
//    (src/lexical/cache.ts) emptied before every request, i.e. every lexical query run by FTS5
//    (the eight queries repeat, so otherwise all but the first of each come from the cache).
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

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "50000" },
    seconds: { type: "string", default: "10" },
    "no-postgres": { type: "boolean", default: false },
    "skip-vectors": { type: "boolean", default: false },
  },
});
const COUNT = Number(args.count);
const SECONDS = Number(args.seconds);
const PG_URL = testEnv.databaseUrl;
const CATEGORIES = ["dresses", "tops", "bottoms", "shoes", "bags"];
const QUERIES = ["red dress", "blue jeans", "black bag", "white sneakers", "green top", "yellow scarf", "navy coat", "pink skirt"];
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

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

async function seed(ctx: AppContext, storeId: string, dim: number): Promise<void> {
  const data = clusteredVectors({ count: COUNT, dim, clusters: 50, seed: 7 });
  const now = Date.now();
  const model = ctx.images.modelKey();
  const image = { sha256: "bench", bytes: randomBytes(64) };
  await ctx.database.db
    .insertInto("product_images")
    .values({ store_id: storeId, sha256: image.sha256, content_type: "image/jpeg", width: 1, height: 1, bytes: image.bytes, created_at: now })
    .execute();
  const BATCH = 1000;
  for (let start = 0; start < COUNT; start += BATCH) {
    const upserted: { vectorId: string; productId: string; vector: Float32Array }[] = [];
    await ctx.database.transaction(async (tx) => {
      const rows = [];
      for (let i = start; i < Math.min(COUNT, start + BATCH); i++) {
        const category = CATEGORIES[i % CATEGORIES.length]!;
        const price = 10 + (i % 200);
        rows.push({
          store_id: storeId,
          product_id: `p${i}`,
          vector_id: `v${i}`,
          image_url: `https://cdn.example/p${i}.jpg`,
          image_sha256: image.sha256,
          name: productName(i, category),
          category,
          brand: `brand-${i % 20}`,
          price,
          color_name: null,
          metadata: JSON.stringify({ name: productName(i, category), category, price, brand: `brand-${i % 20}` }),
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

async function httpBench(kind: "sqlite" | "postgres") {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-bench-"));
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const modelDir = await ensureTestModel(path.join(os.tmpdir(), `shopsight-test-model-v${TEST_MODEL_VERSION}`));
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
    const reg = await accounts.register({ client_name: "Bench", email: `bench-${schema}@example.com`, password: "Bench-pass-123" });
    await ctx.database.db.updateTable("stores").set({ status: "active", plan: "enterprise" }).where("id", "=", reg.client_id).execute();
    const t0 = performance.now();
    await seed(ctx, reg.client_id, ctx.model!.fingerprint.dim);
    const seedS = (performance.now() - t0) / 1000;
    const token = (await ctx.signer.issue({ sub: reg.client_id, user_type: "client", memberships: [], is_super_admin: false })).access_token;
    const app = await buildSearchApp(ctx, { logger: false, services });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const port = (app.server.address() as { port: number }).port;
    const url = `http://127.0.0.1:${port}/v1/search/text`;
    const call = async (body: object) => {
      const res = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`search answered ${res.status}: ${await res.text()}`);
      return res.json();
    };
    const cache = lexicalCacheOf(ctx.database.db);
    type Variant = { ranking: object; filtered: boolean };
    /**
     * p50/p95 of each variant, measured interleaved (one request of each per round, same query),
     * so that other work on the machine weighs on all of them alike. `cold`: the lexical ranking
     * cache (SQLite) is emptied before every request of a variant whose lexical stage runs.
     */
    const measure = async <K extends string>(variants: Record<K, Variant>, cold = false) => {
      const names = Object.keys(variants) as K[];
      const body = (v: Variant, i: number) => ({
        query: QUERIES[i % QUERIES.length],
        limit: 10,
        ...v.ranking,
        ...(v.filtered ? { category: CATEGORIES[i % CATEGORIES.length] } : {}),
      });
      for (let i = 0; i < 20; i++) for (const n of names) await call(body(variants[n], i));
      const ms = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
      for (let i = 0; i < 200; i++) {
        for (const n of names) {
          if (cold) cache.clear();
          const s = performance.now();
          await call(body(variants[n], i));
          ms[n].push(performance.now() - s);
        }
      }
      return Object.fromEntries(names.map((n) => [n, { p50: pct(ms[n], 50), p95: pct(ms[n], 95) }])) as Record<K, { p50: number; p95: number }>;
    };
    const visual = { ranking: { semantic_weight: 1 }, filtered: false };
    const visualFiltered = { ranking: { semantic_weight: 1 }, filtered: true };
    const blend = { ranking: { semantic_weight: 0.5, fusion_method: "blend" }, filtered: false };
    const blendFiltered = { ranking: { semantic_weight: 0.5, fusion_method: "blend" }, filtered: true };
    const lexical = { ranking: { semantic_weight: 0 }, filtered: false };
    const warm = await measure({ visual, visualFiltered, blend, rrf: { ranking: { semantic_weight: 0.5, fusion_method: "rrf" }, filtered: false }, blendFiltered, lexical });
    const coldRun = kind === "sqlite" ? await measure({ visual, visualFiltered, blend, blendFiltered, lexical }, true) : undefined;
    const unfiltered = warm.visual;
    const filtered = warm.visualFiltered;
    const fused = { blend: warm.blend, rrf: warm.rrf, blendFiltered: warm.blendFiltered, lexical: warm.lexical, cold: coldRun };
    const load = await autocannon({
      url,
      method: "POST",
      connections: 2,
      duration: SECONDS,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ query: "red dress", limit: 10, semantic_weight: 1 }),
    });
    await app.close();
    return {
      engine: kind === "sqlite" ? "SQLite + usearch" : "PostgreSQL + pgvector",
      seedS,
      unfiltered,
      filtered,
      fused,
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

async function main() {
  console.log(`Search benchmark on ${os.cpus().length} cores, Node ${process.version}, ${COUNT} products\n`);
  if (!args["skip-vectors"]) {
    console.log("== Vector stage (512-d synthetic clustered vectors)");
    const rows = await runVectorBench({ count: COUNT, postgresUrl: args["no-postgres"] ? undefined : PG_URL });
    console.log(formatVectorBench(rows));
  }
  console.log("\n== Full HTTP text search (tiny test model, real listener on loopback); visual = semantic_weight 1");
  const engines: ("sqlite" | "postgres")[] = ["sqlite", ...(PG_URL && !args["no-postgres"] ? (["postgres"] as const) : [])];
  if (!PG_URL && !args["no-postgres"]) console.log("(PostgreSQL skipped: TEST_DATABASE_URL is not set)");
  for (const kind of engines) {
    const r = await httpBench(kind);
    console.log(
      `${r.engine.padEnd(24)} seed ${r.seedS.toFixed(1)} s | unfiltered p50 ${r.unfiltered.p50.toFixed(2)} ms p95 ${r.unfiltered.p95.toFixed(2)} ms | ` +
        `category filter p50 ${r.filtered.p50.toFixed(2)} ms p95 ${r.filtered.p95.toFixed(2)} ms | ` +
        `2 clients ${SECONDS} s: ${r.rps.toFixed(0)} req/s (p50 ${r.latency.p50} ms, p97.5 ${r.latency.p97_5} ms, non-2xx ${r.non2xx}, errors ${r.errors})`,
    );
    const ratio = (x: { p50: number }) => (x.p50 / r.unfiltered.p50).toFixed(2);
    console.log(
      `${"".padEnd(24)} fused text (semantic_weight 0.5): blend p50 ${r.fused.blend.p50.toFixed(2)} ms p95 ${r.fused.blend.p95.toFixed(2)} ms (${ratio(r.fused.blend)}× visual) | ` +
        `rrf p50 ${r.fused.rrf.p50.toFixed(2)} ms (${ratio(r.fused.rrf)}×) | blend + category filter p50 ${r.fused.blendFiltered.p50.toFixed(2)} ms ` +
        `(${(r.fused.blendFiltered.p50 / r.filtered.p50).toFixed(2)}× visual filtered) | lexical only p50 ${r.fused.lexical.p50.toFixed(2)} ms`,
    );
    const c = r.fused.cold;
    if (c) {
      console.log(
        `${"".padEnd(24)} lexical ranking cache emptied before each request: visual p50 ${c.visual.p50.toFixed(2)} ms | blend p50 ${c.blend.p50.toFixed(2)} ms ` +
          `(${(c.blend.p50 / c.visual.p50).toFixed(2)}× visual) | blend + category filter p50 ${c.blendFiltered.p50.toFixed(2)} ms ` +
          `(${(c.blendFiltered.p50 / c.visualFiltered.p50).toFixed(2)}× visual filtered ${c.visualFiltered.p50.toFixed(2)} ms) | lexical only p50 ${c.lexical.p50.toFixed(2)} ms`,
      );
    }
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
