// Fused ranking of text evidence (issue 15): visual similarities (query embedding vs product
// image) and lexical scores (full-text match of the query against the product's text), pure.
//   blend — calibrated blend: (1 − w) × visual' + w × lexical', where visual' is the similarity
//           min-max scaled over this query's visual candidates (the best visual match scores 1,
//           the deepest one 0) and lexical' the lexical score divided by the best lexical score
//           of the query (0 for products the lexical index did not match);
//   rrf   — weighted reciprocal rank fusion: ((1 − w)/(60 + visual rank) + w/(60 + lexical rank))
//           × 61, so a product ranked first by both scores 1; equal scores share a rank (many
//           products often match a short query's words equally well).
// w is the lexical share (1 − semantic_weight). Trigram (typo-tolerant) lexical hits count half.
// With w = 1 the score is lexical' alone; with w = 0 callers skip fusion (today's cosine).
import type { LexicalHit } from "../../lexical/repository.js";

export const FUSION_METHODS = ["blend", "rrf"] as const;
export type FusionMethod = (typeof FUSION_METHODS)[number];
export const RRF_K = 60;
/** Weight of trigram (typo-tolerant) lexical hits relative to exact ones. */
export const FUZZY_FACTOR = 0.5;
/**
 * Least semantic weight when no product holds every word of the query (the lexical hits match
 * some of its words, or only by trigram): such hits say little about what was asked ("red dress"
 * against a catalogue whose texts never name colours matches every "dress" and nothing red), so
 * the visual evidence leads. Chosen on the dev half of `npm run eval:search` with full and with
 * sparse product text (see README "Search relevance evaluation").
 */
export const PARTIAL_MATCH_SEMANTIC_WEIGHT = 0.7;

/** The lexical share to fuse with: at most 1 − PARTIAL_MATCH_SEMANTIC_WEIGHT for partial matches (trigram hits, always partial, also count FUZZY_FACTOR inside fuse()). */
export function lexicalShare(weight: number, partial: boolean): number {
  return partial ? Math.min(weight, 1 - PARTIAL_MATCH_SEMANTIC_WEIGHT) : weight;
}

export interface Scored {
  productId: string;
  score: number;
}

export interface FuseOptions {
  /** Lexical share, 0–1. */
  weight: number;
  method: FusionMethod;
  fuzzy: boolean;
  /** Visual similarities of lexical hits that are not among `visual` (blend only). */
  visualOf?: ReadonlyMap<string, number>;
}

/** Competition ranks (1 + the number of strictly better scores): equal scores share a rank. */
function ranks(list: readonly Scored[]): Map<string, number> {
  const sorted = [...list].sort((a, b) => b.score - a.score);
  const out = new Map<string, number>();
  sorted.forEach((s, i) => out.set(s.productId, i > 0 && s.score === sorted[i - 1]!.score ? out.get(sorted[i - 1]!.productId)! : i + 1));
  return out;
}

/** Lexical scores divided by the best one (and by FUZZY_FACTOR for trigram hits). */
export function normaliseLexical(hits: readonly LexicalHit[], fuzzy: boolean): Map<string, number> {
  const max = hits.reduce((m, h) => Math.max(m, h.score), 0);
  const f = fuzzy ? FUZZY_FACTOR : 1;
  return new Map(hits.map((h) => [h.productId, max > 0 ? (h.score / max) * f : f]));
}

/** `visual` sorted best first. Returns every product of either list with its fused score in [0, 1]. */
export function fuse(visual: readonly Scored[], lexical: readonly LexicalHit[], o: FuseOptions): Scored[] {
  const lex = normaliseLexical(lexical, o.fuzzy);
  const w = Math.max(0, Math.min(1, o.weight));
  if (w >= 1) return [...lex].map(([productId, score]) => ({ productId, score }));
  const ids = new Set([...visual.map((v) => v.productId), ...lex.keys()]);
  const out: Scored[] = [];
  if (o.method === "rrf") {
    const vRank = ranks(visual);
    const lRank = ranks(lexical);
    const f = o.fuzzy ? FUZZY_FACTOR : 1;
    for (const id of ids) {
      const rv = vRank.get(id);
      const rl = lRank.get(id);
      const s = (rv ? (1 - w) / (RRF_K + rv) : 0) + (rl ? (w * f) / (RRF_K + rl) : 0);
      out.push({ productId: id, score: Math.min(1, s * (RRF_K + 1)) });
    }
    return out;
  }
  const vis = new Map(visual.map((v) => [v.productId, v.score]));
  const scores = visual.map((v) => v.score);
  const hi = scores.length ? Math.max(...scores) : 0;
  const lo = scores.length ? Math.min(...scores) : 0;
  const cal = (s: number | undefined) => (s === undefined ? 0 : hi > lo ? Math.max(0, Math.min(1, (s - lo) / (hi - lo))) : 1);
  for (const id of ids) {
    const v = cal(vis.get(id) ?? o.visualOf?.get(id));
    out.push({ productId: id, score: (1 - w) * v + w * (lex.get(id) ?? 0) });
  }
  return out;
}
