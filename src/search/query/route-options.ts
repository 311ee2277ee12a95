// What the /v1/search/* routes share: their tag and error responses, the gate (store login,
// search:execute, the X-Shopsight-Model header on every answer, errors included), where a search
// comes from, and the route of a JSON mode.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { searchErrors } from "../http/schemas.js";
import { searchArrived, timedSerializer } from "../http/stage-timing.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { requirePermission } from "../../tenancy/permissions.js";
import { SearchResponseSchema } from "./schemas.js";
import { modelStatus } from "./model.js";
import type { JsonModes } from "./modes.js";
import type { SearchSource } from "./service.js";

export const tags = ["search"];
export const errors = searchErrors(400, 401, 403, 413, 415, 422, 429, 503);
/** The responses of a route answering one search. */
export const response = { 200: SearchResponseSchema, ...errors };

/** Route options of every search route: store login, search:execute and the model header. */
export function searchGate(ctx: AppContext) {
  // Every search response names the active model (X-Shopsight-Model), errors included.
  // A callback hook: nothing to wait for, so no promise per search.
  const modelHeader = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.header("x-shopsight-model", modelStatus(ctx).model_id);
    done();
  };
  return { config: { auth: "store" as const }, onRequest: modelHeader, preHandler: requirePermission("search:execute") };
}

/** Where a search comes from: a user login is a person (the portal's playground), anything else the store's backend. */
export const sourceOf = (request: FastifyRequest): SearchSource => (request.principal?.kind === "user" ? "portal" : "api");

export const isMultipart = (request: FastifyRequest) => (request.headers["content-type"] ?? "").startsWith("multipart/form-data");

/** POST `path`: the JSON mode `type` (its body schema, its run), its stages around the search timed (stage-timing.ts). */
export function jsonModeRoute(app: App, ctx: AppContext, modes: JsonModes, path: string, type: keyof JsonModes, summary: string) {
  const schema = { tags, security: bearerSecurity, summary, body: modes[type].schema, response };
  app.post(path, { ...searchGate(ctx), schema, serializerCompiler: timedSerializer(app, ctx.metrics) }, async (request, reply) => {
    searchArrived(ctx.metrics, request, reply);
    return modes[type].run(storeOf(request).id, request.body, sourceOf(request));
  });
}
