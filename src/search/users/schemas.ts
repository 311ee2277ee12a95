// Schemas shared by the users, user-groups and team routes.
import { Type } from "typebox";
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
