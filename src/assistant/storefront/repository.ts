// Queries of the embedded catalogue connector: the store's products (Search API table), and the
// carts, returns and orders kept for it (0011). storeId first on every method.
import { sql, type Selectable, type SqlBool, type RawBuilder } from "kysely";
import type { Dialect, Executor } from "../../platform/db/index.js";
import type { AssistantCartsTable, AssistantOrdersTable, AssistantReturnsTable } from "../../platform/db/schema.js";

export type CartRow = Selectable<AssistantCartsTable>;
export type ReturnRow = Selectable<AssistantReturnsTable>;
export type OrderRow = Selectable<AssistantOrdersTable>;

export interface CatalogRow {
  product_id: string;
  image_url: string;
  name: string | null;
  category: string | null;
  brand: string | null;
  color_name: string | null;
  metadata: string;
  dominant_colors: string;
  created_at: number;
}

export interface LiveRow {
  product_id: string;
  price: number | null;
  metadata: string;
}

export class StorefrontRepository {
  constructor(
    private readonly db: Executor,
    readonly dialect: Dialect,
  ) {}

  /** Products passing `conditions`, oldest first, one page (the caller pages with offset). */
  catalogPage(storeId: string, conditions: RawBuilder<SqlBool>[], limit: number, offset: number): Promise<CatalogRow[]> {
    let q = this.db.selectFrom("products").where("store_id", "=", storeId);
    for (const c of conditions) q = q.where(c);
    return q
      .select(["product_id", "image_url", "name", "category", "brand", "color_name", "metadata", "dominant_colors", "created_at"])
      .orderBy("created_at")
      .orderBy("product_id")
      .limit(limit)
      .offset(offset)
      .execute();
  }

  catalogRows(storeId: string, productIds: readonly string[]): Promise<CatalogRow[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom("products")
      .select(["product_id", "image_url", "name", "category", "brand", "color_name", "metadata", "dominant_colors", "created_at"])
      .where("store_id", "=", storeId)
      .where("product_id", "in", [...productIds])
      .execute();
  }

  /** The live read: price column and metadata, straight from the table at request time. */
  liveRows(storeId: string, productIds: readonly string[]): Promise<LiveRow[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom("products")
      .select(["product_id", "price", "metadata"])
      .where("store_id", "=", storeId)
      .where("product_id", "in", [...productIds])
      .execute();
  }

  // --- carts ---------------------------------------------------------------------------------
  findCart(storeId: string, sessionId: string, source: string): Promise<CartRow | undefined> {
    return this.db
      .selectFrom("assistant_carts")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("session_id", "=", sessionId)
      .where("source", "=", source)
      .executeTakeFirst();
  }

  async insertCart(storeId: string, row: Omit<CartRow, "store_id">): Promise<void> {
    await this.db.insertInto("assistant_carts").values({ ...row, store_id: storeId }).execute();
  }

  async updateCart(storeId: string, id: string, patch: { lines: string; external_id: string | null; updated_at: number }): Promise<void> {
    await this.db.updateTable("assistant_carts").set(patch).where("store_id", "=", storeId).where("id", "=", id).execute();
  }

  // --- returns and orders --------------------------------------------------------------------
  async insertReturn(storeId: string, row: Omit<ReturnRow, "store_id">): Promise<void> {
    await this.db.insertInto("assistant_returns").values({ ...row, store_id: storeId }).execute();
  }

  ordersOf(storeId: string, customerId: string, limit: number): Promise<OrderRow[]> {
    return this.db
      .selectFrom("assistant_orders")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("customer_id", "=", customerId)
      .orderBy("placed_at", "desc")
      .orderBy("order_id", "desc")
      .limit(limit)
      .execute();
  }

  findOrder(storeId: string, orderId: string): Promise<OrderRow | undefined> {
    return this.db
      .selectFrom("assistant_orders")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("order_id", "=", orderId)
      .executeTakeFirst();
  }

  async upsertOrder(storeId: string, row: Omit<OrderRow, "store_id">): Promise<void> {
    const { order_id: _id, ...rest } = row;
    await this.db
      .insertInto("assistant_orders")
      .values({ ...row, store_id: storeId })
      .onConflict((oc) => oc.columns(["store_id", "order_id"]).doUpdateSet(rest))
      .execute();
  }
}

/** Case-insensitive "any of these words occurs" over the text columns, for lexical matching. */
export function anyTermCondition(dialect: Dialect, terms: string[]): RawBuilder<SqlBool> {
  const hay = sql`lower(coalesce(name, '') || ' ' || coalesce(category, '') || ' ' || coalesce(brand, '') || ' ' || coalesce(color_name, '') || ' ' || ${dialect === "postgres" ? sql`metadata::text` : sql`metadata`})`;
  return sql<SqlBool>`(${sql.join(terms.map((t) => sql`${hay} LIKE ${`%${t.replace(/[%_\\]/g, "")}%`}`), sql` OR `)})`;
}
