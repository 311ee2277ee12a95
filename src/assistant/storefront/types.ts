// The contract between the chat (src/assistant/chat) and the store's catalogue source
// (src/assistant/storefront). A store's catalogue is its Shopsight products unless a storefront
// is connected. Prices and stock only ever come from a live read made during the request.
// The shapes that reach a response are typed from their schemas (./schemas.ts).
import type { Static } from "typebox";
import type {
  CatalogSearchResultSchema,
  LiveFactSchema,
  MoneySchema,
  PriceFilterSchema,
  ProductCardSchema,
  ReadStateSchema,
  StockStateSchema,
} from "./schemas.js";

/** Money in minor units of an ISO 4217 currency. */
export type Money = Static<typeof MoneySchema>;

export type PriceState = Static<typeof ReadStateSchema>;
export type AvailabilityState = Static<typeof ReadStateSchema>;
export type StockState = Static<typeof StockStateSchema>;

/** The product card of the spec; `price` is present only when `price_state` is `live`. */
export type ProductCard = Static<typeof ProductCardSchema>;

/** One read of a live value, listed in the answer's `live_facts`. */
export type LiveFact = Static<typeof LiveFactSchema>;

export interface CatalogQuery {
  q?: string | undefined;
  category_id?: string[] | undefined;
  color?: string[] | undefined;
  size?: string[] | undefined;
  sku?: string | undefined;
  price_min_minor?: number | undefined;
  price_max_minor?: number | undefined;
  limit?: number | undefined;
}

export type PriceFilter = Static<typeof PriceFilterSchema>;

/** `price_filter` is present only when the query gave `limit` (rule 5); `source` is "shopsight_catalog" or "storefront:<host>". */
export type CatalogSearchResult = Static<typeof CatalogSearchResultSchema>;

/** An action a shopper may consent to. Arguments are exactly what the preview shows. */
export type ActionName = "add_to_cart" | "start_return";
export interface ActionRequest {
  name: ActionName;
  arguments: Record<string, string | number>;
}
export interface ActionResult {
  name: ActionName;
  status: "completed";
  /** What the storefront returned, e.g. { cart_id, line_count } or { return_id }. */
  result: Record<string, unknown>;
}

/** A customer order, visible only to an exchanged (signed-in) session of that customer. */
export interface OrderSummary {
  order_id: string;
  status: string;
  placed_at: string;
  total: Money;
  items: Array<{ product_id: string; title: string; quantity: number }>;
}

/**
 * Thrown by a connector when the storefront (or the database behind the embedded catalogue) can
 * not be read; the chat turns it into `temporary_failure`, catalogue search into 503.
 */
export class StorefrontUnavailable extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
    this.name = "StorefrontUnavailable";
  }
}

/** What the chat and catalogue search need from the store's catalogue source (per store). */
export interface StorefrontGateway {
  /** Catalogue search per the spec's five rules. */
  search(storeId: string, query: CatalogQuery): Promise<CatalogSearchResult>;
  /** Orders of one signed-in customer (exchanged session). */
  orders(storeId: string, customerId: string): Promise<OrderSummary[]>;
  /** Runs a confirmed action with exactly the previewed arguments. */
  runAction(storeId: string, session: { sessionId: string; customerId: string | null }, action: ActionRequest): Promise<ActionResult>;
}
