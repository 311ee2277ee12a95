// The store portal (web/portal, a Vite-built single-page app) served by the Search API:
//   /portal, /portal/select-store, /portal/accept-invite, /portal/login   — sign-in, store choice, invites;
//   /portal/register, /portal/verify                                       — sign-up and the verification link's landing;
//   /{slug}/portal and /{slug}/portal/*                                    — one store's screens;
//   /admin and /admin/*                                                    — super admins;
//   /portal/assets/*                                                       — the hashed build files.
// Beside them: GET /v1/products/{id}/image, the stored product image (./image-routes.ts);
// GET /portal/chat/*.js, the chat component for the preview (./chat-routes.ts); GET /, for
// browsers a 302 to /portal, for others a JSON index of links (./root-routes.ts).
// Every page path answers the same index.html (./page.ts; the app routes on the client with the
// History API). Static routes win over the `/:slug/portal` pattern in the router, so /v1/*,
// /health, /docs, /openapi.json, /widget.js and the rest are never shadowed; the portal holds no
// secret and talks to the API like any client (bearer token kept in sessionStorage).
//
// The build is made by `npm install` (`prepare`); when web/portal/dist is missing or older than
// its sources the server builds it (./dist.ts): at start (in the background) outside tests, on
// the first portal request in tests. Requests wait for that build.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { portalDist } from "./dist.js";
import { pageSender } from "./page.js";

/** First path segments that are never a store slug (real routes or reserved words). */
const RESERVED = new Set([
  "v1",
  "oauth",
  "docs",
  "health",
  "metrics",
  "billing",
  "demo",
  "widget",
  "register",
  "verify",
  "portal",
  "admin",
  "assets",
]);
const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const page = { schema: { hide: true }, config: { auth: "none" as const } };

export async function portalRoutes(app: App, ctx: AppContext) {
  const dist = portalDist(app);
  const sendIndex = pageSender(dist, new URL(ctx.config.chatPublicBaseUrl).origin);
  // Outside tests the build (when needed) starts with the server; tests build on first use.
  if (ctx.config.env !== "test") dist.prepare().catch(() => {});

  app.get("/portal", page, sendIndex);
  app.get("/admin", page, sendIndex);
  app.get("/admin/*", page, sendIndex);
  app.get("/portal/*", page, async (request, reply) => {
    const rest = (request.params as { "*": string })["*"];
    // Dot segments (../, .source-hash) never name a page or a build file.
    if (rest.split("/").some((seg) => seg.startsWith("."))) throw new AppError("not_found", "No such portal file.");
    if (rest.startsWith("assets/") || /\.[a-z0-9]+$/i.test(rest)) {
      if (await dist.sendFile(rest, reply)) return reply;
      throw new AppError("not_found", `No portal file ${rest}.`);
    }
    return sendIndex(request, reply);
  });
  const storePage = async (request: FastifyRequest, reply: FastifyReply) => {
    const { slug } = request.params as { slug: string };
    if (!SLUG.test(slug) || RESERVED.has(slug)) {
      reply.callNotFound();
      return;
    }
    return sendIndex(request, reply);
  };
  app.get("/:slug/portal", page, storePage);
  app.get("/:slug/portal/*", page, storePage);
}
