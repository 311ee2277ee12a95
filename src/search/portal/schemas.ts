// Response schemas of the portal's routes that OpenAPI documents: GET / (where to go).
import { Type } from "typebox";

/** GET / for JSON clients: links to the portal, the docs and both APIs. */
export const RootLinks = Type.Object({
  name: Type.String(),
  portal: Type.String(),
  sign_up: Type.String(),
  docs: Type.String(),
  openapi: Type.String(),
  search_api: Type.String(),
  assistant_api: Type.String(),
  assistant_docs: Type.String(),
  health: Type.String(),
});
