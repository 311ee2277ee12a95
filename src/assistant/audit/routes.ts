// GET /v1/admin/audit: the store's admin audit trail, newest first.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { AppContext } from "../../context/context.js";
import type { App } from "../../platform/http/app.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { AuditService } from "./service.js";

const AuditEvent = Type.Object({
  id: Type.String({ description: "aud_…" }),
  operation: Type.String({ description: "e.g. connection.create, connection.credential, public_key.create, policy.put" }),
  actor_user_id: Type.Union([Type.String(), Type.Null()]),
  method: Type.String(),
  route: Type.String(),
  target_id: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Union([Type.Literal("success"), Type.Literal("failure")]),
  status_code: Type.Integer(),
  error_code: Type.Union([Type.String(), Type.Null()]),
  correlation_id: Type.String(),
  created_at: Type.String({ format: "date-time" }),
});

export async function auditRoutes(app: App, ctx: AppContext, guards: AssistantGuards): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = new AuditService(ctx);
  const admin = adminRoutes(guards);

  r.get(
    "/v1/admin/audit",
    admin({
      summary: "The store's admin audit trail (every /v1/admin/* call), newest first",
      querystring: Type.Object(
        {
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          operation: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: "^[a-z_]+\\.[a-z_]+$" })),
        },
        { additionalProperties: false },
      ),
      response: { 200: Type.Object({ events: Type.Array(AuditEvent), next_cursor: Type.Union([Type.String(), Type.Null()]), correlation_id: CorrelationId }), ...problems(400) },
    }),
    async (request) => ({
      ...(await service.list(storeOf(request).id, request.query.limit ?? 50, request.query.cursor, request.query.operation)),
      correlation_id: request.id,
    }),
  );
}
