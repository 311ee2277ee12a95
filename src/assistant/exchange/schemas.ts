// TypeBox schema of the exchange secret's description (routes.ts documents with it; service.ts
// types its values from it).
import { Type, type Static } from "typebox";

export const SecretInfoFields = {
  configured: Type.Boolean(),
  secret_id: Type.Union([Type.String(), Type.Null()]),
  secret_prefix: Type.Union([Type.String(), Type.Null()], { description: "First characters of the secret, to recognise it" }),
  created_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  issuer: Type.String({ description: "The `iss` claim assertions must carry: the store id" }),
  audience: Type.String({ description: "The `aud` claim assertions must carry" }),
  algorithm: Type.Literal("HS256"),
  max_lifetime_seconds: Type.Integer({ description: "Largest exp − iat accepted" }),
};
export const SecretInfoSchema = Type.Object(SecretInfoFields);

export type ExchangeSecretInfo = Static<typeof SecretInfoSchema>;
