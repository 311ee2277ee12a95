// GET /: browsers are sent to the portal (302 /portal); other clients get a JSON index of links.
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { prefersHtml } from "../../platform/http/negotiate.js";
import { RootLinks } from "./schemas.js";

export async function rootRoutes(app: App, ctx: AppContext) {
  const base = ctx.config.publicBaseUrl;
  const chatBase = ctx.config.chatPublicBaseUrl;
  app.get(
    "/",
    {
      config: { auth: "none" },
      schema: {
        tags: ["meta"],
        summary:
          "Where to go: browsers are redirected to the portal (302 /portal); JSON clients get links to the portal, docs and both APIs",
        response: {
          200: RootLinks,
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
}
