// Image intake: download through the safe fetch, recognise the format by content, decode with
// sharp into raw RGB, crop to a region. Every failure is an AppError from the catalogue:
//
// | code                | status | when                                                                  |
// |---------------------|--------|-----------------------------------------------------------------------|
// | invalid_url         | 400    | not an http(s) URL, credentials in it, plain http in production       |
// | address_not_allowed | 400    | the host or a redirect target resolves to a private/reserved address |
// | image_unreachable   | 422    | DNS/connect/TLS failure, non-2xx answer, too many redirects (> 3)     |
// | image_timeout       | 422    | the whole download took longer than OUTBOUND_TIMEOUT_MS (10 s)        |
// | image_too_large     | 413    | body > OUTBOUND_MAX_BYTES (20 MB), or > IMAGE_MAX_PIXELS (40 MP) and  |
// |                     |        | not safely downscalable (see below)                                   |
// | unsupported_image   | 415    | not JPEG/PNG/WebP/GIF/AVIF/TIFF by content, truncated or corrupt data |
// | invalid_region      | 400    | a crop region that does not fit the image                             |
//
// The format is recognised from the bytes only (never the URL extension or Content-Type), and
// only those six formats reach the decoder (so no SVG, PDF or HEIC parsing). The pixel limit is
// enforced from the header before any pixel is decoded (decompression bombs), and again by
// sharp's `limitInputPixels`. A JPEG or WebP over the limit (but within OUTBOUND_MAX_BYTES) is
// not refused when it can be decoded at 1/2, 1/4 or 1/8 of its size (libjpeg's DCT scaling and
// libwebp's scaled decoding: "shrink-on-load"), which keeps the decoded pixels under the limit
// without ever holding the full-size image; other formats, crops of such images, and images over
// 64× the limit are refused naming IMAGE_MAX_PIXELS. Truncated or corrupt pixel data is refused (`failOn: "error"`:
// libvips errors and truncation abort, benign warnings such as extra bytes after the end marker
// do not).
import sharp, { type Metadata } from "sharp";
import { AppError, messageOf } from "../platform/errors/catalogue.js";
import { isOutboundError, type OutboundError, type SafeFetch } from "../platform/outbound/safe-fetch.js";
import type { DecodedImage } from "./types.js";
import "./errors.js"; // registers the error codes thrown here

export type ImageType = "jpeg" | "png" | "webp" | "gif" | "avif" | "tiff";

/** Accept header sent when downloading images (the answer is sniffed regardless). */
export const IMAGE_ACCEPT = "image/avif,image/webp,image/png,image/jpeg,image/gif,image/tiff;q=0.9,*/*;q=0.5";

const ascii = (buf: Uint8Array, at: number, text: string): boolean => {
  if (buf.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (buf[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

/** AVIF: an ISO-BMFF `ftyp` box whose major or compatible brands include avif/avis (not HEIC). */
function isAvif(buf: Uint8Array): boolean {
  if (!ascii(buf, 4, "ftyp")) return false;
  const boxSize = (((buf[0] ?? 0) << 24) | ((buf[1] ?? 0) << 16) | ((buf[2] ?? 0) << 8) | (buf[3] ?? 0)) >>> 0;
  const end = Math.min(buf.length, boxSize >= 16 ? boxSize : 0, 4096);
  if (ascii(buf, 8, "avif") || ascii(buf, 8, "avis")) return true;
  for (let at = 16; at + 4 <= end; at += 4) if (ascii(buf, at, "avif") || ascii(buf, at, "avis")) return true;
  return false;
}

/** Recognises the six supported formats by their magic bytes; null for anything else. */
export function sniffImageType(buf: Uint8Array): ImageType | null {
  if (buf.length < 12) return null;
  if (buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return "jpeg";
  if (buf[0] === 0x89 && ascii(buf, 1, "PNG\r\n\x1a\n")) return "png";
  if (ascii(buf, 0, "GIF87a") || ascii(buf, 0, "GIF89a")) return "gif";
  if (ascii(buf, 0, "RIFF") && ascii(buf, 8, "WEBP")) return "webp";
  // TIFF and BigTIFF, little- and big-endian.
  if (ascii(buf, 0, "II") && (buf[2] === 0x2a || buf[2] === 0x2b) && buf[3] === 0) return "tiff";
  if (ascii(buf, 0, "MM") && buf[2] === 0 && (buf[3] === 0x2a || buf[3] === 0x2b)) return "tiff";
  if (isAvif(buf)) return "avif";
  return null;
}

/**
 * A crop region. `unit: "px"`: integers, x,y ≥ 0, width,height ≥ 1, inside the image.
 * `unit: "fraction"`: fractions of the image size, x,y in [0,1), width,height in (0,1],
 * x+width ≤ 1, y+height ≤ 1; edges are rounded to the nearest pixel (at least 1 px).
 * Without `unit` the rule is: all four values ≤ 1 → fractions, otherwise pixels. So
 * {x:0,y:0,width:1,height:1} is the whole image; send unit "px" for a 1-pixel crop.
 * Coordinates refer to the image as displayed, after EXIF orientation.
 */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
  unit?: "px" | "fraction";
}

/** A region in whole pixels, known to lie inside the image. */
export interface PixelRegion {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface DecodeOptions {
  /** IMAGE_MAX_PIXELS (default 40,000,000): width × height of the (first frame of the) image. */
  maxPixels: number;
  /** Crop to this region (after orientation, before any downscale); see `Region`. */
  region?: Region;
  /**
   * Downscale (never upscale) so the longer side is at most this many pixels, after cropping.
   * JPEG and WebP then decode at reduced size directly (shrink-on-load), which is much cheaper.
   */
  maxSide?: number;
}

export interface Decoded extends DecodedImage {
  /** Raw interleaved 8-bit RGB, row-major, width × height × 3 bytes, no padding. */
  rgb: Buffer;
  width: number;
  height: number;
  type: ImageType;
  /** Size of the whole image after EXIF orientation, before crop and downscale. */
  sourceWidth: number;
  sourceHeight: number;
}

function fail(code: "unsupported_image" | "image_too_large", message: string, details: Record<string, unknown> = {}): never {
  throw new AppError(code, message, details);
}

/**
 * Decodes JPEG, PNG, WebP, GIF (first frame), AVIF or TIFF (first page) into 8-bit sRGB:
 * EXIF orientation applied, alpha flattened onto white, CMYK/greyscale/16-bit converted.
 *
 * Throws AppError `unsupported_image` (415) for unrecognised bytes and for truncated or corrupt
 * data, `image_too_large` (413) when the header announces more than `maxPixels` pixels (checked
 * before decoding), `invalid_region` (400) for a region that does not fit.
 */
export async function decodeImage(buf: Uint8Array, opts: DecodeOptions): Promise<Decoded> {
  const type = sniffImageType(buf);
  if (type === null) fail("unsupported_image", "The file is not a JPEG, PNG, WebP, GIF, AVIF or TIFF image.");
  const input = {
    failOn: "error" as const,
    limitInputPixels: opts.maxPixels,
    autoOrient: true,
    pages: 1,
    page: 0,
  };

  // 1. Header only: dimensions, before a single pixel is decoded.
  let meta: Metadata;
  try {
    meta = await sharp(buf, { ...input, limitInputPixels: false }).metadata();
  } catch (err) {
    fail("unsupported_image", `The ${type.toUpperCase()} file could not be read.`, { type, cause: messageOf(err) });
  }
  const rawWidth = meta.width;
  const rawHeight = meta.pageHeight ?? meta.height;
  if (!(rawWidth > 0 && rawHeight > 0)) fail("unsupported_image", "The image has no dimensions.", { type });
  const pixels = rawWidth * rawHeight;
  const shrink = pixels > opts.maxPixels ? shrinkOnLoad(type, pixels, opts) : 1;
  if (shrink === null) {
    fail(
      "image_too_large",
      `The image has ${pixels} pixels (${rawWidth}×${rawHeight}); the limit is IMAGE_MAX_PIXELS=${opts.maxPixels}. ` +
        `Send a smaller image, or raise IMAGE_MAX_PIXELS on the server. JPEG and WebP images up to ${SHRINK_FACTORS.at(-1)! ** 2}× the limit are downscaled automatically.`,
      { width: rawWidth, height: rawHeight, pixels, maxPixels: opts.maxPixels, setting: "IMAGE_MAX_PIXELS" },
    );
  }
  const swap = (meta.orientation ?? 1) >= 5;
  const sourceWidth = swap ? rawHeight : rawWidth;
  const sourceHeight = swap ? rawWidth : rawHeight;
  const crop = opts.region ? resolveRegion(opts.region, sourceWidth, sourceHeight) : undefined;

  // 2. Decode: orient (input option, applied first), crop, downscale, flatten, 8-bit sRGB.
  //    Over the pixel limit (shrink > 1, no crop): the resize by a whole power of two lets libvips
  //    decode at that reduced size directly; the header check above stands in for limitInputPixels.
  let pipeline = sharp(buf, shrink > 1 ? { ...input, limitInputPixels: false } : input);
  if (crop && !(crop.width === sourceWidth && crop.height === sourceHeight)) pipeline = pipeline.extract(crop);
  const w = crop?.width ?? sourceWidth;
  const h = crop?.height ?? sourceHeight;
  // sharp decodes at 1/s only when asked for at least 1/(2s) (it keeps the last halving for its
  // own high-quality reduce), so the target is 1/(2 × shrink) of the source.
  const side = Math.min(
    opts.maxSide ?? Number.POSITIVE_INFINITY,
    shrink > 1 ? Math.floor(Math.max(w, h) / (2 * shrink)) : Number.POSITIVE_INFINITY,
  );
  if (Number.isFinite(side) && Math.max(w, h) > side) {
    pipeline = pipeline.resize({ width: side, height: side, fit: "inside", withoutEnlargement: true });
  }
  try {
    const { data, info } = await pipeline
      .flatten({ background: { r: 255, g: 255, b: 255 } })
      .toColourspace("srgb")
      .removeAlpha()
      .raw({ depth: "uchar" })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || data.length !== info.width * info.height * 3) {
      fail("unsupported_image", "The image could not be converted to RGB.", { type, channels: info.channels });
    }
    return { rgb: data, width: info.width, height: info.height, type, sourceWidth, sourceHeight };
  } catch (err) {
    if (err instanceof AppError) throw err;
    const message = messageOf(err);
    if (/pixel limit/i.test(message)) {
      fail(
        "image_too_large",
        `The image exceeds the limit of IMAGE_MAX_PIXELS=${opts.maxPixels} pixels; send a smaller image or raise IMAGE_MAX_PIXELS.`,
        {
          maxPixels: opts.maxPixels,
          setting: "IMAGE_MAX_PIXELS",
        },
      );
    }
    fail("unsupported_image", `The ${type.toUpperCase()} image is truncated or corrupt.`, { type, cause: message });
  }
}

/** Power-of-two reductions libjpeg (and libwebp) can apply while decoding. */
const SHRINK_FACTORS = [2, 4, 8] as const;

/**
 * The reduction at which an image over the pixel limit can be decoded without ever holding more
 * than `maxPixels` pixels, or null when there is none: only JPEG and WebP decode at reduced size,
 * and not when a crop needs the full-size pixels first.
 */
function shrinkOnLoad(type: ImageType, pixels: number, opts: DecodeOptions): number | null {
  if ((type !== "jpeg" && type !== "webp") || opts.region) return null;
  return SHRINK_FACTORS.find((f) => pixels / (f * f) <= opts.maxPixels) ?? null;
}

function invalidRegion(reason: string, region: Region, width: number, height: number): never {
  throw new AppError("invalid_region", `The crop region does not fit the image: ${reason}.`, {
    reason,
    region,
    image: { width, height },
  });
}

/**
 * Validates `region` against an image of `width` × `height` and converts it to whole pixels.
 * Throws AppError `invalid_region` (400) with details {reason, region, image: {width, height}}.
 */
export function resolveRegion(region: Region, width: number, height: number): PixelRegion {
  const { x, y, width: rw, height: rh } = region;
  if (![x, y, rw, rh].every((v) => typeof v === "number" && Number.isFinite(v))) {
    invalidRegion("x, y, width and height must be finite numbers", region, width, height);
  }
  if (x < 0 || y < 0 || rw <= 0 || rh <= 0) invalidRegion("x and y must be ≥ 0, width and height > 0", region, width, height);
  const unit = region.unit ?? (x <= 1 && y <= 1 && rw <= 1 && rh <= 1 ? "fraction" : "px");
  if (unit === "fraction") {
    const eps = 1e-9;
    if (x >= 1 || y >= 1 || rw > 1 || rh > 1)
      invalidRegion("fractions must be below 1 (x, y) or at most 1 (width, height)", region, width, height);
    if (x + rw > 1 + eps || y + rh > 1 + eps) invalidRegion("the region extends past the image edge", region, width, height);
    const left = Math.min(width - 1, Math.round(x * width));
    const top = Math.min(height - 1, Math.round(y * height));
    const right = Math.min(width, Math.max(left + 1, Math.round((x + rw) * width)));
    const bottom = Math.min(height, Math.max(top + 1, Math.round((y + rh) * height)));
    return { left, top, width: right - left, height: bottom - top };
  }
  if (![x, y, rw, rh].every(Number.isInteger)) invalidRegion("pixel values must be whole numbers", region, width, height);
  if (x + rw > width || y + rh > height) invalidRegion("the region extends past the image edge", region, width, height);
  return { left: x, top: y, width: rw, height: rh };
}

/**
 * Crops an already decoded RGB image (see `Region` for the rule on pixels and fractions).
 * Returns a new image with its own buffer; throws `invalid_region` (400).
 */
export function cropRegion(image: DecodedImage, region: Region): DecodedImage & { rgb: Buffer } {
  const r = resolveRegion(region, image.width, image.height);
  const src = image.rgb;
  const rowBytes = r.width * 3;
  const out = Buffer.allocUnsafe(rowBytes * r.height);
  const srcStride = image.width * 3;
  for (let row = 0; row < r.height; row++) {
    const from = (r.top + row) * srcStride + r.left * 3;
    out.set(src.subarray(from, from + rowBytes), row * rowBytes);
  }
  return { rgb: out, width: r.width, height: r.height };
}

export interface FetchedImage {
  body: Buffer;
  type: ImageType;
  /** Final URL after redirects. */
  url: string;
  durationMs: number;
}

/** Maps a safe-fetch failure onto the image error codes (no internal addresses in details). */
export function imageErrorFromOutbound(err: OutboundError, url: string): AppError {
  const d = err.details;
  switch (err.kind) {
    case "invalid_url":
      return new AppError("invalid_url", err.message, { url, reason: d.reason });
    case "address_not_allowed":
      // The class of an address a host name resolved to stays in the log (the error's cause).
      return new AppError(
        "address_not_allowed",
        err.message,
        { url, host: d.host, ...(d.resolved ? {} : { reason: d.reason }) },
        {},
        { cause: err },
      );
    case "timeout":
      return new AppError("image_timeout", `Downloading the image took longer than ${d.limit} ms.`, { url, timeoutMs: d.limit });
    case "too_large":
      return new AppError("image_too_large", `The image is larger than ${d.limit} bytes.`, { url, maxBytes: d.limit });
    case "too_many_redirects":
      return new AppError("image_unreachable", `The image URL redirected more than ${d.limit} times.`, {
        url,
        reason: "too_many_redirects",
      });
    case "unreachable":
      return new AppError("image_unreachable", undefined, { url, reason: d.reason ?? "network", ...(d.code ? { code: d.code } : {}) });
  }
}

/**
 * Downloads an image through `safeFetch` and recognises its format by content.
 * `limits` override the safe fetch's defaults (OUTBOUND_MAX_BYTES, OUTBOUND_TIMEOUT_MS).
 *
 * Throws AppError: invalid_url (400), address_not_allowed (400), image_unreachable (422, also for
 * a non-2xx answer, details.status), image_timeout (422), image_too_large (413),
 * unsupported_image (415, details.contentType as announced).
 */
export async function fetchImage(
  safeFetch: SafeFetch,
  url: string,
  limits: { maxBytes?: number; timeoutMs?: number } = {},
): Promise<FetchedImage> {
  let res;
  try {
    res = await safeFetch(url, { headers: { accept: IMAGE_ACCEPT }, ...limits });
  } catch (err) {
    if (isOutboundError(err)) throw imageErrorFromOutbound(err, url);
    throw err;
  }
  if (res.status < 200 || res.status > 299) {
    throw new AppError("image_unreachable", `The image URL answered HTTP ${res.status}.`, { url, status: res.status });
  }
  const type = sniffImageType(res.body);
  if (type === null) {
    throw new AppError("unsupported_image", undefined, { url, contentType: res.headers["content-type"] ?? null, bytes: res.body.length });
  }
  return { body: res.body, type, url: res.url, durationMs: res.durationMs };
}
