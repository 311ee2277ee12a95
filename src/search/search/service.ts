// The nine search modes over one engine (spec: Search; issue 5). Every mode turns its input into
// query vectors, then: pre-filters → vector search restricted to the candidates → scoring →
// threshold and limit → metadata → a search-history row whose id is the response's search_id.
//
// Scoring (every similarity_score is in [0, 1]; ties break by product_id):
//   url / upload / text / crop / filtered — cosine similarity of the query and the product image,
//     clamped to [0, 1];
//   hybrid — semantic = visual_weight × sim(image) + (1 − visual_weight) × sim(text) (one of the
//     two when only one is given); with `colors`, score = 0.75 × semantic + 0.25 × colour score
//     (colour score: 1 − ΔE00/50 to the closest dominant colour, averaged over the colours); with
//     colours only, the colour score alone;
//   fusion — sim of the blend image_weight × image + (1 − image_weight) × text; results in the
//     category of the product nearest to the image are boosted: s + (1 − s) × 0.10;
//   multi-image — average: sim to the normalised mean of the images; best: the highest sim to
//     any image; union: the images' result lists interleaved rank by rank (first seen wins),
//     each result keeping its own sim.
import type { AppContext } from "../../platform/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { uuid } from "../../platform/ids.js";
import type { SearchStage } from "../../platform/metrics.js";
import { hexToLab, type Lab } from "../../embeddings/colors.js";
import type { Region } from "../../embeddings/image.js";
import type { DecodedImage } from "../../embeddings/types.js";
import { ProductsRepository, type ProductRow } from "../products/repository.js";
import { colorScore, hasFilters, validateFilters, type SearchFilters } from "./filters.js";
import { SearchRepository } from "./repository.js";
import { historyWriter } from "./history-writer.js";
import { filterCandidates } from "./memory-filter.js";

export const SEARCH_MODES = ["upload", "url", "text", "hybrid", "fusion", "multi-image", "crop", "filtered"] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
export type MultiMode = "average" | "union" | "best";

export const FUSION_CATEGORY_BOOST = 0.1;
export const HYBRID_COLOR_WEIGHT = 0.25;

export interface Common extends SearchFilters {
  limit: number;
  threshold: number;
}

export interface SearchResult {
  product_id: string;
  similarity_score: number;
  metadata: Record<string, unknown>;
}

export interface SearchResponse {
  query_time_ms: number;
  count: number;
  results: SearchResult[];
  search_id: string;
}

/** Where a search came from, kept in its history row. */
export type SearchSource = "api" | "widget";
/**
 * The `source` argument of a search: where it came from, or `null` for an internal search made
 * on a store's behalf by another component (the Assistant API's catalogue), which writes no
 * search-history row and so never counts in the Search API's history, analytics, suggestions or
 * feedback (its search_id is then not recorded anywhere).
 */
export type HistorySource = SearchSource | null;

interface Plan {
  mode: SearchMode;
  /** performance.now() when the request's work began (embedding included in query_time_ms). */
  startedAt: number;
  summary: Record<string, unknown>;
  queryText?: string | undefined;
  /** Query vectors (one, or several for multi-image best/union). */
  vectors: Float32Array[];
  /** Similarities of `vectors[0]` are multiplied by this (blends searched as unit vectors). */
  scale?: number;
  multi?: MultiMode;
  colors?: Lab[];
  boostCategory?: string | null;
}

const clamp01 = (x: number) => Math.max(0, Math.min(1, x));
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** `a·w + b·(1−w)`, returned as a unit vector and the norm it had. */
function blend(a: Float32Array, b: Float32Array, w: number): { v: Float32Array; norm: number } {
  const v = new Float32Array(a.length);
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    v[i] = w * a[i]! + (1 - w) * b[i]!;
    n += v[i]! * v[i]!;
  }
  const norm = Math.sqrt(n);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return { v, norm };
}

function mean(vectors: Float32Array[]): Float32Array {
  const out = new Float32Array(vectors[0]!.length);
  for (const v of vectors) for (let i = 0; i < v.length; i++) out[i]! += v[i]!;
  let n = 0;
  for (let i = 0; i < out.length; i++) n += out[i]! * out[i]!;
  const norm = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

export class SearchService {
  private readonly repo: SearchRepository;
  private readonly products: ProductsRepository;

  constructor(private readonly ctx: AppContext) {
    this.repo = new SearchRepository(ctx.database.db, ctx.database.dialect);
    this.products = new ProductsRepository(ctx.database.db, ctx.database.dialect);
  }

  /** Times one search stage for GET /metrics (shopsight_search_stage_duration_seconds). */
  private stage<T>(stage: SearchStage, fn: () => Promise<T>): Promise<T> {
    return this.ctx.metrics.timeSearchStage(stage, fn);
  }

  // --- query inputs -------------------------------------------------------------------------
  private async imageVector(image: DecodedImage): Promise<Float32Array> {
    const [v] = await this.stage("embed", () => this.ctx.images.embed([image]));
    return v!;
  }

  private async textVector(text: string): Promise<Float32Array> {
    const [v] = await this.stage("embed", () => this.ctx.images.embedTexts([text]));
    return v!;
  }

  private urlImage(url: string, region?: Region): Promise<DecodedImage> {
    return this.ctx.images.decodeUrl(url, region);
  }

  // --- modes --------------------------------------------------------------------------------
  async upload(storeId: string, file: Buffer, c: Common, source: SearchSource = "api") {
    const startedAt = performance.now();
    const image = await this.ctx.images.decode(file);
    return this.run(storeId, c, { startedAt, mode: "upload", summary: { bytes: file.length }, vectors: [await this.imageVector(image)] }, source);
  }

  async url(storeId: string, imageUrl: string, c: Common, source: SearchSource = "api") {
    const startedAt = performance.now();
    const v = await this.imageVector(await this.urlImage(imageUrl));
    return this.run(storeId, c, { startedAt, mode: "url", summary: { image_url: imageUrl }, vectors: [v] }, source);
  }

  async text(storeId: string, query: string, c: Common, source: HistorySource = "api") {
    const startedAt = performance.now();
    const v = await this.textVector(query);
    return this.run(storeId, c, { startedAt, mode: "text", summary: { query }, queryText: query, vectors: [v] }, source);
  }

  async hybrid(
    storeId: string,
    input: { image_url?: string | undefined; query?: string | undefined; colors?: string[] | undefined; visual_weight: number },
    c: Common,
  ) {
    const startedAt = performance.now();
    if (!input.image_url && !input.query && !(input.colors && input.colors.length > 0)) {
      throw new AppError("validation_failed", "Give at least one of image_url, query or colors.", {
        errors: [{ field: "image_url", message: "one of image_url, query, colors is required" }],
      });
    }
    const colors = (input.colors ?? []).map((hex) => hexToLab(hex.startsWith("#") ? hex : `#${hex}`)!);
    const [img, txt] = await Promise.all([
      input.image_url ? this.urlImage(input.image_url).then((i) => this.imageVector(i)) : undefined,
      input.query ? this.textVector(input.query) : undefined,
    ]);
    const plan: Plan = {
      startedAt,
      mode: "hybrid",
      summary: { image_url: input.image_url, query: input.query, colors: input.colors, visual_weight: input.visual_weight },
      queryText: input.query,
      vectors: [],
      colors,
    };
    if (img && txt) {
      const { v, norm } = blend(img, txt, input.visual_weight);
      plan.vectors = [v];
      plan.scale = norm;
    } else if (img ?? txt) {
      plan.vectors = [(img ?? txt)!];
    }
    return this.run(storeId, c, plan);
  }

  async fusion(storeId: string, input: { image_url: string; query: string; image_weight: number }, c: Common) {
    const startedAt = performance.now();
    const [img, txt] = await Promise.all([this.urlImage(input.image_url).then((i) => this.imageVector(i)), this.textVector(input.query)]);
    const { v, norm } = blend(img, txt, input.image_weight);
    const candidates = hasFilters(c) ? await this.stage("filter", () => filterCandidates(this.ctx, this.repo, storeId, c)) : undefined;
    const [nearest] = await this.stage("vector", () => this.ctx.vectors.search(storeId, img, { k: 1, candidates }));
    const boostCategory = nearest ? ((await this.products.find(storeId, nearest.productId))?.category ?? null) : null;
    return this.run(storeId, c, {
      startedAt,
      mode: "fusion",
      summary: { image_url: input.image_url, query: input.query, image_weight: input.image_weight, boosted_category: boostCategory },
      queryText: input.query,
      vectors: [v],
      scale: norm,
      boostCategory,
    });
  }

  async multiImage(storeId: string, images: { urls?: string[]; files?: Buffer[] }, multi: MultiMode, c: Common, source: SearchSource = "api") {
    const startedAt = performance.now();
    const decoded = await Promise.all([
      ...(images.urls ?? []).map((u) => this.urlImage(u)),
      ...(images.files ?? []).map((f) => this.ctx.images.decode(f)),
    ]);
    if (decoded.length < 2 || decoded.length > 10) {
      throw new AppError("validation_failed", "Give 2 to 10 images.", { errors: [{ field: "image_urls", message: "must hold 2 to 10 images" }] });
    }
    const vectors = await this.stage("embed", () => this.ctx.images.embed(decoded));
    return this.run(
      storeId,
      c,
      {
        startedAt,
        mode: "multi-image",
        summary: { image_urls: images.urls, uploaded: images.files?.length ?? 0, mode: multi },
        vectors: multi === "average" ? [mean(vectors)] : vectors,
        multi,
      },
      source,
    );
  }

  async crop(storeId: string, input: { image_url?: string | undefined; file?: Buffer | undefined; region: Region }, c: Common) {
    const startedAt = performance.now();
    const image = input.file ? await this.ctx.images.decode(input.file, input.region) : await this.urlImage(input.image_url!, input.region);
    return this.run(storeId, c, { startedAt, mode: "crop", summary: { image_url: input.image_url, region: input.region }, vectors: [await this.imageVector(image)] });
  }

  async filtered(storeId: string, input: { image_url?: string | undefined; query?: string | undefined }, c: Common) {
    const startedAt = performance.now();
    if ((input.image_url === undefined) === (input.query === undefined)) {
      throw new AppError("validation_failed", "Give exactly one of image_url or query.", {
        errors: [{ field: "image_url", message: "exactly one of image_url, query is required" }],
      });
    }
    const v = input.image_url ? await this.imageVector(await this.urlImage(input.image_url)) : await this.textVector(input.query!);
    return this.run(storeId, c, { startedAt, mode: "filtered", summary: { image_url: input.image_url, query: input.query }, queryText: input.query, vectors: [v] });
  }

  // --- engine -------------------------------------------------------------------------------
  private async run(storeId: string, c: Common, plan: Plan, source: HistorySource = "api"): Promise<SearchResponse> {
    validateFilters(c);
    const filtered = hasFilters(c);
    const candidates = filtered ? await this.stage("filter", () => filterCandidates(this.ctx, this.repo, storeId, c)) : undefined;
    const colors = plan.colors ?? [];
    // Re-ranking (colours, category boost) needs a deeper first stage than the page.
    const rerank = colors.length > 0 || plan.boostCategory;
    const k = rerank ? Math.max(100, c.limit * 5) : c.limit;

    let scored: { productId: string; score: number }[] = [];
    if (candidates && candidates.size === 0) {
      scored = [];
    } else if (plan.vectors.length === 0) {
      // Colours only: every candidate scored by colour.
      const rows = await this.stage("filter", () => this.repo.filteredRows(storeId, c, true));
      const allowed = candidates ?? new Set(rows.map((r) => r.product_id));
      scored = rows
        .filter((r) => allowed.has(r.product_id))
        .map((r) => ({ productId: r.product_id, score: colorScore(colors, JSON.parse(r.dominant_colors)) }));
    } else if (plan.multi === "best" || plan.multi === "union") {
      const lists = await this.stage("vector", () => Promise.all(plan.vectors.map((v) => this.ctx.vectors.search(storeId, v, { k, candidates }))));
      const best = new Map<string, number>();
      if (plan.multi === "best") {
        for (const list of lists) for (const m of list) best.set(m.productId, Math.max(best.get(m.productId) ?? -1, m.score));
        scored = [...best].map(([productId, score]) => ({ productId, score: clamp01(score) }));
      } else {
        for (let rank = 0; rank < k; rank++) {
          for (const list of lists) {
            const m = list[rank];
            if (m && !best.has(m.productId)) best.set(m.productId, m.score);
          }
        }
        scored = [...best].map(([productId, score]) => ({ productId, score: clamp01(score) }));
      }
    } else {
      const matches = await this.stage("vector", () => this.ctx.vectors.search(storeId, plan.vectors[0]!, { k, candidates }));
      const scale = plan.scale ?? 1;
      scored = matches.map((m) => ({ productId: m.productId, score: clamp01(m.score * scale) }));
    }

    let rows = new Map<string, ProductRow>();
    if (rerank && scored.length > 0) {
      rows = new Map((await this.products.findMany(storeId, scored.map((s) => s.productId))).map((r) => [r.product_id, r]));
      for (const s of scored) {
        const row = rows.get(s.productId);
        if (!row) continue;
        if (colors.length > 0 && plan.vectors.length > 0) {
          s.score = (1 - HYBRID_COLOR_WEIGHT) * s.score + HYBRID_COLOR_WEIGHT * colorScore(colors, JSON.parse(row.dominant_colors));
        }
        if (plan.boostCategory && row.category !== null && row.category.toLowerCase() === plan.boostCategory.toLowerCase()) {
          s.score = s.score + (1 - s.score) * FUSION_CATEGORY_BOOST;
        }
      }
    }
    if (plan.multi !== "union") scored.sort((a, b) => b.score - a.score || (a.productId < b.productId ? -1 : 1));
    const page = scored.filter((s) => s.score >= c.threshold).slice(0, c.limit);

    const missing = page.filter((s) => !rows.has(s.productId)).map((s) => s.productId);
    if (missing.length > 0) for (const r of await this.products.findMany(storeId, missing)) rows.set(r.product_id, r);
    const results: SearchResult[] = page
      .filter((s) => rows.has(s.productId))
      .map((s) => ({ product_id: s.productId, similarity_score: round(s.score), metadata: JSON.parse(rows.get(s.productId)!.metadata) }));

    const searchId = uuid();
    const queryTimeMs = Math.round(performance.now() - plan.startedAt);
    const { limit: _l, threshold: _t, ...filterFields } = c;
    if (source === null) return { query_time_ms: queryTimeMs, count: results.length, results, search_id: searchId };
    historyWriter(this.ctx).add(storeId, {
      id: searchId,
      mode: plan.mode,
      query_text: plan.queryText ?? null,
      query_summary: JSON.stringify(plan.summary),
      filters: JSON.stringify({ ...filterFields, limit: c.limit, threshold: c.threshold }),
      results: JSON.stringify(results.map((r, i) => ({ product_id: r.product_id, rank: i + 1, score: r.similarity_score }))),
      result_count: results.length,
      latency_ms: queryTimeMs,
      source,
      created_at: this.ctx.clock.now(),
    });
    return { query_time_ms: queryTimeMs, count: results.length, results, search_id: searchId };
  }
}
