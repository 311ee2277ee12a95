// Request and response schemas of the users and user-groups routes; role, group and member
// schemas shared with the team routes.
import { Type } from "typebox";
import { Email } from "../../platform/http/schemas.js";
import { PERMISSION_NAMES } from "../../tenancy/permissions.js";

export const RoleSchema = Type.Union([Type.Literal("owner"), Type.Literal("admin"), Type.Literal("developer"), Type.Literal("viewer")], {
  description: "owner, admin, developer or viewer (per store)",
});
export const PermissionName = Type.Union(PERMISSION_NAMES.map((p) => Type.Literal(p)));
export const GroupId = Type.String({ minLength: 1, maxLength: 100 });

export const MemberView = Type.Object({
  id: Type.String({ description: "Global user id" }),
  email: Type.String(),
  full_name: Type.String(),
  role: RoleSchema,
  group_ids: Type.Array(Type.String(), { description: "The role's built-in group first, then custom groups" }),
  two_factor_enabled: Type.Boolean(),
  joined_at: Type.String({ format: "date-time" }),
  last_used_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
});

export const GroupView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  permission_names: Type.Array(Type.String()),
  built_in: Type.Boolean({ description: "true for the default group of a role" }),
  role: Type.Union([RoleSchema, Type.Null()], { description: "The role whose default group this is; null for custom groups" }),
  member_count: Type.Integer(),
  created_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
});

export const MemberList = Type.Array(MemberView);
export const GroupList = Type.Array(GroupView);

export const CreateUserBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 256 }),
    full_name: Type.String({ minLength: 1, maxLength: 120 }),
    group_ids: Type.Optional(Type.Array(GroupId, { maxItems: 50, uniqueItems: true })),
  },
  { additionalProperties: false },
);

/** The 410 answer of a replaced /v1/users/* path. */
export const Replaced = Type.Object({
  error: Type.Literal("gone"),
  message: Type.String(),
  replacement: Type.String(),
  details: Type.Object({ replacement: Type.String(), method: Type.String() }),
});

export const CreateGroupBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    permission_names: Type.Array(PermissionName, { minItems: 1, uniqueItems: true }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const PermissionList = Type.Array(
  Type.Object({
    name: Type.String(),
    area: Type.String(),
    action: Type.String(),
    description: Type.String(),
    api_key_scope: Type.Boolean(),
    roles: Type.Array(RoleSchema),
  }),
);

export const GroupParams = Type.Object({ group_id: GroupId }, { additionalProperties: false });
export const GroupDeleted = Type.Object({ deleted: Type.Literal(true), id: Type.String() });
