// Small schema pieces any HTTP API reuses.
import { Type } from "typebox";

/** OpenAPI security requirement of routes taking `Authorization: Bearer …`. */
export const bearerSecurity = [{ bearer: [] }];

export const Email = Type.String({ format: "email", maxLength: 254 });

/** An ISO 8601 timestamp, and one that may be null. */
export const DateTime = Type.String({ format: "date-time" });
export const NullableDate = Type.Union([DateTime, Type.Null()]);
