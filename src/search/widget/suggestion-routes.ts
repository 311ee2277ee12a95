// GET /v1/widget/search/suggestions: the widget's type-ahead, inside the scope the widget gate
// guards (./routes.ts); its calls are throttled in windows of their own (./gate.ts).
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { SUGGESTION_MIN_SEARCHES, type WidgetSearchService } from "./service.js";
import { SUGGESTIONS_PATH, WIDGET_LIMITS_TEXT, widgetKeySecurity as security, widgetOf, widgetTags as tags } from "./gate.js";
import { WidgetHeaders, WidgetSuggestionsQuery, WidgetSuggestionsResponse } from "./schemas.js";

export async function widgetSuggestionRoutes(scope: App, { widgetSearch: search }: { widgetSearch: WidgetSearchService }) {
  scope.get(
    SUGGESTIONS_PATH,
    {
      config: { auth: "none" },
      schema: {
        tags,
        security,
        summary: "Widget: type-ahead suggestions for what the shopper has typed (popular searches, then product names)",
        description: `Headers: X-Service-Key (public key) and the browser's Origin, as for the other widget calls (403 origin_not_allowed, 401). Rate limits: windows of the same size as the other widget calls (${WIDGET_LIMITS_TEXT}) but of their own, so typing does not use up searches (429 rate_limit_exceeded with Retry-After). Popular searches: the store's shoppers' text searches of the last 30 days (widget and backend, not the portal's playground) that returned results, each at least ${SUGGESTION_MIN_SEARCHES} times, starting with \`q\`; product names: products whose name holds every word of \`q\`, the last one as a prefix (from a last word of two characters). Records no search.`,
        headers: WidgetHeaders,
        querystring: WidgetSuggestionsQuery,
        response: { 200: WidgetSuggestionsResponse, ...searchErrors(400, 401, 403, 429) },
      },
    },
    async (request) => search.suggestions(widgetOf(request).store.id, request.query.q, request.query.limit),
  );
}
