// TypeBox schemas of a storefront connection (routes.ts documents with it; service.ts types its
// values from it) and of the requests the connection routes validate.
import { Type, type Static } from "typebox";
import { DateTime } from "../../platform/http/schemas.js";

export const ConnectionViewSchema = Type.Object({
  connection_id: Type.String({ description: "conn_…" }),
  store_url: Type.String({ description: "Normalised origin of the storefront" }),
  status: Type.Union([Type.Literal("connected"), Type.Literal("disconnected")]),
  auth: Type.Union([Type.Literal("token"), Type.Literal("none")], {
    description: "token: private token kept encrypted; none: public storefront reads only",
  }),
  source: Type.String({ description: "storefront:<host>, as named in live_facts" }),
  shop_name: Type.Union([Type.String(), Type.Null()]),
  shop_currency: Type.Union([Type.String(), Type.Null()], { description: "Currency the shop reported (token connections)" }),
  verified_at: DateTime,
  created_at: DateTime,
  updated_at: DateTime,
  disconnected_at: Type.Union([DateTime, Type.Null()]),
});

export type ConnectionView = Static<typeof ConnectionViewSchema>;

// Requests: the bodies and params the connection routes validate.
const Token = Type.String({
  minLength: 8,
  maxLength: 500,
  pattern: "^[\\x21-\\x7e]+$",
  description: "Private (Admin API) access token; never echoed",
});
const Reason = Type.String({ minLength: 1, maxLength: 500, pattern: "\\S" });
export const ConnectBody = Type.Object(
  { store_url: Type.String({ minLength: 1, maxLength: 2000 }), private_token: Type.Optional(Token), reason: Reason },
  { additionalProperties: false },
);
export const TokenBody = Type.Object(
  { connection_id: Type.String({ pattern: "^conn_[A-Za-z0-9]{1,64}$" }), private_token: Token, reason: Reason },
  { additionalProperties: false },
);
export const ConnectionIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
