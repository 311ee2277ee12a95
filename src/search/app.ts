// The Search API: every resource plugs its routes in here.
import type { AppContext } from "../platform/context.js";
import { createHttpApp, type App } from "../platform/http/app.js";
import { createAuthenticator } from "./auth/authenticate.js";
import { authRoutes } from "./auth/routes.js";
import { accountRoutes } from "./accounts/routes.js";
import { securityRoutes } from "./security/routes.js";

export interface BuildOptions {
  isReady?: () => boolean;
  logger?: boolean;
}

export async function buildSearchApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const app = await createHttpApp({
    kind: "search",
    config: ctx.config,
    title: "Shopsight Search API",
    description:
      "Visual product search: indexing, search modes, feedback, webhooks, accounts, security, team and billing. Errors are {error, message, details}.",
    isReady: options.isReady ?? (() => true),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  app.decorateRequest("principal", null);
  app.decorateRequest("store", null);
  app.addHook("onRequest", createAuthenticator(ctx));

  await accountRoutes(app, ctx);
  await authRoutes(app, ctx);
  await securityRoutes(app, ctx);
  return app;
}
