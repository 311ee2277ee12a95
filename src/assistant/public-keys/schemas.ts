// TypeBox schemas of a widget public key (routes.ts documents with it; service.ts types its values
// from it) and of the requests the public-key routes validate.
import { Type, type Static } from "typebox";

export const PublicKeyViewSchema = Type.Object({
  id: Type.String({ description: "spk_…" }),
  name: Type.String(),
  key_prefix: Type.String(),
  status: Type.Union([Type.Literal("active"), Type.Literal("revoked")]),
  created_at: Type.String({ format: "date-time" }),
  revoked_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
});

export type PublicKeyView = Static<typeof PublicKeyViewSchema>;

// Requests: the body and params the public-key routes validate.
export const PublicKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, pattern: "\\S" }) },
  { additionalProperties: false },
);
export const PublicKeyIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
