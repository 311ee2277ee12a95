// /v1/team/invite* (spec: Team invite; Team, users, groups; States: Invite; Authentication 8):
// create, list, cancel and accept invites. The members are in member-routes.ts.
import type { FastifyRequest } from "fastify";
import type { App } from "../../platform/http/app.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { searchErrors } from "../http/schemas.js";
import { PASSWORD_POLICY } from "../../platform/auth/passwords.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { ACCEPT_LIMITS, INVITE_ACCEPT_PATH } from "./service.js";
import type { TeamService } from "./service.js";
import {
  AcceptBody,
  ActiveTenantHeaders,
  InviteAccepted,
  InviteBody,
  InviteCancelled,
  InviteCreated,
  InviteList,
  InviteParams,
} from "./schemas.js";

const tags = ["team"];

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

export async function teamRoutes(app: App, { team }: { team: TeamService }) {
  app.post(
    "/v1/team/invite",
    storeRoute(
      "team:write",
      {
        tags,
        summary: "Invite someone to the store (owner or super admin; X-Service-Active-Tenant required)",
        description: `Creates a pending invite with a single-use token (SHA-256 at rest) valid 7 days and e-mails the link {PUBLIC_BASE_URL}${INVITE_ACCEPT_PATH}?token=…, whose page posts the token to POST /v1/team/invites/accept.`,
        headers: ActiveTenantHeaders,
        body: InviteBody,
        response: { 201: InviteCreated, ...searchErrors(400, 401, 403, 409) },
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
      response: { 200: InviteList, ...searchErrors(401, 403) },
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
        params: InviteParams,
        response: { 200: InviteCancelled, ...searchErrors(401, 403, 404, 409, 410) },
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
        body: AcceptBody,
        response: { 200: InviteAccepted, ...searchErrors(400, 401, 403, 404, 409, 410, 429) },
      },
    },
    async (request) => {
      const userId = request.principal?.kind === "user" ? request.principal.userId : null;
      return team.accept(request.body, userId, request.ip);
    },
  );
}
