// The Assistant API: every resource plugs its routes in here, with the services it is handed
// (built once by composeAssistant, ./compose.ts).
import { assistantErrors } from "./errors.js";
import type { AppContext } from "../context/context.js";
import { createHttpApp, type App, type BuildOptions } from "../platform/http/app.js";
import type { AssistantServices } from "./compose.js";
import { decorateAssistantRequests } from "./http/auth.js";
import { trackRoutes } from "../tenancy/authenticate.js";
import { opsRoutes } from "../context/ops.js";
import { publicKeyRoutes } from "./public-keys/routes.js";
import { sessionRoutes } from "./sessions/routes.js";
import { policyRoutes } from "./policies/routes.js";
import { chatRoutes } from "./chat/routes.js";
import { chatActionRoutes } from "./chat/actions-routes.js";
import { assistantWidgetRoutes } from "./widget/routes.js";
import { registerAdminAudit } from "./audit/hook.js";
import { auditRoutes } from "./audit/routes.js";
import { connectionRoutes } from "./connections/routes.js";
import { catalogRoutes } from "./catalog/routes.js";
import { exchangeRoutes } from "./exchange/routes.js";
import { settingsRoutes } from "./settings/routes.js";

/** The app is built from its services (composeAssistant in ./compose.ts), built once per process. */
export interface AssistantBuildOptions extends BuildOptions {
  services: AssistantServices;
}

export async function buildAssistantApp(ctx: AppContext, options: AssistantBuildOptions): Promise<App> {
  const { services } = options;
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
  // /health/live, /health/ready, /metrics and the request metrics hook (ops; src/context/ops.ts).
  await opsRoutes(app, ctx, { api: "assistant", isReady: options.isReady ?? (() => true) });
  // GET /widget/*.js and the CORS hook of the shopper routes (/v1/sessions|chat|catalog/*).
  await assistantWidgetRoutes(app, ctx);
  // Audit trail of every /v1/admin/* call (onError + onResponse hooks; src/assistant/audit).
  registerAdminAudit(app, services.audit);
  await publicKeyRoutes(app, services);
  await sessionRoutes(app, services);
  await policyRoutes(app, services);
  await chatRoutes(app, services);
  await chatActionRoutes(app, services);
  await connectionRoutes(app, services);
  await catalogRoutes(app, services);
  await exchangeRoutes(app, services);
  await settingsRoutes(app, services);
  await auditRoutes(app, services);
  return app;
}
