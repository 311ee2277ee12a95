// Queries of the search resource: candidate products for pre-filters, and search history.
// `storeId` first on every method.
import type { Selectable } from "kysely";
import type { Dialect, Executor } from "../../platform/db/index.js";
import type { SearchHistoryTable } from "../../platform/db/schema.js";
import { colorMatches, dominantOf, parseColorFilter, sqlConditions, type SearchFilters } from "./filters.js";

export type SearchHistoryRow = Selectable<SearchHistoryTable>;

export interface CandidateRow {
  product_id: string;
  color_name: string | null;
  dominant_colors: string;
}

export class SearchRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  with(db: Executor): SearchRepository {
    return new SearchRepository(db, this.dialect);
  }

  /** Product ids of the store that pass every pre-filter. */
  async candidates(storeId: string, filters: SearchFilters): Promise<Set<string>> {
    const rows = await this.filteredRows(storeId, filters, filters.color !== undefined);
    if (filters.color === undefined) return new Set(rows.map((r) => r.product_id));
    const color = parseColorFilter(filters.color);
    return new Set(rows.filter((r) => colorMatches(color, r.color_name, dominantOf(r))).map((r) => r.product_id));
  }

  /** Rows passing the SQL part of the filters, with colour columns when asked for. */
  async filteredRows(storeId: string, filters: SearchFilters, withColors: boolean): Promise<CandidateRow[]> {
    let q = this.db.selectFrom("products").where("store_id", "=", storeId);
    for (const cond of sqlConditions(this.dialect, filters)) q = q.where(cond);
    if (!withColors) {
      const rows = await q.select("product_id").execute();
      return rows.map((r) => ({ product_id: r.product_id, color_name: null, dominant_colors: "[]" }));
    }
    return q.select(["product_id", "color_name", "dominant_colors"]).execute();
  }

  /** The store's distinct category values (query understanding). */
  async categories(storeId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom("products")
      .select("category")
      .distinct()
      .where("store_id", "=", storeId)
      .where("category", "is not", null)
      .execute();
    return rows.map((r) => r.category!);
  }

  findHistory(storeId: string, searchId: string): Promise<SearchHistoryRow | undefined> {
    return this.db.selectFrom("search_history").selectAll().where("store_id", "=", storeId).where("id", "=", searchId).executeTakeFirst();
  }
}
