// Platform administration for super admins: GET /v1/admin/stores, PUT /v1/admin/stores/{slug}/plan.
// Auth: a user-login token (config.auth "user": no active store needed) whose `is_super_admin`
// claim is true; anyone else gets 403 forbidden (after validation, as everywhere).
import type { FastifyRequest } from "fastify";
import type { App } from "../../platform/http/app.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { searchErrors } from "../http/schemas.js";
import type { AdminService } from "./service.js";
import { ListQuery, ListResponse, PlanBody, PlanResponse, SlugParams } from "./schemas.js";

/** Authorization: only platform super admins (the login's is_super_admin claim). */
export async function requireSuperAdmin(request: FastifyRequest): Promise<void> {
  const p = request.principal;
  if (p?.kind !== "user" || !p.isSuperAdmin) throw new AppError("forbidden", "This needs a platform super admin.");
}

export async function adminRoutes(app: App, { admin: service }: { admin: AdminService }) {
  app.get(
    "/v1/admin/stores",
    {
      config: { auth: "user" },
      preHandler: requireSuperAdmin,
      schema: {
        tags: ["admin"],
        security: bearerSecurity,
        summary: "Every store of the platform, oldest first (super admins only)",
        description:
          "Paged with `limit` (1–100, default 50) and the opaque `next_cursor`; `q` filters by part of the slug or name. Each store shows its plan and limits, product and member counts and owner e-mails.",
        querystring: ListQuery,
        response: { 200: ListResponse, ...searchErrors(400, 401, 403) },
      },
    },
    async (request) => service.listStores({ limit: request.query.limit ?? 50, cursor: request.query.cursor, q: request.query.q }),
  );

  app.put(
    "/v1/admin/stores/:slug/plan",
    {
      config: { auth: "user" },
      preHandler: requireSuperAdmin,
      schema: {
        tags: ["admin"],
        security: bearerSecurity,
        summary: "Set a store's plan without checkout (super admins only)",
        description:
          "Applies at once, like a completed checkout (rate limits and the product limit read the plan on every request); recorded as plan source `admin_override`, with no invoice. Setting the current plan answers `changed: false`. With a live Stripe subscription, Stripe's next subscription event sets the plan it bills for.",
        params: SlugParams,
        body: PlanBody,
        response: { 200: PlanResponse, ...searchErrors(400, 401, 403, 404) },
      },
    },
    async (request) => service.overridePlan(request.params.slug, request.body.plan_name),
  );
}
