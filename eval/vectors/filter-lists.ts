// `npx tsx eval/vectors/filter-lists.ts [--postgres URL] [--model DIR] [--dataset DIR] [--min-products 150] [--pad auto|N] [--k 10]`
//
// Recall of searches filtered on one category when the category's vectors are read through its
// pgvector IVFFlat inverted lists (filter indexes, src/vectors/filter-indexes.ts, migration 0022),
// on real catalogue photos rather than the synthetic clusters of the unit test
// (filter-indexes.test.ts, last test) and of bench:scale. Real image embeddings are concentrated
// by type and colour (../shared/models/fashion-clip-small/README.md: a test image's nearest other
// test product at cosine 0.97 at the median), a shape the synthetic data does not have, and the
// number of lists a search probes (probesFor) was chosen on synthetic data only.
//
// 1. Embeds the photos of the model's test split (split.json "test": the model never saw them) of
//    ../shared/datasets/fashion-products with ../shared/models/fashion-clip-small, in batches of
//    16, through the service's runtime (runtime.ts). The vectors are cached in the temporary
//    folder, keyed by the model file and the ids, so a second run skips this.
// 2. A fresh PostgreSQL schema (migrated), one store, one product per photo (category =
//    subCategory) with its vector written through PostgresVectorIndex.upsert. Filter values: the
//    categories with ≥ --min-products test products. A category holding more than MAX_SHARE (25 %)
//    of a store gets no copies (the store's graph serves it); the test split's largest category
//    does (Topwear, ~46 %), so by default (--pad auto) the store also gets just enough products
//    without a category, with seeded random unit vectors, to bring every filter value to 25 %.
//    They are in no filtered result and no exact answer; they only change the store's size.
//    `--pad 0` leaves them out (the largest category then takes the store's own paths).
// 3. One refresh of the filter indexes (minRows = listsMinRows = --min-products), as the worker's
//    maintenance round runs it: every filter value gets copies and inverted lists (⌈√rows⌉ lists,
//    probesFor(lists) probed). Prints rows, lists and probes per value.
// 4. Queries: every test photo's own vector. dev / test by a fixed rule: the last hex digit of
//    sha1(id) even → dev, odd → test. Each query is searched with its own category ("near", when
//    it is a filter value) and with the next filter value after its category in sorted order
//    ("far": a category it is not in), as the search service does it (SearchRepository
//    candidates, VectorIndex.search, k = 11, the query product dropped, 10 kept), against the
//    exact top 10 of that category's products (SQL, full-precision vectors, the query product
//    left out). The path each search took is counted (anything but "ivf-filter-index" is listed).
// 5. The same searches with other probes per value (vector_filter_indexes.probes updated in
//    place): a smaller share without the floor of 8, ⌈lists/4⌉, ⌈lists/2⌉, and every list (a
//    sanity check: recall@10 1.000 up to half-precision ties). Printed as a Markdown table:
//    probes rule × split × filter kind → searches, recall@10, share of searches below 0.8, paths.
// 6. With the current probes again, the same searches with other re-score depths
//    (copiesRescoreMargin: how many more nearest copies than k are re-scored from the full
//    vectors, as a share of k, at least 30): the depth matters at the service's fused depth
//    (k = 100 for text search), so `--k 100` measures recall@100 the same way.
// The schema is dropped at the end, whatever happens.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { openDatabase, type Database } from "../../src/db/index.js";
import { createVectorIndex } from "../../src/vectors/index.js";
import type { PostgresVectorIndex } from "../../src/vectors/postgres.js";
import { copiesRescored, MAX_SHARE, probesFor } from "../../src/vectors/filter-indexes.js";
import { isDeferred } from "../../src/vectors/candidates.js";
import { toPgVector } from "../../src/vectors/math.js";
import { prng, recall } from "../../src/vectors/synthetic.js";
import { SearchRepository } from "../../src/search/query/repository.js";
import { createStores, randomPgSchema } from "../../test/support/database.js";
import { testEnv } from "../../test/support/env.js";
import { readDataset } from "../search/dataset.js";
import { closeAndDrop, embedPhotos, loadStore, mean, seconds, splitOf } from "./photos.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const { values: args } = parseArgs({
  options: {
    postgres: { type: "string" },
    model: { type: "string", default: path.resolve(here, "../../../shared/models/fashion-clip-small") },
    dataset: { type: "string", default: path.resolve(here, "../../../shared/datasets/fashion-products") },
    "min-products": { type: "string", default: "150" },
    pad: { type: "string", default: "auto" },
    k: { type: "string", default: "10" },
  },
});

const DATABASE_URL = args.postgres ?? testEnv.databaseUrl;
const MODEL_DIR = path.resolve(args.model!);
const DATASET_DIR = path.resolve(args.dataset!);
const MIN_PRODUCTS = Number(args["min-products"]);
const K = Number(args.k);
const STORE = "eval-store";
const VECTOR_MODEL = "fashion-clip-small";

// ------------------------------------------------------------- inputs ---
function checkInputs(): void {
  const missing: string[] = [];
  if (!DATABASE_URL) missing.push("a PostgreSQL server: give --postgres postgres://… or set TEST_DATABASE_URL (`. /tmp/env.sh`)");
  for (const f of ["products.jsonl"])
    if (!fs.existsSync(path.join(DATASET_DIR, f))) missing.push(`the dataset: ${path.join(DATASET_DIR, f)}`);
  for (const f of ["split.json", "config.json", "preprocessor_config.json", "onnx/vision_model.onnx"])
    if (!fs.existsSync(path.join(MODEL_DIR, f))) missing.push(`the model: ${path.join(MODEL_DIR, f)}`);
  if (!Number.isInteger(K) || K < 1 || K > 1000) missing.push(`a whole --k from 1 to 1,000 (got ${args.k})`);
  if (!Number.isInteger(MIN_PRODUCTS) || MIN_PRODUCTS < 1) missing.push(`a whole --min-products ≥ 1 (got ${args["min-products"]})`);
  if (args.pad !== "auto" && !(Number.isInteger(Number(args.pad)) && Number(args.pad) >= 0))
    missing.push(`--pad auto or a count ≥ 0 (got ${args.pad})`);
  if (missing.length > 0) {
    console.error(`eval filter-lists: missing\n${missing.map((m) => `  - ${m}`).join("\n")}`);
    process.exit(2);
  }
}

function randomUnit(random: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let s = 0;
  for (let i = 0; i < dim; i++) {
    const g = Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
    v[i] = g;
    s += g * g;
  }
  for (let i = 0; i < dim; i++) v[i]! /= Math.sqrt(s);
  return v;
}

// ------------------------------------------------------------- helpers ---

interface Search {
  query: number;
  split: "dev" | "test";
  kind: "near" | "far";
  /** The filter value, as the dataset spells it. */
  category: string;
  truth: string[];
}

interface Outcome {
  recall: number;
  path: string;
  ms: number;
}

interface FilterRow {
  id: number;
  value: string;
  rows: number;
  lists: number | null;
  probes: number | null;
}

// ------------------------------------------------------------- main ---
async function main(): Promise<void> {
  checkInputs();
  const started = performance.now();
  const split = JSON.parse(fs.readFileSync(path.join(MODEL_DIR, "split.json"), "utf8")) as { test?: unknown[] };
  if (!Array.isArray(split.test)) throw new Error(`${path.join(MODEL_DIR, "split.json")} has no "test" list`);
  const testIds = new Set(split.test.map(String));
  const all = readDataset(path.join(DATASET_DIR, "products.jsonl"));
  const inSplit = all.filter((p) => testIds.has(p.id));
  const products = inSplit.filter((p) => fs.existsSync(path.join(DATASET_DIR, p.image)));
  if (products.length === 0) {
    console.error(`eval filter-lists: missing\n  - the images of the test split under ${DATASET_DIR}`);
    process.exit(2);
  }
  const counts = new Map<string, number>();
  for (const p of products) counts.set(p.subCategory, (counts.get(p.subCategory) ?? 0) + 1);
  const values = [...counts].filter(([, n]) => n >= MIN_PRODUCTS).map(([c]) => c);
  values.sort();
  if (values.length < 2)
    throw new Error(`fewer than two categories with ≥ ${MIN_PRODUCTS} test products: no far filter (lower --min-products)`);
  const largest = Math.max(...values.map((v) => counts.get(v)!));
  const pad = args.pad === "auto" ? Math.max(0, Math.ceil(largest / MAX_SHARE) - products.length) : Number(args.pad);

  console.log(
    `eval filter-lists — ${products.length} test-split photos of ${all.length} products (${inSplit.length - products.length} without an image file); model ${MODEL_DIR}; dataset ${DATASET_DIR}`,
  );
  console.log(
    `filter values (subCategory with ≥ ${MIN_PRODUCTS} test products): ${values.map((v) => `${v} ${counts.get(v)}`).join(", ")}; ` +
      `${pad} products without a category padded in (random unit vectors; --pad ${args.pad}), store ${products.length + pad} products`,
  );

  const e0 = performance.now();
  const embedded = await embedPhotos(MODEL_DIR, DATASET_DIR, products, "filter-lists");
  const vectors = embedded.vectors;
  const dim = vectors[0]!.length;
  console.log(
    `embeddings: ${vectors.length} × ${dim}-d, ${embedded.cached ? "from the cache" : "embedded in batches of 16"} in ${seconds(e0)} (${embedded.file})`,
  );

  const schema = randomPgSchema("evalfl");
  let database: Database | undefined;
  let index: PostgresVectorIndex | undefined;
  try {
    database = await openDatabase({ kind: "postgres", url: DATABASE_URL! }, { pgSchema: schema });
    const db = database;
    await createStores(db, [STORE]);
    const indexOptions = {
      bruteForceThreshold: 500,
      exactBudget: 0,
      countCacheMs: 0,
      filterIndexes: { minRows: MIN_PRODUCTS, maxPerStore: 32, listsMinRows: MIN_PRODUCTS },
    };
    const vectorIndex = createVectorIndex(db, indexOptions) as PostgresVectorIndex;
    index = vectorIndex;
    await vectorIndex.init();

    // --- load: products and vectors, 500 per transaction, as the test's write() ---
    const l0 = performance.now();
    const random = prng(20_22);
    const rows = [
      ...products.map((p, i) => ({
        id: p.id,
        vector: vectors[i]!,
        meta: { name: p.name, category: p.subCategory, color_name: p.baseColour, articleType: p.articleType } as Record<string, unknown>,
      })),
      ...Array.from({ length: pad }, (_, i) => ({ id: `pad-${String(i).padStart(5, "0")}`, vector: randomUnit(random, dim), meta: {} })),
    ];
    await loadStore(db, vectorIndex, STORE, rows, VECTOR_MODEL);
    console.log(`load: ${rows.length} products and vectors in ${seconds(l0)} (schema ${schema})`);

    // --- filter indexes ---
    const r0 = performance.now();
    const report = await vectorIndex.refreshFilterIndexes();
    const registry = async (): Promise<FilterRow[]> =>
      await db.db
        .selectFrom("vector_filter_indexes")
        .select(["id", "value", "rows", "lists", "probes"])
        .where("store_id", "=", STORE)
        .where("field", "=", "category")
        .where("ready", "=", true)
        .orderBy("value")
        .execute();
    const registered = await registry();
    console.log(
      `\nrefresh: ${seconds(r0)}; created ${report.created.length}, inverted lists built for ${report.listed.length} (${report.listed.join("; ")})`,
    );
    console.log("| category | rows | lists | probes (probesFor) |\n|---|---|---|---|");
    for (const v of values) {
      const r = registered.find((e) => e.value === v.toLowerCase());
      console.log(
        r ? `| ${v} | ${r.rows} | ${r.lists ?? "none"} | ${r.probes ?? "none"} |` : `| ${v} | ${counts.get(v)} | no copies | — |`,
      );
    }
    const unlisted = values.filter((v) => registered.find((e) => e.value === v.toLowerCase())?.lists == null);
    if (unlisted.length > 0)
      console.log(`WARNING: no inverted lists for ${unlisted.join(", ")}: their searches take other paths (see "paths")`);

    // --- queries and exact answers ---
    const t0 = performance.now();
    const members = new Map<string, string[]>(values.map((v) => [v, products.filter((p) => p.subCategory === v).map((p) => p.id)]));
    const exactAmong = async (query: Float32Array, ids: string[], exclude: string): Promise<string[]> =>
      (
        await sql<{ product_id: string }>`
          SELECT product_id FROM product_vectors
          WHERE store_id = ${STORE} AND product_id = ANY(${ids}::text[]) AND product_id <> ${exclude}
          ORDER BY embedding <=> ${toPgVector(query)}::vector, product_id LIMIT ${K}`.execute(db.db)
      ).rows.map((r) => r.product_id);
    const farOf = (category: string): string => values.find((v) => v > category && v !== category) ?? values.find((v) => v !== category)!;
    const searches: Search[] = [];
    for (let q = 0; q < products.length; q++) {
      const p = products[q]!;
      const s = splitOf(p.id);
      if (members.has(p.subCategory)) {
        searches.push({
          query: q,
          split: s,
          kind: "near",
          category: p.subCategory,
          truth: await exactAmong(vectors[q]!, members.get(p.subCategory)!, p.id),
        });
      }
      const far = farOf(p.subCategory);
      searches.push({ query: q, split: s, kind: "far", category: far, truth: await exactAmong(vectors[q]!, members.get(far)!, p.id) });
    }
    console.log(`exact answers: ${searches.length} searches in ${seconds(t0)}`);

    // --- searches through the search service's candidates ---
    const repo = new SearchRepository(db.db, "postgres", 50);
    const runAll = async (limit = searches.length, through: PostgresVectorIndex = vectorIndex): Promise<Outcome[]> => {
      const out: Outcome[] = [];
      for (const s of searches.slice(0, limit)) {
        const p = products[s.query]!;
        const s0 = performance.now();
        const candidates = await repo.candidates(STORE, { category: s.category });
        if (!isDeferred(candidates)) throw new Error(`${s.category}: the filter was listed, not left in the database`);
        const found = await through.search(STORE, vectors[s.query]!, { k: K + 1, candidates });
        const ms = performance.now() - s0;
        const ids = found
          .map((m) => m.productId)
          .filter((id) => id !== p.id)
          .slice(0, K);
        out.push({ recall: recall(ids, s.truth), path: through.lastPath, ms });
      }
      return out;
    };

    // The probes of each value under each rule (the registry's row as refreshed is the current rule).
    const rules: { name: string; probes: (lists: number) => number }[] = [
      { name: "⌈lists/8⌉ (no floor)", probes: (l) => Math.max(1, Math.ceil(l / 8)) },
      { name: "current (probesFor)", probes: probesFor },
      { name: "⌈lists/4⌉", probes: (l) => Math.ceil(l / 4) },
      { name: "⌈lists/2⌉", probes: (l) => Math.ceil(l / 2) },
      { name: "all lists (sanity)", probes: (l) => l },
    ];
    const results: { rule: string; setting: string; outcomes: Outcome[]; seconds: number }[] = [];
    for (const rule of rules) {
      for (const r of registered) {
        if (r.lists === null) continue;
        await db.db
          .updateTable("vector_filter_indexes")
          .set({ probes: rule.probes(r.lists) })
          .where("id", "=", r.id)
          .execute();
      }
      const now = await registry();
      const setting = now
        .filter((r) => r.lists !== null)
        .map((r) => `${r.value} ${r.probes}/${r.lists}`)
        .join(", ");
      if (results.length === 0) await runAll(200); // warms the caches for the ms column
      const s0 = performance.now();
      const outcomes = await runAll();
      results.push({ rule: rule.name, setting, outcomes, seconds: (performance.now() - s0) / 1000 });
    }

    // --- re-score depths, with the current probes ---
    for (const r of registered) {
      if (r.lists === null) continue;
      await db.db
        .updateTable("vector_filter_indexes")
        .set({ probes: probesFor(r.lists) })
        .where("id", "=", r.id)
        .execute();
    }
    const depths: { margin: number; outcomes: Outcome[]; seconds: number }[] = [];
    for (const margin of [3, 1, 0.5, 0.25, 0]) {
      const through = createVectorIndex(db, { ...indexOptions, copiesRescoreMargin: margin }) as PostgresVectorIndex;
      const s0 = performance.now();
      depths.push({ margin, outcomes: await runAll(searches.length, through), seconds: (performance.now() - s0) / 1000 });
      await through.close();
    }

    // --- tables ---
    console.log(
      `\nrecall@${K} of category-filtered searches (k = ${K}, the query product left out), through the search service's candidates; ` +
        `near = the query's own category, far = the next filter value in sorted order (a category it is not in). ` +
        `Queries: every test-split photo; dev = sha1(id) last hex digit even, test = odd.\n`,
    );
    console.log(
      `| probes rule (value probes/lists) | split | filter | searches | recall@${K} | share < 0.8 | min | ms/search | paths |\n|---|---|---|---|---|---|---|---|---|`,
    );
    for (const r of results) {
      for (const sp of ["dev", "test"] as const) {
        for (const kind of ["near", "far"] as const) {
          const picked = searches.map((s, i) => ({ s, o: r.outcomes[i]! })).filter(({ s }) => s.split === sp && s.kind === kind);
          const rec = picked.map(({ o }) => o.recall);
          const paths = new Map<string, number>();
          for (const { o } of picked) paths.set(o.path, (paths.get(o.path) ?? 0) + 1);
          const pathText = [...paths]
            .sort((a, b) => b[1] - a[1])
            .map(([p, n]) => (n === picked.length ? p : `${p} ${n}`))
            .join(", ");
          console.log(
            `| ${r.rule} (${r.setting}) | ${sp} | ${kind} | ${picked.length} | ${mean(rec).toFixed(3)} | ${(rec.filter((x) => x < 0.8).length / Math.max(1, rec.length)).toFixed(3)} | ${rec.length ? Math.min(...rec).toFixed(1) : "—"} | ${mean(picked.map(({ o }) => o.ms)).toFixed(1)} | ${pathText} |`,
          );
        }
      }
    }

    console.log(
      `\nre-score depth (current probes): recall@${K} by how many nearest copies beyond k are re-scored from the full vectors ` +
        `(k + max(30, ⌈k × margin⌉); the service asks k = 100 for text search, 10 here unless --k)\n` +
        `| margin (copies re-scored) | split | filter | searches | recall@${K} | ms/search |\n|---|---|---|---|---|---|`,
    );
    for (const d of depths) {
      for (const sp of ["dev", "test"] as const) {
        for (const kind of ["near", "far"] as const) {
          const picked = searches.map((s, i) => ({ s, o: d.outcomes[i]! })).filter(({ s }) => s.split === sp && s.kind === kind);
          console.log(
            `| ${d.margin} (${copiesRescored(K + 1, d.margin)}) | ${sp} | ${kind} | ${picked.length} | ${mean(picked.map(({ o }) => o.recall)).toFixed(3)} | ${mean(picked.map(({ o }) => o.ms)).toFixed(1)} |`,
          );
        }
      }
    }

    // Per filter value under the current rule (dev and test together).
    const current = results.find((r) => r.rule === "current (probesFor)")!;
    console.log(
      `\ncurrent rule by filter value (dev + test):\n| category | filter | searches | recall@${K} | share < 0.8 |\n|---|---|---|---|---|`,
    );
    for (const v of values) {
      for (const kind of ["near", "far"] as const) {
        const rec = searches
          .map((s, i) => ({ s, o: current.outcomes[i]! }))
          .filter(({ s }) => s.category === v && s.kind === kind)
          .map(({ o }) => o.recall);
        if (rec.length === 0) continue;
        console.log(
          `| ${v} | ${kind} | ${rec.length} | ${mean(rec).toFixed(3)} | ${(rec.filter((x) => x < 0.8).length / rec.length).toFixed(3)} |`,
        );
      }
    }
    console.log(`\ntotal ${seconds(started)} (searches: ${results.map((r) => `${r.rule} ${r.seconds.toFixed(1)} s`).join(", ")})`);
  } finally {
    await closeAndDrop(index, database, schema, DATABASE_URL!);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
