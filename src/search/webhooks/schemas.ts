// A webhook subscription as the routes answer it; the service's view is its static type.
import { Type } from "typebox";

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.Union([Type.Literal("active"), Type.Literal("disabled")]),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: "date-time" }),
});
