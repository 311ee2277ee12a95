// The Assistant API: every resource plugs its routes in here.
import type { AppContext } from "../context/context.js";
import { createHttpApp, type App, type BuildOptions } from "../platform/http/app.js";
import { createGuards, decorateAssistantRequests } from "./http/auth.js";
import { SessionsRepository } from "./sessions/repository.js";
import { trackRoutes } from "../tenancy/authenticate.js";
import { opsRoutes } from "../context/ops.js";
import { publicKeyRoutes } from "./public-keys/routes.js";
import { sessionRoutes } from "./sessions/routes.js";
import { policyRoutes } from "./policies/routes.js";
import { chatRoutes } from "./chat/routes.js";
import { assistantWidgetRoutes } from "./widget/routes.js";
import { registerAdminAudit } from "./audit/hook.js";
import { auditRoutes } from "./audit/routes.js";
import { connectionRoutes } from "./connections/routes.js";
import { catalogRoutes } from "./catalog/routes.js";
import { createStorefrontGateway, type CatalogPort } from "./storefront/index.js";
import { exchangeRoutes } from "./exchange/routes.js";
import { settingsRoutes } from "./settings/routes.js";

/** What the Assistant API is built from besides the context: the Search API's catalogue port. */
export interface AssistantBuildOptions extends BuildOptions {
  /** The store's own products (src/search/catalog/port.ts: searchCatalog), the embedded catalogue. */
  catalog: CatalogPort;
}

export async function buildAssistantApp(ctx: AppContext, options: AssistantBuildOptions): Promise<App> {
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
  trackRoutes(app); // route list for the isolation sweep (test/assistant-isolation.test.ts)
  // /health/live, /health/ready, /metrics and the request metrics hook (ops; src/platform/http/ops.ts).
  await opsRoutes(app, ctx, { api: "assistant", isReady: options.isReady ?? (() => true) });
  // GET /widget/*.js and the CORS hook of the shopper routes (/v1/sessions|chat|catalog/*).
  await assistantWidgetRoutes(app, ctx);
  // Audit trail of every /v1/admin/* call (onError + onResponse hooks; src/assistant/audit).
  registerAdminAudit(app, ctx);
  const guards = createGuards(ctx, new SessionsRepository(ctx.database.db));
  await publicKeyRoutes(app, ctx, guards);
  await sessionRoutes(app, ctx, guards);
  await policyRoutes(app, ctx, guards);
  const gateway = createStorefrontGateway(ctx, options.catalog);
  await chatRoutes(app, ctx, { gateway }, guards);
  await connectionRoutes(app, ctx, guards);
  await catalogRoutes(app, ctx, gateway, guards);
  await exchangeRoutes(app, ctx, guards);
  await settingsRoutes(app, ctx, guards);
  await auditRoutes(app, ctx, guards);
  return app;
}
