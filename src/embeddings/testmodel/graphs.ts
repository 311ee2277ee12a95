// The two ONNX graphs of the tiny test model. They take exactly the inputs a real CLIP export
// takes (`pixel_values` float32 [batch,3,224,224]; `input_ids` + `attention_mask` int64
// [batch,seq]) and give `image_embeds` / `text_embeds` float32 [batch, EMBEDDING_DIM].
//
// How colour meaning is encoded
// -----------------------------
// Vision: the normalised pixels are average-pooled 4×4 (224 → 56; smooths JPEG noise), then every
// pooled pixel is softly assigned to colour prototypes — softmax over −‖rgb − prototype‖²/τ,
// which is an affine function of the normalised pixel (the ‖rgb‖² term is the same for every
// prototype and cancels in the softmax), so it is a 1×1 Conv + Softmax — and the prototypes of
// each palette colour (a main one plus muted shades) are summed. From those soft assignments:
//   A  foreground palette histogram: pixels weighted by their colour distance from the border
//      ring's mean colour (the background) and by a Gaussian centre weight — the "object colour"
//      of a product photo, and simply the image's colour when it is uniform
//   B  global histogram over a 3×3×3 RGB grid (finer colour detail, for image↔image matching)
//   C  palette histograms of the four quadrants (coarse layout, for image↔image matching)
//   T  mean absolute horizontal/vertical luminance gradient (texture/edge energy)
// The blocks are weighted and multiplied by a fixed matrix with orthonormal rows (seeded
// pseudo-random), which preserves inner products while spreading the features over all output
// dimensions, as a real model's embeddings are.
// Text: a token-embedding table whose colour-word rows are that word's palette mixture (e.g.
// "teal" → teal, "turquoise" → 0.6 teal + 0.4 blue), start-of-text carries a small constant
// "neutral" component (so a text without colour words still has a direction), every other token
// is zero; masked sum-pooling, then the same fixed matrix restricted to block A and the neutral
// row. So "red" and "a red dress" embed identically, and their cosine with an image is
// proportional to how much of the image's foreground is red.

import { GraphBuilder, attr, encodeModel } from "./onnx.js";
import { COLOUR_WORDS, COLOUR_WORD_EMPHASIS, PALETTE } from "./vocabulary.js";
import { mulberry32 } from "../../platform/prng.js";

/** Output dimension of both towers. */
export const EMBEDDING_DIM = 128;
export const IMAGE_SIZE = 224;
/** CLIP's normalisation constants (also written to preprocessor_config.json). */
export const CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073] as const;
export const CLIP_STD = [0.26862954, 0.26130258, 0.27577711] as const;
export const OPSET = 17;

const POOL = 4;
const GRID = IMAGE_SIZE / POOL; // 56
const K = PALETTE.length; // palette colours (block A, C)
const GRID_LEVELS = [0, 0.5, 1];
const GRID_COLOURS: [number, number, number][] = GRID_LEVELS.flatMap((r) =>
  GRID_LEVELS.flatMap((g) => GRID_LEVELS.map((b): [number, number, number] => [r, g, b])),
);
/** Softmax temperatures (squared sRGB distance units). */
const TAU_PALETTE = 0.012;
const TAU_GRID = 0.03;
/** Gaussian centre weight, sigma as a fraction of the image side. */
const CENTRE_SIGMA = 0.3;
/** Background estimate: the outer ring of this many pooled pixels. */
const BORDER = 3;
/** Foreground weight 1 − exp(−d²/σ²) + ε, d the sRGB distance from the background colour. */
const FOREGROUND_SIGMA2 = 0.02;
const FOREGROUND_EPS = 0.02;
/** Block weights: how much each feature block counts in cosine similarity. */
export const BLOCK_WEIGHTS = { foreground: 1.0, grid: 1.0, quadrants: 0.3, texture: 2.0 } as const;
/** Start-of-text's neutral component, relative to a colour word's unit vector. */
const NEUTRAL = 0.05;

const BLOCK_A = 0;
const BLOCK_B = BLOCK_A + K;
const BLOCK_C = BLOCK_B + GRID_COLOURS.length;
const BLOCK_T = BLOCK_C + 4 * K;
const FEATURES = BLOCK_T + 2; // image feature length
const NEUTRAL_ROW = FEATURES; // extra basis row used by text only
const BASIS_ROWS = FEATURES + 1;

/** `rows` × `cols` matrix (row-major) with orthonormal rows, from a seeded Gaussian + Gram–Schmidt. */
function orthonormalRows(rows: number, cols: number, seed: number): Float64Array[] {
  if (rows > cols) throw new Error("cannot have more orthonormal rows than columns");
  const rand = mulberry32(seed);
  const gauss = () => {
    const u = Math.max(rand(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
  const out: Float64Array[] = [];
  while (out.length < rows) {
    const v = Float64Array.from({ length: cols }, gauss);
    for (const u of out) {
      let dot = 0;
      for (let j = 0; j < cols; j++) dot += v[j]! * u[j]!;
      for (let j = 0; j < cols; j++) v[j] = v[j]! - dot * u[j]!;
    }
    let norm = 0;
    for (let j = 0; j < cols; j++) norm += v[j]! * v[j]!;
    norm = Math.sqrt(norm);
    if (norm < 1e-6) continue;
    for (let j = 0; j < cols; j++) v[j] = v[j]! / norm;
    out.push(v);
  }
  return out;
}

const BASIS = orthonormalRows(BASIS_ROWS, EMBEDDING_DIM, 20240917);

/** Weights and bias of the 1×1 Conv that gives soft-assignment logits from normalised pixels. */
function assignmentConv(prototypes: readonly (readonly number[])[], tau: number): { w: Float32Array; b: Float32Array } {
  const w = new Float32Array(prototypes.length * 3);
  const b = new Float32Array(prototypes.length);
  prototypes.forEach((c, k) => {
    let bias = 0;
    for (let ch = 0; ch < 3; ch++) {
      w[k * 3 + ch] = (2 * c[ch]! * CLIP_STD[ch]!) / tau;
      bias += 2 * c[ch]! * CLIP_MEAN[ch]! - c[ch]! * c[ch]!;
    }
    b[k] = bias / tau;
  });
  return { w, b };
}

/** The vision graph (see the file comment). */
export function buildVisionModel(): Uint8Array {
  const g = new GraphBuilder();
  const pooled = g.node("AveragePool", ["pixel_values"], { kernel_shape: attr.ints([POOL, POOL]), strides: attr.ints([POOL, POOL]) });

  // Soft assignment to every prototype (each colour has a main one and maybe muted variants),
  // then the prototypes of each colour are summed (a fixed 0/1 1×1 Conv).
  const prototypes = PALETTE.flatMap((c, k) => [c.rgb, ...(c.variants ?? [])].map((rgb) => ({ rgb, k })));
  const P = prototypes.length;
  const pal = assignmentConv(
    prototypes.map((p) => p.rgb),
    TAU_PALETTE,
  );
  const protoLogits = g.node("Conv", [pooled, g.floatConst("prototype_w", [P, 3, 1, 1], pal.w), g.floatConst("prototype_b", [P], pal.b)]);
  const protoSoft = g.node("Softmax", [protoLogits], { axis: attr.int(1) });
  const membership = new Float32Array(K * P);
  prototypes.forEach((p, j) => (membership[p.k * P + j] = 1));
  const palSoft = g.node("Conv", [protoSoft, g.floatConst("prototype_to_colour", [K, P, 1, 1], membership)]);

  const grid = assignmentConv(GRID_COLOURS, TAU_GRID);
  const gridLogits = g.node("Conv", [
    pooled,
    g.floatConst("grid_w", [GRID_COLOURS.length, 3, 1, 1], grid.w),
    g.floatConst("grid_b", [GRID_COLOURS.length], grid.b),
  ]);
  const gridSoft = g.node("Softmax", [gridLogits], { axis: attr.int(1) });

  // A: foreground palette histogram. The background colour is estimated as the mean of the
  // border ring; each pooled pixel is weighted by how far its colour is from it
  // (1 − exp(−d²/σ²) + ε) and by a Gaussian centre weight. A product on a plain background is
  // thus described by the product's colour, while a uniform image (every weight ≈ ε) is
  // described by its own colour.
  const centre = new Float32Array(GRID * GRID);
  const ring = new Float32Array(GRID * GRID);
  let ringTotal = 0;
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      const dy = (y + 0.5) / GRID - 0.5;
      const dx = (x + 0.5) / GRID - 0.5;
      centre[y * GRID + x] = Math.exp(-(dx * dx + dy * dy) / (2 * CENTRE_SIGMA * CENTRE_SIGMA));
      const onRing = Math.min(x, y, GRID - 1 - x, GRID - 1 - y) < BORDER;
      ring[y * GRID + x] = onRing ? 1 : 0;
      if (onRing) ringTotal++;
    }
  }
  for (let i = 0; i < ring.length; i++) ring[i] = ring[i]! / ringTotal;
  const axesHw = g.int64Const("axes_hw", [2], [2, 3]);
  const axisC = g.int64Const("axis_c", [1], [1]);
  const background = g.node("ReduceSum", [g.node("Mul", [pooled, g.floatConst("border_ring", [1, 1, GRID, GRID], ring)]), axesHw], {
    keepdims: attr.int(1),
  });
  // Difference in sRGB units (normalised values × std).
  const diff = g.node("Mul", [g.node("Sub", [pooled, background]), g.floatConst("channel_std", [1, 3, 1, 1], [...CLIP_STD])]);
  const dist2 = g.node("ReduceSum", [g.node("Mul", [diff, diff]), axisC], { keepdims: attr.int(1) });
  const away = g.node("Sub", [
    g.floatConst("one_plus_eps", [], [1 + FOREGROUND_EPS]),
    g.node("Exp", [g.node("Mul", [dist2, g.floatConst("neg_inv_sigma2", [], [-1 / FOREGROUND_SIGMA2])])]),
  ]);
  const weight = g.node("Mul", [away, g.floatConst("centre_weight", [1, 1, GRID, GRID], centre)]);
  const weightedHist = g.node("ReduceSum", [g.node("Mul", [palSoft, weight]), axesHw], { keepdims: attr.int(0) });
  const blockA = g.node("Div", [weightedHist, g.node("ReduceSum", [weight, axesHw], { keepdims: attr.int(0) })]);

  // B: global grid histogram.
  const blockB = g.node("Flatten", [g.node("GlobalAveragePool", [gridSoft])], { axis: attr.int(1) });

  // C: quadrant palette histograms.
  const half = GRID / 2;
  const quads = g.node("AveragePool", [palSoft], { kernel_shape: attr.ints([half, half]), strides: attr.ints([half, half]) });
  const blockC = g.node("Flatten", [quads], { axis: attr.int(1) });

  // T: texture (gradient energy of luminance, in [0,1] units per pooled pixel).
  const lumW = [0.299, 0.587, 0.114].map((w, ch) => w * CLIP_STD[ch]!);
  const lum = g.node("Conv", [pooled, g.floatConst("luma_w", [1, 3, 1, 1], lumW)]);
  const gradW = [-0.5, 0.5, -0.5, 0.5, /* gy */ -0.5, -0.5, 0.5, 0.5];
  const grad = g.node("Conv", [lum, g.floatConst("grad_w", [2, 1, 2, 2], gradW)]);
  const blockT = g.node("Flatten", [g.node("GlobalAveragePool", [g.node("Abs", [grad])])], { axis: attr.int(1) });

  const features = g.node("Concat", [blockA, blockB, blockC, blockT], { axis: attr.int(1) });

  // Projection: rows of the orthonormal basis, scaled by the block weights.
  const proj = new Float32Array(FEATURES * EMBEDDING_DIM);
  for (let r = 0; r < FEATURES; r++) {
    const wgt =
      r < BLOCK_B
        ? BLOCK_WEIGHTS.foreground
        : r < BLOCK_C
          ? BLOCK_WEIGHTS.grid
          : r < BLOCK_T
            ? BLOCK_WEIGHTS.quadrants
            : BLOCK_WEIGHTS.texture;
    for (let j = 0; j < EMBEDDING_DIM; j++) proj[r * EMBEDDING_DIM + j] = wgt * BASIS[r]![j]!;
  }
  g.node("MatMul", [features, g.floatConst("image_projection", [FEATURES, EMBEDDING_DIM], proj)], {}, "image_embeds");

  return encodeModel({
    opset: OPSET,
    producerName: "shopsight-make-test-model",
    docString: "Tiny colour-histogram CLIP stand-in for tests (not a learnt model).",
    graph: g.graph(
      "tiny_clip_vision",
      [{ name: "pixel_values", type: "float", shape: ["batch_size", 3, IMAGE_SIZE, IMAGE_SIZE] }],
      [{ name: "image_embeds", type: "float", shape: ["batch_size", EMBEDDING_DIM] }],
    ),
  });
}

/** A colour word's vector over the palette: its mixture, unit length, times its emphasis. */
export function colourWordVector(word: string): Float64Array | undefined {
  const mix = COLOUR_WORDS[word];
  if (!mix) return undefined;
  const v = new Float64Array(K);
  for (const [name, weight] of Object.entries(mix)) {
    const k = PALETTE.findIndex((c) => c.name === name);
    if (k < 0) throw new Error(`colour word "${word}" refers to unknown palette colour "${name}"`);
    v[k] = weight;
  }
  const norm = Math.hypot(...v);
  const emphasis = COLOUR_WORD_EMPHASIS[word] ?? 1;
  return v.map((x) => (x / norm) * emphasis);
}

/**
 * The text graph (see the file comment). `vocab` maps tokens to ids; whole colour words are the
 * tokens `<word></w>`.
 */
export function buildTextModel(vocab: Readonly<Record<string, number>>, vocabSize: number, bosId: number): Uint8Array {
  const width = K + 1; // palette + neutral
  const table = new Float32Array(vocabSize * width);
  for (const word of Object.keys(COLOUR_WORDS)) {
    const id = vocab[`${word}</w>`];
    if (id === undefined) throw new Error(`colour word "${word}" is not a single token`);
    const v = colourWordVector(word)!;
    for (let k = 0; k < K; k++) table[id * width + k] = v[k]!;
  }
  table[bosId * width + K] = NEUTRAL;

  const proj = new Float32Array(width * EMBEDDING_DIM);
  for (let k = 0; k < K; k++) for (let j = 0; j < EMBEDDING_DIM; j++) proj[k * EMBEDDING_DIM + j] = BASIS[BLOCK_A + k]![j]!;
  for (let j = 0; j < EMBEDDING_DIM; j++) proj[K * EMBEDDING_DIM + j] = BASIS[NEUTRAL_ROW]![j]!;

  const g = new GraphBuilder();
  const tokens = g.node("Gather", [g.floatConst("token_table", [vocabSize, width], table), "input_ids"], { axis: attr.int(0) });
  const mask = g.node("Unsqueeze", [g.node("Cast", ["attention_mask"], { to: attr.int(1) }), g.int64Const("axis_2", [1], [2])]);
  const pooled = g.node("ReduceSum", [g.node("Mul", [tokens, mask]), g.int64Const("axis_1", [1], [1])], { keepdims: attr.int(0) });
  g.node("MatMul", [pooled, g.floatConst("text_projection", [width, EMBEDDING_DIM], proj)], {}, "text_embeds");

  return encodeModel({
    opset: OPSET,
    producerName: "shopsight-make-test-model",
    docString: "Tiny colour-word CLIP stand-in for tests (not a learnt model).",
    graph: g.graph(
      "tiny_clip_text",
      [
        { name: "input_ids", type: "int64", shape: ["batch_size", "sequence_length"] },
        { name: "attention_mask", type: "int64", shape: ["batch_size", "sequence_length"] },
      ],
      [{ name: "text_embeds", type: "float", shape: ["batch_size", EMBEDDING_DIM] }],
    ),
  });
}
