// The catalogue photos' image vectors for the vector evaluations (eval:filter-lists,
// eval:text-queries): embedded through the service's runtime (runtime.ts) in batches of 16, and
// cached in the temporary folder, keyed by the model file and the products' ids, so that a second
// run skips the embedding.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { loadEmbeddingModel, type DecodedImage } from "../../src/embeddings/runtime.js";
import type { DatasetProduct } from "../search/dataset.js";

const BATCH = 16;

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
