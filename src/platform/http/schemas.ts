// Schemas shared by many routes: the two error shapes and small reusable pieces.
import { Type } from "typebox";

/** Search API error body (spec: Errors). */
export const SearchErrorSchema = Type.Object(
  {
    error: Type.String({ description: "Stable error code, e.g. unauthorized, validation_failed" }),
    message: Type.String(),
    details: Type.Object({}, { additionalProperties: true }),
  },
  { description: "Search API error" },
);

/** Response entries documenting the usual Search API errors of an authenticated route. */
/** OpenAPI security requirement of routes taking `Authorization: Bearer …`. */
export const bearerSecurity = [{ bearer: [] }];

export function searchErrors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, SearchErrorSchema]));
}

export const Email = Type.String({ format: "email", maxLength: 254 });
