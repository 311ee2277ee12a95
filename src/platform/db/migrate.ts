// Append-only migrations, run at start on both dialects (Kysely's Migrator takes a lock, so
// several processes starting at once apply each migration exactly once).
import { Migrator, type Kysely, type Migration, type MigrationProvider } from "kysely";
import type { Dialect } from "./index.js";
import { migrations } from "./migrations/index.js";

/** Column types that differ between the two dialects. */
export interface ColumnTypes {
  dialect: Dialect;
  json: "jsonb" | "text";
  /** Raw vector bytes (float32 little-endian). */
  blob: "bytea" | "blob";
}

export type MigrationFactory = (types: ColumnTypes) => Migration;

export async function runMigrations(db: Kysely<any>, dialect: Dialect, pgSchema?: string): Promise<void> {
  const types: ColumnTypes = {
    dialect,
    json: dialect === "postgres" ? "jsonb" : "text",
    blob: dialect === "postgres" ? "bytea" : "blob",
  };
  const provider: MigrationProvider = {
    getMigrations: async () =>
      Object.fromEntries(Object.entries(migrations).map(([name, make]) => [name, make(types)])),
  };
  // The migration bookkeeping tables live in the schema in use (tests run several schemas side by side).
  const migrator = new Migrator({ db, provider, ...(pgSchema ? { migrationTableSchema: pgSchema } : {}) });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    // Before running anything, Kysely looks for its bookkeeping tables by introspecting every
    // schema of the database; a schema or table dropped by someone else during that scan (seen
    // when many test processes share one server) fails it with "schema/relation/column does not
    // exist". No migration ran then (`results` is undefined): try again.
    if (attempt < 5 && results === undefined && vanishedDuringIntrospection(error)) continue;
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`Database migration ${failed} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** PostgreSQL: invalid_schema_name, undefined_table, undefined_column. */
const VANISHED = new Set(["3F000", "42P01", "42703"]);

function vanishedDuringIntrospection(error: unknown): boolean {
  return VANISHED.has(String((error as { code?: unknown }).code));
}
