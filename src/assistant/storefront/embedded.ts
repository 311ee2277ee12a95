// The embedded catalogue: the store's own products in the Search API (the default when no
// storefront is connected).
//
// Matching: with `q`, the Search API's text search (SearchService.text: CLIP text → image
// similarity, ranked; recording no Search API search history) with the filters as its pre-filters; when the embedding model is not loaded
// the match is lexical (every word of `q` looked up in name, category, brand, colour and
// metadata; ranked by words matched). Without `q`, the filtered catalogue in indexing order.
// Filters: category_id → metadata.category (any of, ignoring case); color → the Search colour
// filter (metadata.color_name or a dominant colour within ΔE00 15; any of the given colours);
// size → metadata.size (any of, ignoring case); sku → metadata.sku.
// Published: every product except those whose metadata says `published: false` or
// `status: "draft" | "archived"`.
//
// Live read: a fresh read of the products table at request time. Price: the `price` column
// (metadata.price, in major units of the store currency from settings) → minor units; null →
// unavailable. Stock: metadata `inventory_quantity`, else `stock`, else `quantity` (a number:
// ≤ 0 out of stock, ≤ 5 low stock, else in stock, with the quantity), else `in_stock` /
// `available` (a boolean: in or out of stock); none of these → availability unavailable.
import type { AppContext } from "../../platform/context.js";
import { AppError, isAppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import { toMinor } from "../../search/feedback/currency.js";
import { colorMatches, parseColorFilter, sqlConditions, type MetadataFilter, type SearchFilters } from "../../search/search/filters.js";
import { SearchService } from "../../search/search/service.js";
import { rawIdsOf, stockFromQuantity, toCardId, type Candidate, type CatalogConnector, type LiveRead } from "./connector.js";
import { anyTermCondition, StorefrontRepository, type CatalogRow } from "./repository.js";
import { StorefrontUnavailable, type ActionRequest, type ActionResult, type CatalogQuery, type OrderSummary, type StockState } from "./types.js";

export const EMBEDDED_SOURCE = "shopsight_catalog";
/** Products scanned at most for a lexical or filter-only match. */
const SCAN_LIMIT = 5000;
const PAGE = 500;
const MAX_ORDERS = 20;

const PUBLISHED: MetadataFilter[] = [
  { field: "published", operator: "ne", value: false },
  { field: "status", operator: "nin", value: ["draft", "archived"] },
];

interface Ref {
  raw: string;
}

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

export function stockOf(meta: Record<string, unknown>): { state: StockState; quantity?: number } | null {
  for (const key of ["inventory_quantity", "stock", "quantity"]) {
    const v = meta[key];
    if (typeof v === "number" && Number.isFinite(v)) return stockFromQuantity(Math.trunc(v));
  }
  for (const key of ["in_stock", "available"]) {
    const v = meta[key];
    if (typeof v === "boolean") return { state: v ? "in_stock" : "out_of_stock" };
  }
  return null;
}

const words = (q: string): string[] => [...new Set(q.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 2))].slice(0, 12);

export class EmbeddedConnector implements CatalogConnector {
  readonly source = EMBEDDED_SOURCE;
  private readonly repo: StorefrontRepository;
  private readonly search: SearchService;

  constructor(
    private readonly ctx: AppContext,
    private readonly storeId: string,
    private readonly currency: string,
  ) {
    this.repo = new StorefrontRepository(ctx.database.db, ctx.database.dialect);
    this.search = new SearchService(ctx);
  }

  private unavailable(e: unknown): never {
    if (e instanceof StorefrontUnavailable || isAppError(e)) throw e;
    throw new StorefrontUnavailable(EMBEDDED_SOURCE, `The catalogue could not be read: ${(e as Error).message}`);
  }

  private filters(query: CatalogQuery): SearchFilters {
    const m: MetadataFilter[] = [...PUBLISHED];
    if (query.category_id?.length) m.push({ field: "category", operator: "in", value: query.category_id });
    if (query.size?.length) m.push({ field: "size", operator: "in", value: query.size });
    if (query.sku !== undefined) m.push({ field: "sku", operator: "eq", value: query.sku });
    return { metadata_filters: m };
  }

  private candidate(row: CatalogRow): Candidate {
    const meta = parseMeta(row.metadata);
    const title = typeof meta.name === "string" ? meta.name : (row.name ?? row.product_id);
    const url = typeof meta.url === "string" ? meta.url : null;
    return { product_id: toCardId(row.product_id), title, image_url: row.image_url, url, ref: { raw: row.product_id } satisfies Ref };
  }

  async match(query: CatalogQuery, depth: number): Promise<Candidate[]> {
    try {
      const filters = this.filters(query);
      const colors = query.color ?? [];
      if (query.q !== undefined && query.q.trim() !== "" && this.ctx.model) {
        const ranked = await this.semantic(query.q, filters, colors, depth);
        if (ranked) return ranked;
      }
      return await this.scan(query.q, filters, colors, depth);
    } catch (e) {
      this.unavailable(e);
    }
  }

  /**
   * Text search through the Search API's engine; null when the model cannot embed (lexical
   * fallback). Source null: no Search API history row (assistant searches are not Search API
   * searches and stay out of its analytics).
   */
  private async semantic(q: string, filters: SearchFilters, colors: string[], depth: number): Promise<Candidate[] | null> {
    const runs = colors.length === 0 ? [undefined] : colors;
    const best = new Map<string, number>();
    try {
      for (const color of runs) {
        const res = await this.search.text(this.storeId, q, { ...filters, ...(color ? { color } : {}), limit: depth, threshold: 0 }, null);
        for (const r of res.results) best.set(r.product_id, Math.max(best.get(r.product_id) ?? -1, r.similarity_score));
      }
    } catch (e) {
      if (isAppError(e) && e.code === "model_unavailable") return null;
      throw e;
    }
    const ids = [...best].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, depth).map(([id]) => id);
    const rows = new Map((await this.repo.catalogRows(this.storeId, ids)).map((r) => [r.product_id, r]));
    return ids.flatMap((id) => {
      const row = rows.get(id);
      return row && isPublished(parseMeta(row.metadata)) ? [this.candidate(row)] : [];
    });
  }

  /** Filtered catalogue in indexing order; with `q`, lexical: ranked by the number of words found. */
  private async scan(q: string | undefined, filters: SearchFilters, colors: string[], depth: number): Promise<Candidate[]> {
    const terms = q ? words(q) : [];
    if (q && q.trim() !== "" && terms.length === 0) return [];
    const conds = sqlConditions(this.ctx.database.dialect, filters);
    if (terms.length > 0) conds.push(anyTermCondition(this.ctx.database.dialect, terms));
    const colorFilters = colors.map(parseColorFilter);
    const found: Array<{ row: CatalogRow; score: number }> = [];
    for (let offset = 0; offset < SCAN_LIMIT; offset += PAGE) {
      const page = await this.repo.catalogPage(this.storeId, conds, PAGE, offset);
      for (const row of page) {
        if (colorFilters.length > 0) {
          const dominant = JSON.parse(row.dominant_colors) as { hex: string; share: number }[];
          if (!colorFilters.some((f) => colorMatches(f, row.color_name, dominant))) continue;
        }
        let score = 0;
        if (terms.length > 0) {
          const hay = `${row.name ?? ""} ${row.category ?? ""} ${row.brand ?? ""} ${row.color_name ?? ""} ${row.metadata}`.toLowerCase();
          score = terms.filter((t) => hay.includes(t)).length;
        }
        found.push({ row, score });
      }
      // Without words the order is the table's: stop as soon as the page is full.
      if (page.length < PAGE || (terms.length === 0 && found.length >= depth)) break;
    }
    if (terms.length > 0) found.sort((a, b) => b.score - a.score);
    return found.slice(0, depth).map((f) => this.candidate(f.row));
  }

  async readLive(candidates: Candidate[]): Promise<Map<string, LiveRead>> {
    const out = new Map<string, LiveRead>();
    try {
      const raws = candidates.map((c) => (c.ref as Ref).raw);
      const rows = new Map((await this.repo.liveRows(this.storeId, raws)).map((r) => [r.product_id, r]));
      const readAt = this.ctx.clock.now();
      for (const c of candidates) {
        const row = rows.get((c.ref as Ref).raw);
        if (!row) continue; // deleted since matching: not read
        const meta = parseMeta(row.metadata);
        const price = row.price !== null && Number.isFinite(Number(row.price)) && Number(row.price) >= 0 ? { amount_minor: toMinor(Number(row.price), this.currency), currency: this.currency } : null;
        out.set(c.product_id, { price, availability: stockOf(meta), read_at: readAt });
      }
    } catch (e) {
      this.unavailable(e);
    }
    return out;
  }

  async orders(customerId: string): Promise<OrderSummary[]> {
    try {
      const rows = await this.repo.ordersOf(this.storeId, customerId, MAX_ORDERS);
      return rows.map((r) => ({
        order_id: r.order_id,
        status: r.status,
        placed_at: new Date(Number(r.placed_at)).toISOString(),
        total: { amount_minor: Number(r.total_minor), currency: r.currency },
        items: (JSON.parse(r.items) as Array<{ product_id: string; title: string; quantity: number }>).map((i) => ({
          product_id: toCardId(i.product_id),
          title: i.title,
          quantity: i.quantity,
        })),
      }));
    } catch (e) {
      this.unavailable(e);
    }
  }

  /** The raw product row a card id stands for, when it exists and is published. */
  private async product(cardId: string): Promise<CatalogRow | undefined> {
    const rows = await this.repo.catalogRows(this.storeId, rawIdsOf(cardId));
    for (const raw of rawIdsOf(cardId)) {
      const row = rows.find((r) => r.product_id === raw);
      if (row && isPublished(parseMeta(row.metadata))) return row;
    }
    return undefined;
  }

  async runAction(session: { sessionId: string; customerId: string | null }, action: ActionRequest): Promise<ActionResult> {
    if (action.name === "add_to_cart") return this.addToCart(session.sessionId, action.arguments);
    return this.startReturn(session, action.arguments);
  }

  private async addToCart(sessionId: string, args: Record<string, string | number>): Promise<ActionResult> {
    const productId = String(args.product_id ?? "");
    const quantity = args.quantity === undefined ? 1 : Number(args.quantity);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 100) throw new AppError("validation_failed", "quantity must be an integer from 1 to 100.");
    const variantId = args.variant_id === undefined ? null : String(args.variant_id);
    const row = await this.product(productId);
    if (!row) throw new AppError("not_found", "No such product in the store's published catalogue.");
    const cardId = toCardId(row.product_id);
    return this.ctx.database.transaction(async (tx) => {
      const repo = new StorefrontRepository(tx, this.ctx.database.dialect);
      const now = this.ctx.clock.now();
      const cart = await repo.findCart(this.storeId, sessionId, EMBEDDED_SOURCE);
      const lines = cart ? (JSON.parse(cart.lines) as Array<{ product_id: string; variant_id: string | null; quantity: number }>) : [];
      const same = lines.find((l) => l.product_id === cardId && l.variant_id === variantId);
      if (same) same.quantity += quantity;
      else lines.push({ product_id: cardId, variant_id: variantId, quantity });
      const id = cart?.id ?? prefixedId("cart");
      if (cart) await repo.updateCart(this.storeId, id, { lines: JSON.stringify(lines), external_id: null, updated_at: now });
      else await repo.insertCart(this.storeId, { id, session_id: sessionId, source: EMBEDDED_SOURCE, external_id: null, lines: JSON.stringify(lines), created_at: now, updated_at: now });
      return {
        name: "add_to_cart" as const,
        status: "completed" as const,
        result: { cart_id: id, product_id: cardId, quantity, line_count: lines.length, item_count: lines.reduce((n, l) => n + l.quantity, 0) },
      };
    });
  }

  private async startReturn(session: { sessionId: string; customerId: string | null }, args: Record<string, string | number>): Promise<ActionResult> {
    if (!session.customerId) throw new AppError("forbidden", "Returns need a signed-in customer session (POST /v1/sessions/exchange).");
    const orderId = String(args.order_id ?? "");
    const order = await this.repo.findOrder(this.storeId, orderId);
    if (!order || order.customer_id !== session.customerId) throw new AppError("not_found", "No such order for this customer.");
    const id = prefixedId("ret");
    await this.repo.insertReturn(this.storeId, {
      id,
      session_id: session.sessionId,
      customer_id: session.customerId,
      order_id: orderId,
      product_id: args.product_id === undefined ? null : toCardId(String(args.product_id)),
      quantity: args.quantity === undefined ? null : Number(args.quantity),
      reason: args.reason === undefined ? null : String(args.reason).slice(0, 500),
      status: "requested",
      source: EMBEDDED_SOURCE,
      external_id: null,
      created_at: this.ctx.clock.now(),
    });
    return { name: "start_return", status: "completed", result: { return_id: id, order_id: orderId, status: "requested" } };
  }
}
