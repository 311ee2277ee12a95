// Response schemas of the store's security routes: client-secret rotation and the overview.
import { Type } from "typebox";
import { DateTime, NullableDate } from "../../platform/http/schemas.js";
import { ApiKeyView } from "../api-keys/schemas.js";
import { AllowlistEntry } from "../ip-allowlist/schemas.js";

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const RotatedSecret = Type.Object({
  client_id: Type.String({ format: "uuid" }),
  client_secret: Type.String(),
  rotated_at: Type.String({ format: "date-time" }),
});

export const Overview = Type.Object({
  client_id: Type.String({ format: "uuid" }),
  slug: Type.String(),
  two_factor: Type.Object({
    enabled_count: Type.Integer(),
    member_count: Type.Integer(),
    users: Type.Array(
      Type.Object({
        user_id: Type.String(),
        email: Type.String(),
        full_name: Type.String(),
        role: Type.String(),
        enabled: Type.Boolean(),
      }),
    ),
  }),
  api_keys: Type.Array(ApiKeyView, { description: "Active keys (neither revoked nor expired); never the secret" }),
  ip_whitelist: Type.Object({
    enforced: Type.Boolean({ description: "true when the list is non-empty" }),
    entries: Type.Array(AllowlistEntry),
  }),
  failed_logins: Type.Object({
    window_hours: Type.Integer(),
    count: Type.Integer(),
    recent: Type.Array(
      Type.Object({
        at: DateTime,
        kind: Type.Union([Type.Literal("machine_grant"), Type.Literal("user_login")]),
        identity: NullableString,
        user_id: NullableString,
        ip: NullableString,
      }),
    ),
  }),
  last_secret_rotation: NullableDate,
});
