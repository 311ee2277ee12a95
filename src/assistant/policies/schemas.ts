// TypeBox schemas of store policies (routes.ts validates and documents with them; service.ts types
// its values from them).
import { Type, type Static } from "typebox";
import { Locale } from "../http/schemas.js";

export const Slug = Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9_-]*$" });
export const PolicyFields = {
  handle: Type.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9_-]*$", description: "e.g. returns-policy" }),
  title: Type.String({ minLength: 1, maxLength: 200, pattern: "\\S" }),
  body_markdown: Type.String({ minLength: 1, maxLength: 50_000, pattern: "\\S" }),
  locale: Locale,
  published: Type.Boolean(),
};
export const PolicyViewSchema = Type.Object({
  concept_id: Type.String(),
  concept_version: Type.Integer({ minimum: 1 }),
  ...PolicyFields,
  updated_at: Type.String({ format: "date-time" }),
});
export const PolicyInputSchema = Type.Object(PolicyFields);

export type PolicyInput = Static<typeof PolicyInputSchema>;
export type PolicyView = Static<typeof PolicyViewSchema>;

// Requests: the params and body the policy routes validate.
export const ConceptParams = Type.Object({ concept_id: Slug }, { additionalProperties: false });
export const PolicyBody = Type.Object(PolicyFields, { additionalProperties: false });
