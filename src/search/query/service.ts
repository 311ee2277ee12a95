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
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { timeOrderedUuid } from "../../platform/ids.js";
import type { SearchStage } from "../../platform/metrics.js";
import { hexToLab, type Lab } from "../../embeddings/colors.js";
import type { Region } from "../../embeddings/image.js";
import type { DecodedImage } from "../../embeddings/types.js";
import { ProductsRepository, type ProductRow } from "../products/repository.js";
import { colorMatches, colorScore, dominantOf, hasFilters, parseColorFilter, validateFilters, type SearchFilters } from "./filters.js";
import {
  byScore,
  coverageBounds,
  coversWordShare,
  fuse,
  lexicalShare,
  rankByCoverage,
  reRankInScoreOrder,
  type FusionMethod,
  type Scored,
} from "./fusion.js";
import { LexicalRepository, type LexicalHit } from "../../lexical/repository.js";
import { StoreLexicon } from "../../lexical/lexicon.js";
import { brandAcronyms } from "../../lexical/acronyms.js";
import { englishWords } from "../../lexical/dictionary.js";
import { analyseQuery, contentWords, correctedText, type AnalysedQuery } from "../../lexical/query.js";
import { BUILTIN_SYNONYMS, synonymMap } from "../../lexical/synonyms/index.js";
import { askedKindUnsold } from "../../lexical/kinds.js";
import { wordNetNouns } from "../../lexical/wordnet.js";
import type { SynonymsRepository } from "../synonyms/repository.js";
import { arrange, type Merchandising } from "../rules/apply.js";
import type { RulesService } from "../rules/service.js";
import { storeCached } from "../cache/store-cache.js";
import { modelStatus } from "./model.js";
import { SearchRepository } from "./repository.js";
import { pricePhrases, understandQuery, type Understanding } from "./understand.js";
import { storeCategories } from "./categories.js";
import { historyWriter } from "./history-writer.js";
import { dominantColorsOf, filterCandidates } from "./memory-filter.js";
import type { ProductAttributes } from "../../vectors/attributes.js";
import { isDeferred, passing, type Candidates } from "../../vectors/candidates.js";
import type { SearchResponseSchema } from "./schemas.js";
import type { Static } from "typebox";

export const SEARCH_MODES = ["upload", "url", "text", "hybrid", "fusion", "multi-image", "crop", "filtered"] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
export type MultiMode = "average" | "union" | "best";

export const FUSION_CATEGORY_BOOST = 0.1;
export const HYBRID_COLOR_WEIGHT = 0.25;
/** Boost of a result matching a colour or category understood in the query: s + (1 − s) × 0.15 each. */
export const UNDERSTOOD_BOOST = 0.15;

/** How lexical evidence joins the visual one (request fields `semantic_weight`, `fusion_method`). */
export interface TextRanking {
  /** 0 = pure lexical, 1 = pure visual (embedding); undefined = the model's default. */
  semantic_weight?: number | undefined;
  fusion_method?: FusionMethod | undefined;
}

/**
 * Query understanding of text search (request field `understand`): off, or colours/categories as
 * boosts or filters; auto (the default) boosts like boost and echoes query_understanding only when
 * the query held a colour, category or price phrase.
 */
export type UnderstandMode = "off" | "auto" | "boost" | "filter";

/** The query understanding of a search response (present when the request asked for it). */
export type QueryUnderstanding = NonNullable<SearchResponse["query_understanding"]>;

export interface Common extends SearchFilters {
  limit: number;
  threshold: number;
}

export type SearchResponse = Static<typeof SearchResponseSchema>;
export type SearchResult = SearchResponse["results"][number];

/**
 * Where a search came from, kept in its history row: "api" (machine grants and API keys: the
 * store's backend), "portal" (a user login: the portal's playground, or a person's own token),
 * "widget" (the storefront widget).
 */
export type SearchSource = "api" | "portal" | "widget";
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
  /** Lexical evidence: the text to look up and its share of the score (0–1; 1 = lexical only, no vectors). */
  lexical?: { text: string; weight: number; method: FusionMethod };
  /** Understood colours and categories to boost. */
  boost?: { colors: string[]; categories: string[] };
  /** The lexical lookup when the mode started it already (text: beside the query's embedding). */
  lexicalHits?: Promise<LexicalLookup>;
  /** The rows of those hits when they are few, read as soon as they are known (see hitRowsOf). */
  hitRows?: Promise<ProductRow[]>;
  /** The filter's candidates when the mode already computed them (fusion, text), so run() does not again. */
  candidates?: Awaited<ReturnType<typeof filterCandidates>> | undefined;
  /** false: merchandising rules apply but their hits are not counted (the assistant's further colour runs). */
  countRules?: boolean;
  understanding?: QueryUnderstanding;
}

/** The lexical evidence of a text (see lexicalLookup). */
interface LexicalLookup {
  hits: LexicalHit[];
  partial: boolean;
  /** The query's word groups found in the store's vocabulary. */
  groups: number;
  /** The query's content words (groups and the words the store lacks). */
  words: number;
  /** The query with its typos corrected (did_you_mean), or null. */
  corrected: string | null;
}

/** What run() hands its stages: the filter's candidates, the rules met, the evidence and the first stage's depth. */
interface Ranking {
  candidates: Candidates | undefined;
  merch: Merchandising | null;
  colors: Lab[];
  lex: Plan["lexical"] | undefined;
  boost: Plan["boost"] | undefined;
  /** The first stage's depth: the page, or the fused depth when results are re-ranked, fused or merchandised. */
  k: number;
}

/** The first stage's answer: the products scored, and the lexical evidence when there was any. */
interface Retrieval {
  scored: Scored[];
  lexical: LexicalLookup | undefined;
}

/** The `fusion` stage's clock: when its current part began, and the time spent on it before. */
interface FusionClock {
  from: number;
  spent: number;
}

/** A product of the page: its score, and whether a merchandising rule pinned it there. */
interface PageEntry {
  productId: string;
  score: number;
  pinned: boolean;
}

/** The ids of `items`, as a set. */
function productIds(items: readonly { productId: string }[]): Set<string> {
  const ids = new Set<string>();
  for (const item of items) ids.add(item.productId);
  return ids;
}

/**
 * A search's filters as its history row keeps them: the request's filter fields, then limit and
 * threshold. Copied key by key: object rest and spread cost ~3 µs a search here, the loop ~0.35.
 */
function filtersJson(c: Common): string {
  const row: Record<string, unknown> = {};
  for (const key of Object.keys(c)) if (key !== "limit" && key !== "threshold") row[key] = c[key as keyof Common];
  row.limit = c.limit;
  row.threshold = c.threshold;
  return JSON.stringify(row);
}

/** Depth of the first stage when results are re-ranked or fused: deeper than the page. */
const fusedDepth = (limit: number) => Math.max(100, limit * 5);
/**
 * Depth of the visual stage of a coverage-ranked text search with a boost (a category or colour
 * understood in the query): five pages of products that are not lexical hits (without a boost, a
 * page of them). A boost lifts a product matching no word of the query over others, so it may come
 * from below the page, but it still needs the relevance bar's similarity and a place among the
 * page's products matching no word. Measured on the shopper query sets (eval/search/queries,
 * fashion-clip-small on the test split, docs/benchmarks.md "the nearest apart from the hits"): at
 * five pages apart from the hits instead of the fused depth of 100, no first page of 10 of the
 * 6,429 held other products, and 52 changed their order within the page (the visual similarities
 * are calibrated over the depth read).
 */
const BOOSTED_DEPTH_PAGES = 5;

/** Products re-ranking reads at a time, in score order (reRankInScoreOrder): two pages, at least 20. */
const readStep = (limit: number) => Math.max(2 * limit, 20);

/** What re-ranking reads of a product (its category, colour name and dominant colours). */
interface RankFacts {
  category: string | null;
  colorName: string | null;
  dominant(): readonly { hex: string; share: number }[];
}
const rowFacts = (r: ProductRow): RankFacts => ({ category: r.category, colorName: r.color_name, dominant: () => dominantOf(r) });
const attributeFacts = (a: ProductAttributes): RankFacts => ({
  category: a.category,
  colorName: a.colorName,
  dominant: () => dominantColorsOf(a),
});

/** One boost of the re-ranking (reRank()): `share` of the way from `score` to 1. */
const lift = (score: number, share: number) => score + (1 - score) * share;

/** The highest score the re-ranking (reRank()) gives a product scored `score` when it meets every boost (no colour re-score). */
export function boostCeiling(
  score: number,
  boostCategory: string | null | undefined,
  boost: { colors: readonly string[]; categories: readonly string[] } | undefined,
): number {
  let s = score;
  if (boostCategory) s = lift(s, FUSION_CATEGORY_BOOST);
  for (let i = 0; i < (boost?.colors.length ?? 0) + (boost && boost.categories.length > 0 ? 1 : 0); i++) s = lift(s, UNDERSTOOD_BOOST);
  return s;
}
/** A product row's dominant colours (stored as JSON). */
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
  private readonly lexical: LexicalRepository;
  private readonly synonyms: SynonymsRepository;
  private readonly rules: RulesService;

  constructor(
    private readonly ctx: AppContext,
    deps: {
      repo: SearchRepository;
      products: ProductsRepository;
      lexical: LexicalRepository;
      synonyms: SynonymsRepository;
      rules: RulesService;
    },
  ) {
    this.repo = deps.repo;
    this.products = deps.products;
    this.lexical = deps.lexical;
    this.synonyms = deps.synonyms;
    this.rules = deps.rules;
  }

  /** The store's lexicon: its words and synonyms (built-in and its own), cached (store-cache.ts). */
  lexicon(storeId: string): Promise<StoreLexicon> {
    return storeCached(this.ctx, "lexicon", storeId, async () => {
      // WordNet is read with the first lexicon too (kinds.ts asks it), as the English dictionary is;
      // the categories are query understanding's cached vocabulary (one read for both).
      // The short forms of its brands (acronyms.ts) come before the store's own entries, which add to them.
      const [terms, own, dictionary, , categories, brands] = await Promise.all([
        this.lexical.terms(storeId),
        this.synonyms.list(storeId),
        englishWords(),
        wordNetNouns(),
        storeCategories(this.ctx, this.repo, storeId),
        this.repo.brands(storeId),
      ]);
      const vocabulary = new Set(terms);
      const entries = [...brandAcronyms(brands, { has: (w) => vocabulary.has(w), isWord: dictionary }), ...own];
      return new StoreLexicon(
        terms,
        entries.length > 0 ? synonymMap(entries, BUILTIN_SYNONYMS) : BUILTIN_SYNONYMS,
        dictionary,
        categories.phrases.map((p) => p.value),
      );
    });
  }

  /** `text` analysed in the store's lexicon: word groups with typo alternatives and synonyms (src/lexical/query.ts). */
  async analyse(storeId: string, text: string): Promise<AnalysedQuery> {
    return analyseQuery(text, await this.lexicon(storeId));
  }

  /** Candidate filtering is a replica-eligible read (DATABASE_READ_URLS; src/platform/db/replicas.ts). */
  private reader(storeId: string): SearchRepository {
    return this.repo.with(this.ctx.database.reader(storeId));
  }

  /** The weight and method in force for a request (defaults: the active model's, see model.ts). */
  private ranking(r: TextRanking): { weight: number; method: FusionMethod } {
    const status = modelStatus(this.ctx);
    return { weight: r.semantic_weight ?? status.default_semantic_weight, method: r.fusion_method ?? status.default_fusion_method };
  }

  /**
   * Records a search stage for GET /metrics (shopsight_search_stage_duration_seconds): the time
   * since `startedAt` (performance.now() when the stage began) plus `spentMs` spent on it before.
   */
  private observe(stage: SearchStage, startedAt: number, spentMs = 0): void {
    this.ctx.metrics.observeSearchStage(stage, (performance.now() - startedAt + spentMs) / 1000);
  }

  /** `work` recorded as `stage` from `startedAt` (taken before the work began) to its end, failed or not. */
  private async timed<T>(stage: SearchStage, startedAt: number, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } finally {
      this.observe(stage, startedAt);
    }
  }

  /**
   * The store's lexical hits for `text` at the depth of fused ranking (see run()). Beside visual
   * evidence (`visual`), the words as given are enough when any product holds them all: the
   * visual candidates fill the rest of the page, so the engine's wider passes (the last word as a
   * prefix, then any word: LexicalRepository.search) run only when the words match nothing. Alone
   * (semantic_weight 0) they run whenever fewer products than the page hold every word.
   */
  /** The store's products that pass the request's filters (undefined: no filter asked). */
  private candidatesOf(storeId: string, c: Common): Promise<Candidates> | undefined {
    return hasFilters(c)
      ? this.timed("filter", performance.now(), filterCandidates(this.ctx, this.reader(storeId), storeId, c))
      : undefined;
  }

  /**
   * The text's word groups in the store's lexicon (src/lexical/query.ts) and their lexical hits,
   * recorded as the `lexical` stage with `spentMs` (the query's understanding and analysis done before).
   */
  private async lexicalLookup(
    storeId: string,
    query: string | AnalysedQuery,
    limit: number,
    visual: boolean,
    candidates?: Candidates,
    spentMs = 0,
  ): Promise<LexicalLookup> {
    const startedAt = performance.now();
    try {
      const analysed = typeof query === "string" ? await this.analyse(storeId, query) : query;
      const found = await this.lexical.search(storeId, analysed.groups, fusedDepth(limit), candidates, visual ? 1 : limit);
      return {
        ...found,
        groups: analysed.groups.length,
        words: contentWords(analysed),
        corrected: analysed.corrected,
      };
    } finally {
      this.observe("lexical", startedAt, spentMs);
    }
  }

  // --- query inputs -------------------------------------------------------------------------
  private async imageVector(image: DecodedImage): Promise<Float32Array> {
    const [v] = await this.timed("embed", performance.now(), this.ctx.images.embed([image]));
    return v!;
  }

  private async textVector(text: string): Promise<Float32Array> {
    const [v] = await this.timed("embed", performance.now(), this.ctx.images.embedTexts([text]));
    return v!;
  }

  private urlImage(url: string, region?: Region): Promise<DecodedImage> {
    return this.ctx.images.decodeUrl(url, region);
  }

  // --- modes --------------------------------------------------------------------------------
  async upload(storeId: string, file: Buffer, c: Common, source: SearchSource = "api") {
    const startedAt = performance.now();
    const image = await this.ctx.images.decode(file);
    return this.run(
      storeId,
      c,
      { startedAt, mode: "upload", summary: { bytes: file.length }, vectors: [await this.imageVector(image)] },
      source,
    );
  }

  async url(storeId: string, imageUrl: string, c: Common, source: SearchSource = "api") {
    const startedAt = performance.now();
    const v = await this.imageVector(await this.urlImage(imageUrl));
    return this.run(storeId, c, { startedAt, mode: "url", summary: { image_url: imageUrl }, vectors: [v] }, source);
  }

  async text(
    storeId: string,
    query: string,
    c: Common,
    source: HistorySource = "api",
    options: TextRanking & { understand?: UnderstandMode | undefined; countRules?: boolean } = {},
  ) {
    const startedAt = performance.now();
    const { weight, method } = this.ranking(options);
    const mode = options.understand ?? "off";
    let common = c;
    let text = query;
    let understanding: QueryUnderstanding | undefined;
    let boost: Plan["boost"];
    // The query's understanding and analysis: the `lexical` stage's part before the lookup.
    let lexicalMs = 0;
    if (mode !== "off") {
      const understandFrom = performance.now();
      const phrases = pricePhrases(query);
      const [categories, names] = await Promise.all([
        storeCategories(this.ctx, this.repo, storeId),
        phrases.length > 0 ? this.lexical.namePhrases(storeId, phrases) : undefined,
      ]);
      const u: Understanding = understandQuery(query, categories, names, phrases);
      const found = u.colors.length > 0 || u.categories.length > 0 || u.price_min !== null || u.price_max !== null;
      if (mode !== "auto" || found) understanding = { ...u, applied_as: mode === "filter" ? "filter" : "boost" };
      text = u.remaining_text || query;
      common = { ...c };
      if (u.price_min !== null) common.price_min = Math.max(u.price_min, c.price_min ?? 0);
      if (u.price_max !== null) common.price_max = c.price_max === undefined ? u.price_max : Math.min(u.price_max, c.price_max);
      if (mode === "filter") {
        if (u.colors[0] && common.color === undefined) common.color = u.colors[0];
        if (u.categories[0] && common.category === undefined) common.category = u.categories[0];
      } else {
        boost = { colors: u.colors, categories: u.categories };
      }
      lexicalMs = performance.now() - understandFrom;
    }
    // The query's embedding (model worker) and its lexical lookup (this thread on SQLite, another
    // connection on PostgreSQL) run at the same time: fused latency is about the longer of the two.
    // The embedding of the query as typed is asked for first, so the worker has it while the words
    // are analysed (the store's cached lexicon, SearchService.lexicon) and looked up. When the words
    // have typos (did_you_mean) the corrected query is embedded instead: the text encoder knows
    // "black shirt", not "blak shrit".
    validateFilters(common);
    const asTyped = weight > 0 ? this.textVector(text) : undefined;
    asTyped?.catch(() => undefined); // replaced below when the query is corrected
    const analysisFrom = performance.now();
    const lexicon = weight < 1 ? await this.lexicon(storeId) : undefined;
    const analysis = lexicon ? analyseQuery(text, lexicon) : undefined;
    if (analysis) lexicalMs += performance.now() - analysisFrom;
    // did_you_mean is the whole query corrected, with the words understanding took out kept.
    const analysed = analysis && text !== query ? { ...analysis, corrected: correctedText(query, analysis.corrections) } : analysis;
    const embedding = asTyped && analysis?.corrected ? this.textVector(analysis.corrected) : asTyped;
    // A query for a kind of product the store does not sell ("red lipstick" in a clothing store;
    // src/lexical/kinds.ts) has no evidence here: no candidate passes.
    const unsold = lexicon !== undefined && askedKindUnsold(query, lexicon, await wordNetNouns());
    const candidates = unsold ? Promise.resolve(new Set<string>()) : this.candidatesOf(storeId, common);
    const lexicalHits =
      analysed && !unsold
        ? candidates === undefined
          ? this.lexicalLookup(storeId, analysed, common.limit, embedding !== undefined, undefined, lexicalMs)
          : candidates.then((ids) => this.lexicalLookup(storeId, analysed, common.limit, embedding !== undefined, ids, lexicalMs))
        : undefined;
    // Not on SQLite: there a read is tens of microseconds on the event loop, not a round trip, and
    // the embedded index answers re-ranking from memory, so reading early would only add reads of
    // hits the page may not show.
    const hitRows =
      lexicalHits && this.ctx.database.dialect === "postgres"
        ? lexicalHits.then((found) => this.hitRowsOf(storeId, found, common.limit))
        : undefined;
    if ((!analysed || unsold) && lexicalMs > 0) this.ctx.metrics.observeSearchStage("lexical", lexicalMs / 1000);
    // Awaited below or in run()'s stages; a failure of one must not go unhandled while the other is awaited.
    for (const p of [embedding, candidates, lexicalHits, hitRows]) p?.catch(() => undefined);
    const vectors = embedding ? [await embedding] : [];
    return this.run(
      storeId,
      common,
      {
        startedAt,
        mode: "text",
        summary: { query, semantic_weight: weight, ...(understanding ? { query_understanding: understanding } : {}) },
        queryText: query,
        vectors,
        lexical: { text, weight: 1 - weight, method },
        candidates: await candidates,
        ...(lexicalHits ? { lexicalHits } : {}),
        ...(hitRows ? { hitRows } : {}),
        ...(boost ? { boost } : {}),
        ...(understanding ? { understanding } : {}),
        ...(options.countRules === false ? { countRules: false } : {}),
      },
      source,
    );
  }

  async hybrid(
    storeId: string,
    input: {
      image_url?: string | undefined;
      query?: string | undefined;
      colors?: string[] | undefined;
      visual_weight: number;
    } & TextRanking,
    c: Common,
    source: SearchSource = "api",
  ) {
    const startedAt = performance.now();
    if (!input.image_url && !input.query && !(input.colors && input.colors.length > 0)) {
      throw new AppError("validation_failed", "Give at least one of image_url, query or colors.", {
        errors: [{ field: "image_url", message: "one of image_url, query, colors is required" }],
      });
    }
    const colors = (input.colors ?? []).map((hex) => hexToLab(hex.startsWith("#") ? hex : `#${hex}`)!);
    const { weight, method } = this.ranking(input);
    // Share of the vector evidence: the image's, plus the text's visual part.
    const vectorShare = input.query
      ? (input.image_url ? input.visual_weight : 0) + (1 - (input.image_url ? input.visual_weight : 0)) * weight
      : 1;
    const [img, txt] = await Promise.all([
      input.image_url ? this.urlImage(input.image_url).then((i) => this.imageVector(i)) : undefined,
      input.query && weight > 0 ? this.textVector(input.query) : undefined,
    ]);
    const plan: Plan = {
      startedAt,
      mode: "hybrid",
      summary: {
        image_url: input.image_url,
        query: input.query,
        colors: input.colors,
        visual_weight: input.visual_weight,
        semantic_weight: input.query ? weight : undefined,
      },
      queryText: input.query,
      vectors: [],
      colors,
      ...(input.query ? { lexical: { text: input.query, weight: 1 - vectorShare, method } } : {}),
    };
    if (img && txt) {
      const { v, norm } = blend(img, txt, input.visual_weight / vectorShare);
      plan.vectors = [v];
      plan.scale = norm;
    } else if (img ?? txt) {
      plan.vectors = [(img ?? txt)!];
    }
    return this.run(storeId, c, plan, source);
  }

  async fusion(
    storeId: string,
    input: { image_url: string; query: string; image_weight: number } & TextRanking,
    c: Common,
    source: SearchSource = "api",
  ) {
    const startedAt = performance.now();
    const { weight, method } = this.ranking(input);
    const vectorShare = input.image_weight + (1 - input.image_weight) * weight;
    // With semantic_weight 0 the text vector has no share in the blend: no model call for it.
    const [img, txt] = await Promise.all([
      this.urlImage(input.image_url).then((i) => this.imageVector(i)),
      weight > 0 ? this.textVector(input.query) : undefined,
    ]);
    const { v, norm } = vectorShare > 0 && txt ? blend(img, txt, input.image_weight / vectorShare) : { v: img, norm: 1 };
    const candidates = await this.candidatesOf(storeId, c);
    const [nearest] = await this.timed("vector", performance.now(), this.ctx.vectors.search(storeId, img, { k: 1, candidates }));
    const boostCategory = nearest ? ((await this.products.find(storeId, nearest.productId))?.category ?? null) : null;
    return this.run(
      storeId,
      c,
      {
        startedAt,
        mode: "fusion",
        summary: {
          image_url: input.image_url,
          query: input.query,
          image_weight: input.image_weight,
          semantic_weight: weight,
          boosted_category: boostCategory,
        },
        queryText: input.query,
        vectors: vectorShare > 0 ? [v] : [],
        scale: norm,
        boostCategory,
        lexical: { text: input.query, weight: 1 - vectorShare, method },
        candidates,
      },
      source,
    );
  }

  async multiImage(
    storeId: string,
    images: { urls?: string[]; files?: Buffer[] },
    multi: MultiMode,
    c: Common,
    source: SearchSource = "api",
  ) {
    const startedAt = performance.now();
    const decoded = await Promise.all([
      ...(images.urls ?? []).map((u) => this.urlImage(u)),
      ...(images.files ?? []).map((f) => this.ctx.images.decode(f)),
    ]);
    if (decoded.length < 2 || decoded.length > 10) {
      throw new AppError("validation_failed", "Give 2 to 10 images.", {
        errors: [{ field: "image_urls", message: "must hold 2 to 10 images" }],
      });
    }
    const vectors = await this.timed("embed", performance.now(), this.ctx.images.embed(decoded));
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

  async crop(
    storeId: string,
    input: { image_url?: string | undefined; file?: Buffer | undefined; region: Region },
    c: Common,
    source: SearchSource = "api",
  ) {
    const startedAt = performance.now();
    const image = input.file ? await this.ctx.images.decode(input.file, input.region) : await this.urlImage(input.image_url!, input.region);
    return this.run(
      storeId,
      c,
      {
        startedAt,
        mode: "crop",
        summary: { image_url: input.image_url, region: input.region },
        vectors: [await this.imageVector(image)],
      },
      source,
    );
  }

  async filtered(
    storeId: string,
    input: { image_url?: string | undefined; query?: string | undefined },
    c: Common,
    source: SearchSource = "api",
  ) {
    const startedAt = performance.now();
    if ((input.image_url === undefined) === (input.query === undefined)) {
      throw new AppError("validation_failed", "Give exactly one of image_url or query.", {
        errors: [{ field: "image_url", message: "exactly one of image_url, query is required" }],
      });
    }
    const v = input.image_url ? await this.imageVector(await this.urlImage(input.image_url)) : await this.textVector(input.query!);
    return this.run(
      storeId,
      c,
      {
        startedAt,
        mode: "filtered",
        summary: { image_url: input.image_url, query: input.query },
        queryText: input.query,
        vectors: [v],
      },
      source,
    );
  }

  /**
   * The page after the store's merchandising rules (src/search/rules/apply.ts): the ranking's
   * results above the threshold without hidden products, reordered by boost and bury, with pinned
   * products at their positions. A pinned product the ranking did not return is read from the
   * store when it passes the request's filters (score 0: no similarity was measured); one it did
   * return keeps its score, below the threshold or not. Rows read here join `rows`.
   */
  private async merchandise(
    storeId: string,
    c: Common,
    scored: readonly { productId: string; score: number }[],
    rows: Map<string, ProductRow>,
    m: Merchandising,
    candidates: Candidates | undefined,
  ): Promise<PageEntry[]> {
    const ranked = new Map(scored.map((s) => [s.productId, s]));
    const pinnable = new Map<string, { productId: string; score: number }>();
    const unranked: string[] = [];
    for (const p of m.pins) {
      const s = ranked.get(p.product_id);
      if (s) pinnable.set(p.product_id, s);
      else unranked.push(p.product_id);
    }
    if (unranked.length > 0) {
      const allowed = candidates ? await passing(candidates, unranked) : undefined;
      const ids = allowed ? unranked.filter((id) => allowed.has(id)) : unranked;
      for (const r of ids.length > 0 ? await this.products.findMany(storeId, ids) : []) {
        rows.set(r.product_id, r);
        pinnable.set(r.product_id, { productId: r.product_id, score: 0 });
      }
    }
    const organic = scored.filter((s) => s.score >= c.threshold);
    const metadata = new Map<string, unknown>();
    if (m.boost.length > 0 || m.bury.length > 0) {
      const unread = organic.filter((s) => !rows.has(s.productId)).map((s) => s.productId);
      if (unread.length > 0) for (const r of await this.products.findMany(storeId, unread)) rows.set(r.product_id, r);
    }
    const metaOf = (id: string) => {
      if (!metadata.has(id)) metadata.set(id, rows.has(id) ? JSON.parse(rows.get(id)!.metadata) : undefined);
      return metadata.get(id);
    };
    return arrange(organic, m, { limit: c.limit, pinnable, metaOf }).map((a) => ({
      productId: a.item.productId,
      score: a.item.score,
      pinned: a.pinned,
    }));
  }

  // --- engine -------------------------------------------------------------------------------
  // A search in stages, a method each: retrieval (retrieve and its branches), re-ranking
  // (reRank), the page (merchandise, or the threshold and limit) and its answer (present). Small
  // methods also keep V8's work small: a site that meets an object shape it has not seen before
  // costs its function a deoptimisation and a recompilation, which for the whole pipeline in one
  // method took 70–150 ms each time (docs/benchmarks.md, "where the rest of a search's CPU goes").
  private async run(storeId: string, c: Common, plan: Plan, source: HistorySource = "api"): Promise<SearchResponse> {
    validateFilters(c);
    const candidates = plan.candidates ?? (await this.candidatesOf(storeId, c));
    // The `fusion` stage: the rules' lookup here, then from the retrievals' end to the page (a
    // second vector lookup apart): merging, ranking, re-ranking, merchandising.
    const clock: FusionClock = { from: performance.now(), spent: 0 };
    // The store's merchandising rules the query meets (src/search/rules; cached per store).
    const merch = plan.queryText ? await this.rules.matching(storeId, plan.queryText) : null;
    clock.spent = performance.now() - clock.from;
    const colors = plan.colors ?? [];
    const lex = plan.lexical && plan.lexical.weight > 0 ? plan.lexical : undefined;
    const boost = plan.boost && (plan.boost.colors.length > 0 || plan.boost.categories.length > 0) ? plan.boost : undefined;
    // Re-ranking (colours, category boost, understood boosts), fusion and merchandising rules need a deeper first stage than the page.
    const rerank = colors.length > 0 || plan.boostCategory || boost;
    const k = rerank || lex || merch ? fusedDepth(c.limit) : c.limit;
    const ranking: Ranking = { candidates, merch, colors, lex, boost, k };
    clock.from = performance.now(); // each retrieval starts the clock again once it answered
    const { scored, lexical } = await this.retrieve(storeId, c, plan, ranking, clock);
    const rows = new Map<string, ProductRow>(plan.hitRows ? (await plan.hitRows).map((row) => [row.product_id, row]) : undefined);
    if (rerank && scored.length > 0) await this.reRank(storeId, c, plan, ranking, scored, rows);
    if (plan.multi !== "union") scored.sort(byScore);
    const page: PageEntry[] = merch
      ? await this.merchandise(storeId, c, scored, rows, merch, candidates)
      : scored
          .filter((s) => s.score >= c.threshold)
          .slice(0, c.limit)
          .map((s) => ({ productId: s.productId, score: s.score, pinned: false }));
    if (merch && plan.countRules !== false) this.rules.recordHits(storeId, merch.ruleIds);
    this.observe("fusion", clock.from, clock.spent);
    return this.present(storeId, c, plan, page, rows, lexical, merch, source);
  }

  /**
   * Re-ranking reads the rows of the best-scored products, and the page those of its products,
   * after the retrieval; covering hits rank first, so their rows are almost always read. When one
   * such read (readStep) holds all the hits, a text search on PostgreSQL reads them as soon as
   * they are known instead, on a connection of its own beside the embedding, off the path after
   * the model (bench:scale, a 1 % brand's ~3 hits at a million products: ~0.7 ms of the `fusion`
   * stage). More hits are read as ranking reaches them.
   */
  private hitRowsOf(storeId: string, found: LexicalLookup, limit: number): Promise<ProductRow[]> {
    const n = found.hits.length;
    if (n === 0 || n > readStep(limit)) return Promise.resolve([]);
    const ids = found.hits.map((h) => h.productId);
    return this.timed("hydrate", performance.now(), this.products.findMany(storeId, ids));
  }

  /** The lexical lookup the mode started already, else one now. */
  private lexicalOf(storeId: string, c: Common, plan: Plan, text: string, candidates: Candidates | undefined): Promise<LexicalLookup> {
    return plan.lexicalHits ?? this.lexicalLookup(storeId, text, c.limit, plan.vectors.length > 0, candidates);
  }

  /** The first stage: the products scored by the plan's evidence (visual, lexical, colour), unsorted. */
  private async retrieve(storeId: string, c: Common, plan: Plan, r: Ranking, clock: FusionClock): Promise<Retrieval> {
    const { candidates, lex } = r;
    if (candidates && candidates.size === 0) return { scored: [], lexical: undefined };
    if (lex && plan.vectors.length === 0) {
      // Lexical evidence only (semantic_weight 0).
      const lexical = await this.lexicalOf(storeId, c, plan, lex.text, candidates);
      clock.from = performance.now();
      const scored =
        lex.method === "coverage"
          ? rankByCoverage([], lexical.hits, { groups: lexical.groups, words: lexical.words, semanticWeight: 0, minVisual: 1 })
          : fuse([], lexical.hits, { weight: 1, method: lex.method });
      return { scored, lexical };
    }
    if (plan.vectors.length === 0) return { scored: await this.byColour(storeId, c, r, clock), lexical: undefined };
    if (plan.multi === "best" || plan.multi === "union") return { scored: await this.several(storeId, plan, r, clock), lexical: undefined };
    return this.visual(storeId, c, plan, r, clock);
  }

  /** Colours only: every candidate scored by colour. */
  private async byColour(storeId: string, c: Common, r: Ranking, clock: FusionClock): Promise<Scored[]> {
    const rows = await this.timed("filter", performance.now(), this.reader(storeId).filteredRows(storeId, c, true));
    clock.from = performance.now();
    // The rows pass the SQL filters; candidates in hand may also hold the colour filter's verdict.
    const allowed = r.candidates && !isDeferred(r.candidates) ? r.candidates : undefined;
    return rows
      .filter((row) => !allowed || allowed.has(row.product_id))
      .map((row) => ({ productId: row.product_id, score: colorScore(r.colors, dominantOf(row)) }));
  }

  /** Multi-image best (each product's highest similarity) and union (the lists interleaved rank by rank). */
  private async several(storeId: string, plan: Plan, r: Ranking, clock: FusionClock): Promise<Scored[]> {
    const { k, candidates } = r;
    const lists = await this.timed(
      "vector",
      performance.now(),
      Promise.all(plan.vectors.map((v) => this.ctx.vectors.search(storeId, v, { k, candidates }))),
    );
    clock.from = performance.now();
    const best = new Map<string, number>();
    if (plan.multi === "best") {
      for (const list of lists) for (const m of list) best.set(m.productId, Math.max(best.get(m.productId) ?? -1, m.score));
    } else {
      for (let rank = 0; rank < k; rank++) {
        for (const list of lists) {
          const m = list[rank];
          if (m && !best.has(m.productId)) best.set(m.productId, m.score);
        }
      }
    }
    return [...best].map(([productId, score]) => ({ productId, score: clamp01(score) }));
  }

  /** One query vector: its nearest products, fused with the lexical hits when the plan has lexical evidence. */
  private async visual(storeId: string, c: Common, plan: Plan, r: Ranking, clock: FusionClock): Promise<Retrieval> {
    const { candidates, lex, boost, merch, colors, k } = r;
    const query = plan.vectors[0]!;
    const scale = plan.scale ?? 1;
    // Text search's relevance bar (coverage ranking): results need a matched word or this visual similarity.
    const minVisual =
      plan.mode === "text" && (plan.lexical?.method ?? "coverage") === "coverage" ? modelStatus(this.ctx).visual_min_score : 0;
    const found = lex ? this.lexicalOf(storeId, c, plan, lex.text, candidates) : undefined;
    // Coverage ranking takes from the visual candidates only products matching no word of the
    // query, and those rank below every product covering the word share (coverageBounds) even
    // with every boost of the re-ranking below (boostCeiling; a colour re-score, which can lower
    // a score, rules this out). So when the lexical hits (looked up beside the embedding, done
    // by now) hold a page of such products, no nearest-neighbour search is made. The hits'
    // visual similarities, which break ties within a coverage, are read with the visual search
    // when the hits are in hand before it (VectorSearchOptions.also: PostgreSQL reads them beside
    // it, not after), else by id below.
    let depth = k;
    let also: Set<string> | undefined;
    if (lex?.method === "coverage" && !merch && colors.length === 0 && found) {
      const hits = await found;
      const share = { groups: hits.groups, words: hits.words };
      const bounds = coverageBounds(share);
      let covering = 0;
      for (const h of hits.hits) if (coversWordShare(h.coverage, share)) covering++;
      const boosted = boostCeiling(0, plan.boostCategory, boost) > 0;
      if (covering >= c.limit && boostCeiling(bounds.unmatched, plan.boostCategory, boost) < bounds.covering) depth = 0;
      // Without a boost, products matching no word keep their visual order: the page takes at
      // most `limit` of them, the nearest products that are not hits (the vector stage takes its
      // k nearest apart from the hits it is asked for by id: VectorSearchOptions.also). With a
      // boost, they may be lifted over others, but not from past a few pages (BOOSTED_DEPTH_PAGES).
      else depth = Math.min(k, boosted ? BOOSTED_DEPTH_PAGES * c.limit : c.limit);
      if (hits.hits.length > 0) also = productIds(hits.hits);
    }
    const [answer, lexical] = await Promise.all([
      // Past the page, the fused depth only feeds fusion and boosts: its similarities need not
      // be exact (VectorSearchOptions.exact; a product lifted onto the page from there shows a
      // similarity within 0.002 of the exact one).
      depth > 0 || also
        ? this.timed("vector", performance.now(), this.ctx.vectors.search(storeId, query, { k: depth, candidates, exact: c.limit, also }))
        : [],
      found,
    ]);
    clock.from = performance.now();
    const scored: Scored[] = [];
    for (const m of answer) if (!m.also) scored.push({ productId: m.productId, score: clamp01(m.score * scale) });
    if (!lex || !lexical) return { scored: minVisual > 0 ? scored.filter((s) => s.score >= minVisual) : scored, lexical };
    // Both fusions need the visual similarity of the lexical hits outside the visual candidates:
    // asked with the search (also: every hit, so none is missing) when the hits were in hand
    // before it, else by id now.
    const missing = new Set<string>();
    if (!also) {
      const seen = productIds(answer);
      for (const h of lexical.hits) if (!seen.has(h.productId)) missing.add(h.productId);
    }
    let asked = answer.filter((m) => m.also);
    if (missing.size > 0) {
      clock.spent += performance.now() - clock.from;
      const extra = await this.timed("vector", performance.now(), this.ctx.vectors.search(storeId, query, { k: 0, also: missing }));
      clock.from = performance.now();
      asked = [...asked, ...extra];
    }
    const visualOf = asked.length > 0 ? new Map(asked.map((m) => [m.productId, clamp01(m.score * scale)])) : undefined;
    return {
      scored:
        lex.method === "coverage"
          ? rankByCoverage(scored, lexical.hits, {
              groups: lexical.groups,
              words: lexical.words,
              semanticWeight: 1 - lex.weight,
              minVisual,
              ...(visualOf ? { visualOf } : {}),
            })
          : fuse(scored, lexical.hits, {
              weight: lexicalShare(lex.weight, lexical.partial),
              method: lex.method,
              ...(visualOf ? { visualOf } : {}),
            }),
      lexical,
    };
  }

  /**
   * Re-ranking, in place: the colour re-score, the category boost and the understood boosts each
   * scored product's row meets. The rows read for it join `rows`.
   */
  private async reRank(storeId: string, c: Common, plan: Plan, r: Ranking, scored: Scored[], rows: Map<string, ProductRow>): Promise<void> {
    const { colors, lex, boost, merch } = r;
    /** What re-ranking reads of a product: from its row, or from the fields the embedded index keeps in memory. */
    const facts = new Map<string, RankFacts>();
    const apply = (s: Scored): void => {
      const row = facts.get(s.productId);
      if (!row) return;
      if (colors.length > 0 && (plan.vectors.length > 0 || lex)) {
        s.score = (1 - HYBRID_COLOR_WEIGHT) * s.score + HYBRID_COLOR_WEIGHT * colorScore(colors, row.dominant());
      }
      if (plan.boostCategory && row.category !== null && row.category.toLowerCase() === plan.boostCategory.toLowerCase()) {
        s.score = lift(s.score, FUSION_CATEGORY_BOOST);
      }
      if (boost) {
        const dominant = row.dominant();
        for (const color of boost.colors) {
          if (colorMatches(parseColorFilter(color), row.colorName, dominant)) s.score = lift(s.score, UNDERSTOOD_BOOST);
        }
        if (row.category !== null && boost.categories.some((cat) => cat.toLowerCase() === row.category!.toLowerCase())) {
          s.score = lift(s.score, UNDERSTOOD_BOOST);
        }
      }
    };
    // Rows read already (a few hits', hitRowsOf), then the embedded index from memory; products
    // it does not hold (and PostgreSQL) from their rows.
    const read = async (part: readonly { productId: string }[]) => {
      const ids: string[] = [];
      for (const { productId } of part) {
        const row = rows.get(productId);
        if (row) facts.set(productId, rowFacts(row));
        else ids.push(productId);
      }
      const held = this.ctx.vectors.attributes?.(storeId, ids);
      for (const [id, a] of held ?? []) facts.set(id, attributeFacts(a));
      const unread = held ? ids.filter((id) => !held.has(id)) : ids;
      for (const row of unread.length > 0 ? await this.products.findMany(storeId, unread) : []) {
        rows.set(row.product_id, row);
        facts.set(row.product_id, rowFacts(row));
      }
    };
    // Understood and category boosts only lift a score, so the products are read in score order
    // only as deep as the page needs (reRankInScoreOrder), not all of the fused depth. A colour
    // re-score (which can lower a score), merchandising rules and union order (kept unsorted)
    // read them all at once.
    if (colors.length > 0 || merch !== null || plan.multi === "union") {
      await read(scored);
      for (const s of scored) apply(s);
      return;
    }
    await reRankInScoreOrder(scored, {
      limit: c.limit,
      threshold: c.threshold,
      step: readStep(c.limit),
      ceiling: (score) => boostCeiling(score, plan.boostCategory, boost),
      read,
      reRank: apply,
    });
  }

  /** The answer: the page's products with their metadata (the `hydrate` stage), and the search's history row. */
  private async present(
    storeId: string,
    c: Common,
    plan: Plan,
    page: readonly PageEntry[],
    rows: Map<string, ProductRow>,
    lexical: LexicalLookup | undefined,
    merch: Merchandising | null,
    source: HistorySource,
  ): Promise<SearchResponse> {
    const hydrateFrom = performance.now();
    const missing = page.filter((s) => !rows.has(s.productId)).map((s) => s.productId);
    if (missing.length > 0) for (const r of await this.products.findMany(storeId, missing)) rows.set(r.product_id, r);
    const results: SearchResult[] = page
      .filter((s) => rows.has(s.productId))
      .map((s) => ({
        product_id: s.productId,
        similarity_score: round(s.score),
        metadata: JSON.parse(rows.get(s.productId)!.metadata) as Record<string, unknown>,
        ...(s.pinned ? { pinned: true } : {}),
      }));
    this.observe("hydrate", hydrateFrom);

    const searchId = timeOrderedUuid(); // the search-history row's key, written on every search
    const queryTimeMs = Math.round(performance.now() - plan.startedAt);
    const echo = {
      ...(lexical?.corrected ? { did_you_mean: lexical.corrected } : {}),
      ...(plan.understanding ? { query_understanding: plan.understanding } : {}),
      ...(merch ? { applied_rules: merch.ruleIds } : {}),
    };
    if (source === null) return { query_time_ms: queryTimeMs, count: results.length, results, search_id: searchId, ...echo };
    // The `history` stage: the row built here and its share of the write after the reply (history-writer.ts).
    const historyFrom = performance.now();
    historyWriter(this.ctx).add(
      storeId,
      {
        id: searchId,
        mode: plan.mode,
        query_text: plan.queryText ?? null,
        query_summary: JSON.stringify(plan.summary),
        filters: filtersJson(c),
        results: JSON.stringify(results.map((r, i) => ({ product_id: r.product_id, rank: i + 1, score: r.similarity_score }))),
        result_count: results.length,
        latency_ms: queryTimeMs,
        source,
        created_at: this.ctx.clock.now(),
      },
      historyFrom,
    );
    return { query_time_ms: queryTimeMs, count: results.length, results, search_id: searchId, ...echo };
  }
}
