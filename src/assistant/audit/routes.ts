// GET /v1/admin/audit: the store's admin audit trail, newest first.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, problems } from "../http/schemas.js";
import type { AuditService } from "./service.js";
import { AuditEventSchema, AuditListQuery } from "./schemas.js";

export async function auditRoutes(app: App, deps: { guards: AssistantGuards; audit: AuditService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.audit;
  const admin = adminRoutes(deps.guards);

  r.get(
    "/v1/admin/audit",
    admin({
      summary: "The store's admin audit trail (every /v1/admin/* call), newest first",
      querystring: AuditListQuery,
      response: {
        200: Type.Object({
          events: Type.Array(AuditEventSchema),
          next_cursor: Type.Union([Type.String(), Type.Null()]),
          correlation_id: CorrelationId,
        }),
        ...problems(400),
      },
    }),
    async (request) => ({
      ...(await service.list(storeOf(request).id, request.query.limit ?? 50, request.query.cursor, request.query.operation)),
      correlation_id: request.id,
    }),
  );
}
