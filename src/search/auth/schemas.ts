// Request and response schemas of the token routes (/oauth/token, /oauth/login, /oauth/refresh).
import { Type } from "typebox";
import { Email } from "../../platform/http/schemas.js";

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal("Bearer"),
  expires_in: Type.Integer(),
});

const Membership = Type.Object({
  client_id: Type.String({ format: "uuid" }),
  slug: Type.String(),
  name: Type.String(),
  role: Type.Union([Type.Literal("owner"), Type.Literal("admin"), Type.Literal("developer"), Type.Literal("viewer")]),
  plan: Type.String(),
  last_used_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
});

export const LoginResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal("Bearer"),
  expires_in: Type.Integer(),
  user_type: Type.Literal("user"),
  user_id: Type.String({ format: "uuid" }),
  user_name: Type.String(),
  is_super_admin: Type.Boolean(),
  memberships: Type.Array(Membership),
  redirect: Type.String({ description: "/{slug}/portal, /portal/select-store or /admin" }),
  client_name: Type.Optional(Type.String({ description: "The store's name when the user has exactly one store" })),
});

/** The machine grant's form (application/x-www-form-urlencoded). */
export const ClientCredentialsBody = Type.Object(
  {
    grant_type: Type.Literal("client_credentials"),
    client_id: Type.String({ minLength: 1, maxLength: 100 }),
    client_secret: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 256 }),
    totp_code: Type.Optional(Type.String({ pattern: "^[0-9]{6}$" })),
  },
  { additionalProperties: false },
);
