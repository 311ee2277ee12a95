// Request and response schemas of the team routes (/v1/team/*): invites and members.
import { Type } from "typebox";
import { Email, DateTime } from "../../platform/http/schemas.js";
import { ACTIVE_TENANT_HEADER } from "../../tenancy/authenticate.js";
import { GroupId, RoleSchema } from "../users/schemas.js";

// --- invites

export const ActiveTenantHeaders = Type.Object({ [ACTIVE_TENANT_HEADER]: Type.String({ minLength: 1, maxLength: 100 }) });
export const InviteBody = Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false });
export const InviteCreated = Type.Object({
  invite_id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  is_existing_user: Type.Boolean(),
  expires_at: DateTime,
  email_sent: Type.Boolean(),
});

const InviteView = Type.Object({
  invite_id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  invited_by: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime,
  expires_at: DateTime,
});
export const InviteList = Type.Array(InviteView);

export const InviteParams = Type.Object({ invite_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
export const InviteCancelled = Type.Object({ invite_id: Type.String(), status: Type.Literal("cancelled"), cancelled_at: DateTime });

export const AcceptBody = Type.Object(
  {
    token: Type.String({ minLength: 10, maxLength: 200 }),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    full_name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  },
  { additionalProperties: false },
);
export const InviteAccepted = Type.Object({
  client_id: Type.String({ format: "uuid" }),
  slug: Type.String(),
  store_name: Type.String(),
  user_id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  is_new_user: Type.Boolean(),
});

// --- members

export const MemberParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
export const MemberUpdateBody = Type.Object(
  {
    role: Type.Optional(RoleSchema),
    group_ids: Type.Optional(Type.Array(GroupId, { maxItems: 50, uniqueItems: true, description: "Replaces the custom groups" })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const MemberRemoved = Type.Object({
  removed: Type.Literal(true),
  id: Type.String(),
  revoked_api_keys: Type.Integer({ description: "How many API keys the member had created that were revoked with the removal" }),
});
