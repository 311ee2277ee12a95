// /v1/search/rules — a store's merchandising rules of text search (issue 38, item 4; not in the
// spec: the issue decides). Reading needs search:read, changing products:write (as synonyms: the
// people who edit the catalogue also tune how it is found).
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { RULES_MAX_PER_STORE, RuleBody, RuleDeleted, RuleIdParams, RuleView } from "./schemas.js";
import { Type } from "typebox";
import type { RulesService } from "./service.js";

const tags = ["rules"];
const APPLIES =
  "Applied to this store's text search and to hybrid, fusion and filtered searches with a query, to the widget's text search and to the assistant's catalogue search: after ranking, hidden products are removed, results meeting a boost condition move above the others and those meeting a bury condition below them, and pinned products take their positions (shown even when the ranking did not return them, if the store holds them and they pass the request's filters). A response shaped by rules lists them in `applied_rules` and marks pinned results `pinned: true`.";

export async function ruleRoutes(app: App, { rules }: { rules: RulesService }) {
  app.get(
    "/v1/search/rules",
    storeRoute("search:read", {
      tags,
      summary: "The store's merchandising rules, oldest first, with their hit counts",
      description: APPLIES,
      response: { 200: Type.Array(RuleView), ...searchErrors(401, 403) },
    }),
    async (request) => rules.list(storeOf(request).id),
  );

  app.post(
    "/v1/search/rules",
    storeRoute("products:write", {
      tags,
      summary: "Add a merchandising rule: pin, hide, boost or bury products for a query",
      description: `${APPLIES} At most ${RULES_MAX_PER_STORE} rules per store (422 beyond); a second rule with the same match and query is 409.`,
      body: RuleBody,
      response: { 201: RuleView, ...searchErrors(400, 401, 403, 409, 422) },
    }),
    async (request, reply) => reply.status(201).send(await rules.create(storeOf(request).id, request.body)),
  );

  app.put(
    "/v1/search/rules/:rule_id",
    storeRoute("products:write", {
      tags,
      summary: "Replace a merchandising rule (every field; absent lists become empty, absent enabled true)",
      params: RuleIdParams,
      body: RuleBody,
      response: { 200: RuleView, ...searchErrors(400, 401, 403, 404, 409) },
    }),
    async (request) => rules.replace(storeOf(request).id, request.params.rule_id, request.body),
  );

  app.delete(
    "/v1/search/rules/:rule_id",
    storeRoute("products:write", {
      tags,
      summary: "Delete a merchandising rule (and its hit counts)",
      params: RuleIdParams,
      response: { 200: RuleDeleted, ...searchErrors(401, 403, 404) },
    }),
    async (request) => rules.remove(storeOf(request).id, request.params.rule_id),
  );
}
