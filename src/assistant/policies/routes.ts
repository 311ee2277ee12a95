// Store policies: PUT /v1/admin/policies/{concept_id}, GET /v1/admin/policies,
// GET /v1/admin/policies/{concept_id}/versions. Dashboard session with connector:write:store.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, problems } from "../http/schemas.js";
import type { PoliciesService } from "./service.js";
import { ConceptParams, PolicyBody, PolicyViewSchema } from "./schemas.js";

export async function policyRoutes(app: App, deps: { guards: AssistantGuards; policies: PoliciesService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.policies;
  const admin = adminRoutes(deps.guards);

  r.put(
    "/v1/admin/policies/:concept_id",
    admin({
      summary: "Create or change a store policy; every change adds a concept_version (identical content changes nothing)",
      params: ConceptParams,
      body: PolicyBody,
      response: {
        200: Type.Object({ ...PolicyViewSchema.properties, changed: Type.Boolean(), correlation_id: CorrelationId }),
        ...problems(400, 409),
      },
    }),
    async (request) => {
      const { policy, changed } = await service.put(storeOf(request).id, request.params.concept_id, request.body, actorUserIdOf(request));
      return { ...policy, changed, correlation_id: request.id };
    },
  );

  r.get(
    "/v1/admin/policies",
    admin({
      summary: "The newest version of every policy of the store (published or not)",
      response: { 200: Type.Object({ policies: Type.Array(PolicyViewSchema), correlation_id: CorrelationId }) },
    }),
    async (request) => ({ policies: await service.list(storeOf(request).id), correlation_id: request.id }),
  );

  r.get(
    "/v1/admin/policies/:concept_id/versions",
    admin({
      summary: "Every version of one policy, newest first (its history: each PUT that changed something added one)",
      params: ConceptParams,
      response: { 200: Type.Object({ versions: Type.Array(PolicyViewSchema), correlation_id: CorrelationId }), ...problems(400, 404) },
    }),
    async (request) => ({ versions: await service.versions(storeOf(request).id, request.params.concept_id), correlation_id: request.id }),
  );
}
