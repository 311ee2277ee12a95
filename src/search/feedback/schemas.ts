// Request and response schemas of feedback, analytics, popular products and suggestions. The
// feedback body is shared by POST /v1/search/feedback and POST /v1/widget/search/feedback.
import { Type } from "typebox";
import { DateTime } from "../../platform/http/schemas.js";
import { SEARCH_MODES } from "../query/service.js";
import type { Weights } from "./repository.js";
import { RuleHitsView } from "../rules/schemas.js";

/** Weights of the events in the popular-products ranking. */
export const POPULAR_WEIGHTS: Weights = { click: 1, add_to_cart: 3, purchase: 5 };
/** The analytics window when none is asked for, in days. */
export const DEFAULT_DAYS = 30;
/** Queries listed in the analytics' top queries. */
export const TOP_QUERIES = 10;

const Action = Type.Enum(["click", "add_to_cart", "purchase"], { description: "click | add_to_cart | purchase" });

export const FeedbackBody = Type.Object(
  {
    search_id: Type.Optional(
      Type.String({
        format: "uuid",
        description: "The search_id of the search the event belongs to (same store, else 404). Without it the event is unattributed.",
      }),
    ),
    result_product_id: Type.String({ minLength: 1, maxLength: 200 }),
    action: Action,
    order_value: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100_000_000_000,
        description:
          "Purchases only (422 purchase_fields_only otherwise): the line total in `currency`; rounded to the currency's minor unit",
      }),
    ),
    currency: Type.Optional(
      Type.String({ pattern: "^[A-Za-z]{3}$", description: "Purchases only: ISO 4217 code (EUR, USD, JPY …); required with order_value" }),
    ),
    quantity: Type.Integer({ minimum: 1, maximum: 10_000, default: 1, description: "Default 1" }),
    session_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: "^[\\x21-\\x7E]+$",
        description: "Shopper session; the widget keeps it in localStorage under `service-sid`",
      }),
    ),
  },
  { additionalProperties: false },
);

export const FeedbackView = Type.Object({
  id: Type.String({ description: "fb_…" }),
  search_id: Type.Union([Type.String(), Type.Null()]),
  result_product_id: Type.String(),
  action: Action,
  quantity: Type.Integer(),
  order_value: Type.Union([Type.Number(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  session_id: Type.Union([Type.String(), Type.Null()]),
  attributed: Type.Boolean({ description: "true when linked to a search (search_id set)" }),
  result_rank: Type.Union([Type.Integer(), Type.Null()], {
    description: "1-based position of the product in that search's results; null when it was not among them",
  }),
  source: Type.Union([Type.Literal("api"), Type.Literal("widget")]),
  created_at: DateTime,
});

export const Days = Type.Integer({
  minimum: 1,
  maximum: 365,
  default: DEFAULT_DAYS,
  description: `Window in days ending now (1–365, default ${DEFAULT_DAYS})`,
});

export const AnalyticsQuery = Type.Object({ days: Days }, { additionalProperties: false });

const Rate = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });

export const AnalyticsResponse = Type.Object(
  {
    days: Type.Integer(),
    from: DateTime,
    to: DateTime,
    searches: Type.Object({
      total: Type.Integer(),
      zero_results: Type.Integer({ description: "Searches that returned no result" }),
      by_mode: Type.Object(Object.fromEntries(SEARCH_MODES.map((m) => [m, Type.Integer()])), { description: "Searches per mode" }),
      by_source: Type.Object(
        { api: Type.Integer(), portal: Type.Integer(), widget: Type.Integer() },
        {
          description:
            "api: machine grants and API keys (the store's backend); portal: user logins (the portal's playground, or a person's own token); widget: the storefront widget",
        },
      ),
      by_day: Type.Array(
        Type.Object({
          date: Type.String({ description: "UTC day, YYYY-MM-DD" }),
          searches: Type.Integer(),
          zero_results: Type.Integer(),
        }),
        { description: "Searches per UTC day, oldest first: every day the window touches, zeros included" },
      ),
    }),
    zero_result_rate: Rate("zero_results / total (0 without searches)"),
    query_time_ms: Type.Object({
      mean: Type.Union([Type.Number(), Type.Null()]),
      p95: Type.Union([Type.Integer(), Type.Null()], { description: "Nearest-rank 95th percentile; null without searches" }),
    }),
    click_through_rate: Rate("Searches of the window with at least one attributed click / searches"),
    add_to_cart_rate: Rate("Searches with at least one attributed add_to_cart / searches"),
    conversion_rate: Rate("Searches with at least one attributed purchase / searches"),
    events: Type.Object(
      { clicks: Type.Integer(), add_to_carts: Type.Integer(), purchases: Type.Integer(), units_purchased: Type.Integer() },
      { description: "Feedback events recorded in the window (attributed or not)" },
    ),
    revenue: Type.Array(
      Type.Object({
        currency: Type.String(),
        total: Type.Number(),
        attributed: Type.Number({ description: "Purchases sent with a search_id" }),
        unattributed: Type.Number({ description: "Purchases sent without a search_id" }),
        from_widget: Type.Number({ description: "The part reported by browsers through the widget (public key)" }),
        purchases: Type.Integer(),
      }),
      { description: "Purchases of the window with a value, per currency (never converted), by currency code" },
    ),
    top_queries: Type.Array(
      Type.Object({
        query: Type.String({ description: "Lower-cased, trimmed" }),
        searches: Type.Integer(),
        zero_result_searches: Type.Integer(),
      }),
      { description: `The ${TOP_QUERIES} most frequent text queries, most searched first` },
    ),
    rules: Type.Array(RuleHitsView, {
      description:
        "Every merchandising rule of the store (GET /v1/search/rules) with the searches it applied to on the window's UTC days (the first day counted whole), most applied first: searches of the API, the portal, the widget and the assistant's catalogue",
    }),
  },
  { description: "Search analytics of the window" },
);

export const PopularQuery = Type.Object(
  { days: Days, limit: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "Default 10, at most 100" }) },
  { additionalProperties: false },
);

export const PopularResponse = Type.Object({
  days: Type.Integer(),
  from: DateTime,
  to: DateTime,
  weights: Type.Object(
    { click: Type.Number(), add_to_cart: Type.Number(), purchase: Type.Number() },
    {
      description: `score = Σ click ${POPULAR_WEIGHTS.click} + add_to_cart ${POPULAR_WEIGHTS.add_to_cart} × quantity + purchase ${POPULAR_WEIGHTS.purchase} × quantity`,
    },
  ),
  products: Type.Array(
    Type.Object({
      product_id: Type.String(),
      score: Type.Number(),
      clicks: Type.Integer(),
      add_to_carts: Type.Integer(),
      purchases: Type.Integer(),
      units_purchased: Type.Integer(),
      indexed: Type.Boolean({ description: "false when the product is no longer in the index" }),
      metadata: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
    }),
    { description: "Highest score first; ties by product_id" },
  ),
});

export const SuggestionsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 50, default: 10, description: "Default 10, at most 50" }),
    days: Days,
    prefix: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "Only queries starting with this text (case ignored)" }),
    ),
  },
  { additionalProperties: false },
);

export const SuggestionsResponse = Type.Object({
  days: Type.Integer(),
  suggestions: Type.Array(
    Type.Object({
      query: Type.String({ description: "Lower-cased, trimmed" }),
      searches: Type.Integer({ description: "Searches with results in the window" }),
    }),
    { description: "Text queries that returned results, most frequent first" },
  ),
});
