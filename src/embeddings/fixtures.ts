// Deterministic test images for the embedding tests (and any test that needs a picture of a
// known colour): solid-ish colour images with noise and texture, product-style shots (a coloured
// object on a white background) and varied multi-colour compositions, encoded and decoded with
// sharp so they go through real JPEG/PNG codecs.

import sharp from "sharp";
import type { DecodedImage } from "./types.js";
import { mulberry32 } from "../platform/prng.js";

/**
 * Everyday sRGB values (0–255) for the test model's basic colours — deliberately not the model's
 * palette prototypes, so tests do not just feed the model its own constants.
 */
export const TEST_COLOURS: Readonly<Record<string, readonly [number, number, number]>> = {
  black: [26, 26, 28],
  white: [245, 245, 242],
  grey: [140, 140, 140],
  red: [198, 40, 40],
  maroon: [128, 0, 32],
  pink: [244, 143, 177],
  orange: [251, 140, 0],
  yellow: [253, 216, 53],
  beige: [232, 217, 181],
  brown: [109, 76, 65],
  olive: [128, 128, 0],
  green: [46, 125, 50],
  teal: [0, 137, 123],
  blue: [30, 99, 214],
  navy: [26, 35, 126],
  purple: [123, 31, 162],
};

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/** Decodes an encoded image to raw RGB, as decodeImage does. */
export async function decode(encoded: Buffer): Promise<DecodedImage> {
  const { data, info } = await sharp(encoded).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** Encodes raw RGB as JPEG (quality `quality`) or PNG. */
export async function encode(image: DecodedImage, format: { jpeg: number } | "png"): Promise<Buffer> {
  const s = sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } });
  return format === "png" ? s.png().toBuffer() : s.jpeg({ quality: format.jpeg }).toBuffer();
}

/** JPEG re-compression at `quality`, decoded again. */
export async function recompress(image: DecodedImage, quality: number): Promise<DecodedImage> {
  return decode(await encode(image, { jpeg: quality }));
}

/** A crop of `image` (fractions of its size), decoded through PNG. */
export async function crop(
  image: DecodedImage,
  region: { left: number; top: number; width: number; height: number },
): Promise<DecodedImage> {
  const { data, info } = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
    .extract({
      left: Math.round(region.left * image.width),
      top: Math.round(region.top * image.height),
      width: Math.round(region.width * image.width),
      height: Math.round(region.height * image.height),
    })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/**
 * A solid-ish image of `rgb`: per-pixel noise (±`noise`) plus a faint diagonal weave texture,
 * saved as JPEG quality 90 and decoded.
 */
export async function solidImage(
  rgb: readonly [number, number, number],
  opts: { width?: number; height?: number; noise?: number; seed?: number } = {},
): Promise<DecodedImage> {
  const width = opts.width ?? 320;
  const height = opts.height ?? 256;
  const noise = opts.noise ?? 24;
  const rand = mulberry32(opts.seed ?? 1);
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const weave = 10 * Math.sin((x + y) * 0.7) * Math.sin((x - y) * 0.35);
      const n = (rand() - 0.5) * 2 * noise;
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) out[i + c] = clamp(rgb[c]! + weave + n + (rand() - 0.5) * 6);
    }
  }
  return recompress({ rgb: out, width, height }, 90);
}

/** A product-style shot: an ellipse of `rgb` (with shading and noise) centred on a near-white background. */
export async function productImage(rgb: readonly [number, number, number], seed = 1): Promise<DecodedImage> {
  const width = 300;
  const height = 400;
  const rand = mulberry32(seed);
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dx = (x - width / 2) / (width * 0.33);
      const dy = (y - height / 2) / (height * 0.38);
      const r2 = dx * dx + dy * dy;
      const i = (y * width + x) * 3;
      const n = (rand() - 0.5) * 16;
      for (let c = 0; c < 3; c++) out[i + c] = r2 < 1 ? clamp(rgb[c]! * (1.08 - 0.2 * r2) + n) : clamp(248 + n / 4);
    }
  }
  return recompress({ rgb: out, width, height }, 90);
}

/**
 * A varied multi-colour composition (seeded): a vertical gradient background, a few rectangles
 * and discs of random colours, stripes on some, and noise — as JPEG quality 90, decoded.
 */
export async function variedImage(seed: number): Promise<DecodedImage> {
  const rand = mulberry32(seed * 7919 + 17);
  const colour = (): [number, number, number] => [rand() * 255, rand() * 255, rand() * 255];
  const width = 256 + Math.floor(rand() * 160);
  const height = 256 + Math.floor(rand() * 160);
  const top = colour();
  const bottom = colour();
  const shapes = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => ({
    disc: rand() < 0.5,
    cx: rand() * width,
    cy: rand() * height,
    rx: (0.12 + rand() * 0.3) * width,
    ry: (0.12 + rand() * 0.3) * height,
    rgb: colour(),
    stripes: rand() < 0.4 ? 6 + rand() * 14 : 0,
  }));
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const t = y / (height - 1);
    for (let x = 0; x < width; x++) {
      let px: number[] = [0, 1, 2].map((c) => top[c]! * (1 - t) + bottom[c]! * t);
      for (const s of shapes) {
        const dx = (x - s.cx) / s.rx;
        const dy = (y - s.cy) / s.ry;
        const inside = s.disc ? dx * dx + dy * dy < 1 : Math.abs(dx) < 1 && Math.abs(dy) < 1;
        if (inside) px = s.stripes && Math.floor(x / s.stripes) % 2 === 0 ? px.map((v) => v * 0.5 + 40) : [...s.rgb];
      }
      const i = (y * width + x) * 3;
      const n = (rand() - 0.5) * 20;
      for (let c = 0; c < 3; c++) out[i + c] = clamp(px[c]! + n);
    }
  }
  return recompress({ rgb: out, width, height }, 90);
}

/** Cosine similarity of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Index of the candidate most similar to `query`. */
export function nearest(query: Float32Array, candidates: readonly Float32Array[]): number {
  let best = -1;
  let bestSim = -Infinity;
  candidates.forEach((c, i) => {
    const s = cosine(query, c);
    if (s > bestSim) {
      bestSim = s;
      best = i;
    }
  });
  return best;
}
