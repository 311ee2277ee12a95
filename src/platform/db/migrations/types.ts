// What every migration file is: a factory of a Kysely migration for the dialect's column types
// (kept apart from migrate.ts, which imports the migrations, so that no import cycle runs through it).
import type { Migration } from "kysely";
import type { Dialect } from "../types.js";
import type { SecretBox } from "../../secrets.js";

/** Column types that differ between the two dialects. */
export interface ColumnTypes {
  dialect: Dialect;
  json: "jsonb" | "text";
  /** Raw vector bytes (float32 little-endian). */
  blob: "bytea" | "blob";
  /** The connector key's box, for migrations that seal secrets (0014); absent in tools that open no secrets. */
  secrets?: SecretBox;
}

export type MigrationFactory = (types: ColumnTypes) => Migration;
