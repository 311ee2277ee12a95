// The vector evaluations' shared parts (eval:filter-lists, eval:text-queries): the catalogue
// photos' image vectors, embedded through the service's runtime (runtime.ts) in batches of 16 and
// cached in the temporary folder, keyed by the model file and the products' ids, so that a second
// run skips the embedding; a store of them loaded into a fresh schema; the schema dropped after;
// the dev / test rule and the figures' helpers.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import sharp from "sharp";
import type { Database } from "../../src/db/index.js";
import { loadEmbeddingModel, type DecodedImage } from "../../src/embeddings/runtime.js";
import type { VectorIndex } from "../../src/vectors/types.js";
import { withPg, writeProducts, type ProductWithVector } from "../../test/support/database.js";
import type { DatasetProduct } from "../search/dataset.js";

/** Texts or images per model call. */
export const BATCH = 16;

/** dev when the last hex digit of sha1(key) is even, test when odd. */
export const splitOf = (key: string): "dev" | "test" =>
  parseInt(createHash("sha1").update(key).digest("hex").slice(-1), 16) % 2 === 0 ? "dev" : "test";
export const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
export const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

async function decodeFile(file: string): Promise<DecodedImage> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/**
 * The image vectors of `products` (their photos under `datasetDir`), in order, by the model in
 * `modelDir`: from the cache file `shopsight-eval-<cacheName>-<key>.f32` when it exists, else
 * embedded and cached.
 */
export async function embedPhotos(
  modelDir: string,
  datasetDir: string,
  products: readonly DatasetProduct[],
  cacheName: string,
): Promise<{ vectors: Float32Array[]; cached: boolean; file: string }> {
  const onnx = fs.statSync(path.join(modelDir, "onnx/vision_model.onnx"));
  const key = createHash("sha1")
    .update(JSON.stringify([modelDir, onnx.size, onnx.mtimeMs, products.map((p) => p.id)]))
    .digest("hex")
    .slice(0, 16);
  const file = path.join(os.tmpdir(), `shopsight-eval-${cacheName}-${key}.f32`);
  if (fs.existsSync(file)) {
    const bytes = fs.readFileSync(file);
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const dim = all.length / products.length;
    if (Number.isInteger(dim) && dim > 0) {
      return { vectors: products.map((_, i) => all.slice(i * dim, (i + 1) * dim)), cached: true, file };
    }
  }
  const model = await loadEmbeddingModel({ id: modelDir, cacheDir: os.tmpdir() });
  const vectors: Float32Array[] = [];
  try {
    for (let start = 0; start < products.length; start += BATCH) {
      const batch = products.slice(start, start + BATCH);
      const images = await Promise.all(batch.map((p) => decodeFile(path.join(datasetDir, p.image))));
      vectors.push(...(await model.embedImages(images)));
      if ((start / BATCH) % 20 === 19) process.stderr.write(`  embedded ${vectors.length} / ${products.length}\n`);
    }
  } finally {
    await model.close();
  }
  const dim = vectors[0]!.length;
  const all = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => all.set(v, i * dim));
  fs.writeFileSync(file, Buffer.from(all.buffer, all.byteOffset, all.byteLength));
  return { vectors, cached: false, file };
}

/**
 * Writes `rows` into `storeId` (writeProducts: as the service does), waits for the index to settle
 * and analyses both tables.
 */
export async function loadStore(
  database: Database,
  index: VectorIndex,
  storeId: string,
  rows: readonly ProductWithVector[],
  model: string,
) {
  await writeProducts(database, index, storeId, rows, model);
  await index.settled();
  await sql`ANALYZE products`.execute(database.db);
  await sql`ANALYZE product_vectors`.execute(database.db);
}

/** Closes an evaluation's index and database, then drops its schema on the server at `url`, saying so (or why it could not). */
export async function closeAndDrop(index: VectorIndex | undefined, database: Database | undefined, schema: string, url: string) {
  await index?.close().catch(() => undefined);
  await database?.close().catch(() => undefined);
  await withPg((c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`), url).then(
    () => console.log(`(schema ${schema} dropped)`),
    (e: unknown) => console.error(`could not drop schema ${schema}: ${(e as Error).message}`),
  );
}
