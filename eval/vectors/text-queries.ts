// `npx tsx eval/vectors/text-queries.ts [--postgres URL] [--model DIR] [--dataset DIR] [--k 10] [--ef 10,20,40,100] [--halfvec]`
//
// How well PostgreSQL's HNSW graph finds the nearest products of a shopper's *text* query, against
// those of a photo. The graph is built from image vectors, and a text's vector lies apart from
// them (the image–text "modality gap": a photo's nearest other photo sits at cosine ~0.97 with
// ../shared/models/fashion-clip-small, a text's nearest photo much further). A graph walked at a
// fixed depth (hnsw.ef_search) finds fewer of the true neighbours of a query far from the data.
// bench:scale measures recall on queries drawn like its products, and its HTTP stage embeds text
// with a random-weight model whose vectors carry no meaning, so neither tells what the text
// searches of a real store find. This evaluation does, on real material:
//
// 1. Embeds every photo of ../shared/datasets/fashion-products with the model (cached in the
//    temporary folder, as eval:filter-lists).
// 2. Text queries: the shopper-written queries of eval/search/queries/shopper-*.jsonl (the blind
//    sets already run; the unrun folder is not read), each embedded as typed. Image queries: the
//    photos of the model's test split (split.json "test"). dev / test by a fixed rule: the last hex
//    digit of sha1(query text or product id) even → dev, odd → test.
// 3. A fresh PostgreSQL schema (migrated), one store, one product per photo, the vectors written
//    through PostgresVectorIndex.upsert, and the store's HNSW index as the service builds it
//    (m = 16, ef_construction = 128; --halfvec: over half-precision copies, as bench:scale).
// 4. Each query: its exact k nearest (full precision, SQL; a photo's own product left out), and
//    the graph's k nearest through the service's HNSW statement (annQuery) at each --ef.
// 5. Prints, per query kind and split: the similarities of the exact 1st, k-th and 100th nearest
//    (medians: how far the query lies from the catalogue, and how tightly its neighbours crowd),
//    and per ef: recall@k, the share of queries under 0.8, and the similarity the graph's k-th
//    result loses against the exact k-th (mean; what a shopper could notice).
// The schema is dropped at the end, whatever happens.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { openDatabase, type Database } from "../../src/db/index.js";
import { loadEmbeddingModel } from "../../src/embeddings/runtime.js";
import { createVectorIndex } from "../../src/vectors/index.js";
import { annQuery, type PostgresVectorIndex } from "../../src/vectors/postgres.js";
import { normalized, toPgVector } from "../../src/vectors/math.js";
import { recall } from "../../src/vectors/synthetic.js";
import { createStores, randomPgSchema } from "../../test/support/database.js";
import { testEnv } from "../../test/support/env.js";
import { readDataset } from "../search/dataset.js";
import { readQuerySets } from "../search/query-sets.js";
import { BATCH, closeAndDrop, embedPhotos, loadStore, mean, seconds, splitOf } from "./photos.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const { values: args } = parseArgs({
  options: {
    postgres: { type: "string" },
    model: { type: "string", default: path.resolve(here, "../../../shared/models/fashion-clip-small") },
    dataset: { type: "string", default: path.resolve(here, "../../../shared/datasets/fashion-products") },
    queries: { type: "string", default: path.resolve(here, "../search/queries") },
    k: { type: "string", default: "10" },
    ef: { type: "string", default: "10,20,40,100" },
    halfvec: { type: "boolean", default: false },
  },
});

const DATABASE_URL = args.postgres ?? testEnv.databaseUrl;
const MODEL_DIR = path.resolve(args.model!);
const DATASET_DIR = path.resolve(args.dataset!);
const QUERIES_DIR = path.resolve(args.queries!);
const K = Number(args.k);
const EFS = args.ef!.split(",").map(Number);
/** The exact neighbour whose similarity tells how tightly a query's neighbours crowd. */
const FAR_RANK = 100;
const STORE = "eval-store";

function checkInputs(): void {
  const missing: string[] = [];
  if (!DATABASE_URL) missing.push("a PostgreSQL server: give --postgres postgres://… or set TEST_DATABASE_URL");
  if (!fs.existsSync(path.join(DATASET_DIR, "products.jsonl"))) missing.push(`the dataset: ${path.join(DATASET_DIR, "products.jsonl")}`);
  for (const f of ["split.json", "config.json", "onnx/vision_model.onnx", "onnx/text_model.onnx"])
    if (!fs.existsSync(path.join(MODEL_DIR, f))) missing.push(`the model: ${path.join(MODEL_DIR, f)}`);
  if (!fs.existsSync(QUERIES_DIR)) missing.push(`the shopper queries: ${QUERIES_DIR}`);
  if (!Number.isInteger(K) || K < 1 || K > FAR_RANK) missing.push(`a whole --k from 1 to ${FAR_RANK} (got ${args.k})`);
  if (EFS.some((e) => !Number.isInteger(e) || e < 1 || e > 1000)) missing.push(`--ef: whole numbers from 1 to 1,000 (got ${args.ef})`);
  if (missing.length > 0) {
    console.error(`eval text-queries: missing\n${missing.map((m) => `  - ${m}`).join("\n")}`);
    process.exit(2);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : 0;
};

interface Query {
  kind: "text" | "image";
  split: "dev" | "test";
  vector: Float32Array;
  /** A photo query's own product, left out of both answers. */
  own?: string;
  exact: { ids: string[]; similarities: number[] };
}

/** The shopper-written queries of the sets already run (readQuerySets: `unrun/` is not read), each text once. */
function shopperQueries(dir: string): string[] {
  return [...new Set(readQuerySets(dir).flatMap((set) => set.queries.map((q) => q.query.trim())))].filter((q) => q.length > 0);
}

async function main(): Promise<void> {
  checkInputs();
  const started = performance.now();
  const split = JSON.parse(fs.readFileSync(path.join(MODEL_DIR, "split.json"), "utf8")) as { test?: unknown[] };
  const testIds = new Set((split.test ?? []).map(String));
  const products = readDataset(path.join(DATASET_DIR, "products.jsonl")).filter((p) => fs.existsSync(path.join(DATASET_DIR, p.image)));
  const texts = shopperQueries(QUERIES_DIR);
  console.log(
    `eval text-queries — ${products.length} photos indexed; ${texts.length} shopper text queries (${QUERIES_DIR}); image queries: the test split's photos; model ${MODEL_DIR}`,
  );

  const e0 = performance.now();
  const photos = await embedPhotos(MODEL_DIR, DATASET_DIR, products, "text-queries");
  const model = await loadEmbeddingModel({ id: MODEL_DIR, cacheDir: os.tmpdir() });
  const textVectors: Float32Array[] = [];
  try {
    for (let start = 0; start < texts.length; start += BATCH)
      textVectors.push(...(await model.embedTexts(texts.slice(start, start + BATCH))));
  } finally {
    await model.close();
  }
  const dim = photos.vectors[0]!.length;
  console.log(
    `embeddings: ${photos.vectors.length} photos (${photos.cached ? "from the cache" : "embedded"}), ${texts.length} texts, ${dim}-d, in ${seconds(e0)}`,
  );

  const schema = randomPgSchema("evaltq");
  let database: Database | undefined;
  let index: PostgresVectorIndex | undefined;
  try {
    database = await openDatabase({ kind: "postgres", url: DATABASE_URL! }, { pgSchema: schema });
    const db = database;
    await createStores(db, [STORE]);
    const vectorIndex = createVectorIndex(db, { halfvec: args.halfvec!, countCacheMs: 0 }) as PostgresVectorIndex;
    index = vectorIndex;
    await vectorIndex.init();
    const l0 = performance.now();
    const rows = products.map((p, i) => ({
      id: p.id,
      vector: photos.vectors[i]!,
      meta: { name: p.name, category: p.subCategory, color_name: p.baseColour },
    }));
    await loadStore(db, vectorIndex, STORE, rows, "fashion-clip-small");
    if (!(await vectorIndex.ensureIndex(dim))) throw new Error(`no HNSW index for ${dim} dimensions`);
    console.log(
      `load and HNSW index: ${products.length} vectors in ${seconds(l0)} (schema ${schema}${args.halfvec ? ", half precision" : ""})`,
    );

    // --- queries and their exact answers ---
    const x0 = performance.now();
    const exact = async (vector: Float32Array, own?: string) => {
      const q = toPgVector(vector);
      const rows = (
        await sql<{ product_id: string; distance: number }>`
          SELECT product_id, embedding <=> ${q}::vector AS distance FROM product_vectors
          WHERE store_id = ${STORE} AND product_id <> ${own ?? ""}
          ORDER BY 2, product_id LIMIT ${FAR_RANK}`.execute(db.db)
      ).rows;
      return { ids: rows.slice(0, K).map((r) => r.product_id), similarities: rows.map((r) => 1 - Number(r.distance)) };
    };
    const queries: Query[] = [];
    for (let i = 0; i < texts.length; i++) {
      const vector = normalized(textVectors[i]!);
      queries.push({ kind: "text", split: splitOf(texts[i]!), vector, exact: await exact(vector) });
    }
    for (let i = 0; i < products.length; i++) {
      const p = products[i]!;
      if (!testIds.has(p.id)) continue;
      const vector = normalized(photos.vectors[i]!);
      queries.push({ kind: "image", split: splitOf(p.id), vector, own: p.id, exact: await exact(vector, p.id) });
    }
    console.log(`exact answers: ${queries.length} queries in ${seconds(x0)}`);

    // --- the graph at each depth ---
    const found = new Map<number, { recall: number; lost: number }[]>();
    for (const ef of EFS) {
      const outcomes: { recall: number; lost: number }[] = [];
      for (const q of queries) {
        const apart = q.own ? [q.own] : [];
        const rows = (await annQuery(STORE, q.vector, K, ef, args.halfvec!, apart).execute(db.db)).rows;
        rows.sort((a, b) => a.distance - b.distance);
        const ids = rows.slice(0, K).map((r) => r.product_id);
        // The graph's k-th similarity (with --halfvec, by the half-precision copies the graph returns).
        const kth = rows.length >= K ? 1 - rows[K - 1]!.distance : -1;
        outcomes.push({ recall: recall(ids, q.exact.ids), lost: Math.max(0, q.exact.similarities[K - 1]! - kth) });
      }
      found.set(ef, outcomes);
    }

    console.log(
      `\nrecall@${K} of the store's HNSW graph (annQuery, the service's statement) against an exact scan, ${products.length} photos indexed. ` +
        `Similarities are cosine, medians over the queries; "k-th lost" is the mean of (exact k-th similarity − the graph's k-th).\n`,
    );
    console.log(
      `| queries | split | n | exact 1st / ${K}th / ${FAR_RANK}th similarity | ${EFS.map((ef) => `ef ${ef}: recall, < 0.8, k-th lost`).join(" | ")} |`,
    );
    console.log(`|---|---|---|---|${EFS.map(() => "---|").join("")}`);
    for (const kind of ["text", "image"] as const) {
      for (const sp of ["dev", "test"] as const) {
        const picked = queries.map((q, i) => ({ q, i })).filter(({ q }) => q.kind === kind && q.split === sp);
        if (picked.length === 0) continue;
        const sims = (rank: number) => median(picked.map(({ q }) => q.exact.similarities[rank - 1] ?? 0)).toFixed(3);
        const cells = EFS.map((ef) => {
          const o = picked.map(({ i }) => found.get(ef)![i]!);
          const r = mean(o.map((x) => x.recall));
          const low = o.filter((x) => x.recall < 0.8).length / o.length;
          return `${r.toFixed(3)}, ${(low * 100).toFixed(1)} %, ${mean(o.map((x) => x.lost)).toFixed(4)}`;
        });
        console.log(`| ${kind} | ${sp} | ${picked.length} | ${sims(1)} / ${sims(K)} / ${sims(FAR_RANK)} | ${cells.join(" | ")} |`);
      }
    }
    console.log(`\ntotal ${seconds(started)}`);
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
