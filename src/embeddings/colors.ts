// Colour maths for product images and colour filters, all in CIELAB (D65, 2° observer):
//
// - sRGB ↔ CIELAB conversion, hex parsing and formatting.
// - `ciede2000`: the CIEDE2000 colour difference (Sharma, Wu & Dalal 2005), the distance used by
//   hex colour filters and colour scoring in search. ΔE00 ≈ 1 is a just-noticeable difference,
//   ≈ 10 "clearly different shade", ≥ 25 "different colour".
// - `dominantColors`: the main colours of a decoded image with their share, by weighted k-means in
//   Lab over a ≤ 64×64 sample; deterministic (no randomness) and well under 5 ms for 224×224.
//   By default a uniform studio background (detected on the image border) is left out.
// - `COLOR_NAMES` / `colorNameToLab`: reference colours for the colour names used in product
//   metadata (fashion catalogues: "Navy Blue", "Off White", "Grey Melange", …).
//   "multi" (multi-coloured) has no single colour and maps to null.

/** A CIELAB colour: [L* 0..100, a*, b*]. */
export type Lab = readonly [number, number, number];

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

// --- sRGB ↔ Lab ----------------------------------------------------------------------------------

/** sRGB byte → linear light, precomputed. */
const TO_LINEAR = new Float64Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  TO_LINEAR[i] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

// D65 reference white.
const XN = 0.95047;
const YN = 1.0;
const ZN = 1.08883;
const EPS = 216 / 24389; // (6/29)^3
const KAPPA = 24389 / 27;

const f = (t: number): number => (t > EPS ? Math.cbrt(t) : (KAPPA * t + 16) / 116);
const fInv = (t: number): number => (t * t * t > EPS ? t * t * t : (116 * t - 16) / KAPPA);

/** Writes the Lab value of an sRGB byte triple into `out` at `at` (no allocation). */
export function rgbToLabInto(r: number, g: number, b: number, out: Float64Array | number[], at = 0): void {
  const R = TO_LINEAR[r] ?? 0;
  const G = TO_LINEAR[g] ?? 0;
  const B = TO_LINEAR[b] ?? 0;
  const fx = f((0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / XN);
  const fy = f((0.2126729 * R + 0.7151522 * G + 0.072175 * B) / YN);
  const fz = f((0.0193339 * R + 0.119192 * G + 0.9503041 * B) / ZN);
  out[at] = 116 * fy - 16;
  out[at + 1] = 500 * (fx - fy);
  out[at + 2] = 200 * (fy - fz);
}

/** sRGB bytes (0–255) → CIELAB. */
export function rgbToLab(r: number, g: number, b: number): Lab {
  const out = [0, 0, 0];
  rgbToLabInto(r, g, b, out);
  return [out[0] ?? 0, out[1] ?? 0, out[2] ?? 0];
}

const toByte = (linear: number): number => {
  const c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * linear ** (1 / 2.4) - 0.055;
  return Math.max(0, Math.min(255, Math.round(c * 255)));
};

/** CIELAB → sRGB bytes, clipped to the sRGB gamut. */
export function labToRgb(lab: Lab): Rgb {
  const fy = (lab[0] + 16) / 116;
  const fx = fy + lab[1] / 500;
  const fz = fy - lab[2] / 200;
  const X = fInv(fx) * XN;
  const Y = (lab[0] > KAPPA * EPS ? fy * fy * fy : lab[0] / KAPPA) * YN;
  const Z = fInv(fz) * ZN;
  return {
    r: toByte(3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z),
    g: toByte(-0.969266 * X + 1.8760108 * Y + 0.041556 * Z),
    b: toByte(0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z),
  };
}

const hex2 = (n: number): string => n.toString(16).padStart(2, "0");

/** sRGB bytes → "#rrggbb" (lower case). */
export const rgbToHex = ({ r, g, b }: Rgb): string => `#${hex2(r)}${hex2(g)}${hex2(b)}`;

/** CIELAB → "#rrggbb", clipped to the sRGB gamut. */
export const labToHex = (lab: Lab): string => rgbToHex(labToRgb(lab));

/**
 * Parses "#rrggbb" or "#rgb" (the "#" optional, any case, surrounding spaces ignored).
 * Returns null for anything else.
 */
export function parseHexColor(input: string): Rgb | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(input.trim());
  if (!m || m[1] === undefined) return null;
  const h = m[1].length === 3 ? m[1].replace(/./g, (c) => c + c) : m[1];
  const n = parseInt(h, 16);
  return { r: (n >> 16) & 0xff, g: (n >> 8) & 0xff, b: n & 0xff };
}

/** "#rrggbb" / "#rgb" → CIELAB, or null when the string is not a hex colour. */
export function hexToLab(hex: string): Lab | null {
  const rgb = parseHexColor(hex);
  return rgb ? rgbToLab(rgb.r, rgb.g, rgb.b) : null;
}

// --- colour difference ---------------------------------------------------------------------------

const DEG = Math.PI / 180;
const POW25_7 = 25 ** 7;

const hueDeg = (b: number, a: number): number => {
  if (a === 0 && b === 0) return 0;
  const h = Math.atan2(b, a) / DEG;
  return h < 0 ? h + 360 : h;
};

/**
 * CIEDE2000 colour difference ΔE00 between two Lab colours (kL = kC = kH = 1 by default),
 * implemented as in Sharma, Wu & Dalal, "The CIEDE2000 Color-Difference Formula" (2005).
 */
export function ciede2000(lab1: Lab, lab2: Lab, kL = 1, kC = 1, kH = 1): number {
  const [L1, a1, b1] = lab1;
  const [L2, a2, b2] = lab2;
  const C1 = Math.hypot(a1, b1);
  const C2 = Math.hypot(a2, b2);
  const Cbar7 = ((C1 + C2) / 2) ** 7;
  const G = 0.5 * (1 - Math.sqrt(Cbar7 / (Cbar7 + POW25_7)));
  const a1p = (1 + G) * a1;
  const a2p = (1 + G) * a2;
  const C1p = Math.hypot(a1p, b1);
  const C2p = Math.hypot(a2p, b2);
  const h1p = hueDeg(b1, a1p);
  const h2p = hueDeg(b2, a2p);

  const dLp = L2 - L1;
  const dCp = C2p - C1p;
  const chromaProduct = C1p * C2p;
  let dhp = 0;
  if (chromaProduct !== 0) {
    dhp = h2p - h1p;
    if (dhp > 180) dhp -= 360;
    else if (dhp < -180) dhp += 360;
  }
  const dHp = 2 * Math.sqrt(chromaProduct) * Math.sin((dhp / 2) * DEG);

  const Lbarp = (L1 + L2) / 2;
  const Cbarp = (C1p + C2p) / 2;
  let hbarp: number;
  if (chromaProduct === 0) hbarp = h1p + h2p;
  else if (Math.abs(h1p - h2p) <= 180) hbarp = (h1p + h2p) / 2;
  else if (h1p + h2p < 360) hbarp = (h1p + h2p + 360) / 2;
  else hbarp = (h1p + h2p - 360) / 2;

  const T =
    1 -
    0.17 * Math.cos((hbarp - 30) * DEG) +
    0.24 * Math.cos(2 * hbarp * DEG) +
    0.32 * Math.cos((3 * hbarp + 6) * DEG) -
    0.2 * Math.cos((4 * hbarp - 63) * DEG);
  const dTheta = 30 * Math.exp(-(((hbarp - 275) / 25) ** 2));
  const Cbarp7 = Cbarp ** 7;
  const RC = 2 * Math.sqrt(Cbarp7 / (Cbarp7 + POW25_7));
  const Lm50sq = (Lbarp - 50) ** 2;
  const SL = 1 + (0.015 * Lm50sq) / Math.sqrt(20 + Lm50sq);
  const SC = 1 + 0.045 * Cbarp;
  const SH = 1 + 0.015 * Cbarp * T;
  const RT = -Math.sin(2 * dTheta * DEG) * RC;

  const l = dLp / (kL * SL);
  const c = dCp / (kC * SC);
  const h = dHp / (kH * SH);
  return Math.sqrt(l * l + c * c + h * h + RT * c * h);
}

/** CIE76 ΔE (Euclidean distance in Lab): cheap, used inside the clustering. */
export const deltaE76 = (a: Lab, b: Lab): number => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

// --- dominant colours ----------------------------------------------------------------------------

export interface DominantColor {
  /** Cluster centre, "#rrggbb". */
  hex: string;
  /** Fraction of the (foreground) pixels in this cluster, 0..1; shares of all clusters sum to 1. */
  share: number;
}

export interface DominantColorOptions {
  /** How many colours to return at most (default 5). */
  count?: number;
  /**
   * Leave out a uniform background (default true): when at least 85 % of the pixels on the image
   * border lie within ΔE76 12 of their mean, pixels that close to it are not counted, unless
   * fewer than 10 % of the pixels would remain (e.g. a white shirt on white). Shares are then
   * shares of the foreground.
   */
  ignoreBackground?: boolean;
}

const SAMPLE_SIDE = 64;
const BINS = 4096; // 4 bits per sRGB channel
const CLUSTERS = 8;
const MERGE_DE00 = 7;
const BACKGROUND_DE76 = 12;
const BACKGROUND_BORDER_SHARE = 0.85;
const MIN_FOREGROUND_SHARE = 0.1;

// Scratch space reused across calls (the function is synchronous, so never shared concurrently).
const binCount = new Float64Array(BINS);
const binLab = new Float64Array(BINS * 3);
const sampleLab = new Float64Array(SAMPLE_SIDE * SAMPLE_SIDE * 3);
const sampleBin = new Uint16Array(SAMPLE_SIDE * SAMPLE_SIDE);
const sampleBorder = new Uint8Array(SAMPLE_SIDE * SAMPLE_SIDE);

/**
 * The dominant colours of a raw RGB image (3 bytes a pixel, row-major; 4 bytes a pixel is also
 * accepted when `rgb.length === width * height * 4`), most frequent first.
 *
 * Method: sample on a grid of at most 64×64, convert to Lab, histogram into 4096 sRGB bins
 * (keeping each bin's mean Lab), weighted k-means (k = 8, deterministic farthest-point
 * initialisation), then clusters closer than ΔE00 7 are merged. Deterministic for equal input.
 */
export function dominantColors(rgb: Uint8Array, width: number, height: number, options: DominantColorOptions = {}): DominantColor[] {
  const count = Math.max(1, Math.floor(options.count ?? 5));
  const ignoreBackground = options.ignoreBackground ?? true;
  if (width <= 0 || height <= 0) return [];
  const channels = rgb.length === width * height * 4 ? 4 : 3;
  if (rgb.length < width * height * channels) throw new RangeError("rgb is shorter than width × height pixels");

  // 1. Sample on a grid (pixel centres of ≤ 64×64 cells) and convert to Lab.
  const sw = Math.min(width, SAMPLE_SIDE);
  const sh = Math.min(height, SAMPLE_SIDE);
  let n = 0;
  for (let sy = 0; sy < sh; sy++) {
    const y = Math.min(height - 1, Math.floor(((sy + 0.5) * height) / sh));
    for (let sx = 0; sx < sw; sx++) {
      const x = Math.min(width - 1, Math.floor(((sx + 0.5) * width) / sw));
      const p = (y * width + x) * channels;
      const r = rgb[p] ?? 0;
      const g = rgb[p + 1] ?? 0;
      const b = rgb[p + 2] ?? 0;
      rgbToLabInto(r, g, b, sampleLab, n * 3);
      sampleBin[n] = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
      sampleBorder[n] = sx === 0 || sy === 0 || sx === sw - 1 || sy === sh - 1 ? 1 : 0;
      n++;
    }
  }

  // 2. Background: a uniform border colour.
  let bg: [number, number, number] | null = null;
  if (ignoreBackground && sw >= 8 && sh >= 8) bg = detectBackground(n);

  // 3. Histogram (foreground only).
  binCount.fill(0);
  binLab.fill(0);
  let total = 0;
  const used: number[] = [];
  for (let pass = 0; pass < 2; pass++) {
    for (let i = 0; i < n; i++) {
      const L = sampleLab[i * 3] ?? 0;
      const A = sampleLab[i * 3 + 1] ?? 0;
      const B = sampleLab[i * 3 + 2] ?? 0;
      if (bg && Math.hypot(L - bg[0], A - bg[1], B - bg[2]) < BACKGROUND_DE76) continue;
      const k = sampleBin[i] ?? 0;
      if (binCount[k] === 0) used.push(k);
      binCount[k] = (binCount[k] ?? 0) + 1;
      binLab[k * 3] = (binLab[k * 3] ?? 0) + L;
      binLab[k * 3 + 1] = (binLab[k * 3 + 1] ?? 0) + A;
      binLab[k * 3 + 2] = (binLab[k * 3 + 2] ?? 0) + B;
      total++;
    }
    if (bg === null || total >= n * MIN_FOREGROUND_SHARE) break;
    // Too little foreground (the product is the background colour): count everything.
    for (const k of used) {
      binCount[k] = 0;
      binLab[k * 3] = binLab[k * 3 + 1] = binLab[k * 3 + 2] = 0;
    }
    used.length = 0;
    total = 0;
    bg = null;
  }
  if (total === 0) return [];
  used.sort((a, b) => a - b); // deterministic order
  const m = used.length;
  const w = new Float64Array(m);
  const pts = new Float64Array(m * 3);
  for (let i = 0; i < m; i++) {
    const k = used[i] ?? 0;
    const c = binCount[k] ?? 1;
    w[i] = c;
    pts[i * 3] = (binLab[k * 3] ?? 0) / c;
    pts[i * 3 + 1] = (binLab[k * 3 + 1] ?? 0) / c;
    pts[i * 3 + 2] = (binLab[k * 3 + 2] ?? 0) / c;
  }

  // 4. Weighted k-means with deterministic farthest-point initialisation.
  const k = Math.min(CLUSTERS, m);
  const centres = new Float64Array(k * 3);
  const nearest = new Float64Array(m).fill(Infinity);
  let first = 0;
  for (let i = 1; i < m; i++) if ((w[i] ?? 0) > (w[first] ?? 0)) first = i;
  for (let c = 0; c < k; c++) {
    let pick = first;
    if (c > 0) {
      let best = -1;
      for (let i = 0; i < m; i++) {
        const score = (w[i] ?? 0) * (nearest[i] ?? 0);
        if (score > best) {
          best = score;
          pick = i;
        }
      }
    }
    centres[c * 3] = pts[pick * 3] ?? 0;
    centres[c * 3 + 1] = pts[pick * 3 + 1] ?? 0;
    centres[c * 3 + 2] = pts[pick * 3 + 2] ?? 0;
    for (let i = 0; i < m; i++) {
      const d = sqDist(pts, i, centres, c);
      if (d < (nearest[i] ?? Infinity)) nearest[i] = d;
    }
  }
  const assign = new Int32Array(m).fill(-1);
  const sums = new Float64Array(k * 4);
  for (let iter = 0; iter < 16; iter++) {
    let changed = 0;
    sums.fill(0);
    for (let i = 0; i < m; i++) {
      let best = 0;
      let bestD = Infinity;
      for (let c = 0; c < k; c++) {
        const d = sqDist(pts, i, centres, c);
        if (d < bestD) {
          bestD = d;
          best = c;
        }
      }
      if (assign[i] !== best) {
        assign[i] = best;
        changed++;
      }
      const wi = w[i] ?? 0;
      sums[best * 4] = (sums[best * 4] ?? 0) + wi;
      sums[best * 4 + 1] = (sums[best * 4 + 1] ?? 0) + wi * (pts[i * 3] ?? 0);
      sums[best * 4 + 2] = (sums[best * 4 + 2] ?? 0) + wi * (pts[i * 3 + 1] ?? 0);
      sums[best * 4 + 3] = (sums[best * 4 + 3] ?? 0) + wi * (pts[i * 3 + 2] ?? 0);
    }
    for (let c = 0; c < k; c++) {
      const wc = sums[c * 4] ?? 0;
      if (wc === 0) continue;
      centres[c * 3] = (sums[c * 4 + 1] ?? 0) / wc;
      centres[c * 3 + 1] = (sums[c * 4 + 2] ?? 0) / wc;
      centres[c * 3 + 2] = (sums[c * 4 + 3] ?? 0) / wc;
    }
    if (changed === 0) break;
  }

  // 5. Merge clusters that are perceptually the same colour, largest first.
  let clusters: { lab: [number, number, number]; weight: number }[] = [];
  for (let c = 0; c < k; c++) {
    const wc = sums[c * 4] ?? 0;
    if (wc > 0) clusters.push({ lab: [centres[c * 3] ?? 0, centres[c * 3 + 1] ?? 0, centres[c * 3 + 2] ?? 0], weight: wc });
  }
  clusters.sort((a, b) => b.weight - a.weight);
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let i = 0; i < clusters.length; i++) {
      for (let j = i + 1; j < clusters.length; j++) {
        const a = clusters[i];
        const b = clusters[j];
        if (!a || !b || ciede2000(a.lab, b.lab) >= MERGE_DE00) continue;
        const wt = a.weight + b.weight;
        a.lab = [
          (a.lab[0] * a.weight + b.lab[0] * b.weight) / wt,
          (a.lab[1] * a.weight + b.lab[1] * b.weight) / wt,
          (a.lab[2] * a.weight + b.lab[2] * b.weight) / wt,
        ];
        a.weight = wt;
        clusters.splice(j, 1);
        merged = true;
        break outer;
      }
    }
  }
  clusters = clusters.sort((a, b) => b.weight - a.weight).slice(0, count);
  return clusters.map((c) => ({ hex: labToHex(c.lab), share: c.weight / total }));
}

function sqDist(a: Float64Array, i: number, b: Float64Array, j: number): number {
  const d0 = (a[i * 3] ?? 0) - (b[j * 3] ?? 0);
  const d1 = (a[i * 3 + 1] ?? 0) - (b[j * 3 + 1] ?? 0);
  const d2 = (a[i * 3 + 2] ?? 0) - (b[j * 3 + 2] ?? 0);
  return d0 * d0 + d1 * d1 + d2 * d2;
}

/** Mean border colour when the border is uniform, else null. Reads the shared sample scratch. */
function detectBackground(n: number): [number, number, number] | null {
  let L = 0;
  let A = 0;
  let B = 0;
  let border = 0;
  for (let i = 0; i < n; i++) {
    if (sampleBorder[i] !== 1) continue;
    L += sampleLab[i * 3] ?? 0;
    A += sampleLab[i * 3 + 1] ?? 0;
    B += sampleLab[i * 3 + 2] ?? 0;
    border++;
  }
  if (border === 0) return null;
  // Two rounds: the mean of all border samples, then the mean of those close to it (robust to a
  // product touching the edge).
  let mean: [number, number, number] = [L / border, A / border, B / border];
  for (let round = 0; round < 2; round++) {
    L = A = B = 0;
    let close = 0;
    for (let i = 0; i < n; i++) {
      if (sampleBorder[i] !== 1) continue;
      const l = sampleLab[i * 3] ?? 0;
      const a = sampleLab[i * 3 + 1] ?? 0;
      const b = sampleLab[i * 3 + 2] ?? 0;
      if (Math.hypot(l - mean[0], a - mean[1], b - mean[2]) < BACKGROUND_DE76) {
        L += l;
        A += a;
        B += b;
        close++;
      }
    }
    if (close === 0) return null;
    mean = [L / close, A / close, B / close];
    if (round === 1 && close / border < BACKGROUND_BORDER_SHARE) return null;
  }
  return mean;
}

// --- colour names --------------------------------------------------------------------------------

/**
 * Reference colours for colour names in product metadata, keyed by normalised name (lower case,
 * single spaces). Values are typical catalogue-photo appearances, not dictionary swatches (a black
 * garment photographs as a very dark grey). `multi` is null: a multi-coloured product has no
 * single colour and is not matched by colour filters through its name.
 */
export const COLOR_NAMES: Readonly<Record<string, string | null>> = Object.freeze({
  black: "#242426",
  white: "#ebebe9",
  "off white": "#efe9da",
  cream: "#f0e4c8",
  ivory: "#f6f0dc",
  grey: "#8e8e8e",
  "light grey": "#c4c4c4",
  "dark grey": "#4a4a4a",
  "grey melange": "#a3a3a3",
  charcoal: "#3b4045",
  silver: "#c0c0c2",
  steel: "#a9b0b6",
  metallic: "#a9aaae",
  red: "#bc3036",
  maroon: "#772a37",
  burgundy: "#7c1f35",
  wine: "#6b2236",
  rust: "#b8523a",
  pink: "#f0a3bc",
  rose: "#df8a9b",
  magenta: "#c4237c",
  fuchsia: "#d2338f",
  peach: "#f5c2a5",
  coral: "#f2816f",
  orange: "#ef7622",
  mustard: "#dba93a",
  yellow: "#f3d21c",
  gold: "#cdae6e",
  copper: "#b4703f",
  bronze: "#a3743f",
  beige: "#d8c3a4",
  nude: "#e2bb9c",
  skin: "#e6bea7",
  tan: "#b08560",
  camel: "#c19a6b",
  khaki: "#bfae86",
  taupe: "#8f8275",
  brown: "#6b4c38",
  "coffee brown": "#4b3424",
  "mushroom brown": "#a08e7e",
  olive: "#6b6c45",
  green: "#4f8c5c",
  "dark green": "#1f5130",
  "sea green": "#2e8b57",
  "lime green": "#8acb34",
  "fluorescent green": "#5cf03c",
  mint: "#a6dcc0",
  teal: "#127d80",
  turquoise: "#32bcc8",
  "turquoise blue": "#1ea7c5",
  blue: "#4a6ca3",
  "light blue": "#9ec3e6",
  "sky blue": "#84c3ea",
  "dark blue": "#1d3466",
  "navy blue": "#262e44",
  lavender: "#c8b3d8",
  mauve: "#b08497",
  purple: "#664a82",
  violet: "#7f4fc9",
  multi: null,
});

/** The eleven basic colour terms (Berlin & Kay), each a key of `COLOR_NAMES`. */
export const BASIC_COLOR_TERMS: readonly string[] = [
  "black",
  "white",
  "red",
  "green",
  "yellow",
  "blue",
  "brown",
  "purple",
  "pink",
  "orange",
  "grey",
];

/** Alternative spellings and synonyms → the key used in `COLOR_NAMES`. */
export const COLOR_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  gray: "grey",
  "light gray": "light grey",
  "dark gray": "dark grey",
  "gray melange": "grey melange",
  "grey marl": "grey melange",
  offwhite: "off white",
  navy: "navy blue",
  "navy blue": "navy blue",
  multicolor: "multi",
  multicolour: "multi",
  "multi color": "multi",
  "multi colour": "multi",
  multicoloured: "multi",
  multicolored: "multi",
  turquoise: "turquoise",
  aqua: "turquoise",
  golden: "gold",
  fluorescent: "fluorescent green",
  "neon green": "fluorescent green",
  lime: "lime green",
  "off-white": "off white",
  "steel grey": "steel",
  "steel gray": "steel",
  coffee: "coffee brown",
  mushroom: "mushroom brown",
  "rose gold": "rose",
});

/**
 * The `COLOR_NAMES` key for a colour name, or null when the name is unknown. Case, spaces,
 * hyphens and underscores are ignored: "Navy Blue", "navy-blue", "NAVY_BLUE" and "navy" all give
 * "navy blue". "multi" (and multicolour spellings) gives "multi".
 */
export function normalizeColorName(name: string): string | null {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, " ");
  if (key in COLOR_NAMES) return key;
  const alias = COLOR_ALIASES[key] ?? COLOR_ALIASES[key.replace(/ /g, "")];
  if (alias !== undefined) return alias;
  const joined = key.replace(/ /g, "");
  for (const k of Object.keys(COLOR_NAMES)) if (k.replace(/ /g, "") === joined) return k;
  return null;
}

const nameLabCache = new Map<string, Lab>();

/**
 * The reference Lab colour for a colour name (see `normalizeColorName` for accepted spellings).
 * Returns null for "multi" (no single colour) and for unknown names; use `normalizeColorName`
 * to tell the two apart.
 */
export function colorNameToLab(name: string): Lab | null {
  const key = normalizeColorName(name);
  if (key === null) return null;
  const hex = COLOR_NAMES[key];
  if (hex === null || hex === undefined) return null;
  let lab = nameLabCache.get(key);
  if (!lab) {
    lab = hexToLab(hex) ?? [0, 0, 0];
    nameLabCache.set(key, lab);
  }
  return lab;
}

/** The closest named colour (ΔE00) to a Lab colour, e.g. to label a dominant colour. */
export function nearestColorName(lab: Lab): { name: string; distance: number } {
  let best = { name: "black", distance: Infinity };
  for (const name of Object.keys(COLOR_NAMES)) {
    const ref = colorNameToLab(name);
    if (!ref) continue;
    const d = ciede2000(lab, ref);
    if (d < best.distance) best = { name, distance: d };
  }
  return best;
}
