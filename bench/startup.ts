// `npm run bench:startup [-- --count 50000] [--quant-count 20000] [--quantization f32|f16|i8] [--dir DIR]`
//
// The embedded vector index (SQLite + in-memory groups + usearch HNSW), 512-d clustered synthetic
// vectors in one store, every product with a category (1 of 5, ~20 % each) and a price:
//   1. filters: search p50 unfiltered, with a 20 % category filter through SQL candidates (the
//      path before in-memory filters, still used on PostgreSQL) and through the in-memory bitmap
//      (first use and cached), recall@10 of the filtered searches against exact filtered search;
//   2. start-up: the HNSW build from scratch (what every start cost before snapshots), then a
//      restart from the snapshot saved at close: time until init() returns with the index complete
//      (searches go through HNSW at once), and the snapshot's size;
//   3. compact vectors: f32, f16 and i8 storage inside HNSW on `--quant-count` vectors — index file
//      size (≈ memory), search p50 and recall@10 against exact search (`--quant-count 0` skips it).
// `--quantization` is the HNSW storage of parts 1 and 2 (default f16, as VECTOR_QUANTIZATION).
// `--dir DIR` keeps the seeded database and its snapshot in DIR; a later run with the same DIR
// measures only the start-up (part 2) again, without seeding and building (at 1M that is ~40 min).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createStores } from "../test/support/database.js";
import { openDatabase } from "../src/db/index.js";
import { EmbeddedVectorIndex } from "../src/vectors/embedded.js";
import { resolveOptions } from "../src/vectors/index.js";
import { clusteredVectors, exactTopK, queriesLike, recall } from "../src/vectors/synthetic.js";
import { SearchRepository } from "../src/search/query/repository.js";
import { attributeFilter } from "../src/search/query/memory-filter.js";
import type { ProductAttributes } from "../src/vectors/attributes.js";

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "50000" },
    "quant-count": { type: "string", default: "20000" },
    quantization: { type: "string", default: "f16" },
    dir: { type: "string" },
  },
});
if (!["f32", "f16", "i8"].includes(args.quantization!)) throw new Error("--quantization must be f32, f16 or i8");
const QUANTIZATION = args.quantization as "f32" | "f16" | "i8";
const COUNT = Number(args.count);
const QCOUNT = Number(args["quant-count"]);
const DIM = 512;
const CATEGORIES = ["dresses", "tops", "bottoms", "shoes", "bags"];
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const category = (i: number) => CATEGORIES[(i * 7919) % 5]!;

async function main() {
  console.log(
    `Embedded index start-up and filter benchmark: ${os.cpus().length} cores (load average ${os.loadavg()[0]!.toFixed(1)}), Node ${process.version}, ${COUNT} × ${DIM}-d, HNSW storage ${QUANTIZATION}\n`,
  );
  const keep = args.dir !== undefined;
  const dir = keep ? path.resolve(args.dir!) : fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-bench-startup-"));
  fs.mkdirSync(dir, { recursive: true });
  const snapshotDir = path.join(dir, "snapshots");
  const target = { kind: "sqlite" as const, file: path.join(dir, "bench.db") };
  const options = () =>
    resolveOptions(
      {
        snapshotDir,
        snapshotIntervalMs: 3_600_000,
        quantization: QUANTIZATION,
        bruteForceThreshold: Math.min(5_000, Math.floor(COUNT / 2)),
      },
      "sqlite",
    );
  // Written once seeding and the HNSW build have finished: a run interrupted before is not reused.
  const marker = path.join(dir, "seeded.json");
  const seeded = keep && fs.existsSync(marker);
  if (seeded) {
    const m = JSON.parse(fs.readFileSync(marker, "utf8")) as { count: number; quantization: string };
    if (m.count !== COUNT || m.quantization !== QUANTIZATION)
      throw new Error(
        `${dir} holds ${m.count} products with ${m.quantization} HNSW storage: pass --count ${m.count} --quantization ${m.quantization}, or another --dir`,
      );
  } else if (keep && fs.existsSync(target.file)) {
    throw new Error(`${dir} holds a store whose seeding did not finish: remove the folder or pass another --dir`);
  }
  /** Opens the database and an index that loads the snapshot saved at close; returns the open database. */
  const startup = async (query: Float32Array) => {
    const files = fs.existsSync(snapshotDir) ? fs.readdirSync(snapshotDir).map((f) => fs.statSync(path.join(snapshotDir, f)).size) : [];
    const memBefore = process.memoryUsage();
    const t = performance.now();
    const db = await openDatabase(target);
    const index = new EmbeddedVectorIndex(db, options());
    await index.init();
    const readyS = (performance.now() - t) / 1000;
    const memAfter = process.memoryUsage();
    const mb = (k: "rss" | "heapUsed" | "arrayBuffers") => ((memAfter[k] - memBefore[k]) / 1e6).toFixed(0);
    const stats = index.memoryStats("s");
    const outcome = index.snapshotOutcomes.get(`s/${DIM}`);
    const { vectorsMs, attributesMs, snapshotsMs } = index.initTimings;
    await index.search("s", query, { k: 10 });
    console.log(
      `start-up from snapshot (${stats[0]?.size} vectors): database open + vectors and fields loaded + snapshot checked and loaded in ${readyS.toFixed(2)} s ` +
        `(vectors ${(vectorsMs / 1000).toFixed(2)} s, fields ${(attributesMs / 1000).toFixed(2)} s, snapshot ${(snapshotsMs / 1000).toFixed(2)} s; ` +
        `snapshot ${outcome}, index complete: ${stats[0]?.indexed}, first search path ${index.lastPath}); ` +
        `files ${(files.reduce((a, b) => a + b, 0) / 1e6).toFixed(1)} MB; ` +
        `memory grown by the start (approximate, the closed index may not be collected yet): rss +${mb("rss")} MB, heap +${mb("heapUsed")} MB, array buffers +${mb("arrayBuffers")} MB`,
    );
    await index.close();
    return db;
  };
  let database = await openDatabase(target);
  try {
    if (seeded) {
      console.log(`reusing the store seeded in ${dir}`);
      await database.close();
      database = await startup(clusteredVectors({ count: 1, dim: DIM, clusters: 1, seed: 3 }).row(0));
      return;
    }
    await createStores(database, ["s"]);
    const data = clusteredVectors({ count: COUNT, dim: DIM, clusters: 50, seed: 7 });
    const index = new EmbeddedVectorIndex(database, options());
    await index.init();
    let t = performance.now();
    for (let start = 0; start < COUNT; start += 1000) {
      const upserted: { vectorId: string; productId: string; vector: Float32Array }[] = [];
      const attributes: { productId: string; attributes: ProductAttributes }[] = [];
      await database.transaction(async (tx) => {
        const rows = [];
        for (let i = start; i < Math.min(COUNT, start + 1000); i++) {
          const metadata = JSON.stringify({ category: category(i), price: 10 + (i % 200) });
          rows.push({
            store_id: "s",
            product_id: `p${i}`,
            vector_id: `v${i}`,
            image_url: `https://cdn.example/p${i}.jpg`,
            image_sha256: "x",
            name: null,
            category: category(i),
            brand: null,
            price: 10 + (i % 200),
            color_name: null,
            metadata,
            dominant_colors: "[]",
            model: "m",
            created_at: 0,
            updated_at: 0,
          });
          attributes.push({
            productId: `p${i}`,
            attributes: { category: category(i), price: 10 + (i % 200), colorName: null, dominantColors: "[]", metadata },
          });
        }
        await tx.insertInto("products").values(rows).execute();
        for (const r of rows) {
          const vector = data.row(Number(r.product_id.slice(1)));
          await index.upsert(tx, "s", { vectorId: r.vector_id, productId: r.product_id, model: "m", vector });
          upserted.push({ vectorId: r.vector_id, productId: r.product_id, vector });
        }
      });
      index.afterCommit("s", { upserted, attributes });
    }
    const seedS = (performance.now() - t) / 1000;
    t = performance.now();
    await index.settled();
    const buildS = (performance.now() - t) / 1000;
    if (keep) fs.writeFileSync(marker, JSON.stringify({ count: COUNT, quantization: QUANTIZATION }));
    console.log(
      `seeded ${COUNT} products in ${seedS.toFixed(1)} s; HNSW built in the background in ${buildS.toFixed(1)} s (the cost of every start without a snapshot, searches exact meanwhile)`,
    );

    // ---- filters
    const queries = queriesLike(data, 100, 9);
    const repo = new SearchRepository(database.db, "sqlite");
    const time = async (fn: (q: Float32Array, i: number) => Promise<unknown>) => {
      for (let i = 0; i < 10; i++) await fn(queries[i]!, i);
      const ms: number[] = [];
      for (const [i, q] of queries.entries()) {
        const s = performance.now();
        await fn(q, i);
        ms.push(performance.now() - s);
      }
      return pct(ms, 50);
    };
    const unfiltered = await time((q) => index.search("s", q, { k: 10 }));
    const sqlPath = await time(async (q, i) =>
      index.search("s", q, { k: 10, candidates: await repo.candidates("s", { category: CATEGORIES[i % 5] }) }),
    );
    let first = 0;
    const firstMs: number[] = [];
    for (const c of CATEGORIES) {
      // A bitmap's first use after a change: a write to the group invalidates every cached bitmap.
      const s = performance.now();
      void index.filterCandidates("s", attributeFilter({ category: c }))!.size;
      firstMs.push(performance.now() - s);
    }
    first = pct(firstMs, 50);
    const memPath = await time((q, i) =>
      index.search("s", q, { k: 10, candidates: index.filterCandidates("s", attributeFilter({ category: CATEGORIES[i % 5] })) }),
    );
    let rec = 0;
    for (const [i, q] of queries.entries()) {
      const c = CATEGORIES[i % 5]!;
      const found = await index.search("s", q, { k: 10, candidates: index.filterCandidates("s", attributeFilter({ category: c })) });
      rec += recall(
        found.map((m) => m.productId),
        exactTopK(data, q, 10, (r) => category(r) === c).map((r) => `p${r}`),
      );
    }
    console.log("\n| search (vector stage, k=10) | p50 | vs unfiltered |\n|---|---|---|");
    console.log(`| unfiltered | ${unfiltered.toFixed(2)} ms | 1.00 |`);
    console.log(
      `| 20 % category, SQL candidates (before; PostgreSQL path) | ${sqlPath.toFixed(2)} ms | ${(sqlPath / unfiltered).toFixed(2)} |`,
    );
    console.log(`| 20 % category, in-memory bitmap (cached) | ${memPath.toFixed(2)} ms | ${(memPath / unfiltered).toFixed(2)} |`);
    console.log(`| building one bitmap (first use after a change) | ${first.toFixed(2)} ms | |`);
    console.log(
      `recall@10 of the in-memory filtered search vs exact filtered search: ${(rec / queries.length).toFixed(3)} (path ${index.lastPath})`,
    );

    // ---- start-up from the snapshot
    t = performance.now();
    await index.close(); // saves the snapshot
    const saveS = (performance.now() - t) / 1000;
    await database.close();
    console.log(`\nsaving the snapshot at close took ${saveS.toFixed(2)} s`);
    database = await startup(queries[0]!);

    // ---- compact vectors
    if (QCOUNT <= 0) return;
    const qdata = clusteredVectors({ count: QCOUNT, dim: DIM, clusters: 50, seed: 17 });
    const qqueries = queriesLike(qdata, 100, 19);
    console.log(`\n| HNSW storage (${QCOUNT} × ${DIM}-d) | index file | build | search p50 | recall@10 |\n|---|---|---|---|---|`);
    for (const quantization of ["f32", "f16", "i8"] as const) {
      await database.db.deleteFrom("stores").where("id", "=", "q").execute();
      await createStores(database, ["q"]);
      const qi = new EmbeddedVectorIndex(database, resolveOptions({ quantization, bruteForceThreshold: 1_000 }, "sqlite"));
      await qi.init();
      const upserted = Array.from({ length: QCOUNT }, (_, i) => ({ vectorId: `q${i}`, productId: `q${i}`, vector: qdata.row(i) }));
      qi.afterCommit("q", { upserted });
      t = performance.now();
      await qi.settled();
      const build = (performance.now() - t) / 1000;
      const group = (
        qi as unknown as { stores: Map<string, Map<number, { snapshotSource(): { index: { save(p: string): void } } | undefined }>> }
      ).stores
        .get("q")!
        .get(DIM)!;
      const file = path.join(dir, `q-${quantization}.usearch`);
      group.snapshotSource()!.index.save(file);
      const ms: number[] = [];
      let r = 0;
      for (const q of qqueries) {
        const s = performance.now();
        const found = await qi.search("q", q, { k: 10 });
        ms.push(performance.now() - s);
        r += recall(
          found.map((m) => m.productId),
          exactTopK(qdata, q, 10).map((i) => `q${i}`),
        );
      }
      console.log(
        `| ${quantization} | ${(fs.statSync(file).size / 1e6).toFixed(1)} MB | ${build.toFixed(1)} s | ${pct(ms, 50).toFixed(2)} ms | ${(r / qqueries.length).toFixed(3)} |`,
      );
      await qi.close();
    }
  } finally {
    console.log(`\nload average at end ${os.loadavg()[0]!.toFixed(1)}`);
    await database.close().catch(() => undefined);
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
