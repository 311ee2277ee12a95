// Append-only migrations, run at start on both dialects (Kysely's Migrator takes a lock, so
// several processes starting at once apply each migration exactly once).
import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type TableMetadata } from "kysely";
import type { Dialect } from "./types.js";

/**
 * The database a migration works on. A migration sees the schema as it was when it was written,
 * which no current TypeScript type describes, so it is untyped (Kysely's documented choice for
 * migrations); everything outside migrations uses the typed tables.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type MigrationDb = Kysely<any>;

export interface MigrateOptions {
  pgSchema?: string | undefined;
}

/** Applies `migrations` (name → migration, applied in name order) that have not run yet. */
export async function runMigrations(
  db: MigrationDb,
  dialect: Dialect,
  migrations: Record<string, Migration>,
  options: MigrateOptions = {},
): Promise<void> {
  const { pgSchema } = options;
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // The migration bookkeeping tables live in the schema in use (tests run several schemas side by side).
  const migrator = new Migrator({
    db: dialect === "postgres" ? withSchemaIntrospection(db, pgSchema) : db,
    provider,
    ...(pgSchema ? { migrationTableSchema: pgSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`Database migration ${failed} failed: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The Migrator looks for its bookkeeping tables with `db.introspection.getTables()`, which on
 * PostgreSQL reads every column of every schema in the database: slow on a shared server, and it
 * fails when another schema is dropped meanwhile (many test processes on one server). This view of
 * `db` answers that question from the one schema in use, by table name only.
 */
function withSchemaIntrospection(db: MigrationDb, pgSchema: string | undefined): MigrationDb {
  const introspection: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    // Still part of Kysely's interface (deprecated there): answered from getTables like the rest.
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the interface still requires it
    getMetadata: async () => ({ tables: await introspection.getTables() }),
    async getTables(): Promise<TableMetadata[]> {
      const rows = await sql<{ schema: string; name: string; is_view: boolean }>`
        SELECT table_schema AS schema, table_name AS name, table_type = 'VIEW' AS is_view
        FROM information_schema.tables
        WHERE table_schema = coalesce(${pgSchema ?? null}::text, current_schema())`.execute(db);
      return rows.rows.map((r) => ({ schema: r.schema, name: r.name, isView: r.is_view, columns: [] }));
    },
  };
  // Kysely keeps its state in private fields: forward everything to `db` itself.
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "introspection") return introspection;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
