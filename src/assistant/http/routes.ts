// Route option builders shared by every Assistant API resource, so that each route states only
// what is its own (summary, schemas, its success and specific error statuses):
//   - admin routes (/v1/admin/*): `config: { auth: "store" }`, the dashboardGuard onRequest +
//     preHandler pair, tag "admin", bearer security, and 401/403 problem responses;
//   - shopper routes: `config: { auth: "none" }`, sessionGuard onRequest, the session bearer
//     security, the given tag, and the 401 problem response.
// Usage:
//   const admin = adminRoutes(guards);
//   r.get("/v1/admin/x", admin({ summary, response: { 200: View, ...problems(400) } }), handler);
import type { FastifySchema } from "fastify";
import type { Permission } from "../../tenancy/permissions.js";
import type { AssistantGuards } from "./auth.js";
import { problems, sessionSecurity } from "./schemas.js";

/** The permission every admin route of the Assistant API requires. */
export const ADMIN_PERMISSION: Permission = "connector:write:store";

type RouteSchema = Omit<FastifySchema, "tags" | "security" | "response"> & { response: Record<number, unknown> };

/** Options builder for /v1/admin/* routes (dashboard session with `permission`). */
export function adminRoutes(guards: AssistantGuards, permission: Permission = ADMIN_PERMISSION) {
  const guard = guards.dashboard(permission);
  return <S extends RouteSchema>(schema: S) => ({
    config: { auth: "store" as const },
    onRequest: guard.onRequest,
    preHandler: guard.preHandler,
    schema: {
      tags: ["admin"],
      security: sessionSecurity,
      ...schema,
      response: { ...schema.response, ...problems(401, 403) } as S["response"],
    },
  });
}

/** Options builder for shopper routes (session bearer ast_…), OpenAPI tag `tag`. */
export function shopperRoutes(guards: AssistantGuards, tag: string) {
  const requireSession = guards.session;
  return <S extends RouteSchema>(schema: S) => ({
    config: { auth: "none" as const },
    onRequest: requireSession,
    schema: { tags: [tag], security: sessionSecurity, ...schema, response: { ...schema.response, ...problems(401) } as S["response"] },
  });
}
