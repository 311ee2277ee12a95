// What one catalogue source (the embedded Shopsight catalogue or a connected storefront) provides
// to the gateway. The gateway (index.ts) applies the spec's catalogue rules on top (rules.ts), so
// both connectors behave the same way.
import type { ActionRequest, ActionResult, CatalogQuery, Money, OrderSummary, StockState } from "./types.js";

/** A published product matching a query, in rank order; no price (prices only come from live reads). */
export interface Candidate {
  /** Card id, `prd_…`. */
  product_id: string;
  title: string;
  image_url: string | null;
  url: string | null;
  /** The connector's own handle on the product (raw id, handle, variant ids …). */
  ref: unknown;
}

/** The outcome of one live read of a product; null fields = could not be read. */
export interface LiveRead {
  price: Money | null;
  availability: { state: StockState; quantity?: number } | null;
  /** Epoch ms of the read. */
  read_at: number;
}

export interface CatalogConnector {
  /** "shopsight_catalog" or "storefront:<host>". */
  readonly source: string;
  /** Up to `depth` published products matching the query (filters applied, prices ignored). */
  match(query: CatalogQuery, depth: number): Promise<Candidate[]>;
  /** Live price and availability of each candidate, keyed by card id (missing = not read). */
  readLive(candidates: Candidate[]): Promise<Map<string, LiveRead>>;
  orders(customerId: string): Promise<OrderSummary[]>;
  runAction(session: { sessionId: string; customerId: string | null }, action: ActionRequest): Promise<ActionResult>;
}

/** Card ids carry the spec's `prd_` prefix; an id that already has it is kept as is. */
export const toCardId = (raw: string): string => (raw.startsWith("prd_") ? raw : `prd_${raw}`);

/** Raw ids a card id may stand for, most specific first. */
export function rawIdsOf(cardId: string): string[] {
  return cardId.startsWith("prd_") ? [cardId, cardId.slice(4)].filter((x) => x.length > 0) : [cardId];
}

/** Stock state from a quantity: ≤ 0 out of stock, up to LOW_STOCK_QUANTITY low, else in stock. */
export const LOW_STOCK_QUANTITY = 5;
export function stockFromQuantity(quantity: number): { state: StockState; quantity: number } {
  return { state: quantity <= 0 ? "out_of_stock" : quantity <= LOW_STOCK_QUANTITY ? "low_stock" : "in_stock", quantity };
}

/** "19.99" in a currency with `digits` decimals → 1999, exactly (no floating point); null when not a decimal. */
export function decimalToMinor(value: string, digits: number): number | null {
  const m = /^\s*(\d+)(?:\.(\d+))?\s*$/.exec(value);
  if (!m) return null;
  const frac = (m[2] ?? "").padEnd(digits + 1, "0");
  let minor = Number(m[1]) * 10 ** digits + (digits > 0 ? Number(frac.slice(0, digits)) : 0);
  if (Number(frac[digits]) >= 5) minor += 1; // half up on the first dropped digit
  return Number.isSafeInteger(minor) ? minor : null;
}
