// /v1/team/members* (spec: Team, users, groups): the active store's members — list, change role
// and groups, remove.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { actorOf } from "../users/actor.js";
import { MemberList, MemberView } from "../users/schemas.js";
import type { UsersService } from "../users/service.js";
import { MemberParams, MemberRemoved, MemberUpdateBody } from "./schemas.js";

const tags = ["team"];

export async function teamMemberRoutes(app: App, { users }: { users: UsersService }) {
  app.get(
    "/v1/team/members",
    storeRoute("team:read", {
      tags,
      summary: "Members of the active store with role, groups and 2FA status (same as GET /v1/users)",
      response: { 200: MemberList, ...searchErrors(401, 403) },
    }),
    async (request) => users.listMembers(storeOf(request).id),
  );

  app.patch(
    "/v1/team/members/:user_id",
    storeRoute("team:write", {
      tags,
      summary: "Change a member's role and/or custom groups (only owners make or unmake owners; the last owner stays)",
      params: MemberParams,
      body: MemberUpdateBody,
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
      response: { 200: MemberRemoved, ...searchErrors(401, 403, 404, 409) },
    }),
    async (request) => users.removeMember(storeOf(request).id, actorOf(request), request.params.user_id),
  );
}
