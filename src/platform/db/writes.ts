// Watching writes to chosen tables, told after they are committed. Caches of rows read from the
// database (such as what authentication reads) register the tables they depend on with
// `Database.watchWrites`; a listener runs once a statement writing one of them has run outside a
// transaction, or once the `Database.transaction` it ran in has committed (never for a rolled-back
// one), so that a cache emptied then cannot be refilled with the rows the transaction replaced.
// Only statements built with Kysely are seen (raw `sql` text is not parsed); an UPDATE setting only
// columns a listener ignores (e.g. a last-used time) is not reported to it.
import {
  AliasNode,
  ColumnNode,
  TableNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";

export interface WatchedTables {
  /** Table name → columns whose updates alone are not reported (empty: every write is). */
  [table: string]: readonly string[];
}

/** The table a write statement targets (undefined for reads and raw statements). */
export function writtenTable(node: RootOperationNode): string | undefined {
  switch (node.kind) {
    case "InsertQueryNode":
      return node.into?.table.identifier.name;
    case "UpdateQueryNode":
      return tableName(node.table);
    case "DeleteQueryNode":
      return node.from.froms.length === 1 ? tableName(node.from.froms[0]) : undefined;
    default:
      return undefined;
  }
}

function tableName(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined;
  if (TableNode.is(node)) return node.table.identifier.name;
  if (AliasNode.is(node) && TableNode.is(node.node)) return node.node.table.identifier.name;
  return undefined;
}

/** The columns an UPDATE sets (undefined for other statements). */
function updatedColumns(node: RootOperationNode): string[] | undefined {
  if (node.kind !== "UpdateQueryNode") return undefined;
  return (node.updates ?? []).map((u) => (ColumnNode.is(u.column) ? u.column.column.name : ""));
}

interface Listener {
  tables: WatchedTables;
  fn: (table: string) => void;
}

/**
 * The Kysely plugin behind Database.watchWrites. The database's own handle carries one that tells
 * its listeners at once; each `Database.transaction` runs on a handle carrying `deferredTo(queue)`,
 * which queues the telling until the transaction has committed. The transaction's handle says
 * which transaction a statement is in, so no async context (AsyncLocalStorage) is needed: on
 * Node 20 one turns on promise hooks for the whole process, a cost on every await of every request.
 */
export class WriteWatch implements KyselyPlugin {
  constructor(
    private readonly listeners = new Set<Listener>(),
    private readonly pending = new WeakMap<QueryId, { table: string; told: Listener[] }>(),
    /** A transaction's after-commit queue (none: tell at once). */
    private readonly committed?: (() => void)[],
  ) {}

  /** The same watch for the statements of one transaction: its listeners are told when `queue` is run, after the commit. */
  deferredTo(queue: (() => void)[]): WriteWatch {
    return new WriteWatch(this.listeners, this.pending, queue);
  }

  /** Calls `fn` with the table after each committed write to one of `tables`; returns the unsubscribe. */
  watch(tables: WatchedTables, fn: (table: string) => void): () => void {
    const listener = { tables, fn };
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.listeners.size === 0) return args.node;
    const table = writtenTable(args.node);
    if (table === undefined) return args.node;
    const columns = updatedColumns(args.node);
    const told: Listener[] = [];
    for (const listener of this.listeners) {
      const ignored = listener.tables[table];
      if (ignored === undefined) continue;
      if (columns && columns.length > 0 && columns.every((c) => ignored.includes(c))) continue;
      told.push(listener);
    }
    if (told.length > 0) this.pending.set(args.queryId, { table, told });
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const write = this.pending.get(args.queryId);
    if (write) {
      this.pending.delete(args.queryId);
      const tell = () => {
        for (const listener of write.told) listener.fn(write.table);
      };
      if (this.committed) this.committed.push(tell);
      else tell();
    }
    return args.result;
  }
}
