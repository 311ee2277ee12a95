// `npm run bench:scale [-- --n 100000] [--dim 512] [--queries 50] [--m 16] [--ef-construction 128]
//   [--ef-search default,100,200] [--maintenance-work-mem 1GB] [--halfvec] [--keep] [--schema NAME] [--postgres URL]
//   [--model DIR] [--filter-indexes 128] [--lists-min-rows 20000] [--graph-min-rows 5000] [--workloads TEXT]
//   [--redis URL|none] [--http-warmup 300] [--http-searches 30]`
//
// One store with `--n` products on PostgreSQL + pgvector, as a big catalogue would be:
//   1. load: products (realistic metadata: name, 20 categories that follow the vector clusters as
//      real categories follow appearance, 100 brands at random, price 5–500) and 512-d clustered
//      unit vectors (1,000 clusters), written with COPY (binary for the vectors) into a fresh
//      schema, then ANALYZE; no HNSW index exists during the load;
//   2. build: the HNSW index after the load, with `maintenance_work_mem` = --maintenance-work-mem
//      (the graph must fit in it, or the build slows down sharply: pgvector says so in a NOTICE)
//      and one parallel maintenance worker; build time, index size, table size;
//   2b. filter indexes (src/vectors/filter-indexes.ts): one refresh as the worker's maintenance
//      round runs it, at most --filter-indexes per store (0: none), with inverted lists for those
//      of ≥ --lists-min-rows products (VECTOR_FILTER_INDEX_LISTS_MIN_ROWS' default 20,000; on a kept
//      schema the refresh adds lists to values that have none) and a graph, kept where its recall
//      check holds, for those of ≥ --graph-min-rows without lists (VECTOR_FILTER_INDEX_GRAPH_MIN_ROWS'
//      default 5,000), its time and the copies' size;
//   3. vector stage through the VectorIndex interface (what the search service calls), k = 10:
//      p50/p95 unfiltered and with filters of 1 % (one brand, at random), 10 % (two
//      categories: they follow the clusters, so the query's neighbourhood may hold none), 50 %
//      (price window, at random) and 5 % (one category), each given as a set of ids and as the
//      search service hands it over (search/repository.ts: left in the database past 5,000
//      products, or 2,000 when it pins a category or brand, with that category or brand for a
//      filter index), recall@10 against the exact answer computed while generating, for each
//      ef_search in --ef-search ("default": the adapter's own, which follows the index's size);
//      the paths taken, with their own p50 and recall; each workload is first warmed by as many
//      other queries with the same filters (the steady state of a store searched that way);
//   4. memory: the server's shared_buffers and huge_pages (printed first), the index size (what
//      must stay cached), and this process's RSS.
//   5. with --model DIR (a CLIP folder whose vectors have --dim dimensions, e.g. the random
//      full-size one of ../shared/tools/make-random-clip.py): full HTTP text search through the
//      Search API on the same schema (a listener on loopback, a store token; the lexical index
//      filled first, its time printed), p50/p95 unfiltered and with filters of 1 % (brand, a
//      metadata filter), 5 % (one category), 10 % (two categories, a metadata filter) and 50 % (price
//      window), at the last --ef-search.
//      Every query is new (no query-cache hit) and holds words of the products' names: a
//      material, a brand and a category, as a rule other than the filter's (a worst case for the
//      lexical stage: its every-word matches all fail the filter). Two more rows, "named in the
//      query", ask for the 1 % brand and the 5 % category with queries naming the filter's value,
//      as a shopper narrowing a search by what they typed does.
//      With Redis (--redis URL, default TEST_REDIS_URL; --redis none for none) the authentication
//      cache is on, as for API processes at scale.
//      The service runs in a process of its own (this script again, with --http-stage), as it is
//      deployed: this process's exact answers and candidate sets (~1.4 GB of heap at a million
//      products) would otherwise sit in the heap the service allocates in (1 % brand: 2.6 ms of
//      collection pauses per search there, 1.2–1.9 ms apart; docs/benchmarks.md). Its client, the
//      shopper's, runs in a process of its own too (client-process.ts, node:http over a keep-alive
//      connection, each search timed there), as bench:index's. Each row (--http-searches new
//      queries) also gives each search's time past its own embedding (the service's `embed`
//      stage for that search), p50 and p95, and the collections' pauses on the service's thread
//      per search. Before the timed rows the
//      service answers --http-warmup new queries, the workloads' filters in turn, untimed: a fresh
//      process runs its JavaScript unoptimised at first and V8 compiles the hot functions on
//      background threads that take the cores the model and PostgreSQL need (bench:index, "the
//      JIT's warm-up"); a few hundred searches get it past most of that, as any server in service is.
// --halfvec indexes half-precision copies (the adapter's `halfvec` option).
// --keep keeps the schema (printed) and --schema NAME reuses a loaded one (skips 1–2), for
// tuning ef_search without reloading (the exact answers of a kept schema are saved beside it in
// the temporary folder, so a reuse does not recompute them by exact scans; the candidate sets
// are read back from its products). --workloads TEXT measures only the workloads (vector stage and
// HTTP) whose name contains TEXT, e.g. "10 %" or "(one category)". Figures are printed as
// Markdown tables.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fork } from "node:child_process";
import { once } from "node:events";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { sql } from "kysely";
import { from as copyFrom } from "pg-copy-streams";
import { openDatabase, type Database } from "../src/db/index.js";
import { createVectorIndex } from "../src/vectors/index.js";
import { hnswIndexDdl, hnswIndexName, type PostgresVectorIndex } from "../src/vectors/postgres.js";
import { TopK } from "../src/vectors/math.js";
import { DEFAULT_GRAPH_MIN_ROWS, DEFAULT_LISTS_MIN_ROWS, DEFAULT_MAX_PER_STORE, DEFAULT_MIN_ROWS } from "../src/vectors/filter-indexes.js";
import { prng } from "../src/vectors/synthetic.js";
import { testEnv } from "../test/support/env.js";
import { wholeFlag } from "./flags.js";
import { loadConfig } from "../src/platform/config.js";
import { createContext } from "../src/context/context.js";
import { composeSearch } from "../src/search/compose.js";
import { buildSearchApp } from "../src/search/app.js";
import { startClientProcess } from "./client-process.js";
import { indexAllProducts } from "../src/lexical/repository.js";
import { createStores } from "../test/support/database.js";
import { SearchRepository } from "../src/search/query/repository.js";
import type { Candidates } from "../src/vectors/candidates.js";
import type { SearchFilters } from "../src/search/query/filters.js";

const { values: args } = parseArgs({
  options: {
    n: { type: "string", default: "100000" },
    dim: { type: "string", default: "512" },
    queries: { type: "string", default: "50" },
    m: { type: "string", default: "16" },
    "ef-construction": { type: "string", default: "128" },
    "ef-search": { type: "string", default: "default" },
    "filter-indexes": { type: "string", default: String(DEFAULT_MAX_PER_STORE) },
    "lists-min-rows": { type: "string", default: String(DEFAULT_LISTS_MIN_ROWS) },
    "graph-min-rows": { type: "string", default: String(DEFAULT_GRAPH_MIN_ROWS) },
    "maintenance-work-mem": { type: "string", default: "1GB" },
    keep: { type: "boolean", default: false },
    halfvec: { type: "boolean", default: false },
    schema: { type: "string" },
    postgres: { type: "string" },
    redis: { type: "string" },
    model: { type: "string" },
    workloads: { type: "string" },
    "http-warmup": { type: "string", default: "300" },
    "http-searches": { type: "string", default: "30" },
    /** Internal: only the HTTP stage, on --schema (the process main() forks for it). */
    "http-stage": { type: "boolean", default: false },
  },
});

const N = wholeFlag("n", args.n, 1);
/** --ef-search values; undefined = the adapter's default. */
const efSearches = args["ef-search"]!.split(",").map((v) => (v === "default" ? undefined : Number(v)));
const DIM = wholeFlag("dim", args.dim, 1);
const Q = wholeFlag("queries", args.queries, 1);
const HTTP_WARMUP = wholeFlag("http-warmup", args["http-warmup"], 0);
const HTTP_SEARCHES = wholeFlag("http-searches", args["http-searches"], 1);
const K = 10;
const CLUSTERS = 1_000;
const CATEGORIES = 20;
const BRANDS = 100;
const STORE = "scale-store";
const MODEL = `bench@${DIM}`;
const URL = args.postgres ?? testEnv.databaseUrl;
/** Redis for the HTTP stage (--redis, else TEST_REDIS_URL when set; "none" for none). */
const REDIS = args.redis === "none" ? undefined : (args.redis ?? testEnv.redisUrl);
if (!URL) throw new Error("Give --postgres postgres://… or set TEST_DATABASE_URL");

// ------------------------------------------------------------- data ---
function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const scale = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i]! *= scale;
  return v;
}

/** Row r of the catalogue, generated in order from one seed (never all in memory). */
interface Product {
  vector: Float32Array;
  category: number;
  brand: number;
  price: number;
}

function* catalogue(): Generator<Product> {
  const random = prng(7);
  const centres: Float32Array[] = [];
  for (let c = 0; c < CLUSTERS; c++) centres.push(normalize(Float32Array.from({ length: DIM }, () => gaussian(random))));
  const noise = 0.8 / Math.sqrt(DIM);
  for (let r = 0; r < N; r++) {
    const c = Math.floor(random() * CLUSTERS);
    const v = new Float32Array(DIM);
    const centre = centres[c]!;
    for (let i = 0; i < DIM; i++) v[i] = centre[i]! + noise * gaussian(random);
    yield {
      vector: normalize(v),
      category: c % CATEGORIES,
      brand: Math.floor(random() * BRANDS),
      price: Math.round((5 + random() * 495) * 100) / 100,
    };
  }
}

const pid = (r: number) => `p${String(r).padStart(7, "0")}`;

const brandName = (b: number) => `brand-${String(b).padStart(3, "0")}`;
const categoryName = (c: number) => `category-${String(c).padStart(2, "0")}`;

/** The filters measured: share of the store, the rule, and the same as search filters (the search service's form). */
const FILTERS: { name: string; keep: (p: Product, q: number) => boolean; filters: (q: number) => SearchFilters }[] = [
  {
    name: "1 % (brand, independent)",
    keep: (p, q) => p.brand === q % BRANDS,
    filters: (q) => ({ metadata_filters: [{ field: "brand", operator: "eq", value: brandName(q % BRANDS) }] }),
  },
  {
    name: "10 % (2 categories, follow clusters)",
    keep: (p, q) => p.category === q % CATEGORIES || p.category === (q + 7) % CATEGORIES,
    filters: (q) => ({
      metadata_filters: [{ field: "category", operator: "in", value: [categoryName(q % CATEGORIES), categoryName((q + 7) % CATEGORIES)] }],
    }),
  },
  {
    name: "50 % (price window, independent)",
    keep: (p, q) => p.price >= 5 + (q % 10) * 10 && p.price < 5 + (q % 10) * 10 + 247.5,
    // The search API's bounds are inclusive; the window's upper end is open (prices have cents).
    filters: (q) => ({ price_min: 5 + (q % 10) * 10, price_max: 5 + (q % 10) * 10 + 247.49 }),
  },
  // Last, so that the exact answers saved with a schema kept before it was added keep their places
  // (exactFromDatabase computes the ones missing).
  {
    name: "5 % (one category, follows clusters)",
    keep: (p, q) => p.category === q % CATEGORIES,
    filters: (q) => ({ category: categoryName(q % CATEGORIES) }),
  },
];

// ------------------------------------------------------------- COPY ---
/** pgvector's binary form: int16 dim, int16 unused, float4 × dim, big-endian. */
function binaryVector(v: Float32Array): Buffer {
  const b = Buffer.allocUnsafe(4 + 4 * v.length);
  b.writeInt16BE(v.length, 0);
  b.writeInt16BE(0, 2);
  for (let i = 0; i < v.length; i++) b.writeFloatBE(v[i]!, 4 + 4 * i);
  return b;
}

function binaryField(value: Buffer | null): Buffer[] {
  if (value === null) {
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(-1);
    return [len];
  }
  const len = Buffer.allocUnsafe(4);
  len.writeInt32BE(value.length);
  return [len, value];
}

const int4 = (n: number) => {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(n);
  return b;
};
const int8 = (n: number) => {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};
const float4 = (n: number) => {
  const b = Buffer.allocUnsafe(4);
  b.writeFloatBE(n);
  return b;
};
/** jsonb's binary form: version 1, then the text. */
const jsonb = (s: string) => Buffer.concat([Buffer.from([1]), Buffer.from(s, "utf8")]);
const text = (s: string) => Buffer.from(s, "utf8");
const COPY_HEADER = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "binary"), int4(0), int4(0)]);
const COPY_TRAILER = Buffer.from([0xff, 0xff]);

function tuple(fields: (Buffer | null)[]): Buffer {
  const count = Buffer.allocUnsafe(2);
  count.writeInt16BE(fields.length);
  return Buffer.concat([count, ...fields.flatMap(binaryField)]);
}

interface Truth {
  queries: Float32Array[];
  /** [query][workload 0 = unfiltered, 1.. = FILTERS] → top-10 product ids. */
  top: string[][][];
  /** Candidate ids per query and filter. */
  candidates: Set<string>[][];
}

async function load(client: pg.Client, queries: Float32Array[]): Promise<{ truth: Truth; loadMs: number }> {
  const tops = queries.map(() => [new TopK(K), ...FILTERS.map(() => new TopK(K))]);
  const candidates = queries.map(() => FILTERS.map(() => new Set<string>()));
  const now = Date.now();
  const productRows: Buffer[] = [];
  const vectorRows: Buffer[] = [];
  const products = client.query(
    copyFrom(
      `COPY products (store_id, product_id, vector_id, image_url, image_sha256, name, category, brand, price, color_name, metadata, dominant_colors, model, created_at, updated_at) FROM STDIN BINARY`,
    ),
  );
  const vectors = new pg.Client({
    connectionString: URL,
    options: (client as unknown as { connectionParameters: { options?: string } }).connectionParameters.options,
  });
  await vectors.connect();
  const vectorCopy = vectors.query(
    copyFrom(`COPY product_vectors (store_id, vector_id, product_id, model, dim, embedding, created_at) FROM STDIN BINARY`),
  );
  const t0 = performance.now();
  products.write(COPY_HEADER);
  vectorCopy.write(COPY_HEADER);
  let r = 0;
  for (const p of catalogue()) {
    const id = pid(r);
    const category = categoryName(p.category);
    const brand = brandName(p.brand);
    const name = `${brand} ${category} item ${r}`;
    const metadata = JSON.stringify({
      name,
      category,
      brand,
      price: p.price,
      material: ["cotton", "wool", "leather", "linen"][r % 4],
      sizes: ["S", "M", "L"],
    });
    productRows.push(
      tuple([
        text(STORE),
        text(id),
        text(`v${r}`),
        text(`https://cdn.example/${id}.jpg`),
        text("bench-image"),
        text(name),
        text(category),
        text(brand),
        float4(p.price),
        null,
        jsonb(metadata),
        jsonb("[]"),
        text(MODEL),
        int8(now + r),
        int8(now + r),
      ]),
    );
    vectorRows.push(tuple([text(STORE), text(`v${r}`), text(id), text(MODEL), int4(DIM), binaryVector(p.vector), int8(now + r)]));
    if (productRows.length >= 2_000) {
      if (!products.write(Buffer.concat(productRows.splice(0)))) await once(products, "drain");
      if (!vectorCopy.write(Buffer.concat(vectorRows.splice(0)))) await once(vectorCopy, "drain");
    }
    for (let q = 0; q < queries.length; q++) {
      const query = queries[q]!;
      let dot = 0;
      for (let i = 0; i < DIM; i++) dot += query[i]! * p.vector[i]!;
      tops[q]![0]!.offer(r, dot);
      FILTERS.forEach((f, j) => {
        if (f.keep(p, q)) {
          tops[q]![j + 1]!.offer(r, dot);
          candidates[q]![j]!.add(id);
        }
      });
    }
    r++;
    if (r % 100_000 === 0) process.stderr.write(`  ${r} rows (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  products.write(Buffer.concat([...productRows, COPY_TRAILER]));
  vectorCopy.write(Buffer.concat([...vectorRows, COPY_TRAILER]));
  products.end();
  vectorCopy.end();
  await Promise.all([once(products, "finish"), once(vectorCopy, "finish")]);
  await vectors.end();
  const loadMs = performance.now() - t0;
  const top = tops.map((row) => row.map((t) => t.drain().map((h) => pid(h.item))));
  return { truth: { queries, top, candidates }, loadMs };
}

function queriesFor(count: number, seed = 99): Float32Array[] {
  // Near random catalogue rows: regenerate the first rows' stream cheaply by picking row indices
  // below 20,000 and perturbing them. The timed queries are seed 99; the warm-up ones another seed.
  const random = prng(seed);
  const wanted = new Map<number, number[]>();
  for (let q = 0; q < count; q++) {
    const row = Math.floor(random() * Math.min(N, 20_000));
    wanted.set(row, [...(wanted.get(row) ?? []), q]);
  }
  const out: Float32Array[] = new Array(count);
  let r = 0;
  for (const p of catalogue()) {
    for (const q of wanted.get(r) ?? []) {
      const v = Float32Array.from(p.vector);
      for (let i = 0; i < DIM; i++) v[i]! += (0.5 / Math.sqrt(DIM)) * gaussian(random);
      out[q] = normalize(v);
    }
    if (++r >= Math.min(N, 20_000)) break;
  }
  return out;
}

// ------------------------------------------------------------- main ---
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const recallOf = (found: string[], expected: string[]) => expected.filter((id) => found.includes(id)).length / Math.max(1, expected.length);

async function main() {
  const schema = args.schema ?? `scale_${randomBytes(4).toString("hex")}`;
  const reuse = args.schema !== undefined;
  const hnsw = { connectivity: Number(args.m), expansionAdd: Number(args["ef-construction"]), halfvec: args.halfvec! };
  console.log(
    `bench:scale — ${N.toLocaleString("en")} products × ${DIM}-d, ${Q} queries, PostgreSQL schema ${schema}${reuse ? " (reused)" : ""}`,
  );
  const database: Database = await openDatabase({ kind: "postgres", url: URL! }, { pgSchema: schema });
  const admin = new pg.Client({ connectionString: URL, options: `-c search_path=${schema},public` });
  await admin.connect();
  {
    // Without huge pages every server process maps shared_buffers 4 KB at a time on first touch:
    // a pool connection reading a brand's 10,000 copies for the first time paid ~5,000 page faults
    // (docs/benchmarks.md, "Issue 39: huge pages and a fourth build").
    const { rows } = await admin.query(`SELECT current_setting('shared_buffers') AS sb, current_setting('huge_pages') AS hp`);
    const { sb, hp } = rows[0] as { sb: string; hp: string };
    console.log(
      `server: shared_buffers ${sb}, huge_pages ${hp}` +
        (hp === "on" ? "" : " (not forced on: unless the kernel has huge pages reserved, searches pay page faults; docs/operations.md)"),
    );
  }
  try {
    const queries = queriesFor(Q);
    let truth: Truth;
    if (!reuse) {
      await createStores(database, [STORE]);
      // Enterprise: no product or monthly request limit stands in the way of the HTTP stage.
      await database.db.updateTable("stores").set({ plan: "enterprise" }).where("id", "=", STORE).execute();
      const loaded = await load(admin, queries);
      truth = loaded.truth;
      console.log(
        `\nload (COPY, binary vectors): ${(loaded.loadMs / 1000).toFixed(1)} s (${Math.round(N / (loaded.loadMs / 1000)).toLocaleString("en")} rows/s, exact answers computed alongside)`,
      );
      const a0 = performance.now();
      await admin.query("ANALYZE products; ANALYZE product_vectors");
      console.log(`ANALYZE: ${((performance.now() - a0) / 1000).toFixed(1)} s`);
      const notices: string[] = [];
      admin.on("notice", (n) => notices.push(n.message ?? ""));
      await admin.query(`SET maintenance_work_mem = '${args["maintenance-work-mem"]}'; SET max_parallel_maintenance_workers = 1`);
      const b0 = performance.now();
      const compiled = hnswIndexDdl(DIM, hnsw).compile(database.db);
      await admin.query(compiled.sql);
      const buildMs = performance.now() - b0;
      const sizes = await admin.query(
        `SELECT pg_size_pretty(pg_relation_size('${hnswIndexName(DIM, hnsw.halfvec)}')) AS index, pg_size_pretty(pg_total_relation_size('product_vectors')) AS vectors, pg_size_pretty(pg_total_relation_size('products')) AS products, current_setting('shared_buffers') AS shared_buffers`,
      );
      const s = sizes.rows[0];
      console.log(
        `HNSW build (${hnsw.halfvec ? "halfvec, " : ""}m = ${hnsw.connectivity}, ef_construction = ${hnsw.expansionAdd}, maintenance_work_mem = ${args["maintenance-work-mem"]}, 1 parallel worker): ${(buildMs / 1000).toFixed(1)} s; ` +
          `index ${s.index}, product_vectors ${s.vectors} (with indexes), products ${s.products}, shared_buffers ${s.shared_buffers}` +
          (notices.length ? `\n  server notices: ${notices.join(" | ")}` : ""),
      );
    } else {
      truth = await exactFromDatabase(admin, queries, schema);
    }
    if (args.keep || reuse) fs.writeFileSync(truthFile(schema), JSON.stringify(truth.top));

    const perStore = Number(args["filter-indexes"]);
    const listsMinRows = Number(args["lists-min-rows"]);
    const graphMinRows = Number(args["graph-min-rows"]);
    const index = createVectorIndex(database, {
      halfvec: hnsw.halfvec,
      hnsw: { ...hnsw, expansionSearch: 40 },
      filterIndexes: { maxPerStore: perStore, listsMinRows, graphMinRows },
    }) as PostgresVectorIndex;
    await index.init();
    if (perStore > 0) {
      // As the worker's maintenance round would after the import (vectors/filter-indexes.ts).
      const f0 = performance.now();
      const report = await index.refreshFilterIndexes();
      const made = await admin.query(
        `SELECT count(*) AS n, count(lists) AS listed, count(graph_ef) AS graphed, coalesce(sum(rows), 0) AS rows, pg_size_pretty(pg_total_relation_size('product_vector_copies')) AS size FROM vector_filter_indexes WHERE ready`,
      );
      const m = made.rows[0];
      console.log(
        `\nfilter indexes (categories and brands of ≥ ${DEFAULT_MIN_ROWS.toLocaleString("en")} products and ≤ 25 % of the store, at most ${perStore}): refresh ${((performance.now() - f0) / 1000).toFixed(1)} s ` +
          `(created ${report.created.length}, kept ${report.kept}, dropped ${report.dropped.length}, inverted lists built for ${report.listed.length}, ` +
          `graphs kept for ${report.graphed.length}, graphs failing their recall check ${report.rejected.length}${report.rejected.length ? `: ${report.rejected.slice(0, 5).join("; ")}` : ""}); ` +
          `${m.n} ready (${m.listed} with lists, ${m.graphed} with graphs) over ${Number(m.rows).toLocaleString("en")} copies; copies and their indexes ${m.size}`,
      );
    }
    const filterRepo = new SearchRepository(database.db, "postgres");
    /** Other queries of the same kind, with the same filters: each workload is warmed with them. */
    const warmQueries = queriesFor(Q, 98);
    for (const ef of efSearches) {
      const tuned = createVectorIndex(database, {
        halfvec: hnsw.halfvec,
        filterIndexes: { maxPerStore: perStore, listsMinRows, graphMinRows },
        hnsw: { ...hnsw, ...(ef === undefined ? {} : { expansionSearch: ef }) },
      }) as PostgresVectorIndex;
      const depth = ef ?? `${tuned.efSearch(K, N)} (the default at this size)`;
      console.log(
        `\nvector stage, ef_search ≥ ${depth} (VectorIndex.search, k = 10, ${Q} queries, each workload warmed first by ${Q} other queries with the same filters):`,
      );
      console.log("| workload | p50 | p95 | recall@10 | paths |\n|---|---|---|---|---|");
      // Each filter twice: its products as a set of ids, and as the search service hands it over
      // (search/repository.ts: a filter of more than 5,000 products stays in the database, 2,000
      // when it pins a category or brand, which a filter index may serve). The second is built
      // before each timed search, outside the time (the HTTP stage below times the filter stage).
      const workloads: { name: string; w: number; cands: (q: number) => Promise<Candidates | undefined> }[] = [
        { name: "unfiltered", w: 0, cands: async () => undefined },
        ...FILTERS.map((f, i) => ({ name: `${f.name}, ids`, w: i + 1, cands: async (q: number) => truth.candidates[q]![i] })),
        ...FILTERS.map((f, i) => ({
          name: `${f.name}, as a search filter`,
          w: i + 1,
          cands: (q: number) => filterRepo.candidates(STORE, f.filters(q)),
        })),
      ];
      for (const { name, w, cands: candidatesOf } of workloads.filter(
        (l) => args.workloads === undefined || l.name.includes(args.workloads),
      )) {
        // The steady state of a store searched with these filters: the pages they read are cached
        // (the index's, the copies' and their lists') by other queries first, so no timed query
        // meets pages a workload before it pushed out, nor finds its own answer warmed.
        for (let q = 0; q < Q; q++) await tuned.search(STORE, warmQueries[q]!, { k: K, candidates: await candidatesOf(q) });
        const times: number[] = [];
        /** Per path the search took: times and recalls. */
        const paths: Record<string, { ms: number[]; recall: number }> = {};
        let total = 0;
        for (let q = 0; q < Q; q++) {
          const candidates = await candidatesOf(q);
          const t0 = performance.now();
          const found = await tuned.search(STORE, truth.queries[q]!, { k: K, candidates });
          times.push(performance.now() - t0);
          const recall = recallOf(
            found.map((m) => m.productId),
            truth.top[q]![w]!,
          );
          total += recall;
          const path = (paths[tuned.lastPath] ??= { ms: [], recall: 0 });
          path.ms.push(times.at(-1)!);
          path.recall += recall;
        }
        const pathText = Object.entries(paths)
          .map(([p, { ms, recall }]) => `${p} ${ms.length} (p50 ${pct(ms, 50).toFixed(1)} ms, recall ${(recall / ms.length).toFixed(3)})`)
          .join(", ");
        console.log(
          `| ${name} | ${pct(times, 50).toFixed(2)} ms | ${pct(times, 95).toFixed(2)} ms | ${(total / Q).toFixed(3)} | ${pathText} |`,
        );
      }
      await tuned.close();
    }
    await index.close();
    if (args.model) await httpStageApart(schema);
    else console.log("\nHTTP text search: not measured (pass --model DIR, a CLIP folder of --dim dimensions)");
    const rss = process.memoryUsage().rss / 2 ** 20;
    const backend = await admin.query(
      `SELECT pg_size_pretty(sum(pg_relation_size(indexrelid))) AS idx FROM pg_index WHERE indrelid = 'product_vectors'::regclass`,
    );
    console.log(
      `\nmemory: bench process RSS ${rss.toFixed(0)} MB; all product_vectors indexes ${backend.rows[0].idx} (keep the HNSW index in RAM: shared_buffers + OS cache)`,
    );
  } finally {
    await admin.end();
    await database.close();
    if (!args.keep && !reuse) {
      const c = new pg.Client({ connectionString: URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    } else {
      console.log(`(schema ${schema} kept: --schema ${schema} reuses it)`);
    }
  }
}

/** Runs the HTTP stage on `schema` in a process of its own (see the header) and waits for it. */
async function httpStageApart(schema: string): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), "--schema", schema, "--http-stage"], { stdio: "inherit" });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`the HTTP stage's process exited with code ${code}`);
}

/** The process forked by httpStageApart(): the HTTP stage alone. */
async function httpStageOnly(): Promise<void> {
  const schema = args.schema!;
  const database = await openDatabase({ kind: "postgres", url: URL! }, { pgSchema: schema });
  try {
    await httpStage(database, schema, args.halfvec!, efSearches.at(-1));
  } finally {
    await database.close();
  }
}

/**
 * Full HTTP text search on the loaded schema: the lexical index is filled first (timed), then the
 * Search API answers POST /v1/search/text on loopback with and without filters.
 */
async function httpStage(database: Database, schema: string, halfvec: boolean, ef: number | undefined): Promise<void> {
  const indexed = await sql<{ n: string }>`SELECT count(*) AS n FROM product_text WHERE store_id = ${STORE}`.execute(database.db);
  if (Number(indexed.rows[0]!.n) < N) {
    const t0 = performance.now();
    await indexAllProducts(database.db, "postgres", 8);
    await sql`ANALYZE product_text`.execute(database.db);
    console.log(
      `\nlexical index (product_text, pages of 5,000 products, each in 8 statements at once): ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-bench-scale-"));
  const config = loadConfig({
    DATABASE_URL: URL!,
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    CLIP_MODEL: path.resolve(args.model!),
    VECTOR_HALFVEC: String(halfvec),
    // With Redis, as API processes run at scale: the authentication cache is on (docs/operations.md).
    ...(REDIS ? { REDIS_URL: REDIS } : {}),
    ...(ef === undefined ? {} : { VECTOR_EF_SEARCH: String(ef) }),
  });
  const ctx = await createContext(config, { pgSchema: schema });
  const services = composeSearch(ctx);
  const app = await buildSearchApp(ctx, { logger: false, services });
  // The shopper's client in a process of its own, as bench:index's: nothing of a timed round trip
  // runs on the service's event loop but the service (the answer is counted here after it).
  const client = startClientProcess();
  try {
    await app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const token = (await ctx.signer.issue({ sub: STORE, user_type: "client", memberships: [], is_super_admin: false })).access_token;
    const materials = ["cotton", "wool", "leather", "linen"];
    let n = 0;
    /** What of its filter a row's query names: the brand or the category (none: other values, as a rule). */
    type Named = { brand?: string; category?: string };
    /**
     * A new query each time (for 2,000 queries: the warm-up's and every row's together): a material,
     * a brand and a category of the catalogue; `named` fixes the brand or the category (a row whose
     * query names its filter's value).
     */
    const nextQuery = (named: Named = {}) => {
      const i = n++;
      return `${materials[i % 4]} ${named.brand ?? brandName((i * 37) % BRANDS)} ${named.category ?? categoryName(Math.floor(i / BRANDS) % CATEGORIES)}`;
    };
    /** A row: its name, its filter of the q-th query, and what of that filter the query names. */
    type Workload = [string, (q: number) => Record<string, unknown>, ((q: number) => Named)?];
    /** The q-th query's 1 % brand and 5 % category filters. */
    const byBrand = (q: number) => ({ metadata_filters: [{ field: "brand", operator: "eq", value: brandName(q % BRANDS) }] });
    const byCategory = (q: number) => ({ category: categoryName(q % CATEGORIES) });
    const workloads: Workload[] = [
      ["unfiltered", () => ({})],
      ["1 % (brand, metadata filter)", byBrand],
      ["1 % (brand, named in the query)", byBrand, (q) => ({ brand: brandName(q % BRANDS) })],
      ["5 % (one category)", byCategory],
      ["5 % (one category, named in the query)", byCategory, (q) => ({ category: categoryName(q % CATEGORIES) })],
      [
        "10 % (two categories)",
        (q) => ({
          metadata_filters: [
            {
              field: "category",
              operator: "in",
              value: [categoryName(q % CATEGORIES), categoryName((q + 7) % CATEGORIES)],
            },
          ],
        }),
      ],
      ["50 % (price window)", (q) => ({ price_min: 5 + (q % 10) * 10, price_max: 5 + (q % 10) * 10 + 247.5 })],
    ];
    console.log(
      `\nHTTP text search (POST /v1/search/text, limit 10, ef_search ≥ ${ef ?? "default"}, after ${HTTP_WARMUP} untimed searches of the rows' filters in turn; per row ${HTTP_SEARCHES} new queries after 5 warm-up; the authentication cache ${REDIS ? "on, with Redis" : "off: no Redis (--redis URL or TEST_REDIS_URL)"}):`,
    );
    console.log(
      "| workload | p50 | p95 | past its own embedding, p50 / p95 | results | per search, mean time by stage (search service) | GC pauses per search (the service's thread) |\n|---|---|---|---|---|---|---|",
    );
    /** Garbage-collection pauses of this thread (the service's event loop): ms in all, and how many. */
    const gc = { ms: 0, count: 0 };
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        gc.ms += entry.duration;
        gc.count++;
      }
    });
    gcObserver.observe({ entryTypes: ["gc"] });
    // Each search's embedding, as the service records it (its `embed` stage, observed before the
    // answer is sent): the goal is the search's time past its own embedding, which the row's
    // mean embedding stands in for only when the model's time holds still.
    let embedMs = 0;
    const observe = ctx.metrics.observeSearchStage;
    ctx.metrics.observeSearchStage = (stage, seconds) => {
      if (stage === "embed") embedMs += seconds * 1000;
      observe(stage, seconds);
    };
    /** Per search stage: seconds in all and calls so far (the service's own stage histogram). */
    const stages = async () => {
      const out = new Map<string, { sum: number; count: number }>();
      for (const m of (await ctx.metrics.render()).matchAll(
        /^shopsight_search_stage_duration_seconds_(sum|count)\{stage="([^"]+)"\} (\S+)$/gm,
      )) {
        const e = out.get(m[2]!) ?? { sum: 0, count: 0 };
        e[m[1] as "sum" | "count"] = Number(m[3]);
        out.set(m[2]!, e);
      }
      return out;
    };
    const measured = workloads.filter(([name]) => args.workloads === undefined || name.includes(args.workloads));
    // nextQuery() makes 2,000 different queries; past them the query cache would answer.
    if (HTTP_WARMUP + measured.length * (HTTP_SEARCHES + 5) > 2_000) {
      throw new Error(`--http-warmup plus ${measured.length} rows of --http-searches + 5 exceed the 2,000 different queries`);
    }
    /**
     * One new text search with `filter`: its time in ms (the round trip, timed in the client's
     * process: client-process.ts), the part of it past the search's own embedding, and its results.
     */
    const search = async (filter: Record<string, unknown>, named?: Named) => {
      embedMs = 0;
      const answer = await client.call(
        "POST",
        `${base}/v1/search/text`,
        { authorization: `Bearer ${token}`, "content-type": "application/json" },
        JSON.stringify({ query: nextQuery(named), limit: 10, ...filter }),
      );
      if (answer.status !== 200) throw new Error(`search answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      return { ms: answer.ms, past: answer.ms - embedMs, results: (JSON.parse(answer.text) as { results: unknown[] }).results.length };
    };
    // The JIT's warm-up (see the header), the workloads' filters in turn.
    for (let i = 0; measured.length > 0 && i < HTTP_WARMUP; i++) {
      const [, filter, named] = measured[i % measured.length]!;
      await search(filter(1_000 + i), named?.(1_000 + i));
    }
    for (const [name, filter, named] of measured) {
      const times: number[] = [];
      const pasts: number[] = [];
      let before = await stages();
      let results = 0;
      for (let q = -5; q < HTTP_SEARCHES; q++) {
        const found = await search(filter(Math.max(0, q)), named?.(Math.max(0, q)));
        if (q >= 0) {
          times.push(found.ms);
          pasts.push(found.past);
          results += found.results;
        } else if (q === -1) {
          before = await stages();
          gc.ms = gc.count = 0;
        }
      }
      const after = await stages();
      const breakdown = [...after]
        .map(([stage, e]) => {
          const b = before.get(stage) ?? { sum: 0, count: 0 };
          // Per search, not per call: a stage may run twice in one search (the vector stage's read by id).
          const calls = (e.count - b.count) / times.length;
          const perSearch = `${stage} ${(((e.sum - b.sum) / times.length) * 1000).toFixed(1)} ms`;
          return e.count > b.count ? (Math.abs(calls - 1) < 0.05 ? perSearch : `${perSearch} (${calls.toFixed(1)} calls)`) : "";
        })
        .filter(Boolean)
        .join(", ");
      console.log(
        `| ${name} | ${pct(times, 50).toFixed(1)} ms | ${pct(times, 95).toFixed(1)} ms | ` +
          `+${pct(pasts, 50).toFixed(1)} / +${pct(pasts, 95).toFixed(1)} ms | ${(results / times.length).toFixed(1)} per query | ${breakdown} | ` +
          `${(gc.ms / times.length).toFixed(1)} ms (${gc.count} in ${times.length} searches) |`,
      );
    }
    gcObserver.disconnect();
  } finally {
    await client.close();
    await app.close();
    await ctx.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Where the exact answers of a kept schema are saved (for these queries). */
function truthFile(schema: string): string {
  return path.join(os.tmpdir(), `shopsight-bench-scale-${schema}-n${N}-d${DIM}-q${Q}.json`);
}

/**
 * For a reused schema: candidate sets from its products, exact answers saved by an earlier run or
 * else from the database itself (slow: exact scans).
 */
async function exactFromDatabase(client: pg.Client, queries: Float32Array[], schema: string): Promise<Truth> {
  const saved = fs.existsSync(truthFile(schema)) ? (JSON.parse(fs.readFileSync(truthFile(schema), "utf8")) as string[][][]) : undefined;
  const top: string[][][] = [];
  const candidates: Set<string>[][] = [];
  const rows = await client.query<{ product_id: string; category: string; brand: string; price: number }>(
    `SELECT product_id, category, brand, price FROM products WHERE store_id = $1`,
    [STORE],
  );
  for (let q = 0; q < queries.length; q++) {
    const lit = `[${Array.from(queries[q]!).join(",")}]`;
    const sets = FILTERS.map(
      (f) =>
        new Set(
          rows.rows
            .filter((r) =>
              f.keep(
                {
                  vector: new Float32Array(0),
                  category: Number(r.category.slice(9)),
                  brand: Number(r.brand.slice(6)),
                  price: Number(r.price),
                },
                q,
              ),
            )
            .map((r) => r.product_id),
        ),
    );
    candidates.push(sets);
    const exact = async (ids: Set<string> | undefined) => {
      const res = await client.query<{ product_id: string }>(
        `SELECT product_id FROM product_vectors WHERE store_id = $1 AND dim = $2 ${ids ? "AND product_id = ANY($4)" : ""} ORDER BY embedding <=> $3::vector LIMIT ${K}`,
        ids ? [STORE, DIM, lit, [...ids]] : [STORE, DIM, lit],
      );
      return res.rows.map((r) => r.product_id);
    };
    // Saved answers are kept per workload; a filter added since (or no saved file) is computed.
    const known = saved?.[q] ?? [];
    top.push(await Promise.all([undefined, ...sets].map((s, w) => known[w] ?? exact(s))));
  }
  return { queries, top, candidates };
}

(args["http-stage"] ? httpStageOnly() : main()).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
