// /v1/security/ip-whitelist* (spec: Security records "IP whitelist"; issue 7): add, list and
// remove entries of the store's IP allow-list.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import type { IpAllowlistService } from "./service.js";
import { AddEntryBody, AllowlistEntries, AllowlistEntry, EntryDeleted, EntryParams } from "./schemas.js";

const tags = ["security"];

export async function ipAllowlistRoutes(app: App, { ipAllowlist: allowlist }: { ipAllowlist: IpAllowlistService }) {
  app.post(
    "/v1/security/ip-whitelist",
    storeRoute("security:write", {
      tags,
      summary: "Add an address or CIDR range to the IP allow-list",
      description:
        "While the list is non-empty, machine grants (/oauth/token and their tokens) and API keys of the store are refused from other client addresses with 403 ip_not_allowed. User logins are not restricted.",
      body: AddEntryBody,
      response: { 201: AllowlistEntry, ...searchErrors(400, 401, 403, 409, 422) },
    }),
    async (request, reply) => reply.status(201).send(await allowlist.add(storeOf(request).id, actorUserIdOf(request), request.body)),
  );

  app.get(
    "/v1/security/ip-whitelist",
    storeRoute("security:read", {
      tags,
      summary: "The store's IP allow-list (empty: no restriction)",
      response: { 200: AllowlistEntries, ...searchErrors(401, 403) },
    }),
    async (request) => allowlist.list(storeOf(request).id),
  );

  app.delete(
    "/v1/security/ip-whitelist/:entry_id",
    storeRoute("security:write", {
      tags,
      summary: "Remove an entry from the IP allow-list",
      params: EntryParams,
      response: { 200: EntryDeleted, ...searchErrors(401, 403, 404) },
    }),
    async (request) => allowlist.remove(storeOf(request).id, request.params.entry_id),
  );
}
