// Schemas shared by Assistant API routes.
import { Type } from "typebox";

/** Assistant API error: RFC 9457 problem details with a stable `code` and `correlation_id`. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: "Stable code, e.g. VALIDATION_FAILED, UNAUTHENTICATED, RATE_LIMITED" }),
    correlation_id: Type.String(),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { description: "Problem details" },
);

export function problems(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ProblemSchema]));
}

export const CorrelationId = Type.String({ description: "The request's correlation id (also in X-Correlation-Id)" });
export const Locale = Type.String({
  minLength: 2,
  maxLength: 35,
  pattern: "^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$",
  description: "BCP 47 tag",
});
/** Shopper and dashboard calls take `Authorization: Bearer …`. */
export { bearerSecurity as sessionSecurity } from "../../platform/http/schemas.js";
