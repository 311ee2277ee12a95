// TypeBox schemas of the audit trail: an audit event (routes.ts documents with it; service.ts types
// its values from it) and the list route's querystring.
import { Type, type Static } from "typebox";

export const AuditEventSchema = Type.Object({
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

export type AuditEventView = Static<typeof AuditEventSchema>;

/** GET /v1/admin/audit's querystring. */
export const AuditListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    operation: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: "^[a-z_]+\\.[a-z_]+$" })),
  },
  { additionalProperties: false },
);
