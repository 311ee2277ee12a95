// Reads the evaluation's data files (JSON) and checks each against its schema (schemas.ts), so a
// malformed file stops the run with the file and the field at fault, e.g.
//   eval/assistant/retailers/stores/01-bestbuy.json: /policies/2/locale must be string
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ErrorObject } from "ajv";
import type { Static, TSchema } from "typebox";

const ajv = new Ajv({ allErrors: true, strict: false });
const root = path.resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** The file's path as printed in messages: relative to the repository when inside it. */
export function shown(file: string): string {
  const rel = path.relative(root, path.resolve(file));
  return rel.startsWith("..") ? file : rel;
}

function describe(e: ErrorObject): string {
  const where = e.instancePath || "(top level)";
  const p = e.params as Record<string, unknown>;
  const detail =
    e.keyword === "additionalProperties"
      ? `: ${JSON.stringify(p.additionalProperty)}`
      : e.keyword === "enum"
        ? `: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`
        : "";
  return `${where} ${e.message ?? e.keyword}${detail}`;
}

/** The parsed content of a JSON file, checked against `schema`; throws naming the file and field. */
export function readJson<S extends TSchema>(file: string, schema: S): Static<S> {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${shown(file)}: ${(err as Error).message}`, { cause: err });
  }
  const validate = ajv.compile(schema);
  if (!validate(data)) {
    // "must match a schema in anyOf" only repeats the branches' own errors listed beside it
    const errors = (validate.errors ?? []).filter((e, _, all) => e.keyword !== "anyOf" || all.length === 1);
    throw new Error(`${shown(file)}: ${errors.map(describe).join("; ")}`);
  }
  return data as Static<S>;
}

/** Throws `${file}: ${field} ${message}` unless `ok` (checks across fields and files). */
export function check(ok: boolean, file: string, field: string, message: string): void {
  if (!ok) throw new Error(`${shown(file)}: ${field} ${message}`);
}
