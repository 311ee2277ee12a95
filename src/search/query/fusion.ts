// Fused ranking of text evidence (issues 15, 35): visual similarities (query embedding vs product
// image) and lexical scores (full-text match of the query against the product's text), pure.
//   coverage (default) — word coverage first (issue 35; Meilisearch's "words → typo → attribute"
//           order): a product's lexical coverage (the summed weights of the query's word groups
//           its text holds: 1 per exact word, less for a typo, synonym or prefix; src/lexical/query.ts)
//           orders the results; within one coverage, (1 − s) × lexical' + s × visual' (s =
//           semantic_weight, lexical' the engine score over the query's best, visual' the
//           similarity min-max scaled over the products compared: the visual candidates and the
//           lexical hits) breaks the tie, so the image
//           carries what the words cannot (occasion, style). score = (B × coverage + within) /
//           (B × groups + 1), B = COVERAGE_BUCKET: a coverage differing by one typo (0.25) is never
//           overtaken, and the score reads as the share of the query's words matched. Products
//           whose text matches no group come last and only with a visual similarity of at least
//           the relevance bar (`minVisual`); so do those whose coverage is below MIN_WORD_SHARE
//           of the query's content words (query.ts contentWords: the words the store lacks
//           included, not those modifying a head noun that names a store category) (Elasticsearch's
//           minimum_should_match "50%": "dog food" in a clothing store matches "hood" by a typo
//           of one word in two, which is no evidence); a query with no group in the store's
//           vocabulary is ranked by visual similarity alone, above the bar;
//   blend — calibrated blend: (1 − w) × visual' + w × lexical', where visual' is the similarity
//           min-max scaled over this query's visual candidates (the best visual match scores 1,
//           the deepest one 0) and lexical' the lexical score divided by the best lexical score
//           of the query (0 for products the lexical index did not match);
//   rrf   — weighted reciprocal rank fusion: ((1 − w)/(60 + visual rank) + w/(60 + lexical rank))
//           × 61, so a product ranked first by both scores 1; equal scores share a rank (many
//           products often match a short query's words equally well).
// w is the lexical share (1 − semantic_weight).
// With w = 1 the score is lexical' alone; with w = 0 callers skip fusion (today's cosine).
import type { LexicalHit } from "../../lexical/repository.js";

export const FUSION_METHODS = ["coverage", "blend", "rrf"] as const;
export type FusionMethod = (typeof FUSION_METHODS)[number];
export const RRF_K = 60;
/**
 * Least semantic weight of blend and rrf when no product holds every word of the query (the lexical hits match
 * some of its words): such hits say little about what was asked ("red dress"
 * against a catalogue whose texts never name colours matches every "dress" and nothing red), so
 * the visual evidence leads. Chosen on the dev half of `npm run eval:search` with full and with
 * sparse product text (see docs/evaluation.md "Search relevance evaluation").
 */
export const PARTIAL_MATCH_SEMANTIC_WEIGHT = 0.7;

/** Share of a query's content words a result's text must cover (weighted) to stand without visual evidence. */
export const MIN_WORD_SHARE = 0.5;

/** Weight of one unit of coverage against the within-coverage blend (see the header). */
export const COVERAGE_BUCKET = 20;

export interface CoverageOptions {
  /** The query's word groups in the store's vocabulary (0: visual evidence only). */
  groups: number;
  /** The query's content words, those the store lacks included (default `groups`). */
  words?: number;
  /** semantic_weight: the visual share within a coverage. */
  semanticWeight: number;
  /** Least visual similarity of a result whose text matches no group. */
  minVisual: number;
  /** Visual similarities of lexical hits that are not among `visual`. */
  visualOf?: ReadonlyMap<string, number>;
}

/** Whether a hit covers enough of the query's words to stand without visual evidence (MIN_WORD_SHARE). */
export function coversWordShare(coverage: number, o: Pick<CoverageOptions, "groups" | "words">): boolean {
  return coverage >= MIN_WORD_SHARE * Math.max(o.groups, o.words ?? 0);
}

/**
 * Bounds of rankByCoverage's scores for a query: the least score of a product covering the word
 * share (coversWordShare) and the most of a product whose text matches no group. The first is
 * above the second by a factor of COVERAGE_BUCKET × MIN_WORD_SHARE at least, so products matching
 * no word never outrank a product covering the share.
 */
export function coverageBounds(o: Pick<CoverageOptions, "groups" | "words">): { covering: number; unmatched: number } {
  const denominator = COVERAGE_BUCKET * o.groups + 1;
  return { covering: (COVERAGE_BUCKET * MIN_WORD_SHARE * Math.max(o.groups, o.words ?? 0)) / denominator, unmatched: 1 / denominator };
}

/** Coverage ranking (see the header). `visual` sorted best first, raw similarities in [0, 1]. */
export function rankByCoverage(visual: readonly Scored[], lexical: readonly LexicalHit[], o: CoverageOptions): Scored[] {
  const passing = visual.filter((v) => v.score >= o.minVisual);
  if (o.groups === 0 || lexical.length === 0) return passing.map((v) => ({ ...v }));
  const vis = new Map(visual.map((v) => [v.productId, v.score]));
  // The similarities compared: the visual candidates' and those of the lexical hits outside them.
  const similarities = [...visual.map((v) => v.score), ...(o.visualOf?.values() ?? [])];
  const hi = similarities.length ? Math.max(...similarities) : 0;
  const lo = similarities.length ? Math.min(...similarities) : 0;
  const cal = (s: number | undefined) => (s === undefined ? 0 : hi > lo ? Math.max(0, Math.min(1, (s - lo) / (hi - lo))) : 1);
  const maxLex = lexical.reduce((m, h) => Math.max(m, h.score), 0);
  const sw = Math.max(0, Math.min(1, o.semanticWeight));
  const denominator = COVERAGE_BUCKET * o.groups + 1;
  const out: Scored[] = [];
  const seen = new Set<string>();
  for (const h of lexical) {
    seen.add(h.productId);
    const visual = vis.get(h.productId) ?? o.visualOf?.get(h.productId);
    if (!coversWordShare(h.coverage, o) && !(visual !== undefined && visual >= o.minVisual)) continue;
    const lex = maxLex > 0 ? h.score / maxLex : 1;
    const within = (1 - sw) * lex + sw * cal(visual);
    out.push({ productId: h.productId, score: (COVERAGE_BUCKET * h.coverage + within) / denominator });
  }
  for (const v of passing) if (!seen.has(v.productId)) out.push({ productId: v.productId, score: (sw * cal(v.score)) / denominator });
  return out;
}

/** The lexical share to fuse with: at most 1 − PARTIAL_MATCH_SEMANTIC_WEIGHT for partial matches. */
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
  method: Exclude<FusionMethod, "coverage">;
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

/** Lexical scores divided by the best one. */
export function normaliseLexical(hits: readonly LexicalHit[]): Map<string, number> {
  const max = hits.reduce((m, h) => Math.max(m, h.score), 0);
  return new Map(hits.map((h) => [h.productId, max > 0 ? h.score / max : 1]));
}

/** `visual` sorted best first. Returns every product of either list with its fused score in [0, 1]. */
export function fuse(visual: readonly Scored[], lexical: readonly LexicalHit[], o: FuseOptions): Scored[] {
  const lex = normaliseLexical(lexical);
  const w = Math.max(0, Math.min(1, o.weight));
  if (w >= 1) return [...lex].map(([productId, score]) => ({ productId, score }));
  const ids = new Set([...visual.map((v) => v.productId), ...lex.keys()]);
  const out: Scored[] = [];
  if (o.method === "rrf") {
    const vRank = ranks(visual);
    const lRank = ranks(lexical);
    for (const id of ids) {
      const rv = vRank.get(id);
      const rl = lRank.get(id);
      const s = (rv ? (1 - w) / (RRF_K + rv) : 0) + (rl ? w / (RRF_K + rl) : 0);
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

/** Best score first; ties by product id, so a ranking is the same on every engine. */
export const byScore = (a: { productId: string; score: number }, b: { productId: string; score: number }): number =>
  b.score - a.score || (a.productId < b.productId ? -1 : 1);

/**
 * Re-ranks `scored` (sorted here, best first) by boosts that only lift a score, reading rows only
 * as deep as the page needs (Fagin's threshold rule): a page's worth (`step`) at a time, products
 * are read and re-ranked in score order until the next one's `ceiling` (the most its boosts can
 * lift it) is below the limit-th re-ranked score, or below `threshold` while fewer than `limit`
 * re-ranked scores reach it. No unread product can then reach the page, so the page is the one a
 * re-ranking of every product gives. Returns how many products were read.
 */
export async function reRankInScoreOrder<T extends { productId: string; score: number }>(
  scored: T[],
  o: {
    limit: number;
    threshold: number;
    step: number;
    ceiling: (score: number) => number;
    read: (part: readonly T[]) => Promise<void>;
    reRank: (s: T) => void;
  },
): Promise<number> {
  scored.sort(byScore);
  const pageBar = (ranked: readonly T[]): number => {
    const passing = ranked.map((r) => r.score).filter((x) => x >= o.threshold);
    return passing.length < o.limit ? o.threshold : passing.sort((a, b) => b - a)[o.limit - 1]!;
  };
  let read = 0;
  while (read < scored.length) {
    const part = scored.slice(read, read + Math.max(1, o.step));
    await o.read(part);
    for (const s of part) o.reRank(s);
    read += part.length;
    if (read < scored.length && o.ceiling(scored[read]!.score) < pageBar(scored.slice(0, read))) break;
  }
  return read;
}
