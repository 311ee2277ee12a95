// The store portal (web/portal, a Vite-built single-page app) served by the Search API:
//   /portal, /portal/select-store, /portal/accept-invite, /portal/login   — sign-in, store choice, invites;
//   /portal/register, /portal/verify                                       — sign-up and the verification link's landing;
//   /{slug}/portal and /{slug}/portal/*                                    — one store's screens;
//   /admin and /admin/*                                                    — super admins;
//   /portal/assets/*                                                       — the hashed build files.
//   GET /v1/products/{id}/image                                            — stored product image (images.ts);
//   GET /portal/chat/*.js                                                  — the chat component for the preview;
//   GET /                                                                  — browsers: 302 to /portal; others: a JSON index of links.
// Every page path answers the same index.html (the app routes on the client with the History API).
// Static routes win over the `/:slug/portal` pattern in the router, so /v1/*, /health, /docs,
// /openapi.json, /widget.js and the rest are never shadowed; the portal holds no secret and talks
// to the API like any client (bearer token kept in sessionStorage).
//
// The build is made by `npm install` (`prepare`); when web/portal/dist is missing or older than
// its sources the server builds it: at start (in the background) outside tests, on the first
// portal request in tests. Requests wait for that build.
import fs from "node:fs";
import path from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { sendScript } from "../../platform/http/scripts.js";
import { loadWidgetFiles, type WIDGET_FILES } from "../../shared/chat-files.js";
import { ensurePortalBuilt, PORTAL_DIST } from "./build.js";
import { prefersHtml } from "../../platform/http/negotiate.js";
import { productImageRoutes } from "./images.js";
import type { ProductsRepository } from "../products/repository.js";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * The portal page's Content-Security-Policy: own scripts only (the chat preview's
 * <commerce-ai-chat> modules are served from the portal's own origin under /portal/chat/);
 * product images may come from anywhere; API calls go to the Search API (same origin) and to the
 * Assistant API at `chatOrigin` (the Assistant section and the chat preview).
 */
export const portalCsp = (chatOrigin: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https: http:",
    `connect-src 'self' ${chatOrigin}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

/** The chat component's files (web/chat, the same files the Assistant API serves under /widget/). */
const CHAT_FILES = loadWidgetFiles();

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

export async function portalRoutes(app: App, ctx: AppContext, services: { products: ProductsRepository }) {
  await productImageRoutes(app, ctx, services.products);
  const base = ctx.config.publicBaseUrl;
  const chatBase = ctx.config.chatPublicBaseUrl;
  const csp = portalCsp(new URL(chatBase).origin);
  let ready: Promise<void> | null = null;
  const prepare = (): Promise<void> =>
    (ready ??= ensurePortalBuilt((line) => app.log.info({ portal: line }, "portal build")).then(
      () => app.log.debug("portal build is current"),
      (e: unknown) => {
        ready = null;
        app.log.error({ err: e }, "the portal could not be built");
        throw new AppError("service_unavailable", "The portal could not be built; see the server log.");
      },
    ));
  // Outside tests the build (when needed) starts with the server; tests build on first use.
  if (ctx.config.env !== "test") prepare().catch(() => {});

  async function sendIndex(_request: FastifyRequest, reply: FastifyReply) {
    await prepare();
    const html = await fs.promises.readFile(path.join(PORTAL_DIST, "index.html"), "utf8");
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-cache")
      .header("content-security-policy", csp)
      .header("x-frame-options", "DENY")
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "same-origin")
      .send(html);
  }

  /**
   * Sends a file of the build (assets/…, favicon.svg); false when there is none. (It answers a
   * boolean, not the reply: an async function returning the thenable reply resolves to undefined.)
   */
  async function sendFile(rel: string, reply: FastifyReply): Promise<boolean> {
    await prepare();
    const full = path.resolve(PORTAL_DIST, rel);
    if (!full.startsWith(PORTAL_DIST + path.sep) || path.basename(full).startsWith(".")) return false;
    const type = TYPES[path.extname(full)];
    if (!type) return false;
    let body: Buffer;
    try {
      body = await fs.promises.readFile(full);
    } catch {
      return false;
    }
    void reply
      .type(type)
      .header("x-content-type-options", "nosniff")
      // Files under assets/ carry a content hash in their name.
      .header("cache-control", rel.startsWith("assets/") ? "public, max-age=31536000, immutable" : "public, max-age=300")
      .send(body);
    return true;
  }

  // The assistant's chat component for the portal's live preview (Assistant section), from the
  // portal's own origin so that the page's script-src stays 'self'.
  app.get("/portal/chat/:file", page, async (request, reply) => {
    const file = CHAT_FILES.get((request.params as { file: string }).file as (typeof WIDGET_FILES)[number]);
    if (!file) throw new AppError("not_found", "No such chat file.");
    return sendScript(request, reply, file);
  });
  app.get(
    "/",
    {
      config: { auth: "none" },
      schema: {
        tags: ["meta"],
        summary:
          "Where to go: browsers are redirected to the portal (302 /portal); JSON clients get links to the portal, docs and both APIs",
        response: {
          200: Type.Object({
            name: Type.String(),
            portal: Type.String(),
            sign_up: Type.String(),
            docs: Type.String(),
            openapi: Type.String(),
            search_api: Type.String(),
            assistant_api: Type.String(),
            assistant_docs: Type.String(),
            health: Type.String(),
          }),
          302: Type.Null({ description: "Redirect to /portal (browsers)" }),
        },
      },
    },
    async (request, reply) => {
      if (prefersHtml(request)) return reply.redirect("/portal", 302);
      return {
        name: "Shopsight Search API",
        portal: `${base}/portal`,
        sign_up: `${base}/portal/register`,
        docs: `${base}/docs`,
        openapi: `${base}/openapi.json`,
        search_api: base,
        assistant_api: chatBase,
        assistant_docs: `${chatBase}/docs`,
        health: `${base}/health`,
      };
    },
  );

  app.get("/portal", page, sendIndex);
  app.get("/admin", page, sendIndex);
  app.get("/admin/*", page, sendIndex);
  app.get("/portal/*", page, async (request, reply) => {
    const rest = (request.params as { "*": string })["*"];
    // Dot segments (../, .source-hash) never name a page or a build file.
    if (rest.split("/").some((seg) => seg.startsWith("."))) throw new AppError("not_found", "No such portal file.");
    if (rest.startsWith("assets/") || /\.[a-z0-9]+$/i.test(rest)) {
      if (await sendFile(rest, reply)) return reply;
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
