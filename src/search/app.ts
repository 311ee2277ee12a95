// The Search API: every resource plugs its routes in here.
import type { AppContext } from "../context/context.js";
import { createHttpApp, type App, type BuildOptions } from "../platform/http/app.js";
import { createAuthenticator, trackRoutes } from "../tenancy/authenticate.js";
import { authRoutes } from "./auth/routes.js";
import { accountRoutes } from "./accounts/routes.js";
import { clientSecretRoutes, securityOverviewRoutes } from "./security/routes.js";
import { twoFactorRoutes } from "./two-factor/routes.js";
import { apiKeyRoutes } from "./api-keys/routes.js";
import { ipAllowlistRoutes } from "./ip-allowlist/routes.js";
import { teamRoutes } from "./team/routes.js";
import { teamMemberRoutes } from "./team/member-routes.js";
import { userRoutes } from "./users/routes.js";
import { userGroupRoutes } from "./users/group-routes.js";
import { billingRoutes } from "./billing/routes.js";
import { billingPageRoutes } from "./billing/page-routes.js";
import { stripeWebhookRoutes } from "./billing/webhook-routes.js";
import { installUsageMeter } from "./billing/usage-meter.js";
import { productRoutes } from "./products/routes.js";
import { demoRoutes } from "./products/demo-routes.js";
import { jobRoutes } from "./jobs/routes.js";
import { reindexRoutes } from "./products/reindex-routes.js";
import { webhookRoutes } from "./webhooks/routes.js";
import { synonymRoutes } from "./synonyms/routes.js";
import { ruleRoutes } from "./rules/routes.js";
import { searchRoutes } from "./query/routes.js";
import { feedbackRoutes } from "./feedback/routes.js";
import { widgetRoutes } from "./widget/routes.js";
import { widgetKeyRoutes } from "./widget/key-routes.js";
import { widgetScriptRoutes } from "./widget/script-routes.js";
import { createPlanRateLimit } from "./billing/rate-limit.js";
import { opsRoutes } from "../context/ops.js";
import { adminRoutes } from "./admin/routes.js";
import { portalRoutes } from "./portal/routes.js";
import { productImageRoutes } from "./portal/image-routes.js";
import { portalChatRoutes } from "./portal/chat-routes.js";
import { rootRoutes } from "./portal/root-routes.js";
import { searchErrors, searchSecuritySchemes } from "./errors.js";
import { timedAuthentication } from "./http/stage-timing.js";
import type { SearchServices } from "./compose.js";

export interface SearchBuildOptions extends BuildOptions {
  /** The process's Search API services (composeSearch, src/search/compose.ts). */
  services: SearchServices;
}

export async function buildSearchApp(ctx: AppContext, options: SearchBuildOptions): Promise<App> {
  const { services } = options;
  const app = await createHttpApp({
    errors: searchErrors,
    securitySchemes: searchSecuritySchemes,
    config: ctx.config,
    title: "Shopsight Search API",
    description:
      "Visual product search: indexing, search modes, feedback, webhooks, accounts, security, team and billing. Errors are {error, message, details}.",
    isReady: options.isReady ?? (() => true),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  app.decorateRequest("principal", null);
  app.decorateRequest("store", null);
  // Read replicas (src/platform/db/replicas.ts): every request is one read scope, so that reads
  // after a write in it use the primary; a request that wrote records its store's WAL position
  // before answering (read-your-writes for the store's next requests).
  app.addHook("onRequest", (_request, _reply, done) => ctx.database.readScope(done));
  app.addHook("onSend", async (request, _reply, payload) => {
    await ctx.database.afterRequest(request.store?.id);
    return payload;
  });
  // /health/live, /health/ready, /metrics and the request metrics hook (first, so every route is measured).
  await opsRoutes(app, ctx, { api: "search", isReady: options.isReady ?? (() => true) });
  // Timed into request.authMs: a search records it as its `auth` stage (src/search/http/stage-timing.ts).
  app.addHook("onRequest", timedAuthentication(app, createAuthenticator(ctx, services.repositories)));
  trackRoutes(app); // route list for the isolation sweep and permission matrix (test/)
  // Counts authenticated /v1/* calls per store (batched; flushed every 5 s and on close).
  installUsageMeter(app, services.usageMeter);
  app.addHook("onRequest", createPlanRateLimit(ctx));
  // Uploads (image search) are read by the routes that take them only (src/search/http/uploads.ts).

  await accountRoutes(app, services);
  await authRoutes(app, services);
  await twoFactorRoutes(app, services);
  await clientSecretRoutes(app, services);
  await apiKeyRoutes(app, services);
  await ipAllowlistRoutes(app, services);
  await securityOverviewRoutes(app, services);
  await teamRoutes(app, services);
  await teamMemberRoutes(app, services);
  await userRoutes(app, services);
  await userGroupRoutes(app, services);
  await billingRoutes(app, ctx, services);
  await billingPageRoutes(app, services);
  await stripeWebhookRoutes(app, services);
  await productRoutes(app, services);
  await demoRoutes(app, services);
  await jobRoutes(app, services);
  await reindexRoutes(app, services);
  await webhookRoutes(app, services);
  await searchRoutes(app, ctx, services);
  await synonymRoutes(app, services);
  await ruleRoutes(app, services);
  await feedbackRoutes(app, services);
  await widgetKeyRoutes(app, services);
  await widgetScriptRoutes(app);
  await widgetRoutes(app, ctx, services);
  await adminRoutes(app, services);
  await productImageRoutes(app, ctx, services.repositories);
  await portalChatRoutes(app);
  await rootRoutes(app, ctx);
  await portalRoutes(app, ctx);
  return app;
}
