// Test helpers for the vector index suites: a real database of the given dialect (SQLite in a
// temp folder, or PostgreSQL in a schema of its own that is dropped afterwards), migrated, with
// store rows to hang vectors on.
import path from "node:path";
import type { Config } from "../platform/config.js";
import { openDatabase, type Database } from "../db/index.js";
import { testEnv } from "../../test/support/env.js";
import { createTestStorage } from "../../test/support/database.js";

export interface TestDatabase {
  database: Database;
  /** PostgreSQL: the schema the database lives in. */
  pgSchema: string | undefined;
  /** Opens a second handle on the same database (a "restarted process"). */
  reopen(): Promise<Database>;
  close(): Promise<void>;
}

export async function openTestDatabase(dialect: "sqlite" | "postgres"): Promise<TestDatabase> {
  const storage = createTestStorage(dialect, "shopsight-vectors");
  const target: Config["database"] =
    dialect === "sqlite"
      ? { kind: "sqlite", file: path.join(storage.dataDir, "test.db") }
      : { kind: "postgres", url: testEnv.databaseUrl! };
  const options = storage.pgSchema ? { pgSchema: storage.pgSchema } : {};
  const database = await openDatabase(target, options);
  const extra: Database[] = [];
  return {
    database,
    pgSchema: storage.pgSchema,
    reopen: async () => {
      const d = await openDatabase(target, options);
      extra.push(d);
      return d;
    },
    async close() {
      for (const d of extra) await d.close();
      await database.close();
      await storage.remove();
    },
  };
}
