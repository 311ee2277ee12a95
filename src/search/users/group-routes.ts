// /v1/user-groups (spec: Users and groups; Team, users, groups): the store's custom groups and the
// permission catalogue they draw from.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { actorOf } from "./actor.js";
import { CreateGroupBody, GroupDeleted, GroupList, GroupParams, GroupView, PermissionList } from "./schemas.js";
import type { UsersService } from "./service.js";

export async function userGroupRoutes(app: App, { users }: { users: UsersService }) {
  app.post(
    "/v1/user-groups",
    storeRoute("team:write", {
      tags: ["users"],
      summary: "Create a custom group with permissions (you may grant only permissions you hold)",
      body: CreateGroupBody,
      response: { 201: GroupView, ...searchErrors(400, 401, 403, 409) },
    }),
    async (request, reply) => reply.status(201).send(await users.createGroup(storeOf(request).id, actorOf(request), request.body)),
  );

  app.get(
    "/v1/user-groups",
    storeRoute("team:read", {
      tags: ["users"],
      summary: "The built-in group of each role, then the store's custom groups",
      response: { 200: GroupList, ...searchErrors(401, 403) },
    }),
    async (request) => users.listGroups(storeOf(request).id),
  );

  app.get(
    "/v1/user-groups/permissions",
    storeRoute("team:read", {
      tags: ["users"],
      summary: "Every permission name with its description, whether it can be an API-key scope, and the roles holding it",
      response: { 200: PermissionList, ...searchErrors(401, 403) },
    }),
    async () => users.permissions(),
  );

  app.delete(
    "/v1/user-groups/:group_id",
    storeRoute("team:write", {
      tags: ["users"],
      summary: "Delete a custom group (its members lose its permissions at once)",
      params: GroupParams,
      response: { 200: GroupDeleted, ...searchErrors(401, 403, 404, 409) },
    }),
    async (request) => users.deleteGroup(storeOf(request).id, request.params.group_id),
  );
}
