// /oauth/token, /oauth/login, /oauth/refresh (spec: Accounts and tokens; Authentication 1, 2, 4, 5).
import type { App } from "../../platform/http/app.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { searchErrors } from "../http/schemas.js";
import { bearerOf } from "../../tenancy/authenticate.js";
import type { AuthService } from "./service.js";
import { ClientCredentialsBody, LoginBody, LoginResponse, TokenResponse } from "./schemas.js";

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
          body: ClientCredentialsBody,
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
        body: LoginBody,
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
