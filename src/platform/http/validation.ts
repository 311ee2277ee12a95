// The JSON-schema validators behind every route: one Ajv that coerces (query strings, params,
// headers, multipart fields — all text on the wire) and one that validates JSON bodies as sent.
import { Ajv, type Options as AjvOptions, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { validationError } from "../errors/map.js";
import type { AppError } from "../errors/catalogue.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const options: AjvOptions = {
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? "array" : false,
    strict: false,
  };
  const ajv = addFormats(new Ajv(options));
  ajv.addKeyword({ keyword: "x-coerce" });
  return ajv;
}

export const coercingAjv = makeAjv(true);
export const strictAjv = makeAjv(false);

/** Picks the validator for a schema: coercing except for JSON bodies not marked `x-coerce`. */
export function compileSchema(schema: object, httpPart: string | undefined): ValidateFunction {
  const coerce = httpPart !== "body" || (schema as Record<string, unknown>)["x-coerce"] === true;
  return (coerce ? coercingAjv : strictAjv).compile(schema);
}

/** Validates `data` against a JSON body schema; returns the catalogue error, or null when valid. */
export function validateBody(validate: ValidateFunction, data: unknown, prefix = ""): AppError | null {
  if (validate(data)) return null;
  return validationError(validate.errors ?? [], "body", prefix);
}
