// /oauth/token, /oauth/login, /oauth/refresh (spec: Accounts and tokens; Authentication 1, 2, 4, 5).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { bearerSecurity, Email } from "../../platform/http/schemas.js";
import { searchErrors } from "../http/schemas.js";
import { bearerOf } from "../../tenancy/authenticate.js";
import type { AuthService } from "./service.js";

const TokenResponse = Type.Object({
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

const LoginResponse = Type.Object({
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

export async function authRoutes(app: App, { auth: service }: { auth: AuthService }) {
  // The machine grant accepts form-urlencoded bodies only: JSON is refused with 415.
  await app.register(async (scope: App) => {
    scope.removeContentTypeParser("application/json");
    scope.post(
      "/oauth/token",
      {
        schema: {
          tags: ["auth"],
          summary: "Machine grant (client credentials); body is application/x-www-form-urlencoded",
          consumes: ["application/x-www-form-urlencoded"],
          body: Type.Object(
            {
              grant_type: Type.Literal("client_credentials"),
              client_id: Type.String({ minLength: 1, maxLength: 100 }),
              client_secret: Type.String({ minLength: 1, maxLength: 200 }),
            },
            { additionalProperties: false },
          ),
          response: { 200: TokenResponse, ...searchErrors(400, 401, 415, 429) },
        },
      },
      async (request) => {
        const { client_id, client_secret } = request.body;
        const t = await service.clientCredentials(client_id, client_secret, request.ip);
        return { access_token: t.access_token, token_type: t.token_type, expires_in: t.expires_in };
      },
    );
  });

  app.post(
    "/oauth/login",
    {
      schema: {
        tags: ["auth"],
        summary: "User login (JSON); 401 requires_2fa when 2FA is on and no code was sent",
        body: Type.Object(
          {
            email: Email,
            password: Type.String({ minLength: 1, maxLength: 256 }),
            totp_code: Type.Optional(Type.String({ pattern: "^[0-9]{6}$" })),
          },
          { additionalProperties: false },
        ),
        response: { 200: LoginResponse, ...searchErrors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { email, password, totp_code } = request.body;
      return service.login(email, password, totp_code, request.ip);
    },
  );

  app.post(
    "/oauth/refresh",
    {
      schema: {
        tags: ["auth"],
        summary: "Exchange a valid bearer (or one expired at most 5 minutes ago) for a new token; the old one is revoked",
        security: bearerSecurity,
        response: { 200: TokenResponse, ...searchErrors(401, 429) },
      },
    },
    async (request) => {
      const t = await service.refresh(bearerOf(request), request.ip);
      return { access_token: t.access_token, token_type: t.token_type, expires_in: t.expires_in };
    },
  );
}
