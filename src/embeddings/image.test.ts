import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import sharp, { type Sharp } from "sharp";
import { AppError, type ErrorCode } from "../platform/errors/catalogue.js";
import { createSafeFetch, type SafeFetchOptions } from "../platform/outbound/safe-fetch.js";
import { cropRegion, decodeImage, fetchImage, resolveRegion, sniffImageType, type Region } from "./image.js";

const LIMITS = { maxPixels: 40_000_000 };

async function rejectsWithCode(p: Promise<unknown>, code: ErrorCode, status?: number): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AppError, `expected AppError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (status !== undefined) assert.equal(err.status, status);
    return err;
  }
  assert.fail(`expected ${code}, but it succeeded`);
}

function throwsCode(fn: () => unknown, code: ErrorCode): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}`);
}

const solid = (width: number, height: number, background: string): Sharp => sharp({ create: { width, height, channels: 3, background } });

/** Pixel (x, y) of a decoded RGB image. */
const px = (img: { rgb: Uint8Array; width: number }, x: number, y: number): number[] => {
  const i = (y * img.width + x) * 3;
  return [img.rgb[i] ?? -1, img.rgb[i + 1] ?? -1, img.rgb[i + 2] ?? -1];
};

const near = (actual: number[], expected: number[], tolerance = 6): void =>
  assert.ok(
    actual.every((v, i) => Math.abs(v - (expected[i] ?? 0)) <= tolerance),
    `${actual} ≉ ${expected}`,
  );

// --- hand-made PNGs: a real 48-megapixel bomb and a header that lies ----------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf: Buffer): number => {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type: string, data: Buffer): Buffer => {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
};
/** A 1-bit greyscale PNG of width × height whose IDAT is `idat` (default: valid all-black rows). */
function craftPng(width: number, height: number, idat?: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const data = idat ?? zlib.deflateSync(Buffer.alloc((1 + Math.ceil(width / 8)) * height), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", data),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("sniffImageType", () => {
  it("recognises the six formats by content", async () => {
    const img = solid(8, 8, "#3366cc");
    assert.equal(sniffImageType(await img.clone().jpeg().toBuffer()), "jpeg");
    assert.equal(sniffImageType(await img.clone().png().toBuffer()), "png");
    assert.equal(sniffImageType(await img.clone().webp().toBuffer()), "webp");
    assert.equal(sniffImageType(await img.clone().gif().toBuffer()), "gif");
    assert.equal(sniffImageType(await img.clone().avif().toBuffer()), "avif");
    assert.equal(sniffImageType(await img.clone().tiff().toBuffer()), "tiff");
    assert.equal(sniffImageType(Buffer.from("MM\x00\x2a\x00\x00\x00\x08\x00\x00\x00\x00", "latin1")), "tiff"); // big-endian
  });

  it("refuses other content", () => {
    const cases = [
      Buffer.from("<!doctype html><html><body>not an image</body></html>"),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
      Buffer.from("%PDF-1.7\n%âãÏÓ\n1 0 obj"),
      Buffer.from("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00heicmif1", "latin1"), // HEIC is not AVIF
      Buffer.from([0xff, 0xd8]), // too short
      Buffer.alloc(0),
    ];
    for (const c of cases) assert.equal(sniffImageType(c), null, c.toString("latin1").slice(0, 20));
  });
});

describe("decodeImage", () => {
  it("decodes to raw 8-bit RGB", async () => {
    const img = await decodeImage(await solid(30, 20, "#3366cc").png().toBuffer(), LIMITS);
    assert.equal(img.width, 30);
    assert.equal(img.height, 20);
    assert.equal(img.rgb.length, 30 * 20 * 3);
    assert.equal(img.type, "png");
    assert.deepEqual(px(img, 29, 19), [0x33, 0x66, 0xcc]);
  });

  it("flattens transparency onto white", async () => {
    const rgba = Buffer.alloc(4 * 4 * 4);
    for (let i = 0; i < 16; i++) rgba.set(i < 8 ? [255, 0, 0, 128] : [0, 0, 0, 0], i * 4); // top half half-transparent red
    const png = await sharp(rgba, { raw: { width: 4, height: 4, channels: 4 } })
      .png()
      .toBuffer();
    const img = await decodeImage(png, LIMITS);
    near(px(img, 0, 0), [255, 127, 127], 2);
    assert.deepEqual(px(img, 3, 3), [255, 255, 255]);
  });

  it("applies the EXIF orientation", async () => {
    // 40×20 stored: left half blue, right half red; orientation 6 = rotate 90° clockwise on display.
    const blue = await solid(20, 20, "#0000ff").png().toBuffer();
    const jpeg = await solid(40, 20, "#ff0000")
      .composite([{ input: blue, left: 0, top: 0 }])
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    assert.equal((await sharp(jpeg).metadata()).orientation, 6);
    const img = await decodeImage(jpeg, LIMITS);
    assert.equal(img.width, 20);
    assert.equal(img.height, 40);
    near(px(img, 10, 5), [0, 0, 255], 20); // the blue half is on top
    near(px(img, 10, 35), [255, 0, 0], 20);
    // Regions refer to the displayed (oriented) image.
    const top = await decodeImage(jpeg, { ...LIMITS, region: { x: 0, y: 0, width: 20, height: 20, unit: "px" } });
    assert.deepEqual([top.width, top.height], [20, 20]);
    near(px(top, 10, 10), [0, 0, 255], 20);
    await rejectsWithCode(decodeImage(jpeg, { ...LIMITS, region: { x: 0, y: 0, width: 40, height: 20 } }), "invalid_region");
  });

  it("converts greyscale and 16-bit images to 8-bit RGB", async () => {
    const grey = await sharp(Buffer.alloc(16, 200), { raw: { width: 4, height: 4, channels: 1 } })
      .png()
      .toBuffer();
    assert.deepEqual(px(await decodeImage(grey, LIMITS), 1, 1), [200, 200, 200]);
    const deep = await solid(4, 4, "#808080").png({ palette: false }).toColourspace("rgb16").toBuffer();
    const img = await decodeImage(deep, LIMITS);
    assert.equal(img.rgb.length, 4 * 4 * 3);
    near(px(img, 0, 0), [128, 128, 128], 1);
  });

  it("decodes the first frame of an animated GIF", async () => {
    const frames = Buffer.alloc(10 * 20 * 3);
    frames.fill(0, 0, 300); // frame 1: black
    frames.fill(255, 300); // frame 2: white
    const gif = await sharp(frames, { raw: { width: 10, height: 20, channels: 3, pageHeight: 10 } })
      .gif()
      .toBuffer();
    assert.equal((await sharp(gif).metadata()).pages, 2);
    const img = await decodeImage(gif, LIMITS);
    assert.equal(img.height, 10);
    near(px(img, 5, 5), [0, 0, 0], 2);
  });

  it("decodes WebP, AVIF and TIFF", async () => {
    for (const fmt of ["webp", "avif", "tiff"] as const) {
      const img = await decodeImage(await solid(16, 16, "#20a040").toFormat(fmt, { quality: 100 }).toBuffer(), LIMITS);
      assert.equal(img.type, fmt);
      near(px(img, 8, 8), [0x20, 0xa0, 0x40], 10);
    }
  });

  it("refuses a non-image (HTML) as unsupported_image", async () => {
    await rejectsWithCode(decodeImage(Buffer.from("<html><body>404 not found</body></html>"), LIMITS), "unsupported_image", 415);
  });

  it("refuses SVG even though the decoder could read it", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    await rejectsWithCode(decodeImage(svg, LIMITS), "unsupported_image");
  });

  it("refuses a truncated JPEG as unsupported_image", async () => {
    const noise = Buffer.alloc(64 * 64 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const jpeg = await sharp(noise, { raw: { width: 64, height: 64, channels: 3 } })
      .jpeg()
      .toBuffer();
    for (const keep of [0.3, 0.7, 0.95]) {
      const e = await rejectsWithCode(decodeImage(jpeg.subarray(0, Math.floor(jpeg.length * keep)), LIMITS), "unsupported_image");
      assert.match(e.message, /truncated or corrupt/);
    }
  });

  it("refuses a PNG with corrupt compressed data", async () => {
    const png = craftPng(64, 64, Buffer.from("this is not zlib data at all"));
    await rejectsWithCode(decodeImage(png, LIMITS), "unsupported_image");
  });

  it("refuses a decompression bomb from its header, before decoding it", async () => {
    // A valid 8000×6000 (48 MP) PNG of under 10 kB: decoding it would allocate 144 MB of RGB.
    const bomb = craftPng(8000, 6000);
    assert.ok(bomb.length < 10_000, `bomb is ${bomb.length} bytes`);
    const e = await rejectsWithCode(decodeImage(bomb, LIMITS), "image_too_large", 413);
    assert.deepEqual(
      { width: e.details.width, height: e.details.height, maxPixels: e.details.maxPixels },
      { width: 8000, height: 6000, maxPixels: 40_000_000 },
    );
    // A header announcing 10 gigapixels over garbage data: only a header check can answer
    // image_too_large here (decoding would fail with unsupported_image).
    await rejectsWithCode(decodeImage(craftPng(100_000, 100_000, Buffer.from("junk")), LIMITS), "image_too_large");
  });

  it("applies a lower pixel limit", async () => {
    const png = await solid(200, 100, "#000").png().toBuffer();
    await rejectsWithCode(decodeImage(png, { maxPixels: 19_999 }), "image_too_large");
    assert.equal((await decodeImage(png, { maxPixels: 20_000 })).width, 200);
  });

  it("downscales a JPEG or WebP over the pixel limit by decoding it at 1/2, 1/4 or 1/8; other formats are refused naming IMAGE_MAX_PIXELS", async () => {
    const jpeg = await solid(400, 300, "#ff0000").jpeg().toBuffer(); // 120,000 pixels
    // Decoded at 1/2 (30,000 pixels, the limit), returned at 1/4.
    const half = await decodeImage(jpeg, { maxPixels: 30_000 });
    assert.deepEqual([half.width, half.height, half.sourceWidth, half.sourceHeight], [100, 75, 400, 300]);
    assert.ok(half.width * half.height <= 30_000);
    assert.ok(half.rgb[0]! > 200 && half.rgb[1]! < 60, "still red");
    const eighth = await decodeImage(jpeg, { maxPixels: 2_000 });
    assert.equal(eighth.width, 25);
    assert.ok(eighth.width * eighth.height <= 2_000);
    const webp = await solid(400, 300, "#0000ff").webp().toBuffer();
    assert.equal((await decodeImage(webp, { maxPixels: 30_000 })).width, 100);
    // Over 64× the limit, a PNG (no reduced decoding) or a crop of such an image: refused, naming the setting.
    for (const [buf, o] of [
      [jpeg, { maxPixels: 1_000 }],
      [await solid(400, 300, "#ff0000").png().toBuffer(), { maxPixels: 30_000 }],
      [jpeg, { maxPixels: 30_000, region: { x: 0, y: 0, width: 0.5, height: 0.5 } }],
    ] as const) {
      const e = await rejectsWithCode(decodeImage(buf, o), "image_too_large", 413);
      assert.match(e.message, /IMAGE_MAX_PIXELS=/);
      assert.equal(e.details.setting, "IMAGE_MAX_PIXELS");
    }
  });

  it("crops a region in pixels or fractions, after orientation, and downscales", async () => {
    const left = await solid(50, 100, "#00ff00").png().toBuffer();
    const png = await solid(100, 100, "#ff0000")
      .composite([{ input: left, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const a = await decodeImage(png, { ...LIMITS, region: { x: 50, y: 0, width: 50, height: 100 } });
    assert.deepEqual([a.width, a.height, a.sourceWidth, a.sourceHeight], [50, 100, 100, 100]);
    assert.deepEqual(px(a, 0, 0), [255, 0, 0]);
    const b = await decodeImage(png, { ...LIMITS, region: { x: 0, y: 0, width: 0.5, height: 1 } });
    assert.deepEqual([b.width, b.height], [50, 100]);
    assert.deepEqual(px(b, 49, 99), [0, 255, 0]);
    const c = await decodeImage(png, { ...LIMITS, maxSide: 20 });
    assert.deepEqual([c.width, c.height], [20, 20]);
    await rejectsWithCode(decodeImage(png, { ...LIMITS, region: { x: 60, y: 0, width: 50, height: 10 } }), "invalid_region", 400);
  });
});

describe("regions", () => {
  const img = { rgb: Buffer.alloc(10 * 8 * 3), width: 10, height: 8 };
  for (let i = 0; i < 80; i++) img.rgb.set([i, i % 10, Math.floor(i / 10)], i * 3); // (x, y) readable from pixels

  it("crops decoded pixels in pixel units", () => {
    const c = cropRegion(img, { x: 2, y: 3, width: 4, height: 2 });
    assert.deepEqual([c.width, c.height, c.rgb.length], [4, 2, 24]);
    assert.deepEqual(px(c, 0, 0), [32, 2, 3]);
    assert.deepEqual(px(c, 3, 1), [45, 5, 4]);
  });

  it("reads four values ≤ 1 as fractions, unless the unit says px", () => {
    assert.deepEqual(resolveRegion({ x: 0.5, y: 0.25, width: 0.5, height: 0.5 }, 10, 8), { left: 5, top: 2, width: 5, height: 4 });
    assert.deepEqual(resolveRegion({ x: 0, y: 0, width: 1, height: 1 }, 10, 8), { left: 0, top: 0, width: 10, height: 8 });
    assert.deepEqual(resolveRegion({ x: 0, y: 0, width: 1, height: 1, unit: "px" }, 10, 8), { left: 0, top: 0, width: 1, height: 1 });
    assert.deepEqual(resolveRegion({ x: 0, y: 0, width: 1, height: 2 }, 10, 8), { left: 0, top: 0, width: 1, height: 2 });
    assert.deepEqual(resolveRegion({ x: 0.99, y: 0.99, width: 0.01, height: 0.01, unit: "fraction" }, 10, 8), {
      left: 9,
      top: 7,
      width: 1,
      height: 1,
    });
  });

  const invalid: Array<[string, Region]> = [
    ["past the right edge", { x: 8, y: 0, width: 3, height: 2 }],
    ["past the bottom edge", { x: 0, y: 7, width: 2, height: 2 }],
    ["negative x", { x: -1, y: 0, width: 2, height: 2 }],
    ["zero width", { x: 0, y: 0, width: 0, height: 2 }],
    ["fractional pixels", { x: 1.5, y: 0, width: 2, height: 2 }],
    ["NaN", { x: Number.NaN, y: 0, width: 2, height: 2 }],
    ["infinite", { x: 0, y: 0, width: Number.POSITIVE_INFINITY, height: 2 }],
    ["fractions past the edge", { x: 0.6, y: 0, width: 0.5, height: 0.5 }],
    ["a fraction unit with values above 1", { x: 0, y: 0, width: 2, height: 1, unit: "fraction" }],
    ["x fraction of 1", { x: 1, y: 0, width: 0.5, height: 0.5, unit: "fraction" }],
  ];
  for (const [label, region] of invalid) {
    it(`refuses a region ${label} as invalid_region with details`, () => {
      const e = throwsCode(() => cropRegion(img, region), "invalid_region");
      assert.equal(e.status, 400);
      assert.deepEqual(e.details.image, { width: 10, height: 8 });
      assert.equal(typeof e.details.reason, "string");
    });
  }
});

describe("fetchImage", () => {
  const routes = new Map<string, (res: http.ServerResponse) => void>();
  const server = http.createServer((req, res) => {
    const route = routes.get(req.url ?? "");
    if (route) route(res);
    else {
      res.statusCode = 404;
      res.end("not found");
    }
  });
  let origin = "";
  const fetchWith = (o: Partial<SafeFetchOptions> = {}) =>
    createSafeFetch({ allowPrivate: true, timeoutMs: 2000, maxBytes: 1024 * 1024, ...o });
  const fetch = fetchWith();
  after(() => {
    fetch.close();
    server.closeAllConnections();
    server.close();
  });

  const send = (body: Buffer | string, contentType: string) => (res: http.ServerResponse) => {
    res.setHeader("content-type", contentType);
    res.end(body);
  };

  it("starts a local server", async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  it("recognises an image by content, whatever the extension and Content-Type say", async () => {
    routes.set("/photo.txt", send(await solid(8, 8, "#ff8800").png().toBuffer(), "text/plain"));
    const got = await fetchImage(fetch, `${origin}/photo.txt`);
    assert.equal(got.type, "png");
    assert.equal(got.url, `${origin}/photo.txt`);
    const img = await decodeImage(got.body, LIMITS);
    assert.deepEqual(px(img, 0, 0), [0xff, 0x88, 0x00]);
  });

  it("refuses HTML served as image/jpeg as unsupported_image (415)", async () => {
    routes.set("/fake.jpg", send("<html>login page</html>", "image/jpeg"));
    const e = await rejectsWithCode(fetchImage(fetch, `${origin}/fake.jpg`), "unsupported_image", 415);
    assert.equal(e.details.contentType, "image/jpeg");
  });

  it("maps a non-2xx answer to image_unreachable (422) with the status", async () => {
    const e = await rejectsWithCode(fetchImage(fetch, `${origin}/missing.jpg`), "image_unreachable", 422);
    assert.equal(e.details.status, 404);
  });

  it("maps an oversized body to image_too_large (413)", async () => {
    routes.set("/huge.jpg", send(Buffer.alloc(2048, 1), "image/jpeg"));
    const e = await rejectsWithCode(fetchImage(fetch, `${origin}/huge.jpg`, { maxBytes: 1024 }), "image_too_large", 413);
    assert.equal(e.details.maxBytes, 1024);
  });

  it("maps a slow body to image_timeout (422)", async () => {
    routes.set("/slow.jpg", (res) => {
      res.writeHead(200, { "content-type": "image/jpeg" });
      res.write(Buffer.from([0xff, 0xd8, 0xff]));
      const timer = setInterval(() => res.write(Buffer.alloc(1)), 40);
      res.on("close", () => clearInterval(timer));
    });
    await rejectsWithCode(fetchImage(fetch, `${origin}/slow.jpg`, { timeoutMs: 300 }), "image_timeout", 422);
  });

  it("maps too many redirects to image_unreachable", async () => {
    routes.set("/loop", (res) => {
      res.statusCode = 302;
      res.setHeader("location", "/loop");
      res.end();
    });
    const e = await rejectsWithCode(fetchImage(fetch, `${origin}/loop`), "image_unreachable");
    assert.equal(e.details.reason, "too_many_redirects");
  });

  it("maps a private address to address_not_allowed (400) without revealing it", async () => {
    const strict = fetchWith({ allowPrivate: false });
    const e = await rejectsWithCode(fetchImage(strict, "https://169.254.169.254/latest/meta-data/"), "address_not_allowed", 400);
    assert.equal(e.details.reason, "link_local");
    assert.equal("address" in e.details, false);
    await rejectsWithCode(fetchImage(strict, `${origin}/photo.txt`), "invalid_url", 400);
    await rejectsWithCode(fetchImage(strict, "ftp://example.com/a.jpg"), "invalid_url", 400);
    strict.close();
  });

  it("a host name that resolves to a private address is refused without saying what it resolved to; the cause keeps it for the log", async () => {
    const strict = fetchWith({ allowPrivate: false, lookup: () => Promise.resolve([{ address: "10.0.0.5", family: 4 }]) });
    const e = await rejectsWithCode(fetchImage(strict, "https://images.shop.test/a.jpg"), "address_not_allowed", 400);
    assert.deepEqual(e.details, { url: "https://images.shop.test/a.jpg", host: "images.shop.test" });
    assert.equal(e.message.includes("10.0.0.5"), false);
    assert.match(e.message, /resolves to an address that may not be fetched \(only public internet addresses are\)/);
    assert.equal((e.cause as { details: { reason: string } }).details.reason, "private");
    strict.close();
  });

  it("lets decodeImage refuse a fetched truncated JPEG and a fetched bomb", async () => {
    const jpeg = await solid(64, 64, "#123456").jpeg().toBuffer();
    routes.set("/cut.jpg", send(jpeg.subarray(0, jpeg.length >> 1), "image/jpeg"));
    routes.set("/bomb.png", send(craftPng(8000, 6000), "image/png"));
    const cut = await fetchImage(fetch, `${origin}/cut.jpg`);
    assert.equal(cut.type, "jpeg");
    await rejectsWithCode(decodeImage(cut.body, LIMITS), "unsupported_image");
    const bomb = await fetchImage(fetch, `${origin}/bomb.png`);
    await rejectsWithCode(decodeImage(bomb.body, LIMITS), "image_too_large");
  });
});
