// TypeBox schema of a storefront connection (routes.ts documents with it; service.ts types its values from it).
import { Type, type Static } from "typebox";

const DateTime = Type.String({ format: "date-time" });
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
