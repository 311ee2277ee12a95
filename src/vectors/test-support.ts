// Test helpers for the vector index suites: a real database of the given dialect (SQLite in a
// temp folder, or PostgreSQL in a schema of its own that is dropped afterwards), migrated, with
// store rows to hang vectors on.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase, type Database } from "../platform/db/index.js";
import { testEnv } from "../../test/support/env.js";

export interface TestDatabase {
  database: Database;
  /** Opens a second handle on the same database (a "restarted process"). */
  reopen(): Promise<Database>;
  close(): Promise<void>;
}

export async function openTestDatabase(dialect: "sqlite" | "postgres"): Promise<TestDatabase> {
  if (dialect === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-vectors-"));
    const target = { kind: "sqlite" as const, file: path.join(dir, "test.db") };
    const database = await openDatabase(target);
    const extra: Database[] = [];
    return {
      database,
      reopen: async () => {
        const d = await openDatabase(target);
        extra.push(d);
        return d;
      },
      async close() {
        for (const d of extra) await d.close();
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!testEnv.databaseUrl) throw new Error("TEST_DATABASE_URL is not set");
  const url = testEnv.databaseUrl;
  const pgSchema = `t_${randomBytes(6).toString("hex")}`;
  const database = await openDatabase({ kind: "postgres", url }, { pgSchema });
  const extra: Database[] = [];
  return {
    database,
    reopen: async () => {
      const d = await openDatabase({ kind: "postgres", url }, { pgSchema });
      extra.push(d);
      return d;
    },
    async close() {
      for (const d of extra) await d.close();
      await database.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
      await client.end();
    },
  };
}

export async function createStores(database: Database, ids: string[]): Promise<void> {
  for (const id of ids) {
    await database.db
      .insertInto("stores")
      .values({ id, slug: id, name: id, status: "active", plan: "free", client_secret_hash: null, secret_rotated_at: null, created_at: 0, updated_at: 0 })
      .execute();
  }
}
