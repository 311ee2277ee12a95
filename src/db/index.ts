// The product's database: the generic handle of src/platform/db opened with the product's tables
// (schema.ts) and migrations (migrations/). Every process opens its database here.
import type { Config } from "../platform/config.js";
import { openDatabase as openHandle, type Database } from "../platform/db/index.js";

export type { Database, Db, Dialect, Executor, Tx } from "../platform/db/index.js";
import type { SecretBox } from "../platform/secrets.js";
import type { DataHooks } from "./migrations/types.js";
import { migrations } from "./migrations/index.js";
import "./schema.js"; // the tables' types (declaration merging into platform's Tables)

/** Append-only event logs (search history, usage counters): every search writes them, and a request's reads after them need not see them, so they do not send it to the primary. */
export const EVENT_TABLES = ["search_history", "billing_usage"] as const;

export interface OpenOptions {
  /** PostgreSQL schema to use (tests isolate themselves in a schema of their own). */
  pgSchema?: string;
  /** false: open without applying pending migrations (tools reading an older file as it is). */
  migrate?: boolean;
  /** Seals secrets still in clear when migration 0014 runs (the connector key's box). */
  secrets?: SecretBox;
  /** Data steps of migrations that need the product's code (the application hands them in). */
  hooks?: DataHooks;
}

export async function openDatabase(target: Config["database"], options: OpenOptions = {}): Promise<Database> {
  const { migrate = true, secrets, hooks, pgSchema } = options;
  return openHandle(target, {
    eventTables: EVENT_TABLES,
    ...(pgSchema !== undefined ? { pgSchema } : {}),
    ...(migrate
      ? {
          migrations: (dialect) =>
            Object.fromEntries(
              Object.entries(migrations).map(([name, make]) => [
                name,
                make({
                  dialect,
                  json: dialect === "postgres" ? "jsonb" : "text",
                  blob: dialect === "postgres" ? "bytea" : "blob",
                  ...(secrets ? { secrets } : {}),
                  ...(hooks ? { hooks } : {}),
                }),
              ]),
            ),
        }
      : {}),
  });
}
