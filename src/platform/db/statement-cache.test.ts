import { test } from "node:test";
import assert from "node:assert/strict";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { statementCache } from "./statement-cache.js";

test("reuses a prepared statement per SQL text and keeps at most `capacity` of them", () => {
  const sqlite = new SQLite(":memory:");
  const cache = statementCache(sqlite, 2);
  const a = cache.prepare("SELECT 1 AS one");
  assert.equal(cache.prepare("SELECT 1 AS one"), a);
  cache.prepare("SELECT 2 AS two");
  cache.prepare("SELECT 3 AS three"); // evicts the least recently used: "SELECT 1"
  assert.notEqual(cache.prepare("SELECT 1 AS one"), a);
  cache.close();
  assert.equal(sqlite.open, false);
});

test("a reused statement binds new parameters each time and follows schema changes", async () => {
  const db = new Kysely<{ items: { id: number; name: string; colour?: string | null } }>({
    dialect: new SqliteDialect({ database: statementCache(new SQLite(":memory:")) }),
  });
  await sql`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`.execute(db);
  await db.insertInto("items").values({ id: 1, name: "dress" }).execute();
  await db.insertInto("items").values({ id: 2, name: "shirt" }).execute();
  const byId = (id: number) => db.selectFrom("items").selectAll().where("id", "=", id).executeTakeFirst();
  assert.deepEqual(await byId(1), { id: 1, name: "dress" });
  assert.deepEqual(await byId(2), { id: 2, name: "shirt" });
  await sql`ALTER TABLE items ADD COLUMN colour TEXT`.execute(db);
  await db.updateTable("items").set({ colour: "red" }).where("id", "=", 1).execute();
  assert.deepEqual(await byId(1), { id: 1, name: "dress", colour: "red" }); // same SQL text, new column
  await db.destroy();
});
