// The Search API's side of the assistant's catalogue port (src/shared/catalog-port.ts):
// the store's published products, matched by the Search API's own engine.
//
// Matching: with `q`, the Search API's text search (SearchService.text: lexical + visual ranking,
// recording no Search API search history) with the filters as its pre-filters. When the model is
// not loaded, a scan: `q`'s word groups as text search analyses them (the store's words with typo
// tolerance and synonyms, built-in and the store's own: SearchService.queryGroups) looked up in
// name, category, brand, colour and metadata, ranked by word coverage (src/lexical/query.ts); a
// product holding less than MIN_WORD_SHARE of the query's words (those the store lacks included;
// the rule of text search, fusion.ts) is left out, so "purple umbrella" in a store without umbrellas finds nothing.
// With `q`, the store's merchandising rules apply (src/search/rules): text search applies them,
// and the scan too (hidden products left out, boosted and buried ones moved, pinned ones placed,
// when published and passing the filters). Without `q`, the filtered catalogue in indexing order. Filters: category → metadata.category (any of, ignoring case); colours → the Search
// colour filter (metadata.color_name or a dominant colour within ΔE00 15; any of them);
// size → metadata.size (any of, ignoring case); sku → metadata.sku.
// Published: every product except those whose metadata says `published: false` or
// `status: "draft" | "archived"`.
import { sql, type SqlBool } from "kysely";
import type { AppContext } from "../../context/context.js";
import { isAppError } from "../../platform/errors/catalogue.js";
import type { CatalogLiveRow, CatalogMatch, CatalogPort, CatalogProduct } from "../../shared/catalog-port.js";
import { colorMatches, dominantOf, parseColorFilter, sqlConditions, type MetadataFilter, type SearchFilters } from "../query/filters.js";
import type { SearchService } from "../query/service.js";
import { anyTermCondition, type CatalogRepository, type CatalogRow } from "./repository.js";
import { contentWords, coverageOf, stemOf } from "../../lexical/query.js";
import { coversWordShare } from "../query/fusion.js";
import { arrange } from "../rules/apply.js";
import type { RulesService } from "../rules/service.js";
import { availabilityOf } from "../products/service.js";
import "../../embeddings/errors.js"; // registers the error codes thrown here

/** Products scanned at most for a lexical or filter-only match. */
const SCAN_LIMIT = 5000;
const PAGE = 500;

const PUBLISHED: MetadataFilter[] = [
  { field: "published", operator: "ne", value: false },
  { field: "status", operator: "nin", value: ["draft", "archived"] },
];

function parseMeta(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function isPublished(meta: Record<string, unknown>): boolean {
  if (meta.published === false) return false;
  const status = typeof meta.status === "string" ? meta.status.toLowerCase() : "";
  return status !== "draft" && status !== "archived";
}

/** What a scan looks for with LIKE: a word's stem where the stem begins the word ("dress" of "dresses"). */
function likeTerm(word: string): string {
  const stem = stemOf(word);
  let i = 0;
  while (i < stem.length && stem[i] === word[i]) i++;
  return i >= 3 ? word.slice(0, i) : word;
}

const product = (row: CatalogRow, meta = parseMeta(row.metadata)): CatalogProduct => ({
  product_id: row.product_id,
  image_url: row.image_url,
  name: row.name,
  metadata: meta,
});

export class SearchCatalog implements CatalogPort {
  constructor(
    private readonly ctx: AppContext,
    private readonly search: SearchService,
    private readonly repo: CatalogRepository,
    private readonly rules: RulesService,
  ) {}

  private filters(query: CatalogMatch): SearchFilters {
    const m: MetadataFilter[] = [...PUBLISHED];
    if (query.category?.length) m.push({ field: "category", operator: "in", value: query.category });
    if (query.size?.length) m.push({ field: "size", operator: "in", value: query.size });
    if (query.sku !== undefined) m.push({ field: "sku", operator: "eq", value: query.sku });
    return { metadata_filters: m };
  }

  async match(storeId: string, query: CatalogMatch, depth: number): Promise<CatalogProduct[]> {
    const filters = this.filters(query);
    const colors = query.colors ?? [];
    if (query.q !== undefined && query.q.trim() !== "" && this.ctx.model) {
      const ranked = await this.semantic(storeId, query.q, filters, colors, depth);
      if (ranked) return ranked;
    }
    return this.scan(storeId, query.q, filters, colors, depth);
  }

  async products(storeId: string, productIds: readonly string[]): Promise<CatalogProduct[]> {
    return (await this.repo.rows(storeId, productIds)).flatMap((row) => {
      const meta = parseMeta(row.metadata);
      return isPublished(meta) ? [product(row, meta)] : [];
    });
  }

  async live(storeId: string, productIds: readonly string[]): Promise<CatalogLiveRow[]> {
    return (await this.repo.liveRows(storeId, productIds)).map((r) => ({
      product_id: r.product_id,
      price: r.price,
      availability: availabilityOf(r),
      metadata: parseMeta(r.metadata),
    }));
  }

  /**
   * Text search through the Search API's engine; null when the model cannot embed (scan
   * fallback). Source null: no Search API history row (assistant searches are not Search API
   * searches and stay out of its analytics).
   */
  private async semantic(
    storeId: string,
    q: string,
    filters: SearchFilters,
    colors: string[],
    depth: number,
  ): Promise<CatalogProduct[] | null> {
    const runs = colors.length === 0 ? [undefined] : colors;
    const best = new Map<string, number>();
    // One run: the search's own order (merchandising rules applied, so not always by score).
    let order: string[] = [];
    try {
      for (const [i, color] of runs.entries()) {
        const res = await this.search.text(
          storeId,
          q,
          { ...filters, ...(color ? { color } : {}), limit: depth, threshold: 0 },
          null,
          i === 0 ? {} : { countRules: false }, // one assistant search: its rules' hits counted once
        );
        if (runs.length === 1) order = res.results.map((r) => r.product_id);
        for (const r of res.results) best.set(r.product_id, Math.max(best.get(r.product_id) ?? -1, r.similarity_score));
      }
    } catch (e) {
      if (isAppError(e) && e.code === "model_unavailable") return null;
      throw e;
    }
    // Several colours: the runs merged by score, then the rules applied to the merged list again
    // (each run applied them: hidden products are absent, pinned ones present where they passed).
    let ids = runs.length === 1 ? order : [...best].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
    const rows = new Map((await this.repo.rows(storeId, ids)).map((r) => [r.product_id, r]));
    const m = runs.length > 1 ? await this.rules.matching(storeId, q) : null;
    if (m) {
      const items = ids.map((productId) => ({ productId }));
      const pinned = new Set(m.pins.map((p) => p.product_id));
      ids = arrange(items, m, {
        limit: depth,
        pinnable: new Map(items.filter((i) => pinned.has(i.productId)).map((i) => [i.productId, i])),
        metaOf: (id) => parseMeta(rows.get(id)?.metadata ?? "{}"),
      }).map((a) => a.item.productId);
    }
    ids = ids.slice(0, depth);
    return ids.flatMap((id) => {
      const row = rows.get(id);
      if (!row) return [];
      const meta = parseMeta(row.metadata);
      return isPublished(meta) ? [product(row, meta)] : [];
    });
  }

  /** Filtered catalogue in indexing order; with `q`, lexical: ranked by the number of words found. */
  private async scan(
    storeId: string,
    q: string | undefined,
    filters: SearchFilters,
    colors: string[],
    depth: number,
  ): Promise<CatalogProduct[]> {
    const analysed = q && q.trim() !== "" ? await this.search.analyse(storeId, q) : undefined;
    const groups = analysed?.groups ?? [];
    if (analysed && groups.length === 0) return this.merchandised(storeId, q!, filters, colors, [], depth);
    // The minimum word share of text search (fusion.ts): a word the store lacks counts against it.
    const share = { groups: groups.length, words: analysed ? contentWords(analysed) : groups.length };
    const terms = [...new Set(groups.flatMap((g) => g.alternatives.flatMap((a) => a.words.map(likeTerm))))];
    const conds = sqlConditions(this.ctx.database.dialect, filters);
    if (terms.length > 0) conds.push(anyTermCondition(this.ctx.database.dialect, terms));
    const colorFilters = colors.map(parseColorFilter);
    const covered = coverageOf(groups);
    const found: Array<{ row: CatalogRow; score: number }> = [];
    for (let offset = 0; offset < SCAN_LIMIT; offset += PAGE) {
      const page = await this.repo.page(storeId, conds, PAGE, offset);
      for (const row of page) {
        if (colorFilters.length > 0) {
          const dominant = dominantOf(row);
          if (!colorFilters.some((f) => colorMatches(f, row.color_name, dominant))) continue;
        }
        let score = 0;
        if (groups.length > 0) {
          score = covered(`${row.name ?? ""} ${row.category ?? ""} ${row.brand ?? ""} ${row.color_name ?? ""} ${row.metadata}`).weight;
          if (score === 0 || !coversWordShare(score, share)) continue;
        }
        found.push({ row, score });
      }
      // Without words the order is the table's: stop as soon as the page is full.
      if (page.length < PAGE || (terms.length === 0 && found.length >= depth)) break;
    }
    if (terms.length > 0) found.sort((a, b) => b.score - a.score);
    if (q === undefined || q.trim() === "") return found.slice(0, depth).map((f) => product(f.row));
    return this.merchandised(
      storeId,
      q,
      filters,
      colors,
      found.map((f) => f.row),
      depth,
    );
  }

  /**
   * The scan's results for `q` after the store's merchandising rules (src/search/rules/apply.ts):
   * a pinned product the scan did not find is read when it passes the filters and colours.
   */
  private async merchandised(
    storeId: string,
    q: string,
    filters: SearchFilters,
    colors: string[],
    found: CatalogRow[],
    depth: number,
  ): Promise<CatalogProduct[]> {
    const m = await this.rules.matching(storeId, q);
    if (!m) return found.slice(0, depth).map((row) => product(row));
    this.rules.recordHits(storeId, m.ruleIds);
    const rows = new Map(found.map((r) => [r.product_id, r]));
    const unfound = m.pins.map((p) => p.product_id).filter((id) => !rows.has(id));
    if (unfound.length > 0) {
      const conds = sqlConditions(this.ctx.database.dialect, filters);
      conds.push(sql<SqlBool>`product_id IN (${sql.join(unfound)})`);
      const colorFilters = colors.map(parseColorFilter);
      for (const row of await this.repo.page(storeId, conds, unfound.length, 0)) {
        const dominant = dominantOf(row);
        if (colorFilters.length === 0 || colorFilters.some((f) => colorMatches(f, row.color_name, dominant))) rows.set(row.product_id, row);
      }
    }
    const items = found.map((row) => ({ productId: row.product_id, row }));
    const pinnable = new Map(
      m.pins.flatMap((p) => {
        const row = rows.get(p.product_id);
        return row ? [[p.product_id, { productId: p.product_id, row }] as const] : [];
      }),
    );
    return arrange(items, m, { limit: depth, pinnable, metaOf: (id) => parseMeta(rows.get(id)?.metadata ?? "{}") }).map((a) =>
      product(a.item.row),
    );
  }
}
