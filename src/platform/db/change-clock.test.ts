// Database.changeClock on SQLite: the same number while nothing is written, a new one after any
// write of this handle (built by Kysely or raw SQL, alone, in a transaction, or an INSERT with
// RETURNING) and after another connection's commit on the same file. The statement cache counts
// only what may write (sqlite3_stmt_readonly).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { sql, type Kysely } from "kysely";
import { openDatabase, type Database } from "./index.js";
import { statementCache, type WriteCount } from "./statement-cache.js";

describe("the change clock of the embedded database", () => {
  let dir: string;
  let file: string;
  let database: Database;
  let db: Kysely<{ things: { id: string; name: string } }>;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-clock-"));
    file = path.join(dir, "clock.db");
    database = await openDatabase({ kind: "sqlite", file });
    await sql`CREATE TABLE things (id TEXT PRIMARY KEY, name TEXT NOT NULL)`.execute(database.db);
    db = database.db as unknown as typeof db;
  });
  after(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("stays the same over reads, moves with every write of this handle", async () => {
    const read = () => db.selectFrom("things").selectAll().execute();
    const start = database.changeClock();
    assert.equal(typeof start, "number");
    await read();
    await sql`SELECT count(*) FROM things`.execute(db);
    assert.equal(database.changeClock(), start, "reads");

    const steps: [string, () => Promise<unknown>][] = [
      ["insert", () => db.insertInto("things").values({ id: "a", name: "A" }).execute()],
      ["raw update", () => sql`UPDATE things SET name = 'A2' WHERE id = 'a'`.execute(db)],
      ["insert with returning", () => db.insertInto("things").values({ id: "b", name: "B" }).returning("id").execute()],
      ["transaction", () => database.transaction((tx) => sql`DELETE FROM things WHERE id = 'b'`.execute(tx))],
      ["an update changing no row", () => db.updateTable("things").set({ name: "Z" }).where("id", "=", "none").execute()],
    ];
    let last = database.changeClock();
    for (const [name, write] of steps) {
      await write();
      const now = database.changeClock();
      assert.notEqual(now, last, name);
      assert.equal(database.changeClock(), now, `${name}: read twice`);
      await read();
      assert.equal(database.changeClock(), now, `${name}: then a read`);
      last = now;
    }
  });

  test("moves when another connection commits to the same file", async () => {
    const before = database.changeClock();
    const other = new SQLite(file);
    try {
      other.prepare("INSERT INTO things (id, name) VALUES ('c', 'C')").run();
    } finally {
      other.close();
    }
    const after = database.changeClock();
    assert.notEqual(after, before);
    assert.equal(database.changeClock(), after);
  });

  test("the statement cache counts what may write as it hands it out", () => {
    const sqlite = new SQLite(":memory:");
    const count: WriteCount = { writes: 0 };
    const cache = statementCache(sqlite, 10, count);
    cache.prepare("CREATE TABLE t (id INTEGER PRIMARY KEY)").run([]);
    assert.equal(count.writes, 1, "CREATE");
    for (const text of ["SELECT 1", "BEGIN", "COMMIT", "SELECT * FROM t"]) cache.prepare(text);
    assert.equal(count.writes, 1, "reads and transaction control");
    cache.prepare("INSERT INTO t (id) VALUES (1) RETURNING id");
    cache.prepare("INSERT INTO t (id) VALUES (1) RETURNING id"); // the cached statement, handed out again
    assert.equal(count.writes, 3);
    cache.close();
  });

  test("appends to the event logs do not move it; their other writes and other tables' do", async () => {
    const logged = await openDatabase({ kind: "sqlite", file: path.join(dir, "events.db") }, { eventTables: ["events"] });
    try {
      await sql`CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT NOT NULL)`.execute(logged.db);
      await sql`CREATE TABLE "other" (id INTEGER PRIMARY KEY)`.execute(logged.db);
      const events = logged.db as unknown as Kysely<{ events: { id: number; what: string } }>;
      const start = logged.changeClock();
      await events.insertInto("events").values({ id: 1, what: "a" }).execute();
      await events
        .insertInto("events")
        .values([
          { id: 2, what: "b" },
          { id: 3, what: "c" },
        ])
        .execute();
      await sql`INSERT INTO events (id, what) VALUES (4, 'd')`.execute(logged.db);
      await logged.transaction((tx) => (tx as unknown as typeof events).insertInto("events").values({ id: 5, what: "e" }).execute());
      assert.equal(logged.changeClock(), start, "appends to an event log");
      const steps: [string, () => Promise<unknown>][] = [
        ["an update of an event log", () => sql`UPDATE events SET what = 'z' WHERE id = 1`.execute(logged.db)],
        ["a delete from an event log", () => sql`DELETE FROM events WHERE id = 2`.execute(logged.db)],
        ["an insert into another table", () => sql`INSERT INTO "other" (id) VALUES (1)`.execute(logged.db)],
      ];
      let last = logged.changeClock();
      for (const [name, write] of steps) {
        await write();
        assert.notEqual(logged.changeClock(), last, name);
        last = logged.changeClock();
      }
    } finally {
      await logged.close();
    }
  });
});
