// Platform administration for super admins: GET /v1/admin/stores, PUT /v1/admin/stores/{slug}/plan.
// Auth: a user-login token (config.auth "user": no active store needed) whose `is_super_admin`
// claim is true; anyone else gets 403 forbidden (after validation, as everywhere).
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { searchErrors, bearerSecurity } from "../../platform/http/schemas.js";
import type { SearchServices } from "../compose.js";

const PlanNameSchema = Type.Union([Type.Literal("free"), Type.Literal("basic"), Type.Literal("premium"), Type.Literal("enterprise")], {
  description: "free, basic, premium or enterprise",
});
const Limit = Type.Union([Type.Null(), Type.Integer()], { description: "null = unlimited" });

const AdminStore = Type.Object({
  client_id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal("inactive"), Type.Literal("active")]),
  plan_name: PlanNameSchema,
  max_products: Limit,
  requests_per_minute: Limit,
  products_count: Type.Integer(),
  members_count: Type.Integer(),
  owners: Type.Array(Type.String(), { description: "E-mail addresses of the store's owners" }),
  created_at: Type.String({ format: "date-time" }),
});

const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    q: Type.Optional(Type.String({ maxLength: 100, description: "Part of the slug or name (case ignored)" })),
  },
  { additionalProperties: false },
);

const ListResponse = Type.Object({
  stores: Type.Array(AdminStore),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  total: Type.Integer({ description: "Stores matching `q` (all stores without it)" }),
});

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" }) }, { additionalProperties: false });
const PlanBody = Type.Object({ plan_name: PlanNameSchema }, { additionalProperties: false });
const PlanResponse = Type.Object({
  client_id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  plan_name: PlanNameSchema,
  previous_plan: PlanNameSchema,
  changed: Type.Boolean(),
});

/** Authorization: only platform super admins (the login's is_super_admin claim). */
export async function requireSuperAdmin(request: FastifyRequest): Promise<void> {
  const p = request.principal;
  if (p?.kind !== "user" || !p.isSuperAdmin) throw new AppError("forbidden", "This needs a platform super admin.");
}

export async function adminRoutes(app: App, { admin: service }: Pick<SearchServices, "admin">) {

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
