// What every migration file is: a factory of a Kysely migration for the dialect's column types
// (kept apart from migrate.ts, which imports the migrations, so that no import cycle runs through it).
import type { Migration } from "kysely";
import type { Dialect } from "../../platform/db/types.js";
import type { SecretBox } from "../../platform/secrets.js";

export type { MigrationDb } from "../../platform/db/migrate.js";
import type { MigrationDb } from "../../platform/db/migrate.js";

/** Column types that differ between the two dialects. */
export interface ColumnTypes {
  dialect: Dialect;
  json: "jsonb" | "text";
  /** Raw vector bytes (float32 little-endian). */
  blob: "bytea" | "blob";
  /** The connector key's box, for migrations that seal secrets (0014); absent in tools that open no secrets. */
  secrets?: SecretBox;
  /** Data steps that need the product's own code, handed in by the application (see DataHooks). */
  hooks?: DataHooks;
}

/**
 * Data steps of a migration that need the product's code (platform imports nothing of the
 * product): the composition root (src/context/context.ts) hands them in. A migration that needs
 * one which is absent, with rows to process, fails and says how to run it.
 */
export interface DataHooks {
  /** Writes the lexical index rows of every existing product (migrations 0018 and 0033). */
  indexProductText?(db: MigrationDb, dialect: Dialect): Promise<void>;
  /** Writes the vocabulary of every store's lexical rows (migration 0023). */
  indexProductTerms?(db: MigrationDb, dialect: Dialect): Promise<void>;
}

export type MigrationFactory = (types: ColumnTypes) => Migration;
