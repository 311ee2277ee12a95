// Image preprocessing for CLIP, on the main thread with sharp (asynchronous, on libuv threads):
// the preprocessor_config.json spec, resize and centre crop to the model's size, and the
// normalised CHW float tensor the worker thread (runtime-worker.ts) builds from the RGB bytes.
import { readFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { DecodedImage, PreprocessSpec } from "./types.js";

type Json = Record<string, unknown>;
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
function triple(v: unknown, fallback: [number, number, number]): [number, number, number] {
  if (!Array.isArray(v) || v.length !== 3) return fallback;
  const [a, b, c] = v as unknown[];
  return typeof a === "number" && typeof b === "number" && typeof c === "number" ? [a, b, c] : fallback;
}

function sizeOf(v: unknown): { width: number; height: number } | { shortestEdge: number } | null {
  if (typeof v === "number") return { shortestEdge: v };
  if (v && typeof v === "object") {
    const o = v as Json;
    const se = num(o.shortest_edge);
    if (se) return { shortestEdge: se };
    const w = num(o.width);
    const h = num(o.height);
    if (w && h) return { width: w, height: h };
  }
  return null;
}

/**
 * Reads the preprocessing a model expects from its preprocessor_config.json (CLIPImageProcessor:
 * resize shortest edge + centre crop; SiglipImageProcessor: resize to a fixed size), with
 * transformers.js's defaults for missing fields.
 */
export function parsePreprocessorConfig(config: Json): PreprocessSpec {
  const doResize = config.do_resize !== false;
  const resize = doResize ? sizeOf(config.size ?? config.image_size) : null;
  const cropSize = sizeOf(config.crop_size);
  const crop =
    config.do_center_crop === true && cropSize
      ? "shortestEdge" in cropSize
        ? { width: cropSize.shortestEdge, height: cropSize.shortestEdge }
        : cropSize
      : null;
  const final = crop ?? (resize && !("shortestEdge" in resize) ? resize : null);
  if (!final) throw new Error("preprocessor_config.json must give a centre crop size or a fixed resize size");
  const normalize = config.do_normalize !== false;
  return {
    resize,
    crop,
    resample: num(config.resample) ?? 2,
    rescale: config.do_rescale === false ? 1 : (num(config.rescale_factor) ?? 1 / 255),
    mean: normalize ? triple(config.image_mean ?? config.mean, [0.5, 0.5, 0.5]) : [0, 0, 0],
    std: normalize ? triple(config.image_std ?? config.std, [0.5, 0.5, 0.5]) : [1, 1, 1],
    width: final.width,
    height: final.height,
  };
}

type Kernel = "nearest" | "lanczos3" | "linear" | "cubic" | "mitchell";
const KERNELS: Record<number, Kernel> = { 0: "nearest", 1: "lanczos3", 2: "linear", 3: "cubic", 4: "mitchell", 5: "linear" };

export function channelsOf(image: DecodedImage): 3 | 4 {
  const { width, height, rgb } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new TypeError(`invalid image size ${width}x${height}`);
  }
  if (rgb.length === width * height * 3) return 3;
  if (rgb.length === width * height * 4) return 4;
  throw new TypeError(`image buffer holds ${rgb.length} bytes; ${width}x${height} RGB needs ${width * height * 3}`);
}

/**
 * Resizes and centre-crops a decoded image as the model's processor would (shortest edge to
 * `resize.shortestEdge` then centre crop, or straight to a fixed size), with sharp. Returns the
 * model-sized interleaved RGB bytes (`spec.width × spec.height × 3`).
 */
export async function resizeForModel(image: DecodedImage, spec: PreprocessSpec): Promise<Uint8Array> {
  const channels = channelsOf(image);
  const { width: w, height: h } = image;
  let rw = w;
  let rh = h;
  if (spec.resize && "shortestEdge" in spec.resize) {
    const f = Math.max(spec.resize.shortestEdge / w, spec.resize.shortestEdge / h);
    // Same rounding as transformers.js (floor after rounding to 2 decimals).
    rw = Math.max(1, Math.floor(Number((w * f).toFixed(2))));
    rh = Math.max(1, Math.floor(Number((h * f).toFixed(2))));
  } else if (spec.resize) {
    rw = spec.resize.width;
    rh = spec.resize.height;
  }
  let pipeline = sharp(image.rgb, { raw: { width: w, height: h, channels } });
  if (channels === 4) pipeline = pipeline.removeAlpha();
  if (rw !== w || rh !== h) pipeline = pipeline.resize(rw, rh, { fit: "fill", kernel: KERNELS[spec.resample] ?? "cubic" });
  if (spec.crop) {
    const { width: cw, height: ch } = spec.crop;
    if (rw < cw || rh < ch) {
      // Smaller than the crop (only when resizing is off): pad with black, as the processor does.
      const left = Math.floor(Math.max(0, cw - rw) / 2);
      const top = Math.floor(Math.max(0, ch - rh) / 2);
      pipeline = sharp(await pipeline.raw().toBuffer(), { raw: { width: rw, height: rh, channels: 3 } }).extend({
        left,
        right: Math.max(0, cw - rw) - left,
        top,
        bottom: Math.max(0, ch - rh) - top,
        background: { r: 0, g: 0, b: 0 },
      });
      rw = Math.max(rw, cw);
      rh = Math.max(rh, ch);
    }
    const left = Math.floor((rw - cw) / 2);
    const top = Math.floor((rh - ch) / 2);
    if (left !== 0 || top !== 0 || rw !== cw || rh !== ch) pipeline = pipeline.extract({ left, top, width: cw, height: ch });
  }
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  if (info.width !== spec.width || info.height !== spec.height || info.channels !== 3) {
    throw new Error(`preprocessing produced ${info.width}x${info.height}x${info.channels}, expected ${spec.width}x${spec.height}x3`);
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Turns model-sized interleaved RGB bytes into the planar (CHW) float32 tensor the vision model
 * takes: `(byte × rescale − mean) / std` per channel. Writes into `out` at `offset` when given.
 */
export function normalizeToChw(hwc: Uint8Array, spec: PreprocessSpec, out?: Float32Array, offset = 0): Float32Array {
  const n = spec.width * spec.height;
  if (hwc.length !== n * 3) throw new TypeError(`expected ${n * 3} bytes, got ${hwc.length}`);
  const target = out ?? new Float32Array(3 * n);
  const lut = new Float32Array(3 * 256);
  for (let c = 0; c < 3; c++) for (let v = 0; v < 256; v++) lut[c * 256 + v] = (v * spec.rescale - spec.mean[c]!) / spec.std[c]!;
  const r = offset;
  const g = offset + n;
  const b = offset + 2 * n;
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    target[r + i] = lut[hwc[j]!]!;
    target[g + i] = lut[256 + hwc[j + 1]!]!;
    target[b + i] = lut[512 + hwc[j + 2]!]!;
  }
  return target;
}

/** A decoded image as the model's `pixel_values` for one image: float32 [1, 3, height, width]. */
export async function toPixelTensor(
  image: DecodedImage,
  spec: PreprocessSpec,
): Promise<{ data: Float32Array; dims: [1, 3, number, number] }> {
  return { data: normalizeToChw(await resizeForModel(image, spec), spec), dims: [1, 3, spec.height, spec.width] };
}

/** L2-normalises `v` in place (a zero vector stays zero) and returns it. */
export function l2normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  }
  return v;
}

/** Reads and parses a folder model's preprocessor_config.json. */
export async function readPreprocessSpec(dir: string): Promise<PreprocessSpec> {
  return parsePreprocessorConfig(JSON.parse(await readFile(path.join(dir, "preprocessor_config.json"), "utf8")) as Json);
}
