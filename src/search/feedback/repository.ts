// Queries of search feedback, analytics, popular products and suggestions. `storeId` first on
// every method. Aggregates are plain SQL (count, sum, avg, group by, CASE, LIMIT/OFFSET) that run
// unchanged on SQLite and PostgreSQL; weights are inlined as literals so PostgreSQL never has to
// guess the type of a parameter inside CASE.
import { sql, type Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { FeedbackAction, SearchFeedbackTable } from "../../db/schema.js";

export type FeedbackRow = Selectable<SearchFeedbackTable>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

export interface SearchTotals {
  total: number;
  zeroResults: number;
  meanLatencyMs: number | null;
}

export interface RevenueRow {
  currency: string;
  purchases: number;
  totalMinor: number;
  attributedMinor: number;
  widgetMinor: number;
}

export interface QueryCount {
  query: string;
  searches: number;
  zeroResults: number;
}

export interface PopularRow {
  productId: string;
  score: number;
  clicks: number;
  addToCarts: number;
  purchases: number;
  unitsPurchased: number;
}

export interface Weights {
  click: number;
  add_to_cart: number;
  purchase: number;
}

/** `like` pattern for a prefix, with the wildcard characters escaped (escape character `\`). */
const prefixPattern = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const normalisedQuery = sql<string>`lower(trim(query_text))`;

export class FeedbackRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): FeedbackRepository {
    return new FeedbackRepository(db);
  }

  async insert(storeId: string, row: Omit<FeedbackRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("search_feedback")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  // --- searches of the window ------------------------------------------------------------------
  async searchTotals(storeId: string, from: number): Promise<SearchTotals> {
    const row = await this.db
      .selectFrom("search_history")
      .select((eb) => [
        eb.fn.countAll<number>().as("total"),
        sql<number>`sum(case when result_count = 0 then 1 else 0 end)`.as("zero"),
        eb.fn.avg<number>("latency_ms").as("mean"),
      ])
      .where("store_id", "=", storeId)
      .where("created_at", ">=", from)
      .executeTakeFirst();
    const total = num(row?.total);
    return { total, zeroResults: num(row?.zero), meanLatencyMs: total === 0 ? null : num(row?.mean) };
  }

  /** Search counts grouped by `column` (mode or source). */
  async searchesBy(storeId: string, from: number, column: "mode" | "source"): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom("search_history")
      .select((eb) => [eb.ref(column).as("key"), eb.fn.countAll<number>().as("n")])
      .where("store_id", "=", storeId)
      .where("created_at", ">=", from)
      .groupBy(column)
      .execute();
    return new Map(rows.map((r) => [r.key, num(r.n)]));
  }

  /** Searches and zero-result searches per UTC day (day number = epoch ms / 86 400 000, rounded down). */
  async searchesByDay(storeId: string, from: number): Promise<Map<number, { searches: number; zeroResults: number }>> {
    const day = sql<number>`created_at / 86400000`;
    const rows = await this.db
      .selectFrom("search_history")
      .select((eb) => [
        day.as("day"),
        eb.fn.countAll<number>().as("n"),
        sql<number>`sum(case when result_count = 0 then 1 else 0 end)`.as("zero"),
      ])
      .where("store_id", "=", storeId)
      .where("created_at", ">=", from)
      .groupBy(day)
      .execute();
    return new Map(rows.map((r) => [num(r.day), { searches: num(r.n), zeroResults: num(r.zero) }]));
  }

  /** The latency of the search at `offset` (0-based) when the window's searches are ordered by latency. */
  async latencyAtRank(storeId: string, from: number, offset: number): Promise<number | null> {
    const row = await this.db
      .selectFrom("search_history")
      .select("latency_ms")
      .where("store_id", "=", storeId)
      .where("created_at", ">=", from)
      .orderBy("latency_ms")
      .orderBy("id")
      .limit(1)
      .offset(offset)
      .executeTakeFirst();
    return row ? num(row.latency_ms) : null;
  }

  /** Per action: how many of the window's searches received at least one such event. */
  async engagedSearches(storeId: string, from: number): Promise<Map<FeedbackAction, number>> {
    const rows = await this.db
      .selectFrom("search_feedback as f")
      .innerJoin("search_history as h", "h.id", "f.search_id")
      .select((eb) => ["f.action", eb.fn.count<number>("f.search_id").distinct().as("n")])
      .where("f.store_id", "=", storeId)
      .where("h.store_id", "=", storeId)
      .where("h.created_at", ">=", from)
      .groupBy("f.action")
      .execute();
    return new Map(rows.map((r) => [r.action, num(r.n)]));
  }

  /** Feedback events of the window per action: events and units (sum of quantity). */
  async eventCounts(storeId: string, from: number): Promise<Map<FeedbackAction, { events: number; units: number }>> {
    const rows = await this.db
      .selectFrom("search_feedback")
      .select((eb) => ["action", eb.fn.countAll<number>().as("events"), eb.fn.sum<number>("quantity").as("units")])
      .where("store_id", "=", storeId)
      .where("created_at", ">=", from)
      .groupBy("action")
      .execute();
    return new Map(rows.map((r) => [r.action, { events: num(r.events), units: num(r.units) }]));
  }

  /** Purchases of the window with a value, per currency: total, attributed part, widget-reported part. */
  async revenue(storeId: string, from: number): Promise<RevenueRow[]> {
    const rows = await this.db
      .selectFrom("search_feedback")
      .select((eb) => [
        "currency",
        eb.fn.countAll<number>().as("purchases"),
        eb.fn.sum<number>("order_value_minor").as("total"),
        sql<number>`sum(case when search_id is null then 0 else order_value_minor end)`.as("attributed"),
        sql<number>`sum(case when source = 'widget' then order_value_minor else 0 end)`.as("widget"),
      ])
      .where("store_id", "=", storeId)
      .where("created_at", ">=", from)
      .where("action", "=", "purchase")
      .where("currency", "is not", null)
      .where("order_value_minor", "is not", null)
      .groupBy("currency")
      .orderBy("currency")
      .execute();
    return rows.map((r) => ({
      currency: String(r.currency),
      purchases: num(r.purchases),
      totalMinor: num(r.total),
      attributedMinor: num(r.attributed),
      widgetMinor: num(r.widget),
    }));
  }

  /**
   * Text queries of the window (case and surrounding spaces ignored), most searched first; ties
   * alphabetical. `withResultsOnly` keeps searches that returned at least one result; `prefix`
   * (lower case) keeps queries starting with it; `sources` keeps searches of those sources;
   * `minSearches` keeps queries searched at least that often.
   */
  async queryCounts(
    storeId: string,
    from: number,
    limit: number,
    options: { withResultsOnly?: boolean; prefix?: string | undefined; sources?: readonly string[]; minSearches?: number } = {},
  ): Promise<QueryCount[]> {
    let q = this.db
      .selectFrom("search_history")
      .select((eb) => [
        normalisedQuery.as("query"),
        eb.fn.countAll<number>().as("searches"),
        sql<number>`sum(case when result_count = 0 then 1 else 0 end)`.as("zero"),
      ])
      .where("store_id", "=", storeId)
      .where("created_at", ">=", from)
      .where("query_text", "is not", null)
      .where(sql<boolean>`trim(query_text) <> ''`);
    if (options.withResultsOnly) q = q.where("result_count", ">", 0);
    if (options.prefix) q = q.where(sql<boolean>`${normalisedQuery} like ${prefixPattern(options.prefix)} escape '\\'`);
    if (options.sources) q = q.where("source", "in", [...options.sources]);
    if (options.minSearches !== undefined && options.minSearches > 1)
      q = q.having(sql<boolean>`count(*) >= ${sql.lit(Math.floor(options.minSearches))}`);
    const rows = await q
      .groupBy(normalisedQuery)
      .orderBy(sql`count(*)`, "desc")
      .orderBy(normalisedQuery)
      .limit(limit)
      .execute();
    return rows.map((r) => ({ query: r.query, searches: num(r.searches), zeroResults: num(r.zero) }));
  }

  /** Products of the window ranked by weighted feedback; ties by product id. */
  async popular(storeId: string, from: number, limit: number, w: Weights): Promise<PopularRow[]> {
    const score = sql<number>`sum(case
      when action = 'click' then ${sql.lit(w.click)}
      when action = 'add_to_cart' then ${sql.lit(w.add_to_cart)} * quantity
      when action = 'purchase' then ${sql.lit(w.purchase)} * quantity
      else 0 end)`;
    const rows = await this.db
      .selectFrom("search_feedback")
      .select([
        "result_product_id",
        score.as("score"),
        sql<number>`sum(case when action = 'click' then 1 else 0 end)`.as("clicks"),
        sql<number>`sum(case when action = 'add_to_cart' then 1 else 0 end)`.as("carts"),
        sql<number>`sum(case when action = 'purchase' then 1 else 0 end)`.as("purchases"),
        sql<number>`sum(case when action = 'purchase' then quantity else 0 end)`.as("units"),
      ])
      .where("store_id", "=", storeId)
      .where("created_at", ">=", from)
      .groupBy("result_product_id")
      .orderBy(score, "desc")
      .orderBy("result_product_id")
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      productId: r.result_product_id,
      score: num(r.score),
      clicks: num(r.clicks),
      addToCarts: num(r.carts),
      purchases: num(r.purchases),
      unitsPurchased: num(r.units),
    }));
  }
}
