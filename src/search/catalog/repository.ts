// Queries behind the assistant's catalogue port (./port.ts): the store's products as the
// assistant reads them. storeId first on every method.
import { sql, type RawBuilder, type SqlBool } from "kysely";
import type { Dialect, Executor } from "../../platform/db/index.js";

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
  availability: string | null;
  stock_quantity: number | null;
}

const CATALOG_COLUMNS = [
  "product_id",
  "image_url",
  "name",
  "category",
  "brand",
  "color_name",
  "metadata",
  "dominant_colors",
  "created_at",
] as const;

export class CatalogRepository {
  constructor(
    private readonly db: Executor,
    readonly dialect: Dialect,
  ) {}

  /** Products passing `conditions`, oldest first, one page (the caller pages with offset). */
  page(storeId: string, conditions: RawBuilder<SqlBool>[], limit: number, offset: number): Promise<CatalogRow[]> {
    let q = this.db.selectFrom("products").where("store_id", "=", storeId);
    for (const c of conditions) q = q.where(c);
    return q.select(CATALOG_COLUMNS).orderBy("created_at").orderBy("product_id").limit(limit).offset(offset).execute();
  }

  rows(storeId: string, productIds: readonly string[]): Promise<CatalogRow[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom("products")
      .select(CATALOG_COLUMNS)
      .where("store_id", "=", storeId)
      .where("product_id", "in", [...productIds])
      .execute();
  }

  /** The live read: price column, stated availability and metadata, straight from the table at request time. */
  liveRows(storeId: string, productIds: readonly string[]): Promise<LiveRow[]> {
    if (productIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom("products")
      .select(["product_id", "price", "metadata", "availability", "stock_quantity"])
      .where("store_id", "=", storeId)
      .where("product_id", "in", [...productIds])
      .execute();
  }
}

/** Case-insensitive "any of these words occurs" over the text columns, for lexical matching. */
export function anyTermCondition(dialect: Dialect, terms: string[]): RawBuilder<SqlBool> {
  const hay = sql`lower(coalesce(name, '') || ' ' || coalesce(category, '') || ' ' || coalesce(brand, '') || ' ' || coalesce(color_name, '') || ' ' || ${dialect === "postgres" ? sql`metadata::text` : sql`metadata`})`;
  return sql<SqlBool>`(${sql.join(
    terms.map((t) => sql`${hay} LIKE ${`%${t.replace(/[%_\\]/g, "")}%`}`),
    sql` OR `,
  )})`;
}
