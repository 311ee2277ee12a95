// TypeBox schema of a widget public key (routes.ts documents with it; service.ts types its values from it).
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
