// Search-history rows leave the response path: a search hands its row to the writer and replies;
// the writer inserts what gathered after the reply went out (setImmediate), many rows per
// statement under load, in one transaction per batch. Nothing is lost on a graceful stop: the
// context's close() flushes the writer before the database closes. Readers of search history
// (feedback attribution, analytics) call flush() first, so a search_id a client just received is
// always found.
//
// A batch that fails (e.g. the store was deleted meanwhile) is retried row by row; rows that still
// fail are dropped with a warning, as a failed history insert never failed the search either.
//
// Each row's cost is recorded as one `history` search stage (shopsight_search_stage_duration_seconds):
// the time its search spent building and queueing it, plus its share of the batch's write.
//
// A batch of at most ROWS_PER_STATEMENT rows is one INSERT, atomic by itself: no transaction
// around it. Its statement is built and compiled once per row count and run again with each
// batch's values (batches of 16 rows, the real schema on SQLite: 16.1–16.6 → 10.5–11.0 µs of
// CPU per row; docs/benchmarks.md, "Issue 39: the history rows' statement compiled once").
import { CompiledQuery, type InsertQueryNode, type Selectable } from "kysely";
import type { AppContext } from "../../context/context.js";
import type { Database, Executor } from "../../platform/db/index.js";
import type { Metrics } from "../../platform/metrics.js";
import type { SearchHistoryTable } from "../../db/schema.js";

type HistoryRow = Selectable<SearchHistoryTable>;

/** Rows per INSERT statement (11 columns: well under SQLite's bound-parameter limit). */
const ROWS_PER_STATEMENT = 200;

/**
 * The INSERT of a number of rows: its SQL text, with its columns in the order of its parameters
 * (the text alone is kept, not the compiled query's tree of the first batch's values: at most
 * ROWS_PER_STATEMENT texts of ~35–70 bytes a row, ~1 MB if every count up to 200 occurs).
 */
interface Insert {
  sql: string;
  columns: (keyof HistoryRow)[];
}

export class SearchHistoryWriter {
  private queue: HistoryRow[] = [];
  /** Milliseconds the searches of `queue` spent building and queueing its rows. */
  private queuedMs = 0;
  private scheduled = false;
  /** The write in progress (writes run one at a time, in order). */
  private writing: Promise<void> = Promise.resolve();
  /** The INSERT compiled per row count (at most ROWS_PER_STATEMENT of them). */
  private readonly inserts = new Map<number, Insert>();

  constructor(
    private readonly database: Database,
    private readonly warn: (message: string) => void = (m) => process.stderr.write(`WARNING: ${m}\n`),
    /** Where each row's `history` stage is recorded (none: not recorded). */
    private readonly metrics?: Pick<Metrics, "observeSearchStage">,
  ) {}

  /**
   * Queues a row; it is written after the current reply went out. `startedAt`: performance.now()
   * when the search began building the row (that time joins the row's `history` stage).
   */
  add(storeId: string, row: Omit<HistoryRow, "store_id">, startedAt?: number): void {
    this.queue.push({ ...row, store_id: storeId });
    if (startedAt !== undefined) this.queuedMs += performance.now() - startedAt;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  /** Rows waiting to be written (tests, health). */
  get pending(): number {
    return this.queue.length;
  }

  /** Writes every row queued so far; resolves once they are committed. */
  flush(): Promise<void> {
    this.scheduled = false;
    if (this.queue.length === 0) return this.writing;
    const rows = this.queue;
    const queuedMs = this.queuedMs;
    this.queue = [];
    this.queuedMs = 0;
    this.writing = this.writing.then(() => this.write(rows, queuedMs));
    return this.writing;
  }

  private async write(rows: HistoryRow[], queuedMs: number): Promise<void> {
    const startedAt = performance.now();
    try {
      if (rows.length <= ROWS_PER_STATEMENT) await this.insert(this.database.db, rows);
      else
        await this.database.transaction(async (tx) => {
          for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) await this.insert(tx, rows.slice(i, i + ROWS_PER_STATEMENT));
        });
    } catch {
      let lost = 0;
      for (const row of rows) {
        try {
          await this.database.db.insertInto("search_history").values(row).execute();
        } catch {
          lost++;
        }
      }
      if (lost > 0) this.warn(`${lost} search-history row(s) could not be written (store deleted or database unavailable).`);
    } finally {
      if (this.metrics) {
        const perRow = (queuedMs + performance.now() - startedAt) / rows.length / 1000;
        for (let i = 0; i < rows.length; i++) this.metrics.observeSearchStage("history", perRow);
      }
    }
  }

  /** One INSERT of `rows` (at most ROWS_PER_STATEMENT) through `executor`, compiled once per row count. */
  private async insert(executor: Executor, rows: HistoryRow[]): Promise<void> {
    let insert = this.inserts.get(rows.length);
    if (!insert) {
      const query = executor.insertInto("search_history").values(rows).compile();
      const columns = ((query.query as InsertQueryNode).columns ?? []).map((c) => c.column.name as keyof HistoryRow);
      // Every row binds every column: the statement is reused only when its parameters are exactly those.
      if (query.parameters.length !== rows.length * columns.length) {
        await executor.executeQuery(query);
        return;
      }
      insert = { sql: query.sql, columns };
      this.inserts.set(rows.length, insert);
    }
    const parameters: unknown[] = [];
    for (const row of rows) for (const column of insert.columns) parameters.push(row[column]);
    await executor.executeQuery(CompiledQuery.raw(insert.sql, parameters));
  }
}

const writers = new WeakMap<AppContext, SearchHistoryWriter>();

/** The context's one history writer (flushed by the context's close()). */
export function historyWriter(ctx: AppContext): SearchHistoryWriter {
  let writer = writers.get(ctx);
  if (!writer) {
    const created = new SearchHistoryWriter(ctx.database, undefined, ctx.metrics);
    writer = created;
    writers.set(ctx, created);
    ctx.onClose(() => created.flush());
  }
  return writer;
}
