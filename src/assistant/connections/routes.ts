// Storefront connection (admin, dashboard session with connector:write:store):
//   POST   /v1/admin/connections/storefront        {store_url, private_token?, reason} → 201 connection
//   POST   /v1/admin/connections/storefront/token  {connection_id, private_token, reason} → 200 connection
//   GET    /v1/admin/connections                   → {connections, active_source}
//   DELETE /v1/admin/connections/{id}              → 204 (back to the embedded catalogue)
// The private token is never part of any response.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, problems } from "../http/schemas.js";
import type { ConnectionsService } from "./service.js";
import { ConnectBody, ConnectionIdParams, ConnectionViewSchema, TokenBody } from "./schemas.js";

export async function connectionRoutes(app: App, deps: { guards: AssistantGuards; connections: ConnectionsService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.connections;
  const admin = adminRoutes(deps.guards);

  r.post(
    "/v1/admin/connections/storefront",
    admin({
      summary:
        "Connect a Shopify-style storefront as the store's catalogue (the token, when given, is validated against the store before anything is kept)",
      body: ConnectBody,
      response: { 201: Type.Object({ ...ConnectionViewSchema.properties, correlation_id: CorrelationId }), ...problems(400, 422) },
    }),
    async (request, reply) => {
      const view = await service.connect(storeOf(request).id, request.body, actorUserIdOf(request));
      request.auditTarget = view.connection_id;
      return reply.status(201).send({ ...view, correlation_id: request.id });
    },
  );

  r.post(
    "/v1/admin/connections/storefront/token",
    admin({
      summary: "Switch a connection to a private token (validated against the store before it replaces anything)",
      body: TokenBody,
      response: {
        200: Type.Object({ ...ConnectionViewSchema.properties, correlation_id: CorrelationId }),
        ...problems(400, 404, 409, 422),
      },
    }),
    async (request) => ({
      ...(await service.setToken(storeOf(request).id, request.body.connection_id, request.body.private_token)),
      correlation_id: request.id,
    }),
  );

  r.get(
    "/v1/admin/connections",
    admin({
      summary: "The store's storefront connections (newest first) and the catalogue source in use",
      response: {
        200: Type.Object({
          connections: Type.Array(ConnectionViewSchema),
          active_source: Type.String({ description: "shopsight_catalog or storefront:<host>" }),
          correlation_id: CorrelationId,
        }),
      },
    }),
    async (request) => ({ ...(await service.list(storeOf(request).id)), correlation_id: request.id }),
  );

  r.delete(
    "/v1/admin/connections/:id",
    admin({
      summary: "Disconnect a storefront: the store's own Shopsight catalogue is used again",
      params: ConnectionIdParams,
      response: { 204: Type.Null(), ...problems(404) },
    }),
    async (request, reply) => {
      await service.disconnect(storeOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );
}
