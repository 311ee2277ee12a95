// The chat web component and the Assistant API's CORS policy.
//
// GET /widget/index.js (and the modules it imports: markdown.js, sse.js, strings.js) serves the
// files of web/chat/ as ES modules: read once at start, `text/javascript`, a strong ETag (304 on
// If-None-Match), `Cache-Control: public, max-age=300`, CORS `*` (module scripts are fetched in
// CORS mode) and `Cross-Origin-Resource-Policy: cross-origin`. Only the listed files are served.
//
// CORS: a store's pages on any origin call the shopper routes (/v1/sessions/*, /v1/chat/*,
// /v1/catalog/*) from the browser with `Authorization: Bearer ast_…`. Those answer any origin with
// `Access-Control-Allow-Origin: *` and no credentials: the store public key and the session token
// minted from it are the only credentials, no cookie is ever set or read, so a foreign page gains
// nothing it could not get by calling the API from a server. Preflights name the methods and the
// headers the widget sends (Authorization is never covered by a `*` wildcard, so it is listed);
// Retry-After and X-Correlation-Id are exposed so the widget can read them. Admin routes
// (/v1/admin/*), /docs, /openapi.json and /health get no CORS headers at all: a dashboard token
// must not be usable from a foreign page, and their preflights are 404. The one exception is the
// store portal's own origin (the origin of PUBLIC_BASE_URL, where the Search API serves /portal):
// its Assistant section calls /v1/admin/* with the signed-in user's bearer token, so requests
// whose Origin is exactly that origin get `Access-Control-Allow-Origin: <portal origin>` (no
// credentials, no cookies) on the admin routes; every other origin still gets nothing.
import cors, { type FastifyCorsOptions } from "@fastify/cors";
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../context/context.js";
import type { App } from "../../platform/http/app.js";
import { sendScript } from "../../platform/http/scripts.js";
import { loadWidgetFiles } from "../../shared/chat-files.js";

/** Path prefixes of the shopper routes that browsers on store sites may call. */
export const SHOPPER_CORS_PREFIXES = ["/v1/sessions/", "/v1/chat/", "/v1/catalog/", "/widget/"] as const;
export const CORS_ALLOWED_HEADERS = ["Authorization", "Content-Type", "Accept", "Last-Event-ID", "X-Request-Id"] as const;
export const CORS_EXPOSED_HEADERS = ["Retry-After", "X-Correlation-Id"] as const;

const pathOf = (request: FastifyRequest): string => request.url.split("?")[0] ?? "";
export const isShopperPath = (path: string): boolean => SHOPPER_CORS_PREFIXES.some((prefix) => path.startsWith(prefix));

const shopperCors: FastifyCorsOptions = {
  origin: "*",
  methods: ["GET", "POST"],
  allowedHeaders: [...CORS_ALLOWED_HEADERS],
  exposedHeaders: [...CORS_EXPOSED_HEADERS],
  credentials: false,
  maxAge: 600,
};
const noCors: FastifyCorsOptions = { origin: false };
/** The portal's Assistant section on the admin routes (exact origin, bearer tokens only). */
const portalCors = (origin: string): FastifyCorsOptions => ({
  origin,
  methods: ["GET", "PUT", "POST", "PATCH", "DELETE"],
  allowedHeaders: ["Authorization", "Content-Type", "Accept", "X-Service-Active-Tenant", "X-Request-Id"],
  exposedHeaders: [...CORS_EXPOSED_HEADERS],
  credentials: false,
  maxAge: 600,
});
export const isAdminPath = (path: string): boolean => path.startsWith("/v1/admin/");

export async function assistantWidgetRoutes(app: App, ctx: AppContext): Promise<void> {
  const portalOrigin = new URL(ctx.config.publicBaseUrl).origin;
  const forPortal = portalCors(portalOrigin);
  const policyOf = (request: FastifyRequest): FastifyCorsOptions => {
    const path = pathOf(request);
    if (isShopperPath(path)) return shopperCors;
    if (isAdminPath(path) && request.headers.origin === portalOrigin) return forPortal;
    return noCors;
  };
  // fastify-plugin: the onRequest hook applies to every route of the app; the delegator picks the policy by path.
  await app.register(cors, {
    hook: "onRequest",
    delegator: (request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void) =>
      callback(null, policyOf(request)),
  });

  const files = loadWidgetFiles();

  for (const [name, file] of files) {
    app.get(
      `/widget/${name}`,
      {
        config: { auth: "none" },
        schema: {
          tags: ["widget"],
          summary: name === "index.js" ? "The <commerce-ai-chat> web component (ES module)" : `Module ${name} imported by /widget/index.js`,
          hide: name !== "index.js",
          ...(name === "index.js"
            ? {
                description:
                  'Load it with <script type="module" src="{chat_base_url}/widget/index.js"></script> and place <commerce-ai-chat store-public-key="store_pub_…" api-base-url="{chat_base_url}" locale="en"></commerce-ai-chat>. Cached for 5 minutes with an ETag (304 on If-None-Match).',
              }
            : {}),
          produces: ["text/javascript"],
        },
      },
      async (request, reply) => sendScript(request, reply, file),
    );
  }
}
