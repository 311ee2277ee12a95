// Database.watchWrites: a listener hears of a write to a watched table once it is committed —
// at once outside a transaction, after the commit inside one, never for a rolled-back one — and
// not of reads, of other tables, or of an UPDATE that sets only ignored columns.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql, type Kysely } from "kysely";
import { openDatabase, type Database } from "./index.js";

describe("watching committed writes", () => {
  let database: Database;
  // The watched table is not one of the product's: a plain handle over it.
  let db: Kysely<{ things: { id: string; name: string; seen_at: number } }>;
  const heard: string[] = [];

  before(async () => {
    database = await openDatabase({ kind: "sqlite", file: ":memory:" });
    await sql`CREATE TABLE things (id TEXT PRIMARY KEY, name TEXT NOT NULL, seen_at INTEGER NOT NULL)`.execute(database.db);
    await sql`CREATE TABLE other (id TEXT PRIMARY KEY)`.execute(database.db);
    db = database.db as unknown as typeof db;
    database.watchWrites({ things: ["seen_at"] }, (table) => heard.push(table));
  });
  after(() => database.close());

  test("outside a transaction: each insert, update and delete, not reads or other tables", async () => {
    heard.length = 0;
    await db.insertInto("things").values({ id: "a", name: "A", seen_at: 0 }).execute();
    await db.selectFrom("things").selectAll().execute();
    await (db as unknown as Kysely<{ other: { id: string } }>).insertInto("other").values({ id: "x" }).execute();
    await db.updateTable("things").set({ name: "A2" }).where("id", "=", "a").execute();
    await db.deleteFrom("things").where("id", "=", "a").execute();
    assert.deepEqual(heard, ["things", "things", "things"]);
  });

  test("an update of ignored columns only is not a change", async () => {
    await db.insertInto("things").values({ id: "b", name: "B", seen_at: 0 }).execute();
    heard.length = 0;
    await db.updateTable("things").set({ seen_at: 5 }).where("id", "=", "b").execute();
    assert.deepEqual(heard, []);
    await db.updateTable("things").set({ seen_at: 6, name: "B2" }).where("id", "=", "b").execute();
    assert.deepEqual(heard, ["things"]);
  });

  test("inside a transaction: after the commit, and never for a rollback", async () => {
    heard.length = 0;
    await database.transaction(async (tx) => {
      await (tx as unknown as typeof db).insertInto("things").values({ id: "c", name: "C", seen_at: 0 }).execute();
      assert.deepEqual(heard, [], "not before the commit");
    });
    assert.deepEqual(heard, ["things"]);
    heard.length = 0;
    await assert.rejects(
      database.transaction(async (tx) => {
        await (tx as unknown as typeof db).insertInto("things").values({ id: "d", name: "D", seen_at: 0 }).execute();
        throw new Error("roll back");
      }),
      /roll back/,
    );
    assert.deepEqual(heard, []);
  });
});
