// Queries of the search resource: candidate products for pre-filters, and search history.
// `storeId` first on every method.
import { sql, type Selectable, type SelectQueryBuilder, type SqlBool } from "kysely";
import { LRUCache } from "lru-cache";
import { remembering, type Candidates } from "../../vectors/candidates.js";
import { DEFAULT_MIN_ROWS } from "../../vectors/filter-indexes.js";
import type { Dialect, Executor } from "../../platform/db/index.js";
import type { Schema, SearchHistoryTable } from "../../db/schema.js";
import { colorMatches, dominantOf, filterScopes, parseColorFilter, sqlConditions, type SearchFilters } from "./filters.js";

export type SearchHistoryRow = Selectable<SearchHistoryTable>;

/**
 * Filters keeping more products than this stay in the database on PostgreSQL (candidates()):
 * listing ids costs ~1 ms per thousand, and an HNSW round checks only the few dozen it returns.
 */
const LISTED_MAX = 5_000;
/** Where counting a filter's products stops (counted()): past it the share only decides the HNSW depth. */
const COUNT_CAP = 100_000;

/**
 * A planner's estimate trusted as is: more than twice the listing limit. Below that a filter is
 * counted (estimated past the limit) or listed (estimated within it), and a listing that reaches
 * the limit counted too (a low estimate may be far off; a high one is a statistic of the filter's
 * own values). A filter estimated wide that keeps few (statistics older than a
 * mass deletion) is only searched as a wide one: every path still checks each hit against it.
 */
const wide = (estimate: number, atLeast: number) => estimate > 2 * atLeast;

/**
 * How long a filter's planner estimate is reused (estimate()). The estimate is a function of the
 * filter and of the table's statistics, which change only when ANALYZE runs (autovacuum after
 * enough writes), so a fresh one would mostly repeat it; a stale one only chooses the path (listed,
 * counted or left in the database), and every path returns the filter's products. Asking costs a
 * round trip before the lexical and vector stages can start: at a million products the `filter`
 * stage took 0.6–1.4 ms asking, 0.1–0.4 ms reusing (bench:scale, docs/benchmarks.md).
 */
const ESTIMATE_TTL_MS = 60_000;
/** Most estimates kept (filters differ by value: one per brand, category, window). */
const ESTIMATES_MAX = 10_000;

/**
 * Filters' planner estimates by statement and parameters (estimate()). A repository and those
 * `with()` makes share one: each search reads through a repository on the handle of its read (a
 * replica's is new on every read), and the statistics are the primary's.
 */
type Estimates = LRUCache<string, number>;

type PassingQuery = SelectQueryBuilder<Schema, "products", { product_id: string }>;

export interface CandidateRow {
  product_id: string;
  color_name: string | null;
  dominant_colors: string;
}

export class SearchRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    /** Filters keeping more products than this stay in the database on PostgreSQL (tests lower it). */
    private readonly listedMax: number = LISTED_MAX,
    /**
     * A filter pinning a category or brand (filterScopes) stays in the database past this many
     * products, when lower than listedMax: the products a value needs for a filter index
     * (VECTOR_FILTER_INDEX_MIN_ROWS; 0, no filter indexes: listedMax), whose copies a listed set
     * of ids cannot reach. Two categories of 2,500 at 50,000 products: 5–6.5 ms through their
     * copies, 30–37 ms by their ids (bench:scale). Up to 2,000 (the default) a listed set still
     * restricts the lexical stage in its SQL (lexical/repository.ts), where a filter left in the
     * database has a ranking of fixed depth checked against it afterwards.
     */
    private readonly scopedListedMax: number = DEFAULT_MIN_ROWS,
    private readonly estimates: Estimates = new LRUCache({ max: ESTIMATES_MAX, ttl: ESTIMATE_TTL_MS }),
  ) {}

  with(db: Executor): SearchRepository {
    return new SearchRepository(db, this.dialect, this.listedMax, this.scopedListedMax, this.estimates);
  }

  /**
   * The store's products passing every pre-filter. On PostgreSQL, a filter without colour that keeps
   * more than LISTED_MAX products (scopedListedMax when it pins a category or brand) stays in the
   * database (vectors/candidates.ts), its size the planner's estimate or a count; otherwise, and
   * always on SQLite, the ids themselves. The estimate comes
   * first: a filter it finds wide is not listed at all (listing 5,001 of two categories' 100,000
   * products at a million read ~50,000 rows by a sequential scan, 45–60 ms).
   */
  async candidates(storeId: string, filters: SearchFilters): Promise<Candidates> {
    if (this.dialect === "postgres" && filters.color === undefined) {
      const sub = this.passing(storeId, filters);
      const scopes = filterScopes(filters);
      const pinned = scopes.length > 0 && this.scopedListedMax > 0;
      const atLeast = (pinned ? Math.min(this.listedMax, this.scopedListedMax) : this.listedMax) + 1;
      const estimate = await this.estimate(sub);
      let size = estimate;
      if (!wide(estimate, atLeast)) {
        // Estimated at or past the listing limit: counted first, and listed only when the count
        // says it fits (listing 5,001 of a 1 % brand's 10,000 products at a million before
        // counting them took 21–38 ms of an HTTP search's filter stage).
        let count = estimate >= atLeast ? await this.counted(sub) : 0;
        if (count < atLeast) {
          const rows = await sub.limit(atLeast).execute();
          if (rows.length < atLeast) return new Set(rows.map((r) => r.product_id));
          count = await this.counted(sub);
        }
        size = Math.max(atLeast, count);
      }
      // One memory of verdicts for the whole search: its vector and lexical stages ask about overlapping ids.
      return remembering({
        deferred: true,
        size,
        subquery: sub,
        keep: (ids) => this.kept(sub, ids),
        scopes,
      });
    }
    const rows = await this.filteredRows(storeId, filters, filters.color !== undefined);
    if (filters.color === undefined) return new Set(rows.map((r) => r.product_id));
    const color = parseColorFilter(filters.color);
    return new Set(rows.filter((r) => colorMatches(color, r.color_name, dominantOf(r))).map((r) => r.product_id));
  }

  /**
   * How many rows `sub` returns by the planner's estimate (EXPLAIN: ~0.1 ms in the server, plus
   * the round trip), the same filter's reused for ESTIMATE_TTL_MS.
   */
  private async estimate(sub: PassingQuery): Promise<number> {
    const compiled = sub.compile();
    const key = JSON.stringify([compiled.sql, compiled.parameters]);
    const cached = this.estimates.get(key);
    if (cached !== undefined) return cached;
    // EXPLAIN's JSON comes back as text; its top node's row estimate is the query's.
    const plan = await sql<{ "QUERY PLAN": string }>`EXPLAIN (FORMAT JSON) ${sub}`.execute(this.db);
    const top = (JSON.parse(plan.rows[0]?.["QUERY PLAN"] ?? "[]") as { Plan?: { "Plan Rows"?: number } }[])[0];
    const estimate = Math.round(Number(top?.Plan?.["Plan Rows"] ?? 0));
    this.estimates.set(key, estimate);
    return estimate;
  }

  /**
   * How many rows `sub` returns where the planner's estimate is not trusted as is — PostgreSQL
   * guesses ~0.5 % for a condition on a JSON metadata field, and statistics lag a bulk import: a
   * count, stopped at COUNT_CAP (about 12 ms at 100,000 rows).
   */
  private async counted(sub: PassingQuery): Promise<number> {
    const counted = await this.db
      .selectFrom(sub.limit(COUNT_CAP).as("c"))
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(counted.n);
  }

  /** Which of `ids` the filter keeps. */
  private async kept(sub: PassingQuery, ids: readonly string[]): Promise<ReadonlySet<string>> {
    const rows = await sub.where(sql<SqlBool>`product_id = ANY(${[...ids]}::text[])`).execute();
    return new Set(rows.map((r) => r.product_id));
  }

  /** Rows passing the SQL part of the filters, with colour columns when asked for. */
  async filteredRows(storeId: string, filters: SearchFilters, withColors: boolean): Promise<CandidateRow[]> {
    if (!withColors) {
      const rows = await this.passing(storeId, filters).execute();
      return rows.map((r) => ({ product_id: r.product_id, color_name: null, dominant_colors: "[]" }));
    }
    return this.filtered(storeId, filters).select(["product_id", "color_name", "dominant_colors"]).execute();
  }

  /** The store's products passing the SQL part of the filters. */
  private filtered(storeId: string, filters: SearchFilters) {
    let q = this.db.selectFrom("products").where("store_id", "=", storeId);
    for (const cond of sqlConditions(this.dialect, filters)) q = q.where(cond);
    return q;
  }

  /** `SELECT product_id` of the products passing the SQL part of the filters. */
  private passing(storeId: string, filters: SearchFilters): PassingQuery {
    return this.filtered(storeId, filters).select("product_id");
  }

  /** The store's distinct category values (query understanding). */
  categories(storeId: string): Promise<string[]> {
    return this.distinct(storeId, "category");
  }

  /** The store's distinct brand values (their short forms are synonyms: src/lexical/acronyms.ts). */
  brands(storeId: string): Promise<string[]> {
    return this.distinct(storeId, "brand");
  }

  private async distinct(storeId: string, column: "category" | "brand"): Promise<string[]> {
    const rows = await this.db
      .selectFrom("products")
      .select(column)
      .distinct()
      .where("store_id", "=", storeId)
      .where(column, "is not", null)
      .execute();
    return rows.map((r) => r[column]!);
  }

  findHistory(storeId: string, searchId: string): Promise<SearchHistoryRow | undefined> {
    return this.db.selectFrom("search_history").selectAll().where("store_id", "=", storeId).where("id", "=", searchId).executeTakeFirst();
  }
}
