// The embedded catalogue: the store's own products in the Search API (the default when no
// storefront is connected), read only through the catalogue port (catalog-port.ts; matching and
// "published" are the port's, see src/search/catalog/port.ts).
//
// Live read: the port's fresh read of the product at request time. Price: the `price` column
// (metadata.price, in major units of the store currency from settings) → minor units; null →
// unavailable. Stock: the product's `availability` as the store stated it (product API, bulk
// upload, portal: its state, with its quantity when given); without one, metadata
// `inventory_quantity`, else `stock`, else `quantity` (a number: ≤ 0 out of stock, ≤ 5 low stock,
// else in stock, with the quantity), else `in_stock` / `available` (a boolean: in or out of
// stock); none of these → availability unavailable ("availability not checked" on the card).
import type { AppContext } from "../../context/context.js";
import { AppError, isAppError } from "../../platform/errors/catalogue.js";
import { iso } from "../../platform/clock.js";
import { prefixedId } from "../../platform/ids.js";
import { toMinor } from "../../tenancy/currency.js";
import type { CatalogLiveRow, CatalogPort, CatalogProduct } from "../../shared/catalog-port.js";
import { rawIdsOf, stockFromQuantity, toCardId, type Candidate, type CatalogConnector, type LiveRead } from "./connector.js";
import { StorefrontRepository, cartCounts, cartLines } from "./repository.js";
import {
  StorefrontUnavailable,
  type ActionRequest,
  type ActionResult,
  type CatalogQuery,
  type OrderSummary,
  type StockState,
} from "./types.js";

export const EMBEDDED_SOURCE = "shopsight_catalog";
const MAX_ORDERS = 20;

interface Ref {
  raw: string;
}

/** The live stock of a product: the availability the store stated, else what its metadata says. */
export function liveStockOf(row: Pick<CatalogLiveRow, "availability" | "metadata">): { state: StockState; quantity?: number } | null {
  const stated = row.availability;
  if (stated) return stated.quantity === null ? { state: stated.state } : { state: stated.state, quantity: stated.quantity };
  return stockOf(row.metadata);
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

export class EmbeddedConnector implements CatalogConnector {
  readonly source = EMBEDDED_SOURCE;
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: StorefrontRepository,
    private readonly catalog: CatalogPort,
    private readonly storeId: string,
    private readonly currency: string,
  ) {}

  private unavailable(e: unknown): never {
    if (e instanceof StorefrontUnavailable || isAppError(e)) throw e;
    throw new StorefrontUnavailable(EMBEDDED_SOURCE, `The catalogue could not be read: ${(e as Error).message}`);
  }

  private candidate(p: CatalogProduct): Candidate {
    const title = typeof p.metadata.name === "string" ? p.metadata.name : (p.name ?? p.product_id);
    const url = typeof p.metadata.url === "string" ? p.metadata.url : null;
    return { product_id: toCardId(p.product_id), title, image_url: p.image_url, url, ref: { raw: p.product_id } satisfies Ref };
  }

  async match(query: CatalogQuery, depth: number): Promise<Candidate[]> {
    try {
      const found = await this.catalog.match(
        this.storeId,
        { q: query.q, category: query.category_id, size: query.size, sku: query.sku, colors: query.color },
        depth,
      );
      return found.map((p) => this.candidate(p));
    } catch (e) {
      this.unavailable(e);
    }
  }

  async readLive(candidates: Candidate[]): Promise<Map<string, LiveRead>> {
    const out = new Map<string, LiveRead>();
    try {
      const raws = candidates.map((c) => (c.ref as Ref).raw);
      const rows = new Map((await this.catalog.live(this.storeId, raws)).map((r) => [r.product_id, r]));
      const readAt = this.ctx.clock.now();
      for (const c of candidates) {
        const row = rows.get((c.ref as Ref).raw);
        if (!row) continue; // deleted since matching: not read
        const price =
          row.price !== null && Number.isFinite(row.price) && row.price >= 0
            ? { amount_minor: toMinor(row.price, this.currency), currency: this.currency }
            : null;
        out.set(c.product_id, { price, availability: liveStockOf(row), read_at: readAt });
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
        placed_at: iso(r.placed_at),
        total: { amount_minor: r.total_minor, currency: r.currency },
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

  /** The published product a card id stands for, when it exists. */
  private async product(cardId: string): Promise<CatalogProduct | undefined> {
    const found = await this.catalog.products(this.storeId, rawIdsOf(cardId));
    for (const raw of rawIdsOf(cardId)) {
      const p = found.find((r) => r.product_id === raw);
      if (p) return p;
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
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 100)
      throw new AppError("validation_failed", "quantity must be an integer from 1 to 100.");
    const variantId = args.variant_id === undefined ? null : String(args.variant_id);
    const row = await this.product(productId);
    if (!row) throw new AppError("not_found", "No such product in the store's published catalogue.");
    const cardId = toCardId(row.product_id);
    return this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      const now = this.ctx.clock.now();
      const cart = await repo.findCart(this.storeId, sessionId, EMBEDDED_SOURCE);
      const lines = cartLines(cart);
      const same = lines.find((l) => l.product_id === cardId && l.variant_id === variantId);
      if (same) same.quantity += quantity;
      else lines.push({ product_id: cardId, variant_id: variantId, quantity });
      const id = await repo.saveCart(this.storeId, cart, { sessionId, source: EMBEDDED_SOURCE, externalId: null, lines, now });
      return {
        name: "add_to_cart" as const,
        status: "completed" as const,
        result: { cart_id: id, product_id: cardId, quantity, ...cartCounts(lines) },
      };
    });
  }

  private async startReturn(
    session: { sessionId: string; customerId: string | null },
    args: Record<string, string | number>,
  ): Promise<ActionResult> {
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
