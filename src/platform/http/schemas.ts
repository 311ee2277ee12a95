// Small schema pieces any HTTP API reuses.
import { Type } from "typebox";

/** OpenAPI security requirement of routes taking `Authorization: Bearer …`. */
export const bearerSecurity = [{ bearer: [] }];

export const Email = Type.String({ format: "email", maxLength: 254 });
