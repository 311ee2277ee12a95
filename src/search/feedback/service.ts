// Search feedback, analytics, popular products and suggestions (spec: Feedback record; Feedback
// and analytics; issue 6).
//
// Feedback: one row per event (click, add_to_cart, purchase). With a `search_id` (which must be a
// search of the same store, else 404) the event is attributed to that search; without one it still
// counts (revenue reported as unattributed). order_value/currency belong to purchases only
// (422 purchase_fields_only otherwise); currency is an ISO 4217 code; money is kept in minor units.
//
// Analytics over the last `days` days (a rolling window ending now):
//   searches            — total, per mode, per source (api | portal | widget), zero-result count;
//   zero_result_rate    — searches with no result / searches;
//   query_time_ms       — mean and p95 (nearest rank) of query_time_ms;
//   click_through_rate  — searches of the window with ≥ 1 attributed click / searches;
//   add_to_cart_rate    — … with ≥ 1 attributed add_to_cart / searches;
//   conversion_rate     — … with ≥ 1 attributed purchase / searches;
//   events              — feedback events of the window per action (and units purchased);
//   revenue             — purchases of the window with a value, per currency: total, attributed,
//                         unattributed and the part reported by the browser widget;
//   top_queries         — the most frequent text queries (case-insensitive) and their zero-result count;
//   rules               — every merchandising rule of the store (src/search/rules) with the searches
//                         it applied to on the window's UTC days (counted per day: the first day whole).
// Popular products: Σ weight × quantity over the window's feedback, weights click 1 (quantity not
// counted), add_to_cart 3 × quantity, purchase 5 × quantity.
// Suggestions: the most frequent text queries of the window that returned at least one result.
import type { AppContext } from "../../context/context.js";
import type { FeedbackAction } from "../../db/schema.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import { ProductsRepository } from "../products/repository.js";
import { SearchRepository } from "../query/repository.js";
import { historyWriter } from "../query/history-writer.js";
import { SEARCH_MODES, type SearchSource } from "../query/service.js";
import { fromMinor, isCurrency, toMinor } from "../../tenancy/currency.js";
import { FeedbackRepository } from "./repository.js";
import type { RulesService } from "../rules/service.js";
import { iso } from "../../platform/clock.js";
import { DEFAULT_DAYS, POPULAR_WEIGHTS, TOP_QUERIES, type FeedbackView as FeedbackViewSchema } from "./schemas.js";
import type { Static } from "typebox";
import "../errors/codes.js"; // registers the error codes thrown here

export const FEEDBACK_ACTIONS = ["click", "add_to_cart", "purchase"] as const satisfies readonly FeedbackAction[];
const DAY_MS = 86_400_000;

export interface FeedbackInput {
  search_id?: string | undefined;
  result_product_id: string;
  action: FeedbackAction;
  order_value?: number | undefined;
  currency?: string | undefined;
  quantity?: number | undefined;
  session_id?: string | undefined;
}

/** Who reported the event. */
export interface FeedbackOrigin {
  /** Feedback comes from the store's backend or the widget (the portal reports none). */
  source: Exclude<SearchSource, "portal">;
  widgetKeyId?: string | null;
}

export type FeedbackView = Static<typeof FeedbackViewSchema>;

/** UTC day numbers from the day of `from` to the day of `to`, inclusive. */
const dayRange = (from: number, to: number): number[] => {
  const out: number[] = [];
  for (let d = Math.floor(from / DAY_MS); d <= Math.floor(to / DAY_MS); d++) out.push(d);
  return out;
};

const rate = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

export class FeedbackService {
  private readonly repo: FeedbackRepository;
  private readonly searches: SearchRepository;
  private readonly products: ProductsRepository;
  private readonly rules: RulesService;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: FeedbackRepository; searches: SearchRepository; products: ProductsRepository; rules: RulesService },
  ) {
    this.repo = deps.repo;
    this.searches = deps.searches;
    this.products = deps.products;
    this.rules = deps.rules;
  }

  async record(storeId: string, input: FeedbackInput, origin: FeedbackOrigin): Promise<FeedbackView> {
    const hasMoney = input.order_value !== undefined || input.currency !== undefined;
    if (hasMoney && input.action !== "purchase") {
      throw new AppError("purchase_fields_only", undefined, {
        action: input.action,
        fields: (["order_value", "currency"] as const).filter((f) => input[f] !== undefined),
      });
    }
    const currency = input.currency?.toUpperCase();
    if (currency !== undefined && !isCurrency(currency)) {
      throw new AppError("validation_failed", `currency "${input.currency}" is not an ISO 4217 currency code.`, {
        errors: [{ field: "currency", message: "must be an ISO 4217 currency code such as EUR or USD" }],
      });
    }
    if ((input.order_value === undefined) !== (currency === undefined)) {
      const missing = input.order_value === undefined ? "order_value" : "currency";
      throw new AppError("validation_failed", `${missing} is required when the other of order_value and currency is given.`, {
        errors: [{ field: missing, message: "is required together with " + (missing === "currency" ? "order_value" : "currency") }],
      });
    }

    let rank: number | null = null;
    if (input.search_id !== undefined) {
      await historyWriter(this.ctx).flush();
      const search = await this.searches.findHistory(storeId, input.search_id);
      if (!search) throw new AppError("not_found", `No search ${input.search_id} in this store.`, { search_id: input.search_id });
      const results = JSON.parse(search.results) as { product_id: string; rank: number }[];
      rank = results.find((r) => r.product_id === input.result_product_id)?.rank ?? null;
    }

    const now = this.ctx.clock.now();
    const row = {
      id: prefixedId("fb"),
      search_id: input.search_id ?? null,
      result_product_id: input.result_product_id,
      action: input.action,
      quantity: input.quantity ?? 1,
      order_value_minor: input.order_value !== undefined && currency !== undefined ? toMinor(input.order_value, currency) : null,
      currency: currency ?? null,
      session_id: input.session_id ?? null,
      result_rank: rank,
      source: origin.source,
      widget_key_id: origin.widgetKeyId ?? null,
      created_at: now,
    };
    await this.repo.insert(storeId, row);
    return {
      id: row.id,
      search_id: row.search_id,
      result_product_id: row.result_product_id,
      action: row.action,
      quantity: row.quantity,
      order_value: row.order_value_minor !== null && row.currency !== null ? fromMinor(row.order_value_minor, row.currency) : null,
      currency: row.currency,
      session_id: row.session_id,
      attributed: row.search_id !== null,
      result_rank: rank,
      source: origin.source,
      created_at: iso(now),
    };
  }

  private window(days: number) {
    const to = this.ctx.clock.now();
    const from = to - days * DAY_MS;
    return { from, to, days, fromIso: iso(from), toIso: iso(to) };
  }

  async analytics(storeId: string, days = DEFAULT_DAYS) {
    const w = this.window(days);
    await historyWriter(this.ctx).flush();
    // Analytics are replica-eligible reads (DATABASE_READ_URLS; src/platform/db/replicas.ts).
    const repo = this.repo.with(this.ctx.database.reader(storeId));
    const [totals, byMode, bySource, engaged, events, revenue, top, byDay, rules] = await Promise.all([
      repo.searchTotals(storeId, w.from),
      repo.searchesBy(storeId, w.from, "mode"),
      repo.searchesBy(storeId, w.from, "source"),
      repo.engagedSearches(storeId, w.from),
      repo.eventCounts(storeId, w.from),
      repo.revenue(storeId, w.from),
      repo.queryCounts(storeId, w.from, TOP_QUERIES),
      repo.searchesByDay(storeId, w.from),
      this.rules.hitsSince(storeId, w.from),
    ]);
    // p95 by nearest rank: the ⌈0.95·N⌉-th fastest search, read with one ordered OFFSET query.
    const p95 = totals.total === 0 ? null : await repo.latencyAtRank(storeId, w.from, Math.ceil(0.95 * totals.total) - 1);
    const count = (a: FeedbackAction) => events.get(a) ?? { events: 0, units: 0 };
    return {
      days,
      from: w.fromIso,
      to: w.toIso,
      searches: {
        total: totals.total,
        zero_results: totals.zeroResults,
        by_mode: Object.fromEntries(SEARCH_MODES.map((m) => [m, byMode.get(m) ?? 0])),
        by_source: { api: bySource.get("api") ?? 0, portal: bySource.get("portal") ?? 0, widget: bySource.get("widget") ?? 0 },
        // Every UTC day the window touches (days + 1 when the window does not start at midnight), zeros included.
        by_day: dayRange(w.from, w.to).map((d) => ({
          date: new Date(d * DAY_MS).toISOString().slice(0, 10),
          searches: byDay.get(d)?.searches ?? 0,
          zero_results: byDay.get(d)?.zeroResults ?? 0,
        })),
      },
      zero_result_rate: rate(totals.zeroResults, totals.total),
      query_time_ms: {
        mean: totals.meanLatencyMs === null ? null : Math.round(totals.meanLatencyMs * 10) / 10,
        p95,
      },
      click_through_rate: rate(engaged.get("click") ?? 0, totals.total),
      add_to_cart_rate: rate(engaged.get("add_to_cart") ?? 0, totals.total),
      conversion_rate: rate(engaged.get("purchase") ?? 0, totals.total),
      events: {
        clicks: count("click").events,
        add_to_carts: count("add_to_cart").events,
        purchases: count("purchase").events,
        units_purchased: count("purchase").units,
      },
      revenue: revenue.map((r) => ({
        currency: r.currency,
        total: fromMinor(r.totalMinor, r.currency),
        attributed: fromMinor(r.attributedMinor, r.currency),
        unattributed: fromMinor(r.totalMinor - r.attributedMinor, r.currency),
        from_widget: fromMinor(r.widgetMinor, r.currency),
        purchases: r.purchases,
      })),
      top_queries: top.map((q) => ({ query: q.query, searches: q.searches, zero_result_searches: q.zeroResults })),
      rules,
    };
  }

  async popular(storeId: string, days = DEFAULT_DAYS, limit = 10) {
    const w = this.window(days);
    const rows = await this.repo.popular(storeId, w.from, limit, POPULAR_WEIGHTS);
    const products = new Map(
      (
        await this.products.findMany(
          storeId,
          rows.map((r) => r.productId),
        )
      ).map((p) => [p.product_id, p]),
    );
    return {
      days,
      from: w.fromIso,
      to: w.toIso,
      weights: { ...POPULAR_WEIGHTS },
      products: rows.map((r) => {
        const product = products.get(r.productId);
        return {
          product_id: r.productId,
          score: r.score,
          clicks: r.clicks,
          add_to_carts: r.addToCarts,
          purchases: r.purchases,
          units_purchased: r.unitsPurchased,
          indexed: product !== undefined,
          metadata: product ? (JSON.parse(product.metadata) as Record<string, unknown>) : null,
        };
      }),
    };
  }

  async suggestions(storeId: string, options: { limit?: number; days?: number; prefix?: string | undefined } = {}) {
    const days = options.days ?? DEFAULT_DAYS;
    const w = this.window(days);
    const prefix = options.prefix?.trim().toLowerCase() || undefined;
    const rows = await this.repo.queryCounts(storeId, w.from, options.limit ?? 10, { withResultsOnly: true, prefix });
    return {
      days,
      suggestions: rows.map((r) => ({ query: r.query, searches: r.searches })),
    };
  }
}
