// /v1/security/2fa/* (spec: Security (Bearer); Authentication 5): two-factor authentication of
// the signed-in user — setup, enable, disable, status.
import type { App } from "../../platform/http/app.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { searchErrors } from "../http/schemas.js";
import { userIdOf } from "../../tenancy/authenticate.js";
import type { TwoFactorService } from "./service.js";
import { TotpBody, TwoFactorSetup, TwoFactorState, TwoFactorStatus } from "./schemas.js";

export async function twoFactorRoutes(app: App, { twoFactor }: { twoFactor: TwoFactorService }) {
  app.post(
    "/v1/security/2fa/setup",
    {
      config: { auth: "user" },
      schema: {
        tags: ["security"],
        summary: "Start 2FA setup: a new secret and a QR code (data: URL) of its otpauth:// link",
        security: bearerSecurity,
        response: { 200: TwoFactorSetup, ...searchErrors(400, 401, 403) },
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
        security: bearerSecurity,
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
        security: bearerSecurity,
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
        security: bearerSecurity,
        response: { 200: TwoFactorStatus, ...searchErrors(401, 403) },
      },
    },
    async (request) => twoFactor.status(userIdOf(request)),
  );
}
