// TypeBox schemas of the exchange secret's description (routes.ts documents with it; service.ts
// types its values from it) and of the requests the exchange routes validate.
import { Type, type Static } from "typebox";
import { Locale } from "../http/schemas.js";

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

/** POST /v1/sessions/exchange's body: the store backend's signed assertion (a compact JWT). */
export const ExchangeBody = Type.Object(
  {
    assertion: Type.String({ minLength: 10, maxLength: 4096, pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*$" }),
    locale: Type.Optional(Locale),
  },
  { additionalProperties: false },
);
/** POST /v1/admin/exchange-secret's body. */
export const RotateSecretBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500, pattern: "\\S" }) },
  { additionalProperties: false },
);
