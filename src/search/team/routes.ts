// /v1/team/* (spec: Team invite; Team, users, groups; States: Invite; Authentication 8):
// invites (create, list, cancel, accept) and member management (list, change role/groups, remove).
import { Type } from "typebox";
import type { FastifyRequest } from "fastify";
import type { App } from "../../platform/http/app.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { Email } from "../../platform/http/schemas.js";
import { searchErrors } from "../http/schemas.js";
import { PASSWORD_POLICY } from "../../platform/auth/passwords.js";
import { ACTIVE_TENANT_HEADER, storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { GroupId, MemberView, RoleSchema } from "../users/schemas.js";
import { actorOf } from "../users/routes.js";
import { ACCEPT_LIMITS, INVITE_ACCEPT_PATH } from "./service.js";
import type { TeamService } from "./service.js";
import type { UsersService } from "../users/service.js";

const tags = ["team"];
const DateTime = Type.String({ format: "date-time" });

/**
 * Invites are made and cancelled by a signed-in owner of the store or a super admin (spec:
 * "caller is owner or super admin"): admins, machine grants and API keys are refused.
 */
async function requireInviter(request: FastifyRequest): Promise<void> {
  const store = storeOf(request);
  const principal = request.principal;
  if (principal?.kind !== "user") {
    throw new AppError("forbidden", "Team invites are managed by a signed-in owner or super admin, not by a machine grant or API key.", {
      required_roles: ["owner"],
    });
  }
  if (principal.isSuperAdmin || store.role === "owner") return;
  throw new AppError("forbidden", `Only an owner of "${store.slug}" or a super admin may manage invites.`, {
    required_roles: ["owner"],
  });
}

const InviteView = Type.Object({
  invite_id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  invited_by: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime,
  expires_at: DateTime,
});

const MemberParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export async function teamRoutes(app: App, { team, users }: { team: TeamService; users: UsersService }) {
  app.post(
    "/v1/team/invite",
    storeRoute(
      "team:write",
      {
        tags,
        summary: "Invite someone to the store (owner or super admin; X-Service-Active-Tenant required)",
        description: `Creates a pending invite with a single-use token (SHA-256 at rest) valid 7 days and e-mails the link {PUBLIC_BASE_URL}${INVITE_ACCEPT_PATH}?token=…, whose page posts the token to POST /v1/team/invites/accept.`,
        headers: Type.Object({ [ACTIVE_TENANT_HEADER]: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false }),
        response: {
          201: Type.Object({
            invite_id: Type.String(),
            email: Type.String(),
            role: RoleSchema,
            is_existing_user: Type.Boolean(),
            expires_at: DateTime,
            email_sent: Type.Boolean(),
          }),
          ...searchErrors(400, 401, 403, 409),
        },
      },
      requireInviter,
    ),
    async (request, reply) => {
      const inviter = request.principal?.kind === "user" ? request.principal.userId : "";
      return reply.status(201).send(await team.invite(storeOf(request).id, inviter, request.body));
    },
  );

  app.get(
    "/v1/team/invites",
    storeRoute("team:read", {
      tags,
      summary: "Pending invites of the store, newest first",
      response: { 200: Type.Array(InviteView), ...searchErrors(401, 403) },
    }),
    async (request) => team.listPending(storeOf(request).id),
  );

  app.delete(
    "/v1/team/invites/:invite_id",
    storeRoute(
      "team:write",
      {
        tags,
        summary: "Cancel a pending invite; its token stops working (no resend: invite again for a new token)",
        params: Type.Object({ invite_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ invite_id: Type.String(), status: Type.Literal("cancelled"), cancelled_at: DateTime }),
          ...searchErrors(401, 403, 404, 409, 410),
        },
      },
      requireInviter,
    ),
    async (request) => team.cancel(storeOf(request).id, request.params.invite_id),
  );

  app.post(
    "/v1/team/invites/accept",
    {
      config: { auth: "user_optional" },
      schema: {
        tags,
        summary: "Accept an invite: {token, password, full_name} as a new user, or {token} with the existing user's bearer",
        description: `A new user and its membership are created in one transaction; an existing user (the invite's e-mail, signed in) gets the membership. Unknown token: 404 invalid_invite; used: 409 invite_already_used; cancelled or expired: 410 invite_cancelled / invite_expired. At most ${ACCEPT_LIMITS.perAddress.points} attempts per client address and ${ACCEPT_LIMITS.perEmail.points} per invited e-mail an hour (429 too_many_requests with retry_after). Password: ${PASSWORD_POLICY}.`,
        security: [{}, { bearer: [] }],
        body: Type.Object(
          {
            token: Type.String({ minLength: 10, maxLength: 200 }),
            password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
            full_name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            client_id: Type.String({ format: "uuid" }),
            slug: Type.String(),
            store_name: Type.String(),
            user_id: Type.String(),
            email: Type.String(),
            role: RoleSchema,
            is_new_user: Type.Boolean(),
          }),
          ...searchErrors(400, 401, 403, 404, 409, 410, 429),
        },
      },
    },
    async (request) => {
      const userId = request.principal?.kind === "user" ? request.principal.userId : null;
      return team.accept(request.body, userId, request.ip);
    },
  );

  app.get(
    "/v1/team/members",
    storeRoute("team:read", {
      tags,
      summary: "Members of the active store with role, groups and 2FA status (same as GET /v1/users)",
      response: { 200: Type.Array(MemberView), ...searchErrors(401, 403) },
    }),
    async (request) => users.listMembers(storeOf(request).id),
  );

  app.patch(
    "/v1/team/members/:user_id",
    storeRoute("team:write", {
      tags,
      summary: "Change a member's role and/or custom groups (only owners make or unmake owners; the last owner stays)",
      params: MemberParams,
      body: Type.Object(
        {
          role: Type.Optional(RoleSchema),
          group_ids: Type.Optional(Type.Array(GroupId, { maxItems: 50, uniqueItems: true, description: "Replaces the custom groups" })),
        },
        { additionalProperties: false, minProperties: 1 },
      ),
      response: { 200: MemberView, ...searchErrors(400, 401, 403, 404, 409) },
    }),
    async (request) => users.updateMember(storeOf(request).id, actorOf(request), request.params.user_id, request.body),
  );

  app.delete(
    "/v1/team/members/:user_id",
    storeRoute("team:write", {
      tags,
      summary:
        "Remove a member from the store (the user's account stays; the last owner cannot be removed); the API keys they created are revoked",
      params: MemberParams,
      response: {
        200: Type.Object({
          removed: Type.Literal(true),
          id: Type.String(),
          revoked_api_keys: Type.Integer({ description: "How many API keys the member had created that were revoked with the removal" }),
        }),
        ...searchErrors(401, 403, 404, 409),
      },
    }),
    async (request) => users.removeMember(storeOf(request).id, actorOf(request), request.params.user_id),
  );
}
