// The assistant's one door to the store's own catalogue (issue 21): the embedded connector
// (embedded.ts) reads the Search API's products only through this interface, which the Search
// API implements (src/search/catalog/port.ts) and the composition root hands in
// (composeAssistant's `catalog`, src/assistant/compose.ts). The assistant never queries the products table itself.

/** A published product of the store, as the assistant shows it (no price: prices are live reads). */
export interface CatalogProduct {
  product_id: string;
  image_url: string;
  /** The product's name column (metadata.name), or null. */
  name: string | null;
  metadata: Record<string, unknown>;
}

/** A product's current price (major units of the store currency), stated availability and metadata, read at request time. */
export interface CatalogLiveRow {
  product_id: string;
  price: number | null;
  /** The stock the store stated for the product (product API, bulk upload, portal), or null when it gave none. */
  availability: { state: "in_stock" | "low_stock" | "out_of_stock"; quantity: number | null } | null;
  metadata: Record<string, unknown>;
}

/** What a shopper's catalogue query asks of the store's products; every field narrows. */
export interface CatalogMatch {
  /** Free text; ranked by the Search API's text search (lexical words when no model is loaded). */
  q?: string | undefined;
  /** metadata.category, any of (ignoring case). */
  category?: string[] | undefined;
  /** metadata.size, any of (ignoring case). */
  size?: string[] | undefined;
  /** metadata.sku, exactly. */
  sku?: string | undefined;
  /** Colour names or hex codes, any of (the Search API's colour filter). */
  colors?: string[] | undefined;
}

export interface CatalogPort {
  /** Up to `depth` published products matching `query`, best first (with `q`) or oldest first. */
  match(storeId: string, query: CatalogMatch, depth: number): Promise<CatalogProduct[]>;
  /** The published products among `productIds` (raw ids), in no particular order. */
  products(storeId: string, productIds: readonly string[]): Promise<CatalogProduct[]>;
  /** The live read: price and metadata of each of `productIds` that still exists. */
  live(storeId: string, productIds: readonly string[]): Promise<CatalogLiveRow[]>;
}
