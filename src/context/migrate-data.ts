// `npm run cli -- migrate-data --from sqlite:PATH --to postgres://…`: copies the embedded default
// (SQLite) into PostgreSQL, vectors included, and verifies the copy.
//
//   1. Opens the SQLite file without migrating it and refuses it unless every migration of this
//      code base has been applied to it (start the embedded server once to bring it up to date).
//   2. Opens PostgreSQL (optionally a schema of it) and runs the migrations there, so the target
//      has exactly this code base's tables (pgvector's `vector` extension is created by them).
//   3. Discovers the tables and their foreign keys from SQLite itself (nothing here lists tables,
//      so tables added by later migrations are copied too) and copies them parents-first in
//      batches, all in ONE PostgreSQL transaction: an interrupted or failed copy leaves nothing
//      behind and can simply be run again. The SQLite side is read inside one read transaction,
//      so the copy is a consistent snapshot even if a server still writes to the file (writes
//      after the snapshot are not copied: stop the server for a cut-over).
//   4. Converts per column: SQLite float32 blobs → pgvector `vector` (bit-identical values), JSON
//      text → jsonb, blobs → bytea; everything else as is (ids text, epoch-ms bigint, 0/1 flags).
//      The lexical index is not copied but rebuilt from the copied products (see isLexicalIndexTable).
//   5. Verifies: row counts per table under the same scope on both sides, vector counts per store
//      and dimension, and a sample of vectors per store compared value by value. Then ANALYZEs the
//      copied tables and builds the HNSW index of every vector dimension.
//
// Target must be empty (of the copied store set) unless `force`: then rows already present
// (same primary or unique key) are kept as they are (ON CONFLICT DO NOTHING) and the rest is
// added; the verification still requires equal counts, so a target that holds more than the
// source (rows made in PostgreSQL after an earlier copy) is reported as a mismatch.
//
// Store sets (`stores` option, slugs or ids): tables with a `store_id` column copy that store's
// rows; `stores` copies the store rows; a table without `store_id` that store rows point at by
// foreign key (`users`) copies the rows they point at (a user shared with a store not copied is
// copied once, and kept if already present); any other table (`revoked_tokens`) is global and
// copied whole. Rows of store tables with a NULL store_id (events naming no store) are copied only
// without a store filter.
import fs from "node:fs";
import path from "node:path";
import { sql, type RawBuilder } from "kysely";
import { dataHooks } from "./context.js";
import { openDatabase, type Database } from "../db/index.js";
import type { MigrationDb } from "../platform/db/migrate.js";
import { indexAllProducts } from "../lexical/repository.js";
import { migrations } from "../db/migrations/index.js";
import { createVectorIndex } from "../vectors/index.js";
import { VectorRepository } from "../vectors/repository.js";
import { fromBlob, toPgVector, vectorsEqual } from "../vectors/math.js";
import { ImageFiles } from "../shared/images/store.js";

export interface MigrateDataOptions {
  /** The SQLite file, or a DATA_DIR holding `shopsight.db`. */
  from: string;
  /** postgres:// URL of the target. */
  to: string;
  /** PostgreSQL schema to copy into (created if missing); default: the URL's search_path (public). */
  pgSchema?: string | undefined;
  /** Store slugs or ids; empty/undefined = everything. */
  stores?: string[] | undefined;
  /** Merge into a non-empty target (ON CONFLICT DO NOTHING). */
  force?: boolean;
  /** Only compare counts (no copy). */
  verifyOnly?: boolean;
  /** Rows per INSERT (further bounded by PostgreSQL's 65,535 parameters and ~4 MB per batch). */
  batchSize?: number;
  /** Vectors per store compared value by value. */
  vectorSample?: number;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
  /** The source's filesystem image store (default: `images` beside the SQLite file, as DATA_DIR/images). */
  sourceImages?: string | undefined;
  /**
   * Where the target keeps product images: "database" (default, the PostgreSQL default) or a
   * filesystem image store folder every PostgreSQL process of the target will share.
   */
  targetImages?: { kind: "database" } | { kind: "filesystem"; path: string } | undefined;
}

export interface TableCheck {
  table: string;
  scope: Scope["kind"];
  source: number;
  target: number;
  copied: number;
  ok: boolean;
}

export interface VectorCheck {
  storeId: string;
  slug: string;
  dim: number;
  source: number;
  target: number;
  sampled: number;
  sampleMismatches: number;
  ok: boolean;
}

export interface MigrateDataReport {
  ok: boolean;
  from: string;
  to: string;
  pgSchema: string | null;
  stores: { id: string; slug: string }[] | "all";
  tables: TableCheck[];
  vectors: VectorCheck[];
  hnswDims: number[];
  durationMs: number;
}

/** A refusal or bad input the operator can fix (exit 1 with the message, no stack). */
export class MigrateDataError extends Error {
  override name = "MigrateDataError";
}

interface ForeignKey {
  table: string;
  column: string;
  parent: string;
  parentColumn: string;
}

interface TableInfo {
  name: string;
  columns: string[];
  primaryKey: string[];
  foreignKeys: ForeignKey[];
}

type Scope = { kind: "all" } | { kind: "stores" } | { kind: "store" } | { kind: "referenced"; via: ForeignKey[] } | { kind: "global" };

const MAX_PARAMS = 60_000;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const MIGRATION_TABLES = new Set(["kysely_migration", "kysely_migration_lock"]);
/**
 * The lexical index (migration 0018) differs by engine (SQLite FTS5 tables and their shadow tables;
 * a tsvector table on PostgreSQL): it is derived from the products and rebuilt there, not copied.
 */
const isLexicalIndexTable = (name: string) => /^product_(text|fts|trgm)(_|$)/.test(name);

/** Parses `sqlite:PATH` (a file, or a folder holding shopsight.db). */
export function parseSqliteSource(spec: string): string {
  const m = /^sqlite:(.+)$/.exec(spec);
  if (!m) throw new MigrateDataError(`--from must be sqlite:PATH (a SQLite file or a DATA_DIR), got "${spec}"`);
  let file = path.resolve(m[1]!.replace(/^\/\/(?=\/)/, ""));
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "shopsight.db");
  if (!fs.existsSync(file)) throw new MigrateDataError(`No SQLite database at ${file}`);
  return file;
}

export function checkPostgresTarget(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new MigrateDataError(`--to must be a postgres:// URL, got "${url.replace(/\/\/[^@]*@/, "//…@")}"`);
  return url;
}

const id = (name: string) => sql.id(name);
const ids = (names: string[]) => sql.join(names.map(id));

export async function migrateData(options: MigrateDataOptions): Promise<MigrateDataReport> {
  const started = Date.now();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const file = parseSqliteSource(options.from);
  const url = checkPostgresTarget(options.to);
  if (options.pgSchema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(options.pgSchema)) {
    throw new MigrateDataError(`--schema must be a plain identifier, got "${options.pgSchema}"`);
  }
  const source = await openDatabase({ kind: "sqlite", file }, { migrate: false });
  let target: Database | undefined;
  try {
    await checkSourceMigrations(source.db);
    target = await openDatabase(
      { kind: "postgres", url },
      { ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}), migrate: true, hooks: dataHooks },
    );
    const tgt = target;
    const tables = await readTables(source.db);
    const order = fkOrder(tables);
    await checkTargetColumns(tgt.db, tables);

    // One read snapshot of the SQLite file for the copy and the source-side counts.
    const result = await source.db.transaction().execute(async (src) => {
      const stores = await resolveStores(src, options.stores);
      const storeIds = stores === "all" ? [] : stores.map((s) => s.id);
      const scopes = new Map(order.map((t) => [t.name, scopeOf(t, tables, stores === "all")]));
      const copied = new Map<string, number>();
      if (!options.verifyOnly) {
        if (!options.force) await checkTargetEmpty(tgt.db, order, scopes, storeIds);
        const pgTypes = await targetTypes(tgt.db);
        const t0 = Date.now();
        const images = imageMover(file, options);
        await tgt.db.transaction().execute(async (tx) => {
          for (const table of order) {
            const prepare = table.name === "product_images" ? images : undefined;
            const n = await copyTable(src, tx, table, scopes.get(table.name)!, storeIds, pgTypes.get(table.name)!, options, prepare);
            copied.set(table.name, n);
            if (n > 0) log(`copied ${table.name}: ${n} rows`);
          }
          const lexical = await rebuildLexicalIndex(tx, storeIds);
          if (lexical > 0) log(`lexical index rebuilt for ${lexical} products`);
        });
        log(`copy committed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
      const sourceCounts = new Map<string, number>();
      for (const table of order) sourceCounts.set(table.name, await countRows(src, table, scopes.get(table.name)!, storeIds));
      const sourceKeys = new Map<string, unknown[][]>();
      for (const table of order) {
        if (scopes.get(table.name)!.kind === "global" && stores !== "all") sourceKeys.set(table.name, await primaryKeys(src, table));
      }
      const sourceVectors = await vectorCounts(src, storeIds);
      return { stores, storeIds, scopes, copied, sourceCounts, sourceKeys, sourceVectors };
    });

    if (!options.verifyOnly) {
      for (const table of order) await sql`ANALYZE ${id(table.name)}`.execute(tgt.db);
    }
    const checks: TableCheck[] = [];
    for (const table of order) {
      const scope = result.scopes.get(table.name)!;
      const keys = result.sourceKeys.get(table.name);
      const targetCount = keys ? await countPresent(tgt.db, table, keys) : await countRows(tgt.db, table, scope, result.storeIds);
      const sourceCount = result.sourceCounts.get(table.name)!;
      checks.push({
        table: table.name,
        scope: scope.kind,
        source: sourceCount,
        target: targetCount,
        copied: result.copied.get(table.name) ?? 0,
        ok: sourceCount === targetCount,
      });
    }
    const vectors = await compareVectors(source, tgt, result.sourceVectors, result.storeIds, options.vectorSample ?? 20);
    let hnswDims: number[] = [];
    if (!options.verifyOnly) {
      const index = createVectorIndex(tgt);
      const t0 = Date.now();
      await index.init();
      await index.close();
      hnswDims = await new VectorRepository(tgt).dims();
      if (hnswDims.length > 0)
        log(`HNSW index ready for dimension(s) ${hnswDims.join(", ")} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    return {
      ok: checks.every((c) => c.ok) && vectors.every((v) => v.ok),
      from: file,
      to: url.replace(/\/\/[^@]*@/, "//…@"),
      pgSchema: options.pgSchema ?? null,
      stores: result.stores,
      tables: checks,
      vectors,
      hnswDims,
      durationMs: Date.now() - started,
    };
  } finally {
    await target?.close();
    await source.close();
  }
}

/** Writes the PostgreSQL lexical index rows of the copied products (all, or those of `storeIds`), a page at a time. */
const rebuildLexicalIndex = (tx: MigrationDb, storeIds: string[]): Promise<number> =>
  indexAllProducts(tx, "postgres", 1, undefined, { storeIds });

// ------------------------------------------------------------------ schema --

async function checkSourceMigrations(db: MigrationDb): Promise<void> {
  const has = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`.execute(
    db,
  );
  if (Number(has.rows[0]?.n ?? 0) === 0) throw new MigrateDataError("The source is not a Shopsight database (no kysely_migration table).");
  const applied = new Set((await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db)).rows.map((r) => r.name));
  const known = Object.keys(migrations);
  const unknown = [...applied].filter((n) => !known.includes(n));
  if (unknown.length > 0)
    throw new MigrateDataError(
      `The source has migrations this code base does not know (${unknown.join(", ")}): use the newer code base to copy it.`,
    );
  const pending = known.filter((n) => !applied.has(n));
  if (pending.length > 0) {
    throw new MigrateDataError(
      `The source lacks migration(s) ${pending.join(", ")}: start the embedded server once on it (npm start with its DATA_DIR) so it is up to date, then copy.`,
    );
  }
}

async function readTables(db: MigrationDb): Promise<Map<string, TableInfo>> {
  const names = (
    await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`.execute(db)
  ).rows
    .map((r) => r.name)
    .filter((n) => !MIGRATION_TABLES.has(n) && !isLexicalIndexTable(n));
  const tables = new Map<string, TableInfo>();
  for (const name of names) {
    const cols = (await sql<{ name: string; pk: number }>`SELECT name, pk FROM pragma_table_info(${name}) ORDER BY cid`.execute(db)).rows;
    const fks = (
      await sql<{
        table: string;
        from: string;
        to: string | null;
      }>`SELECT "table", "from", "to" FROM pragma_foreign_key_list(${name})`.execute(db)
    ).rows;
    tables.set(name, {
      name,
      columns: cols.map((c) => c.name),
      primaryKey: cols
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      foreignKeys: fks.map((f) => ({ table: name, column: f.from, parent: f.table, parentColumn: f.to ?? "id" })),
    });
  }
  return tables;
}

/** Parents before children (Kahn's algorithm, alphabetical among equals); self-references ignored. */
export function fkOrder(tables: Map<string, TableInfo>): TableInfo[] {
  const pending = new Map(
    [...tables.values()].map((t) => [t.name, new Set(t.foreignKeys.map((f) => f.parent).filter((p) => p !== t.name && tables.has(p)))]),
  );
  const out: TableInfo[] = [];
  while (pending.size > 0) {
    const ready = [...pending.entries()]
      .filter(([, deps]) => deps.size === 0)
      .map(([n]) => n)
      .sort();
    if (ready.length === 0) throw new MigrateDataError(`Foreign-key cycle among tables: ${[...pending.keys()].join(", ")}`);
    for (const name of ready) {
      out.push(tables.get(name)!);
      pending.delete(name);
      for (const deps of pending.values()) deps.delete(name);
    }
  }
  return out;
}

async function checkTargetColumns(db: MigrationDb, tables: Map<string, TableInfo>): Promise<void> {
  const rows = (
    await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`.execute(db)
  ).rows;
  const target = new Map<string, Set<string>>();
  for (const r of rows) {
    if (!target.has(r.table_name)) target.set(r.table_name, new Set());
    target.get(r.table_name)!.add(r.column_name);
  }
  for (const t of tables.values()) {
    const cols = target.get(t.name);
    if (!cols) throw new MigrateDataError(`The target has no table ${t.name} after migrating: is it a different code base?`);
    const missing = t.columns.filter((c) => !cols.has(c));
    if (missing.length > 0) throw new MigrateDataError(`The target's ${t.name} lacks column(s) ${missing.join(", ")}.`);
  }
}

/** PostgreSQL column types of every table: "vector", "jsonb", "bytea", … (udt_name). */
async function targetTypes(db: MigrationDb): Promise<Map<string, Map<string, string>>> {
  const rows = (
    await sql<{ table_name: string; column_name: string; udt_name: string }>`
      SELECT table_name, column_name, udt_name FROM information_schema.columns WHERE table_schema = current_schema()`.execute(db)
  ).rows;
  const out = new Map<string, Map<string, string>>();
  for (const r of rows) {
    if (!out.has(r.table_name)) out.set(r.table_name, new Map());
    out.get(r.table_name)!.set(r.column_name, r.udt_name);
  }
  return out;
}

// ------------------------------------------------------------------ scope ---

async function resolveStores(db: MigrationDb, wanted: string[] | undefined): Promise<{ id: string; slug: string }[] | "all"> {
  if (!wanted || wanted.length === 0) return "all";
  const out: { id: string; slug: string }[] = [];
  for (const w of wanted) {
    const row = await db
      .selectFrom("stores")
      .select(["id", "slug"])
      .where((eb) => eb.or([eb("slug", "=", w), eb("id", "=", w)]))
      .executeTakeFirst();
    if (!row) throw new MigrateDataError(`No store "${w}" in the source (give a slug or an id).`);
    if (!out.some((s) => s.id === row.id)) out.push({ id: String(row.id), slug: String(row.slug) });
  }
  return out;
}

function scopeOf(table: TableInfo, tables: Map<string, TableInfo>, all: boolean): Scope {
  if (all) return { kind: "all" };
  if (table.name === "stores") return { kind: "stores" };
  if (table.columns.includes("store_id")) return { kind: "store" };
  const via = [...tables.values()].flatMap((t) =>
    t.columns.includes("store_id") ? t.foreignKeys.filter((f) => f.parent === table.name) : [],
  );
  return via.length > 0 ? { kind: "referenced", via } : { kind: "global" };
}

/** The WHERE condition of a table's scope (the same SQL on both dialects). */
function scopeFilter(scope: Scope, storeIds: string[]): RawBuilder<unknown> | undefined {
  const list = sql.join(storeIds.map((s) => sql`${s}`));
  switch (scope.kind) {
    case "all":
    case "global":
      return undefined;
    case "stores":
      return sql`${id("id")} IN (${list})`;
    case "store":
      return sql`${id("store_id")} IN (${list})`;
    case "referenced":
      return sql.join(
        scope.via.map(
          (f) =>
            sql`${id(f.parentColumn)} IN (SELECT ${id(f.column)} FROM ${id(f.table)} WHERE ${id("store_id")} IN (${list}) AND ${id(f.column)} IS NOT NULL)`,
        ),
        sql` OR `,
      );
  }
}

async function countRows(db: MigrationDb, table: TableInfo, scope: Scope, storeIds: string[]): Promise<number> {
  const where = scopeFilter(scope, storeIds);
  const res = await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${id(table.name)} ${where ? sql`WHERE ${where}` : sql``}`.execute(
    db,
  );
  return Number(res.rows[0]?.n ?? 0);
}

async function primaryKeys(db: MigrationDb, table: TableInfo): Promise<unknown[][]> {
  const cols = table.primaryKey.length > 0 ? table.primaryKey : table.columns;
  const res = await sql<Record<string, unknown>>`SELECT ${ids(cols)} FROM ${id(table.name)}`.execute(db);
  return res.rows.map((r) => cols.map((c) => r[c]));
}

/** How many of `keys` (primary-key tuples) the target holds. */
async function countPresent(db: MigrationDb, table: TableInfo, keys: unknown[][]): Promise<number> {
  const cols = table.primaryKey.length > 0 ? table.primaryKey : table.columns;
  let n = 0;
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    const tuples = sql.join(chunk.map((k) => sql`(${sql.join(k.map((v) => sql`${v}`))})`));
    const res = await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${id(table.name)} WHERE (${ids(cols)}) IN (${tuples})`.execute(
      db,
    );
    n += Number(res.rows[0]?.n ?? 0);
  }
  return n;
}

/** Without force: the target must hold nothing of what is about to be copied. */
async function checkTargetEmpty(db: MigrationDb, order: TableInfo[], scopes: Map<string, Scope>, storeIds: string[]): Promise<void> {
  const busy: string[] = [];
  for (const table of order) {
    const scope = scopes.get(table.name)!;
    // Shared rows (users of several stores, global tables) may exist when copying store sets one by one.
    if (scope.kind === "referenced" || scope.kind === "global") continue;
    const n = await countRows(db, table, scope, storeIds);
    if (n > 0) busy.push(`${table.name} (${n})`);
  }
  if (busy.length > 0) {
    throw new MigrateDataError(
      `The target already holds rows ${storeIds.length > 0 ? "of these stores " : ""}in ${busy.join(", ")}. ` +
        "Copy into an empty database or schema, or pass --force to add only the missing rows (rows already there are kept as they are).",
    );
  }
}

// ------------------------------------------------------------------- copy ---

async function copyTable(
  src: MigrationDb,
  tx: MigrationDb,
  table: TableInfo,
  scope: Scope,
  storeIds: string[],
  pgTypes: Map<string, string>,
  options: MigrateDataOptions,
  prepare?: (row: Record<string, unknown>) => Promise<void>,
): Promise<number> {
  const where = scopeFilter(scope, storeIds);
  const perBatch = Math.max(1, Math.min(options.batchSize ?? 500, Math.floor(MAX_PARAMS / table.columns.length)));
  const convert = table.columns.map((c) => converter(pgTypes.get(c)));
  // Shared rows may already be there (copied with another store set); everything with force.
  const skipExisting = options.force === true || scope.kind === "referenced" || scope.kind === "global";
  let after = 0;
  let copied = 0;
  for (;;) {
    const res = await sql<Record<string, unknown>>`
      SELECT rowid AS "__rowid", ${ids(table.columns)} FROM ${id(table.name)}
      WHERE rowid > ${after} ${where ? sql`AND (${where})` : sql``}
      ORDER BY rowid LIMIT ${perBatch}`.execute(src);
    const rows = res.rows;
    if (rows.length === 0) break;
    after = Number(rows.at(-1)!["__rowid"]);
    let batch: Record<string, unknown>[] = [];
    let bytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      let q = tx.insertInto(table.name).values(batch);
      if (skipExisting) q = q.onConflict((oc) => oc.doNothing());
      try {
        const r = await q.executeTakeFirst();
        copied += Number(r.numInsertedOrUpdatedRows ?? 0);
      } catch (error) {
        throw new MigrateDataError(`Copying ${table.name} failed: ${(error as Error).message}`);
      }
      batch = [];
      bytes = 0;
    };
    for (const row of rows) {
      if (prepare) await prepare(row);
      const out: Record<string, unknown> = {};
      table.columns.forEach((c, i) => {
        const v = convert[i]!(row[c]);
        out[c] = v;
        bytes += typeof v === "string" ? v.length : Buffer.isBuffer(v) ? v.length : 8;
      });
      batch.push(out);
      if (bytes >= MAX_BATCH_BYTES) await flush();
    }
    await flush();
    if (rows.length < perBatch) break;
  }
  return copied;
}

/**
 * Images move with their rows: a product_images row whose bytes the source keeps on the
 * filesystem gets them from the source's image folder, and then lands where the target keeps
 * images — in the row (database), or as a file of the target's folder (written before the copy
 * commits; a failed copy leaves only unreferenced files, which the target's collector removes).
 */
function imageMover(sqliteFile: string, options: MigrateDataOptions): (row: Record<string, unknown>) => Promise<void> {
  const source = new ImageFiles(options.sourceImages ?? path.join(path.dirname(sqliteFile), "images"));
  const target = options.targetImages?.kind === "filesystem" ? new ImageFiles(options.targetImages.path) : undefined;
  return async (row) => {
    const storeId = String(row.store_id);
    const sha256 = String(row.sha256);
    let bytes: Buffer;
    if (row.stored_in === "filesystem") {
      try {
        bytes = await source.read(storeId, sha256);
      } catch (error) {
        throw new MigrateDataError(
          `Image ${sha256} of store ${storeId} is missing from ${source.root} (${(error as Error).message}); give --images-from DIR`,
        );
      }
    } else {
      bytes = Buffer.from(row.bytes as Uint8Array);
    }
    if (target) {
      await target.write(storeId, sha256, bytes);
      row.bytes = Buffer.alloc(0);
      row.stored_in = "filesystem";
    } else {
      row.bytes = bytes;
      row.stored_in = "database";
    }
  };
}

/** SQLite value → PostgreSQL parameter for a column of type `udt`. */
function converter(udt: string | undefined): (v: unknown) => unknown {
  if (udt === "vector") {
    return (v) => (v == null ? v : toPgVector(fromBlob(v as Uint8Array)));
  }
  if (udt === "bytea") return (v) => (v == null || Buffer.isBuffer(v) ? v : Buffer.from(v as Uint8Array));
  if (udt === "jsonb" || udt === "json") return (v) => (v == null || typeof v === "string" ? v : JSON.stringify(v));
  if (udt === "text")
    return (v) =>
      v == null || typeof v === "string"
        ? v
        : Buffer.isBuffer(v)
          ? v.toString("utf8")
          : typeof v === "number" || typeof v === "bigint" || typeof v === "boolean"
            ? String(v)
            : JSON.stringify(v);
  return (v) => (typeof v === "bigint" ? v.toString() : v);
}

// ---------------------------------------------------------------- vectors ---

interface VectorCount {
  store_id: string;
  dim: number;
  n: number;
}

async function vectorCounts(db: MigrationDb, storeIds: string[]): Promise<VectorCount[]> {
  const where = storeIds.length > 0 ? sql`WHERE store_id IN (${sql.join(storeIds.map((s) => sql`${s}`))})` : sql``;
  const res = await sql<{ store_id: string; dim: number | string; n: number | string }>`
    SELECT store_id, dim, count(*) AS n FROM product_vectors ${where} GROUP BY store_id, dim ORDER BY store_id, dim`.execute(db);
  return res.rows.map((r) => ({ store_id: r.store_id, dim: Number(r.dim), n: Number(r.n) }));
}

async function compareVectors(
  source: Database,
  target: Database,
  sourceCounts: VectorCount[],
  storeIds: string[],
  sample: number,
): Promise<VectorCheck[]> {
  const targetCounts = await vectorCounts(target.db, storeIds);
  const slugs = new Map((await target.db.selectFrom("stores").select(["id", "slug"]).execute()).map((r) => [r.id, r.slug] as const));
  const srcRepo = new VectorRepository(source);
  const tgtRepo = new VectorRepository(target);
  const keys = new Map<string, { storeId: string; dim: number }>();
  for (const c of [...sourceCounts, ...targetCounts]) keys.set(`${c.store_id}\u0000${c.dim}`, { storeId: c.store_id, dim: c.dim });
  const out: VectorCheck[] = [];
  for (const { storeId, dim } of keys.values()) {
    const s = sourceCounts.find((c) => c.store_id === storeId && c.dim === dim)?.n ?? 0;
    const t = targetCounts.find((c) => c.store_id === storeId && c.dim === dim)?.n ?? 0;
    const products = (
      await source.db
        .selectFrom("product_vectors")
        .select("product_id")
        .where("store_id", "=", storeId)
        .where("dim", "=", dim)
        .orderBy("product_id")
        .limit(sample)
        .execute()
    ).map((r) => r.product_id);
    let mismatches = 0;
    for (const productId of products) {
      const [a, b] = await Promise.all([srcRepo.get(storeId, productId), tgtRepo.get(storeId, productId)]);
      if (!a || !b || !vectorsEqual(a, b)) mismatches += 1;
    }
    out.push({
      storeId,
      slug: slugs.get(storeId) ?? "?",
      dim,
      source: s,
      target: t,
      sampled: products.length,
      sampleMismatches: mismatches,
      ok: s === t && mismatches === 0,
    });
  }
  return out;
}

// ----------------------------------------------------------------- report ---

/** The report as aligned text tables. */
export function formatReport(report: MigrateDataReport): string {
  const pad = (rows: string[][]) => {
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")).join("\n");
  };
  const lines: string[] = [];
  const scope = report.stores === "all" ? "all stores" : `stores ${report.stores.map((s) => s.slug).join(", ")}`;
  lines.push(`migrate-data ${report.from} → ${report.to}${report.pgSchema ? ` (schema ${report.pgSchema})` : ""}: ${scope}`);
  lines.push("");
  lines.push(
    pad([
      ["table", "scope", "copied", "source", "target", "check"],
      ...report.tables.map((t) => [t.table, t.scope, String(t.copied), String(t.source), String(t.target), t.ok ? "ok" : "MISMATCH"]),
    ]),
  );
  lines.push("");
  if (report.vectors.length === 0) lines.push("vectors: none");
  else {
    lines.push(
      pad([
        ["vectors of store", "dim", "source", "target", "sampled", "check"],
        ...report.vectors.map((v) => [
          v.slug,
          String(v.dim),
          String(v.source),
          String(v.target),
          `${v.sampled - v.sampleMismatches}/${v.sampled} equal`,
          v.ok ? "ok" : "MISMATCH",
        ]),
      ]),
    );
  }
  lines.push("");
  lines.push(
    `${report.ok ? "OK" : "MISMATCH"}: ${report.tables.reduce((n, t) => n + t.target, 0)} rows verified in ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  // Keys generated into the embedded DATA_DIR that the PostgreSQL deployment must keep using.
  const dataDir = path.dirname(report.from);
  const keys = [
    ["JWT_SIGNING_KEY", "jwt-signing.key", "tokens already issued stay valid"],
    ["CONNECTOR_ENCRYPTION_KEY", "connector-encryption.key", "stored storefront tokens and exchange secrets stay readable"],
  ].filter(([, file]) => fs.existsSync(path.join(dataDir, file!)));
  if (keys.length > 0) {
    lines.push("");
    lines.push("Carry the generated keys over to every PostgreSQL-backed process:");
    for (const [name, file, why] of keys) lines.push(`  ${name}=$(cat ${path.join(dataDir, file!)})   # ${why}`);
  }
  return lines.join("\n");
}
