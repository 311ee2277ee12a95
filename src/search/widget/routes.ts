// Widget keys (/v1/widget/keys, Bearer), the public widget endpoints (/v1/widget/search/*,
// X-Service-Key + Origin) and the drop-in script (GET /widget.js). Spec: Authentication 3;
// Widget endpoints (public key).
//
// Widget endpoints authenticate themselves (route `config.auth` "none" for the shared
// authenticator; this plugin's own onRequest hook does the rest, before the body is parsed):
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
import { fileURLToPath } from "node:url";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type, type TSchema } from "typebox";
import type { App } from "../../platform/http/app.js";
import { loadScript, sendScript } from "../../platform/http/scripts.js";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { searchErrors } from "../http/schemas.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { storeRoute, type Permission } from "../../tenancy/permissions.js";
import { FeedbackBody, FeedbackView } from "../feedback/schemas.js";
import { filterFields, SemanticWeight, Threshold, Understand } from "../query/schemas.js";
import { modelStatus } from "../query/model.js";
import { common as commonOf, understandMode, type CommonFields } from "../query/routes.js";
import type { Common } from "../query/service.js";
import { canonicalOrigin } from "./origins.js";
import { SUGGESTION_MIN_SEARCHES, WIDGET_KEY_MAX_ACTIVE, WIDGET_KEY_MAX_ORIGINS, type WidgetCaller } from "./service.js";
import type { FeedbackService } from "../feedback/service.js";
import type { WidgetKeysService, WidgetSearchService } from "./service.js";
import { WidgetSearchResponseSchema, WidgetSuggestionsQuery, WidgetSuggestionsResponse } from "./schemas.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set on widget endpoints once the key and Origin checked out. */
    widget: WidgetCaller | null;
  }
}

/** Per-key throttles of widget calls (documented in the README and OpenAPI). */
export const WIDGET_RATE_LIMITS = {
  /** Per key and client IP: one shopper's browser. */
  perClient: { points: 60, durationSec: 60 },
  /** Per key in total: all shoppers of the site together. */
  perKey: { points: 600, durationSec: 60 },
} as const;

/** The public endpoints and the method each answers (for the CORS preflights). */
export const WIDGET_PATHS = {
  "/v1/widget/search/text": "POST",
  "/v1/widget/search/upload": "POST",
  "/v1/widget/search/url": "POST",
  "/v1/widget/search/feedback": "POST",
  "/v1/widget/search/suggestions": "GET",
} as const;
const SUGGESTIONS_PATH = "/v1/widget/search/suggestions";
const ALLOWED_HEADERS = "Content-Type, X-Service-Key, X-Request-Id";
const EXPOSED_HEADERS = "Retry-After, X-Request-Id, X-Shopsight-Model";
/** The widget key may do exactly this (kept on request.store for anything that reads permissions). */
const WIDGET_GRANT: ReadonlySet<Permission> = new Set<Permission>(["search:execute", "search:write"]);

const widgetKey = [{ widgetKey: [] }];
const tags = ["widget"];
const DateTime = Type.String({ format: "date-time" });
const NullableDate = Type.Union([DateTime, Type.Null()]);

const WidgetKeyView = Type.Object({
  id: Type.String({ description: "wk_…" }),
  name: Type.String(),
  key_prefix: Type.String({ description: "The first characters of the key, to recognise it" }),
  allowed_origins: Type.Array(Type.String()),
  status: Type.Union([Type.Literal("active"), Type.Literal("revoked")]),
  created_at: DateTime,
  updated_at: DateTime,
  last_used_at: NullableDate,
  revoked_at: NullableDate,
});
const Origins = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
  minItems: 1,
  maxItems: WIDGET_KEY_MAX_ORIGINS,
  description: "Exact origins (scheme, host, optional port), e.g. https://shop.example; no paths or wildcards",
});
const KeyName = Type.String({ minLength: 1, maxLength: 100, pattern: "\\S" });
const KeyParams = Type.Object({ widget_key_id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

// --- widget search bodies: the spec's `query, limit` plus the pre-filters (no metadata_filters).
const WidgetLimit = Type.Integer({ minimum: 1, maximum: 50, default: 12, description: "Results wanted (default 12, at most 50)" });
const widgetCommon = {
  limit: WidgetLimit,
  threshold: Threshold,
  category: filterFields.category,
  price_min: filterFields.price_min,
  price_max: filterFields.price_max,
  color: filterFields.color,
};
const WidgetTextBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500 }),
    semantic_weight: Type.Optional(SemanticWeight),
    understand: Type.Optional(Understand),
    ...widgetCommon,
  },
  { additionalProperties: false },
);
const WidgetUrlBody = Type.Object(
  { image_url: Type.String({ minLength: 1, maxLength: 2048 }), ...widgetCommon },
  { additionalProperties: false },
);
const WidgetUploadBody = Type.Object(
  { image: Type.Unsafe<Buffer>({ description: "image file (JPEG, PNG, WebP, GIF, AVIF or TIFF)" }), ...widgetCommon },
  { additionalProperties: false, "x-coerce": true },
);
const WidgetHeaders = Type.Object({
  "x-service-key": Type.String({ description: "Public widget key pk_live_…" }),
  origin: Type.String({ description: "Set by the browser; must be on the key's allow-list" }),
});

/** Widget searches return 12 products unless the page asks otherwise. */
const common = (b: CommonFields): Common => commonOf(b, 12);

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header("access-control-allow-origin", origin);
  reply.header("access-control-expose-headers", EXPOSED_HEADERS);
}

export async function widgetRoutes(
  app: App,
  ctx: AppContext,
  {
    widgetKeys: keys,
    widgetSearch: search,
    feedback,
  }: { feedback: FeedbackService; widgetKeys: WidgetKeysService; widgetSearch: WidgetSearchService },
) {
  // The drop-in script, read once at start. It holds no secret: the page passes its public key.
  const script = loadScript(fileURLToPath(new URL("../../../web/widget/widget.js", import.meta.url)));
  const perClient = ctx.limiters({ name: "widget-client", ...WIDGET_RATE_LIMITS.perClient });
  const perKey = ctx.limiters({ name: "widget-key", ...WIDGET_RATE_LIMITS.perKey });
  // Type-ahead's own windows of the same size (see the header).
  const suggestPerClient = ctx.limiters({ name: "widget-suggest-client", ...WIDGET_RATE_LIMITS.perClient });
  const suggestPerKey = ctx.limiters({ name: "widget-suggest-key", ...WIDGET_RATE_LIMITS.perKey });
  const limitsText = `${WIDGET_RATE_LIMITS.perClient.points} requests per minute per key and client IP, ${WIDGET_RATE_LIMITS.perKey.points} per minute per key in total`;

  // --- key management (Bearer) -----------------------------------------------------------------
  app.post(
    "/v1/widget/keys",
    storeRoute("widget:write", {
      tags,
      summary: "Mint a public widget key (pk_live_…) bound to exact origins; the key is returned this once",
      description: `Origins are compared exactly (scheme, host, port; default ports omitted, hosts lower-cased). At most ${WIDGET_KEY_MAX_ACTIVE} active keys per store (422 beyond).`,
      body: Type.Object({ name: KeyName, allowed_origins: Origins }, { additionalProperties: false }),
      response: {
        201: Type.Object({ ...WidgetKeyView.properties, key: Type.String({ description: "pk_live_…, shown this once (stored hashed)" }) }),
        ...searchErrors(400, 401, 403, 422, 429),
      },
    }),
    async (request, reply) => reply.status(201).send(await keys.create(storeOf(request).id, actorUserIdOf(request), request.body)),
  );

  app.get(
    "/v1/widget/keys",
    storeRoute("widget:read", {
      tags,
      summary: "The store's widget keys, newest first (never the key itself)",
      response: { 200: Type.Array(WidgetKeyView), ...searchErrors(401, 403, 429) },
    }),
    async (request) => keys.list(storeOf(request).id),
  );

  app.patch(
    "/v1/widget/keys/:widget_key_id",
    storeRoute("widget:write", {
      tags,
      summary: "Rename a widget key or replace its allowed origins (the key itself stays the same)",
      params: KeyParams,
      body: Type.Object(
        { name: Type.Optional(KeyName), allowed_origins: Type.Optional(Origins) },
        { additionalProperties: false, minProperties: 1 },
      ),
      response: { 200: WidgetKeyView, ...searchErrors(400, 401, 403, 404, 409, 429) },
    }),
    async (request) => keys.update(storeOf(request).id, request.params.widget_key_id, request.body),
  );

  app.delete(
    "/v1/widget/keys/:widget_key_id",
    storeRoute("widget:write", {
      tags,
      summary: "Revoke a widget key; its next use is 401",
      params: KeyParams,
      response: { 200: WidgetKeyView, ...searchErrors(401, 403, 404, 429) },
    }),
    async (request) => keys.revoke(storeOf(request).id, request.params.widget_key_id),
  );

  // --- the script ------------------------------------------------------------------------------
  app.get(
    "/widget.js",
    {
      config: { auth: "none" },
      schema: {
        tags,
        summary: "The drop-in search widget (plain JavaScript, defines window.ServiceWidget)",
        description:
          'Load it with <script src="{base_url}/widget.js"></script>, then ServiceWidget.mount(element, {key: "pk_live_…"}) and, on the order page, ServiceWidget.trackPurchase(product_id, {order_value, currency, quantity}).',
        produces: ["text/javascript"],
      },
    },
    async (request, reply) => sendScript(request, reply, script),
  );

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

  // --- the public endpoints ----------------------------------------------------------------------
  await app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.decorateRequest("widget", null);

    async function throttle(caller: WidgetCaller, ip: string, suggest: boolean): Promise<void> {
      for (const [scopeName, limiter, key] of [
        ["client", suggest ? suggestPerClient : perClient, `${caller.keyId}:${ip}`],
        ["key", suggest ? suggestPerKey : perKey, caller.keyId],
      ] as const) {
        const result = await limiter.consume(key);
        if (!result.allowed) {
          throw new AppError(
            "rate_limit_exceeded",
            scopeName === "client"
              ? `The widget key allows ${limiter.points} requests per minute from one client.`
              : `The widget key allows ${limiter.points} requests per minute in total.`,
            { limit: limiter.points, window_seconds: 60, retry_after: result.retryAfterSec, scope: scopeName },
            { "retry-after": String(result.retryAfterSec) },
          );
        }
      }
    }

    scope.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
      request.widget = null;
      reply.header("vary", "Origin");
      const check = await keys.check(single(request.headers["x-service-key"])?.trim(), single(request.headers.origin));
      if (!check.ok) {
        if (check.corsOrigin) allowOrigin(reply, check.corsOrigin);
        throw check.error;
      }
      const caller = check.caller;
      allowOrigin(reply, caller.origin);
      await throttle(caller, request.ip, request.routeOptions.url === SUGGESTIONS_PATH);
      request.widget = caller;
      request.store = { ...caller.store, role: "api_key", permissions: WIDGET_GRANT };
    });

    const widgetOf = (request: FastifyRequest): WidgetCaller => {
      if (!request.widget) throw new AppError("unauthorized");
      return request.widget;
    };
    const errors = searchErrors(400, 401, 403, 413, 415, 422, 429, 503);
    const description = `Headers: X-Service-Key (public key) and the browser's Origin, which must be on the key's allow-list (403 origin_not_allowed otherwise; 401 for a missing, unknown or revoked key). Rate limits: ${limitsText} (429 rate_limit_exceeded with Retry-After). CORS headers only for the key's origins.`;

    /** The options every widget search route shares; only the summary and body differ. */
    const widgetSearch = <B extends TSchema>(summary: string, body: B, extra: { consumes?: string[] } = {}) => ({
      config: { auth: "none" as const },
      onRequest: async (_request: FastifyRequest, reply: FastifyReply) => {
        reply.header("x-shopsight-model", modelStatus(ctx).model_id);
      },
      schema: {
        tags,
        security: widgetKey,
        summary,
        description,
        ...extra,
        headers: WidgetHeaders,
        body,
        response: { 200: WidgetSearchResponseSchema, ...errors },
      },
    });

    scope.post("/v1/widget/search/text", widgetSearch("Widget: natural-language search", WidgetTextBody), async (request) =>
      search.text(widgetOf(request).store.id, request.body.query, common(request.body), {
        semantic_weight: request.body.semantic_weight,
        understand: understandMode(request.body.understand),
      }),
    );

    scope.post("/v1/widget/search/url", widgetSearch("Widget: search by an image URL", WidgetUrlBody), async (request) =>
      search.url(widgetOf(request).store.id, request.body.image_url, common(request.body)),
    );

    scope.post(
      "/v1/widget/search/upload",
      widgetSearch(
        "Widget: search by an uploaded image (multipart/form-data: image file, limit, threshold, category, price_min, price_max, color)",
        WidgetUploadBody,
        { consumes: ["multipart/form-data"] },
      ),
      async (request) => {
        const b = request.body;
        return search.upload(widgetOf(request).store.id, b.image, common(b));
      },
    );

    scope.get(
      SUGGESTIONS_PATH,
      {
        config: { auth: "none" },
        schema: {
          tags,
          security: widgetKey,
          summary: "Widget: type-ahead suggestions for what the shopper has typed (popular searches, then product names)",
          description: `Headers: X-Service-Key (public key) and the browser's Origin, as for the other widget calls (403 origin_not_allowed, 401). Rate limits: windows of the same size as the other widget calls (${limitsText}) but of their own, so typing does not use up searches (429 rate_limit_exceeded with Retry-After). Popular searches: the store's shoppers' text searches of the last 30 days (widget and backend, not the portal's playground) that returned results, each at least ${SUGGESTION_MIN_SEARCHES} times, starting with \`q\`; product names: products whose name holds every word of \`q\`, the last one as a prefix (from a last word of two characters). Records no search.`,
          headers: WidgetHeaders,
          querystring: WidgetSuggestionsQuery,
          response: { 200: WidgetSuggestionsResponse, ...searchErrors(400, 401, 403, 429) },
        },
      },
      async (request) => search.suggestions(widgetOf(request).store.id, request.query.q, request.query.limit),
    );

    scope.post(
      "/v1/widget/search/feedback",
      {
        config: { auth: "none" },
        schema: {
          tags,
          security: widgetKey,
          summary: "Widget: record a click, add-to-cart or purchase (same record and rules as POST /v1/search/feedback)",
          description,
          headers: WidgetHeaders,
          body: FeedbackBody,
          response: { 201: FeedbackView, ...searchErrors(400, 401, 403, 404, 422, 429) },
        },
      },
      async (request, reply) => {
        const caller = widgetOf(request);
        return reply
          .status(201)
          .send(await feedback.record(caller.store.id, request.body, { source: "widget", widgetKeyId: caller.keyId }));
      },
    );
  });
}
