// /v1/security/* (spec: Security (Bearer)): 2FA per user and client-secret rotation per store.
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../platform/context.js";
import { searchErrors } from "../../platform/http/schemas.js";
import { AccountsService } from "../accounts/service.js";
import { requireRole, storeOf, userIdOf } from "../auth/authenticate.js";
import { TwoFactorService } from "./service.js";

const TotpBody = Type.Object(
  { totp_code: Type.String({ pattern: "^[0-9]{6}$", description: "6-digit code from the authenticator app" }) },
  { additionalProperties: false },
);
const TwoFactorState = Type.Object({ enabled: Type.Boolean() });
const bearer = [{ bearer: [] }];

export async function securityRoutes(app: App, ctx: AppContext) {
  const twoFactor = new TwoFactorService(ctx);
  const accounts = new AccountsService(ctx);

  app.post(
    "/v1/security/2fa/setup",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Start 2FA setup: a new secret and a QR code (data: URL) of its otpauth:// link",
        security: bearer,
        response: {
          200: Type.Object({ secret: Type.String(), otpauth_url: Type.String(), qr_code_url: Type.String() }),
          ...searchErrors(400, 401, 403),
        },
      },
    },
    async (request) => twoFactor.setup(userIdOf(request)),
  );

  app.post(
    "/v1/security/2fa/enable",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Enable 2FA with a code from the secret returned by setup",
        security: bearer,
        body: TotpBody,
        response: { 200: TwoFactorState, ...searchErrors(400, 401, 403) },
      },
    },
    async (request) => twoFactor.enable(userIdOf(request), request.body.totp_code),
  );

  app.post(
    "/v1/security/2fa/disable",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Disable 2FA; needs a current code",
        security: bearer,
        body: TotpBody,
        response: { 200: TwoFactorState, ...searchErrors(400, 401, 403) },
      },
    },
    async (request) => twoFactor.disable(userIdOf(request), request.body.totp_code),
  );

  app.get(
    "/v1/security/2fa/status",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Whether 2FA is enabled for the signed-in user",
        security: bearer,
        response: {
          200: Type.Object({ enabled: Type.Boolean(), pending_setup: Type.Boolean() }),
          ...searchErrors(401, 403),
        },
      },
    },
    async (request) => twoFactor.status(userIdOf(request)),
  );

  app.post(
    "/v1/security/client-secret/rotate",
    {
      config: { auth: "store" },
      preHandler: requireRole("owner", "admin"),
      schema: {
        tags: ["security"],
        summary: "Generate a new client secret (shown once); the old one stops working at once",
        security: bearer,
        response: {
          200: Type.Object({
            client_id: Type.String({ format: "uuid" }),
            client_secret: Type.String(),
            rotated_at: Type.String({ format: "date-time" }),
          }),
          ...searchErrors(401, 403),
        },
      },
    },
    async (request) => {
      const store = storeOf(request);
      const actor = request.principal?.kind === "user" ? request.principal.userId : null;
      return accounts.rotateClientSecret(store.id, actor, request.ip);
    },
  );
}
