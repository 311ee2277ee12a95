// Prepared-statement reuse for the embedded database. Kysely's SQLite driver prepares every query
// it runs (`db.prepare(sql)` per call); preparing is the larger share of a short query's cost
// (measured: ~0.5 ms of event-loop time per text search, from a handful of small queries). The
// Database handed to Kysely here keeps the most recently used statements by SQL text, so a query
// shape the service runs again reuses its compiled statement. better-sqlite3 statements re-bind
// their parameters on every call and SQLite recompiles a statement by itself after a schema change.
import type SQLite from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Distinct SQL texts kept (queries with IN-lists of varying length are distinct texts). */
const STATEMENTS_CACHED = 500;

export function statementCache(sqlite: SQLite.Database, capacity = STATEMENTS_CACHED): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      // A statement still being iterated (a stream not read to its end) cannot run again.
      if (statement?.busy) return sqlite.prepare(sql);
      if (statement) {
        statements.delete(sql); // refresh recency
      } else {
        statement = sqlite.prepare(sql);
        if (statements.size >= capacity) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}
