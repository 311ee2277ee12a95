// How the public widget endpoints authenticate themselves (steps 1–4 in ./routes.ts): the
// onRequest hook of their scope checks the key and the Origin, throttles, sets the CORS headers of
// the answer and makes the key's store the request's store.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import type { Permission } from "../../tenancy/permissions.js";
import type { WidgetCaller, WidgetKeysService } from "./service.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set on widget endpoints once the key and Origin checked out. */
    widget: WidgetCaller | null;
  }
}

/** Per-key throttles of widget calls (documented in docs/api-search.md and OpenAPI). */
export const WIDGET_RATE_LIMITS = {
  /** Per key and client IP: one shopper's browser. */
  perClient: { points: 60, durationSec: 60 },
  /** Per key in total: all shoppers of the site together. */
  perKey: { points: 600, durationSec: 60 },
} as const;
/** The limits in words, for the routes' descriptions. */
export const WIDGET_LIMITS_TEXT = `${WIDGET_RATE_LIMITS.perClient.points} requests per minute per key and client IP, ${WIDGET_RATE_LIMITS.perKey.points} per minute per key in total`;
/** The description of the widget's search and feedback calls in OpenAPI. */
export const WIDGET_CALL_DESCRIPTION = `Headers: X-Service-Key (public key) and the browser's Origin, which must be on the key's allow-list (403 origin_not_allowed otherwise; 401 for a missing, unknown or revoked key). Rate limits: ${WIDGET_LIMITS_TEXT} (429 rate_limit_exceeded with Retry-After). CORS headers only for the key's origins.`;

/** Type-ahead: its calls are throttled in windows of their own. */
export const SUGGESTIONS_PATH = "/v1/widget/search/suggestions";
const EXPOSED_HEADERS = "Retry-After, X-Request-Id, X-Shopsight-Model";
/** The widget key may do exactly this (kept on request.store for anything that reads permissions). */
const WIDGET_GRANT: ReadonlySet<Permission> = new Set<Permission>(["search:execute", "search:write"]);

/** Security and tags of the public widget endpoints in OpenAPI. */
export const widgetKeySecurity = [{ widgetKey: [] }];
export const widgetTags = ["widget"];

export const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header("access-control-allow-origin", origin);
  reply.header("access-control-expose-headers", EXPOSED_HEADERS);
}

/** The caller of a widget endpoint (set by the gate's hook). */
export const widgetOf = (request: FastifyRequest): WidgetCaller => {
  if (!request.widget) throw new AppError("unauthorized");
  return request.widget;
};

/** Installs the gate on `scope`, the encapsulated plugin that holds the public endpoints. */
export function installWidgetGate(scope: App, ctx: AppContext, keys: WidgetKeysService): void {
  const perClient = ctx.limiters({ name: "widget-client", ...WIDGET_RATE_LIMITS.perClient });
  const perKey = ctx.limiters({ name: "widget-key", ...WIDGET_RATE_LIMITS.perKey });
  // Type-ahead's own windows of the same size (see ./routes.ts).
  const suggestPerClient = ctx.limiters({ name: "widget-suggest-client", ...WIDGET_RATE_LIMITS.perClient });
  const suggestPerKey = ctx.limiters({ name: "widget-suggest-key", ...WIDGET_RATE_LIMITS.perKey });
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
    const started = performance.now();
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
    request.authMs += performance.now() - started; // a widget search's `auth` stage (src/search/http/stage-timing.ts)
  });
}
