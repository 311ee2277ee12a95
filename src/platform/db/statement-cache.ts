// Prepared-statement reuse for the embedded database. Kysely's SQLite driver prepares every query
// it runs (`db.prepare(sql)` per call); preparing is the larger share of a short query's cost
// (measured: ~0.5 ms of event-loop time per text search, from a handful of small queries). The
// Database handed to Kysely here keeps the most recently used statements by SQL text, so a query
// shape the service runs again reuses its compiled statement. better-sqlite3 statements re-bind
// their parameters on every call and SQLite recompiles a statement by itself after a schema change.
//
// Row counts are written into the SQL text: SQLite (3.53, as bundled by better-sqlite3) reads a
// LIMIT given as a bound parameter while it plans the statement (its value may change the plan:
// sqlite3ExprIsInteger marks the parameter), and then prepares the statement again on the first
// step after every new binding of that parameter, even to the same value: a cached statement with
// `LIMIT ?` was compiled anew on every run (measured: a quarter of the SQLite time of a text
// search whose lexical rankings were not cached, 49 of 216 µs per search; docs/benchmarks.md,
// "Issue 39: every query new to every cache"). Kysely's builder binds it, so RowCountLiterals, a
// plugin of the SQLite handle, turns an integer LIMIT into a literal; raw statements write theirs
// with rowCount(). Each distinct count is a distinct SQL text, hence a statement of its own in the
// cache. An OFFSET stays bound: SQLite reads it while planning only for a statement over one
// virtual table, and a literal would make every page of a listing a statement of its own.
//
// The cache also counts the statements that may write as it hands them out (WriteCount), for the
// database's change clock (Database.changeClock in index.ts), except appends to the tables the
// count names as event logs (WriteCount.eventTables): rows no cache reads, written after every
// search (the search history), which would otherwise move the clock between any two searches.
import type SQLite from "better-sqlite3";
import {
  LimitNode,
  SelectQueryNode,
  ValueNode,
  sql,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RawBuilder,
  type RootOperationNode,
  type SqliteDatabase,
  type SqliteStatement,
  type UnknownRow,
} from "kysely";

/** Distinct SQL texts kept (queries with IN-lists of varying length are distinct texts). */
const STATEMENTS_CACHED = 500;

/** Statements that may write, counted as they are handed out to run (Database.changeClock()). */
export interface WriteCount {
  writes: number;
  /** Tables whose appends (INSERT statements) are not counted: event logs that no cache reads. */
  eventTables?: ReadonlySet<string>;
}

/** A cached statement, and whether running it counts as a write (see counts()). */
interface Cached {
  statement: SQLite.Statement;
  counts: boolean;
}

export function statementCache(sqlite: SQLite.Database, capacity = STATEMENTS_CACHED, count?: WriteCount): SqliteDatabase {
  const statements = new Map<string, Cached>();
  const prepared = (sql: string): Cached => {
    const statement = sqlite.prepare(sql);
    return { statement, counts: count !== undefined && counts(statement, sql, count) };
  };
  return {
    prepare(sql: string): SqliteStatement {
      let entry = statements.get(sql);
      // A statement still being iterated (a stream not read to its end) cannot run again: a new one, not kept.
      if (entry?.statement.busy) entry = prepared(sql);
      else {
        if (entry)
          statements.delete(sql); // refresh recency
        else if (statements.size >= capacity) statements.delete(statements.keys().next().value!);
        entry ??= prepared(sql);
        statements.set(sql, entry);
      }
      // Kysely prepares each statement right before it runs it, in the same tick, so the count
      // moves before the write does.
      if (entry.counts) count!.writes++;
      return entry.statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}

/** The table an INSERT statement's text appends to (a quoted or bare name), else undefined. */
const INSERT_INTO = /^\s*insert\s+(?:or\s+\w+\s+)?into\s+(?:"([^"]+)"|(\w+))/i;

/**
 * Whether running `statement` counts as a write: when it may write (SQLite's
 * sqlite3_stmt_readonly: an INSERT with RETURNING counts, a transaction's BEGIN or COMMIT does not)
 * and is not an append to one of the count's event tables.
 */
function counts(statement: SQLite.Statement, sql: string, count: WriteCount): boolean {
  if (statement.readonly) return false;
  if (!count.eventTables?.size) return true;
  const m = INSERT_INTO.exec(sql);
  return !(m && count.eventTables.has(m[1] ?? m[2]!));
}

/** A LIMIT row count of a raw statement, written into its SQL text (see the header). */
export function rowCount(n: number): RawBuilder<number> {
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`a row count is a whole number ≥ 0, not ${n}`);
  return sql.lit(n);
}

/** `node` as a literal when it is a bound whole number ≥ 0, else unchanged. */
const literalCount = (node: OperationNode): OperationNode =>
  ValueNode.is(node) && !node.immediate && typeof node.value === "number" && Number.isSafeInteger(node.value) && node.value >= 0
    ? ValueNode.createImmediate(node.value)
    : node;

/**
 * Kysely plugin: a select statement's own integer LIMIT written into its SQL text (see the
 * header). Only the statement's own: the tree is not walked (a transformer copies every node of
 * it, which costs more than the count saves on most statements).
 */
export class RowCountLiterals implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!SelectQueryNode.is(node) || !node.limit) return node;
    return Object.freeze({ ...node, limit: LimitNode.create(literalCount(node.limit.limit)) });
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
