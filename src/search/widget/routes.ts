// The public widget endpoints (/v1/widget/search/*, X-Service-Key + Origin: searches
// ./search-routes.ts, type-ahead ./suggestion-routes.ts, feedback ./feedback-routes.ts) and their
// CORS preflights. Widget keys (/v1/widget/keys, Bearer): ./key-routes.ts; the drop-in script
// (GET /widget.js): ./script-routes.ts. Spec: Authentication 3; Widget endpoints (public key).
//
// Widget endpoints authenticate themselves (route `config.auth` "none" for the shared
// authenticator; the gate's onRequest hook (./gate.ts) does the rest, before the body is parsed):
//   1. X-Service-Key: a pk_live_ key, looked up by SHA-256   → 401 unauthorized when missing/unknown/revoked;
//   2. Origin: on the key's allow-list (exact scheme, host, port) → 403 origin_not_allowed when absent or unlisted;
//   3. rate limits (fixed one-minute windows, shared through Redis when REDIS_URL is set):
//        60 requests per minute per key and client IP, 600 per minute per key in total
//        → 429 rate_limit_exceeded with Retry-After; type-ahead suggestions (one request per
//        pause in typing) have windows of the same size of their own, so typing never uses up a
//        shopper's searches;
//   4. the key's store becomes the request's store (so calls are metered as usage like any /v1/* call).
// CORS: Access-Control-Allow-Origin is set only to an origin on the key's allow-list (with
// Vary: Origin), so browsers let only the shop's pages read answers. Preflights (OPTIONS) carry
// no key value, so they are answered for any http(s) origin: the preflight lets the browser send
// the real request, which is then refused (403, without CORS headers) unless the origin is listed.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import type { FeedbackService } from "../feedback/service.js";
import { canonicalOrigin } from "./origins.js";
import { installWidgetGate, single } from "./gate.js";
import { widgetSearchRoutes } from "./search-routes.js";
import { widgetSuggestionRoutes } from "./suggestion-routes.js";
import { widgetFeedbackRoutes } from "./feedback-routes.js";
import { acceptUploads } from "../http/uploads.js";
import type { WidgetKeysService, WidgetSearchService } from "./service.js";

/** The public endpoints and the method each answers (for the CORS preflights). */
export const WIDGET_PATHS = {
  "/v1/widget/search/text": "POST",
  "/v1/widget/search/upload": "POST",
  "/v1/widget/search/url": "POST",
  "/v1/widget/search/feedback": "POST",
  "/v1/widget/search/suggestions": "GET",
} as const;
const ALLOWED_HEADERS = "Content-Type, X-Service-Key, X-Request-Id";

export async function widgetRoutes(
  app: App,
  ctx: AppContext,
  services: { feedback: FeedbackService; widgetKeys: WidgetKeysService; widgetSearch: WidgetSearchService },
) {
  // --- CORS preflights of the widget endpoints ---------------------------------------------------
  for (const [path, method] of Object.entries(WIDGET_PATHS)) {
    app.options(path, { config: { auth: "none" }, schema: { hide: true } }, async (request, reply) => {
      const origin = canonicalOrigin(single(request.headers.origin));
      reply.header("vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
      if (origin !== null) {
        reply
          .header("access-control-allow-origin", origin)
          .header("access-control-allow-methods", method)
          .header("access-control-allow-headers", ALLOWED_HEADERS)
          .header("access-control-max-age", "600");
      }
      return reply.status(204).send();
    });
  }

  // --- the public endpoints, in one scope behind the gate ----------------------------------------
  await app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    installWidgetGate(scope, ctx, services.widgetKeys);
    await acceptUploads(scope, ctx); // the image upload (widgetSearchRoutes)
    await widgetSearchRoutes(scope, ctx, services);
    await widgetSuggestionRoutes(scope, services);
    await widgetFeedbackRoutes(scope, services);
  });
}
