// The Search API's error body and the response entries that document it on a route.
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

/** Response entries documenting the usual Search API errors of a route, by status. */
export function searchErrors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, SearchErrorSchema]));
}
