import { test } from "node:test";
import assert from "node:assert/strict";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { RowCountLiterals, rowCount, statementCache } from "./statement-cache.js";

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

test("LIMIT counts are written into the SQL text: the builder's through RowCountLiterals, raw statements' through rowCount(); OFFSET stays bound", async () => {
  const db = new Kysely<{ items: { id: number; name: string } }>({
    dialect: new SqliteDialect({ database: statementCache(new SQLite(":memory:")) }),
    plugins: [new RowCountLiterals()],
  });
  await sql`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`.execute(db);
  await db
    .insertInto("items")
    .values(["dress", "shirt", "coat", "scarf"].map((name, i) => ({ id: i + 1, name })))
    .execute();
  const page = (limit: number, offset: number) =>
    db.selectFrom("items").select("name").where("id", ">", 0).orderBy("id").limit(limit).offset(offset);
  const compiled = page(2, 1).compile();
  assert.match(compiled.sql, / limit 2 offset \?$/);
  assert.deepEqual(compiled.parameters, [0, 1]); // the WHERE value and the offset stay parameters
  assert.deepEqual(
    (await page(2, 1).execute()).map((r) => r.name),
    ["shirt", "coat"],
  );
  assert.deepEqual(
    (await page(3, 0).execute()).map((r) => r.name),
    ["dress", "shirt", "coat"],
  );
  // A count that is not a bound whole number stays as it was.
  const computed = db
    .selectFrom("items")
    .select("name")
    .limit(sql<number>`1 + 1`)
    .compile();
  assert.match(computed.sql, / limit 1 \+ 1$/);
  // A subquery's own count is not rewritten (the statement's only: the tree is not walked).
  const nested = db
    .selectFrom((eb) => eb.selectFrom("items").select("id").limit(3).as("s"))
    .select("s.id")
    .compile();
  assert.deepEqual(nested.parameters, [3]);

  const raw = await sql<{ name: string }>`SELECT name FROM items ORDER BY id LIMIT ${rowCount(1)} OFFSET ${3}`.execute(db);
  assert.deepEqual(raw.rows, [{ name: "scarf" }]);
  assert.equal(sql`SELECT 1 LIMIT ${rowCount(7)}`.compile(db).sql, "SELECT 1 LIMIT 7");
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 60]) assert.throws(() => rowCount(bad), /whole number/);
  await db.destroy();
});
