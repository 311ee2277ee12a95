// Request and response schemas of the two-factor routes (/v1/security/2fa/*).
import { Type } from "typebox";

export const TotpBody = Type.Object(
  { totp_code: Type.String({ pattern: "^[0-9]{6}$", description: "6-digit code from the authenticator app" }) },
  { additionalProperties: false },
);

export const TwoFactorSetup = Type.Object({ secret: Type.String(), otpauth_url: Type.String(), qr_code_url: Type.String() });
export const TwoFactorState = Type.Object({ enabled: Type.Boolean() });
export const TwoFactorStatus = Type.Object({ enabled: Type.Boolean(), pending_setup: Type.Boolean() });
