// The Assistant API: every resource plugs its routes in here.
import { assistantErrors } from "./errors.js";
import type { AppContext } from "../context/context.js";
import { createHttpApp, type App, type BuildOptions } from "../platform/http/app.js";
import { decorateAssistantRequests } from "./auth.js";
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
    errors: assistantErrors,
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
  await publicKeyRoutes(app, ctx);
  await sessionRoutes(app, ctx);
  await policyRoutes(app, ctx);
  const gateway = createStorefrontGateway(ctx, options.catalog);
  await chatRoutes(app, ctx, { gateway });
  await connectionRoutes(app, ctx);
  await catalogRoutes(app, ctx, gateway);
  await exchangeRoutes(app, ctx);
  await settingsRoutes(app, ctx);
  await auditRoutes(app, ctx);
  return app;
}
