// /v1/users (spec: Users and groups; Team, users, groups; Errors 410).
// POST/GET /v1/users keep working; every other path under /v1/users/* was replaced by
// /v1/team/* and answers 410 with `replacement` naming the new path. /v1/user-groups is in
// group-routes.ts.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { PASSWORD_POLICY } from "../../platform/auth/passwords.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { actorOf } from "./actor.js";
import { CreateUserBody, MemberList, MemberView, Replaced } from "./schemas.js";
import type { UsersService } from "./service.js";

const SAFE_ID = /^[A-Za-z0-9._:@-]{1,100}$/;

/** The /v1/team/* call that replaced a /v1/users/* call (method + path). */
export function replacementFor(method: string, rest: string): { method: string; path: string } {
  const parts = rest.split("?")[0]!.split("/").filter(Boolean);
  const id = (s: string | undefined, placeholder: string) => (s && SAFE_ID.test(s) ? s : placeholder);
  if (parts.length === 0) return { method, path: "/v1/users" };
  if (parts[0] === "invite") return { method: "POST", path: "/v1/team/invite" };
  if (parts[0] === "invites") {
    if (parts[1] === "accept") return { method: "POST", path: "/v1/team/invites/accept" };
    if (parts[1]) return { method: "DELETE", path: `/v1/team/invites/${id(parts[1], "{invite_id}")}` };
    return method === "POST" ? { method: "POST", path: "/v1/team/invite" } : { method: "GET", path: "/v1/team/invites" };
  }
  const member = `/v1/team/members/${id(parts[0], "{user_id}")}`;
  if (method === "DELETE" && parts.length === 1) return { method: "DELETE", path: member };
  if (method === "GET" && parts.length === 1) return { method: "GET", path: "/v1/team/members" };
  return { method: "PATCH", path: member };
}

export async function userRoutes(app: App, { users }: { users: UsersService }) {
  app.post(
    "/v1/users",
    storeRoute("team:write", {
      tags: ["users"],
      summary: "Create a user who joins the active store (role from a built-in group id, default viewer)",
      description: `group_ids: at most one built-in group (grp_owner, grp_admin, grp_developer, grp_viewer — sets the role) and any of the store's custom groups. An e-mail that already has an account is 409: invite it instead. Password: ${PASSWORD_POLICY}.`,
      body: CreateUserBody,
      response: { 201: MemberView, ...searchErrors(400, 401, 403, 404, 409) },
    }),
    async (request, reply) => reply.status(201).send(await users.createUser(storeOf(request).id, actorOf(request), request.body)),
  );

  app.get(
    "/v1/users",
    storeRoute("team:read", {
      tags: ["users"],
      summary: "Members of the active store with role, groups and 2FA status",
      response: { 200: MemberList, ...searchErrors(401, 403) },
    }),
    async (request) => users.listMembers(storeOf(request).id),
  );

  app.route({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    url: "/v1/users/*",
    config: { auth: "none" },
    schema: {
      tags: ["users"],
      summary: "Replaced: answers 410 with `replacement` naming the /v1/team/* path",
      response: { 410: Replaced },
    },
    handler: async (request, reply) => {
      const rest = (request.params as { "*"?: string })["*"] ?? "";
      const r = replacementFor(request.method, rest);
      return reply.status(410).send({
        error: "gone" as const,
        message: `This endpoint has been replaced: use ${r.method} ${r.path}.`,
        replacement: r.path,
        details: { replacement: r.path, method: r.method },
      });
    },
  });
}
