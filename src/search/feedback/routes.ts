// /v1/search/feedback, /v1/search/feedback/popular, /v1/search/analytics, /v1/search/suggestions
// (spec: Feedback and analytics (Bearer)).
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import {
  POPULAR_WEIGHTS,
  AnalyticsQuery,
  AnalyticsResponse,
  FeedbackBody,
  FeedbackView,
  PopularQuery,
  PopularResponse,
  SuggestionsQuery,
  SuggestionsResponse,
} from "./schemas.js";
import type { FeedbackService } from "./service.js";

export async function feedbackRoutes(app: App, { feedback: service }: { feedback: FeedbackService }) {
  app.post(
    "/v1/search/feedback",
    storeRoute("search:write", {
      tags: ["feedback"],
      summary: "Record a click, add-to-cart or purchase, optionally attributed to a search",
      description:
        "A `search_id` must be a search of this store (404 otherwise); without one the event counts as unattributed. `order_value` and `currency` are accepted only with action `purchase` (422 purchase_fields_only) and go together; currency is an ISO 4217 code. `quantity` defaults to 1.",
      body: FeedbackBody,
      response: { 201: FeedbackView, ...searchErrors(400, 401, 403, 404, 422, 429) },
    }),
    async (request, reply) => reply.status(201).send(await service.record(storeOf(request).id, request.body, { source: "api" })),
  );

  app.get(
    "/v1/search/feedback/popular",
    storeRoute("search:read", {
      tags: ["feedback"],
      summary: "Products ranked by weighted feedback over the last `days` days",
      description: `score = Σ over the window's events: click ${POPULAR_WEIGHTS.click} each, add_to_cart ${POPULAR_WEIGHTS.add_to_cart} × quantity, purchase ${POPULAR_WEIGHTS.purchase} × quantity. Attributed and unattributed events both count.`,
      querystring: PopularQuery,
      response: { 200: PopularResponse, ...searchErrors(400, 401, 403, 429) },
    }),
    async (request) => service.popular(storeOf(request).id, request.query.days, request.query.limit),
  );

  app.get(
    "/v1/search/analytics",
    storeRoute("analytics:read", {
      tags: ["analytics"],
      summary: "Search analytics over the last `days` days (1–365, default 30)",
      description:
        "Searches (total, per mode, per source), zero-result rate, mean and p95 query time, click-through / add-to-cart / conversion rates (share of the window's searches with at least one such attributed event), revenue per currency split into attributed and unattributed, the top text queries, and every merchandising rule with the searches it applied to (`rules`).",
      querystring: AnalyticsQuery,
      response: { 200: AnalyticsResponse, ...searchErrors(400, 401, 403, 429) },
    }),
    async (request) => service.analytics(storeOf(request).id, request.query.days),
  );

  app.get(
    "/v1/search/suggestions",
    storeRoute("search:read", {
      tags: ["feedback"],
      summary: "Popular text queries that returned results (for autocomplete)",
      querystring: SuggestionsQuery,
      response: { 200: SuggestionsResponse, ...searchErrors(400, 401, 403, 429) },
    }),
    async (request) =>
      service.suggestions(storeOf(request).id, { limit: request.query.limit, days: request.query.days, prefix: request.query.prefix }),
  );
}
