// Schemas of the platform administration routes; the service's views are their static types.
import { Type } from "typebox";
import { PlanNameSchema } from "../../tenancy/plans.js";

const Limit = Type.Union([Type.Null(), Type.Integer()], { description: "null = unlimited" });

export const AdminStore = Type.Object({
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

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    q: Type.Optional(Type.String({ maxLength: 100, description: "Part of the slug or name (case ignored)" })),
  },
  { additionalProperties: false },
);

export const ListResponse = Type.Object({
  stores: Type.Array(AdminStore),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  total: Type.Integer({ description: "Stores matching `q` (all stores without it)" }),
});

export const SlugParams = Type.Object(
  { slug: Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" }) },
  { additionalProperties: false },
);
export const PlanBody = Type.Object({ plan_name: PlanNameSchema }, { additionalProperties: false });
export const PlanResponse = Type.Object({
  client_id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  plan_name: PlanNameSchema,
  previous_plan: PlanNameSchema,
  changed: Type.Boolean(),
});
