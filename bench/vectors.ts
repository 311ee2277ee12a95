// Vector-stage benchmark: 50,000 synthetic clustered 512-d vectors in one store, searched through
// the VectorIndex interface on SQLite + usearch (embedded default) and PostgreSQL + pgvector.
//
//   tsx bench/vectors.ts [--count 50000] [--dim 512] [--queries 200] [--postgres postgres://…] [--no-postgres]
//
// PostgreSQL runs in a throw-away schema of --postgres (default: TEST_DATABASE_URL) and is skipped
// when neither is given. Reported per engine: time to write the vectors through upsert() (one
// transaction per 1,000), time to load/build the search structure as at a restart (SQLite: init()
// reads every vector and the HNSW index is built in the background until settled(); PostgreSQL:
// CREATE INDEX … USING hnsw over the loaded rows), p50/p95 of search() (k = 10) unfiltered and
// with ~10% candidate sets (category 1 of 5 and a price window, as a product filter gives; see
// the two filter kinds below), recall@10 against an exact scan, and the search paths taken.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { createStores } from "../test/support/database.js";
import { openDatabase, type Database } from "../src/db/index.js";
import { createVectorIndex } from "../src/vectors/index.js";
import { clusteredVectors, exactTopK, prng, queriesLike, recall, type ClusteredData } from "../src/vectors/synthetic.js";
import { testEnv } from "../test/support/env.js";

export interface VectorBenchOptions {
  count?: number;
  dim?: number;
  queries?: number;
  /** PostgreSQL server to run the pgvector variant on (a schema is created and dropped). */
  postgresUrl?: string | undefined;
  log?: (line: string) => void;
}

export interface VectorBenchRow {
  engine: string;
  count: number;
  dim: number;
  writeMs: number;
  buildMs: number;
  results: { name: string; share?: number | undefined; p50: number; p95: number; recall: number; paths: Record<string, number> }[];
  rssMb: number;
}

const STORE = "bench-store";
const K = 10;

export async function runVectorBench(options: VectorBenchOptions = {}): Promise<VectorBenchRow[]> {
  const count = options.count ?? 50_000;
  const dim = options.dim ?? 512;
  const queryCount = options.queries ?? 200;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  log(`generating ${count} clustered ${dim}-d vectors…`);
  const data = clusteredVectors({ count, dim, clusters: 200, seed: 7 });
  const random = prng(8);
  const queries = queriesLike(data, queryCount, 9);
  const price = Float64Array.from({ length: count }, () => random() * 100);
  // Two product filters keeping ~10% of the store: category (1 of 5) and a price window of half
  // the range. "independent": categories drawn at random, so the query's neighbourhood holds ~10%
  // candidates like the store. "clustered": the category follows the vector's cluster (as real
  // categories follow appearance), so for 4 queries in 5 the filter excludes the query's own
  // neighbourhood — the hard case for post-filtered HNSW.
  const randomCategory = Int32Array.from({ length: count }, () => Math.floor(random() * 5));
  const clusterCategory = Int32Array.from(data.cluster, (c) => c % 5);
  const filterSets = (category: Int32Array) =>
    queries.map((_, q) => {
      const low = (q * 37) % 50;
      const keep = (r: number) => category[r] === q % 5 && price[r]! >= low && price[r]! < low + 50;
      const set = new Set<string>();
      for (let r = 0; r < count; r++) if (keep(r)) set.add(pid(r));
      return { keep, set };
    });
  log("computing exact answers…");
  const workloads: Workload["workloads"] = [
    { name: "unfiltered", queries: queries.map((q) => ({ vector: q, truth: exactTopK(data, q, K).map(pid) })) },
  ];
  for (const [name, category] of [
    ["filtered, independent", randomCategory],
    ["filtered, clustered", clusterCategory],
  ] as const) {
    const sets = filterSets(category);
    workloads.push({
      name,
      queries: queries.map((q, i) => ({ vector: q, candidates: sets[i]!.set, truth: exactTopK(data, q, K, sets[i]!.keep).map(pid) })),
      share: sets.reduce((sum, f) => sum + f.set.size, 0) / sets.length / count,
    });
  }

  const rows: VectorBenchRow[] = [];
  rows.push(await benchEngine("SQLite + usearch", await sqliteTarget(), { data, workloads, log }));
  if (options.postgresUrl) {
    rows.push(await benchEngine("PostgreSQL + pgvector", await postgresTarget(options.postgresUrl), { data, workloads, log }));
  } else {
    log("PostgreSQL skipped: no --postgres URL and no TEST_DATABASE_URL");
  }
  return rows;
}

interface Target {
  open(): Promise<Database>;
  cleanup(): Promise<void>;
}

async function sqliteTarget(): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-bench-"));
  const target = { kind: "sqlite" as const, file: path.join(dir, "bench.db") };
  return {
    open: () => openDatabase(target),
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

async function postgresTarget(url: string): Promise<Target> {
  const pgSchema = `bench_${randomBytes(6).toString("hex")}`;
  return {
    open: () => openDatabase({ kind: "postgres", url }, { pgSchema }),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
      await client.end();
    },
  };
}

interface Workload {
  data: ClusteredData;
  workloads: { name: string; share?: number; queries: { vector: Float32Array; candidates?: Set<string>; truth: string[] }[] }[];
  log: (line: string) => void;
}

async function benchEngine(engine: string, target: Target, w: Workload): Promise<VectorBenchRow> {
  const { data } = w;
  const writer = await target.open();
  try {
    await createStores(writer, [STORE]);
    // Writes through the interface. On PostgreSQL afterCommit is skipped so that no HNSW index
    // exists during the load: the build below is then measured as one CREATE INDEX.
    const writeIndex = createVectorIndex(writer, { bruteForceThreshold: Number.POSITIVE_INFINITY });
    await writeIndex.init();
    w.log(`${engine}: writing ${data.count} vectors…`);
    const writeStart = performance.now();
    for (let start = 0; start < data.count; start += 1_000) {
      const batch: { vectorId: string; productId: string; model: string; vector: Float32Array }[] = [];
      await writer.transaction(async (tx) => {
        for (let r = start; r < Math.min(data.count, start + 1_000); r++) {
          const item = { vectorId: `v${r}`, productId: pid(r), model: "bench@512", vector: data.row(r) };
          await writeIndex.upsert(tx, STORE, item);
          batch.push(item);
        }
      });
      if (writer.dialect === "sqlite") writeIndex.afterCommit(STORE, { upserted: batch });
    }
    const writeMs = performance.now() - writeStart;
    await writeIndex.close();
    if (writer.dialect === "postgres") await sqlAnalyze(writer);

    // "Restart": a fresh adapter over the stored vectors.
    w.log(`${engine}: loading and building the index…`);
    const buildStart = performance.now();
    const index = createVectorIndex(writer);
    await index.init();
    await index.settled();
    const buildMs = performance.now() - buildStart;
    const rssMb = process.memoryUsage().rss / 2 ** 20;

    w.log(`${engine}: searching…`);
    const results: VectorBenchRow["results"] = [];
    for (const workload of w.workloads) {
      const paths: Record<string, number> = {};
      const times: number[] = [];
      let total = 0;
      // Warm-up (JIT, caches, connections), not timed.
      for (const q of workload.queries.slice(0, 20)) await index.search(STORE, q.vector, { k: K, candidates: q.candidates });
      for (const q of workload.queries) {
        const t0 = performance.now();
        const found = await index.search(STORE, q.vector, { k: K, candidates: q.candidates });
        times.push(performance.now() - t0);
        const p = (index as unknown as { lastPath: string }).lastPath;
        paths[p] = (paths[p] ?? 0) + 1;
        total += recall(
          found.map((m) => m.productId),
          q.truth,
        );
      }
      times.sort((a, b) => a - b);
      results.push({
        name: workload.name,
        share: workload.share,
        p50: quantile(times, 0.5),
        p95: quantile(times, 0.95),
        recall: total / workload.queries.length,
        paths,
      });
    }
    await index.close();
    return { engine, count: data.count, dim: data.dim, writeMs, buildMs, results, rssMb };
  } finally {
    await writer.close();
    await target.cleanup();
  }
}

async function sqlAnalyze(database: Database): Promise<void> {
  const { sql } = await import("kysely");
  await sql`ANALYZE product_vectors`.execute(database.db);
}

function pid(r: number): string {
  return `p${r}`;
}

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function formatVectorBench(rows: VectorBenchRow[]): string {
  const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  const s = (v: number) => `${(v / 1000).toFixed(1)} s`;
  const lines = [
    "| engine | N × dim | write (upsert) | load + build | RSS | queries | p50 / p95 | recall@10 | paths |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    r.results.forEach((x, i) => {
      const head =
        i === 0
          ? `| ${r.engine} | ${r.count.toLocaleString("en")} × ${r.dim} | ${s(r.writeMs)} | ${s(r.buildMs)} | ${Math.round(r.rssMb)} MB `
          : "| | | | | ";
      const name = x.share === undefined ? x.name : `${x.name} (${(x.share * 100).toFixed(1)}%)`;
      const paths = Object.entries(x.paths)
        .map(([p, n]) => `${p} ${n}`)
        .join(", ");
      lines.push(`${head}| ${name} | ${ms(x.p50)} / ${ms(x.p95)} ms | ${x.recall.toFixed(3)} | ${paths} |`);
    });
  }
  return lines.join("\n");
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const num = (name: string) => {
    const v = argValue(args, name);
    return v === undefined ? undefined : Number(v);
  };
  const rows = await runVectorBench({
    count: num("--count"),
    dim: num("--dim"),
    queries: num("--queries"),
    postgresUrl: args.includes("--no-postgres") ? undefined : (argValue(args, "--postgres") ?? testEnv.databaseUrl),
  });
  process.stdout.write(`${formatVectorBench(rows)}\n`);
}
