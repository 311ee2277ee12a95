// The store's security (spec: Security (Bearer); Security records): client-secret rotation and
// the overview of 2FA per member, API keys, the IP allow-list and failed logins. Two-factor
// authentication, API keys and the IP allow-list have their own plugins (src/search/two-factor/,
// api-keys/, ip-allowlist/); app.ts registers these two around them, keeping the route order.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { actorUserIdOf, requireRole, storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import type { AccountsService } from "../accounts/service.js";
import { FAILED_LOGIN_WINDOW_HOURS, type SecurityOverviewService } from "./service.js";
import { Overview, RotatedSecret } from "./schemas.js";

/** POST /v1/security/client-secret/rotate (owner or admin). */
export async function clientSecretRoutes(app: App, { accounts }: { accounts: AccountsService }) {
  app.post(
    "/v1/security/client-secret/rotate",
    storeRoute(requireRole("owner", "admin"), {
      tags: ["security"],
      summary:
        "Generate a new client secret (shown once); the old one stops working at once, and so does every machine token issued before the rotation",
      response: { 200: RotatedSecret, ...searchErrors(401, 403) },
    }),
    async (request) => {
      const store = storeOf(request);
      return accounts.rotateClientSecret(store.id, actorUserIdOf(request), request.ip);
    },
  );
}

/** GET /v1/security/overview (security:read). */
export async function securityOverviewRoutes(app: App, { securityOverview: overview }: { securityOverview: SecurityOverviewService }) {
  app.get(
    "/v1/security/overview",
    storeRoute("security:read", {
      tags: ["security"],
      summary: `2FA per member, active API keys, the IP allow-list, failed logins of the last ${FAILED_LOGIN_WINDOW_HOURS} hours and the last secret rotation`,
      response: { 200: Overview, ...searchErrors(401, 403) },
    }),
    async (request) => overview.overview(storeOf(request).id),
  );
}
