// The Assistant API: every resource plugs its routes in here.
import type { AppContext } from "../platform/context.js";
import { createHttpApp, type App } from "../platform/http/app.js";
import type { BuildOptions } from "../search/app.js";
import { decorateAssistantRequests } from "./auth.js";
import { publicKeyRoutes } from "./public-keys/routes.js";
import { sessionRoutes } from "./sessions/routes.js";
import { policyRoutes } from "./policies/routes.js";

export async function buildAssistantApp(ctx: AppContext, options: BuildOptions = {}): Promise<App> {
  const app = await createHttpApp({
    kind: "assistant",
    config: ctx.config,
    title: "Shopsight Assistant API",
    description:
      "Shopping assistant grounded in the store's policies and catalogue. Errors are problem details with a stable `code` and `correlation_id`.",
    isReady: options.isReady ?? (() => true),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  decorateAssistantRequests(app);
  await publicKeyRoutes(app, ctx);
  await sessionRoutes(app, ctx);
  await policyRoutes(app, ctx);
  return app;
}
