// Store public keys (store_pub_…) for the assistant widget: POST/GET /v1/admin/public-keys,
// DELETE /v1/admin/public-keys/{id}. Dashboard session with connector:write:store.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, problems } from "../http/schemas.js";
import type { PublicKeysService } from "./service.js";
import { PublicKeyBody, PublicKeyIdParams, PublicKeyViewSchema } from "./schemas.js";

export async function publicKeyRoutes(app: App, deps: { guards: AssistantGuards; publicKeys: PublicKeysService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.publicKeys;
  const admin = adminRoutes(deps.guards);

  r.post(
    "/v1/admin/public-keys",
    admin({
      summary: "Mint a store public key (store_pub_…) for the chat widget; the key is shown once",
      body: PublicKeyBody,
      response: {
        201: Type.Object({
          ...PublicKeyViewSchema.properties,
          key: Type.String({ description: "store_pub_… (shown once)" }),
          correlation_id: CorrelationId,
        }),
        ...problems(400, 409),
      },
    }),
    async (request, reply) => {
      const created = await service.create(storeOf(request).id, request.body.name, actorUserIdOf(request));
      return reply.status(201).send({ ...created, correlation_id: request.id });
    },
  );

  r.get(
    "/v1/admin/public-keys",
    admin({
      summary: "List the store's public keys (never the keys themselves)",
      response: { 200: Type.Object({ keys: Type.Array(PublicKeyViewSchema), correlation_id: CorrelationId }) },
    }),
    async (request) => ({ keys: await service.list(storeOf(request).id), correlation_id: request.id }),
  );

  r.delete(
    "/v1/admin/public-keys/:id",
    admin({
      summary: "Revoke a public key: no new sessions can be minted with it",
      params: PublicKeyIdParams,
      response: { 204: Type.Null(), ...problems(404) },
    }),
    async (request, reply) => {
      await service.revoke(storeOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );
}
