// Request and response schemas of the sign-up routes (/register, /register/resend, /verify).
import { Type } from "typebox";
import { Email } from "../../platform/http/schemas.js";
import { PASSWORD_POLICY } from "../../platform/auth/passwords.js";

export const RegisterBody = Type.Object(
  {
    client_name: Type.String({ minLength: 1, maxLength: 120 }),
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 256, description: PASSWORD_POLICY }),
  },
  { additionalProperties: false },
);
export const Registered = Type.Object({
  client_id: Type.String({ format: "uuid" }),
  slug: Type.String(),
  status: Type.Literal("inactive"),
  email: Type.String(),
  verification_sent: Type.Boolean(),
});

export const ResendBody = Type.Object({ email: Email }, { additionalProperties: false });
export const ResendAccepted = Type.Object({ email: Type.String(), message: Type.String() });

export const VerifyQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
export const Verified = Type.Object({
  client_id: Type.String({ format: "uuid" }),
  client_secret: Type.String(),
  status: Type.Literal("active"),
});
export const VerifyRedirect = Type.Null({ description: "Browsers: redirect to /portal/verify?token=…" });
