// Query snapshots (issue 40, Immich's habit): the SQL of the hot queries — search, the lexical
// index, the vector filter stage, authentication — written to checked-in files under sql/queries/,
// so that a change in a query shows in review as a change in those files.
//   npm run query-snapshots             (re)writes sql/queries/<area>.<dialect>.sql
//   npm run query-snapshots -- --check  exits 1, naming the stale files, when they differ from
//                                       what the code generates (test/query-snapshots.test.ts too)
// No database is needed. Each entry runs a repository method (with fixed sample arguments) over a
// Kysely instance of the dialect whose driver executes nothing: it records every compiled query
// and answers with rows the entry scripts (empty unless it says otherwise, e.g. a planner estimate
// that sends candidates() down one path). Statements that a method builds and runs inside a class
// whose other state would be needed (PostgresVectorIndex) are compiled from their builders
// (exactQuery, nearestCopiesQuery, annQuery in src/vectors/postgres.ts).
// Output is deterministic: fixed arguments, entries in the order listed here, no timestamps.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type RawBuilder,
} from "kysely";
import type { Database, Dialect } from "../src/platform/db/index.js";
import { RowCountLiterals } from "../src/platform/db/statement-cache.js";
import type { Schema } from "../src/db/schema.js";
import { sha256 } from "../src/platform/ids.js";
import { createRevocationStore } from "../src/platform/auth/revocations.js";
import { SearchRepository } from "../src/search/query/repository.js";
import type { SearchFilters } from "../src/search/query/filters.js";
import { ProductsRepository } from "../src/search/products/repository.js";
import { LexicalRepository } from "../src/lexical/repository.js";
import type { Group } from "../src/lexical/query.js";
import { isDeferred, type DeferredCandidates } from "../src/vectors/candidates.js";
import { VectorRepository } from "../src/vectors/repository.js";
import { FilterIndexes } from "../src/vectors/filter-indexes.js";
import { annQuery, exactQuery, nearestCopiesQuery } from "../src/vectors/postgres.js";
import { toPgVector } from "../src/vectors/math.js";
import { AccountsRepository } from "../src/tenancy/stores/repository.js";
import { SecurityRepository } from "../src/tenancy/security/repository.js";
import { UsersRepository } from "../src/tenancy/users/repository.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const SNAPSHOT_DIR = path.join(ROOT, "sql/queries");

// ------------------------------------------------------------------------- recording database ---

type Rows = Record<string, unknown>[];
/** The rows a recorded query is answered with (by its SQL). */
type Responder = (query: CompiledQuery) => Rows;

/** A driver that executes nothing: it keeps each compiled query and answers as `respond` says. */
class RecordingDriver implements Driver {
  readonly queries: CompiledQuery[] = [];
  constructor(private readonly respond: Responder) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    const connection: DatabaseConnection = {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        this.queries.push(query);
        return { rows: this.respond(query) as R[] };
      },
      streamQuery: async function* () {
        throw new Error("query snapshots do not stream");
      },
    };
    return connection;
  }
  async beginTransaction(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/** A Database of the dialect over a RecordingDriver (reads and writes go to the same recorder). */
function recordingDatabase(dialect: Dialect, respond: Responder = () => []): { database: Database; queries: CompiledQuery[] } {
  const driver = new RecordingDriver(respond);
  const db = new Kysely<Schema>({
    dialect:
      dialect === "sqlite"
        ? {
            createAdapter: () => new SqliteAdapter(),
            createDriver: () => driver,
            createIntrospector: (k) => new SqliteIntrospector(k),
            createQueryCompiler: () => new SqliteQueryCompiler(),
          }
        : {
            createAdapter: () => new PostgresAdapter(),
            createDriver: () => driver,
            createIntrospector: (k) => new PostgresIntrospector(k),
            createQueryCompiler: () => new PostgresQueryCompiler(),
          },
    // The SQLite handle's plugin (src/platform/db/index.ts): its statements' LIMIT as they run.
    plugins: dialect === "sqlite" ? [new RowCountLiterals()] : [],
  });
  const database: Database = {
    db,
    dialect,
    transaction: (fn) => db.transaction().execute(fn),
    reader: () => db,
    readScope: (fn) => fn(),
    afterRequest: async () => undefined,
    replicas: undefined,
    watchWrites: () => () => undefined,
    foreignCommits: () => undefined,
    changeClock: () => undefined,
    ping: async () => undefined,
    close: () => db.destroy(),
  };
  return { database, queries: driver.queries };
}

// ---------------------------------------------------------------------------------- entries ---

interface Entry {
  /** The repository method (or query builder) and its sample arguments, as the header shows them. */
  title: string;
  /** Why these queries and not others, when the entry steers the method down one path. */
  note?: string;
  dialects: readonly Dialect[];
  /** The answers of the recording driver (default: no rows). */
  respond?: Responder;
  /** Runs first over the same `database`, unrecorded: the state the method meets (e.g. a cache's). */
  before?(database: Database): Promise<unknown>;
  /** Runs the method over `database`; the queries it sends are recorded. A builder it returns is compiled too. */
  run(database: Database): Promise<unknown>;
}

interface Area {
  name: string;
  description: string;
  entries: Entry[];
}

const BOTH: readonly Dialect[] = ["sqlite", "postgres"];
const PG: readonly Dialect[] = ["postgres"];

const STORE = "store_a";
const USER = "user_1";
const NOW = 1_700_000_000_000;

/** A category and a price window (the category is a filter index's scope). */
const CATEGORY_AND_PRICE: SearchFilters = { category: "Shoes", price_min: 20, price_max: 80 };
/** Metadata filters of each kind: a column-backed string list, a JSON string, a number, contains. */
const METADATA: SearchFilters = {
  metadata_filters: [
    { field: "brand", operator: "in", value: ["Acme", "Zenith"] },
    { field: "material", operator: "eq", value: "leather" },
    { field: "size", operator: "gte", value: 40 },
    { field: "tags", operator: "contains", value: "waterproof" },
  ],
};
const WITH_COLOR: SearchFilters = { category: "Shoes", color: "red" };

/** Answers EXPLAIN with a planner estimate of `planRows`, and a count with `count`. */
function planner(planRows: number, count = 0): Responder {
  return (q) => {
    if (q.sql.startsWith("EXPLAIN")) return [{ "QUERY PLAN": JSON.stringify([{ Plan: { "Plan Rows": planRows } }]) }];
    if (/^select count\(\*\)/i.test(q.sql)) return [{ n: String(count) }];
    return [];
  };
}

/** The deferred candidates of a wide filter (PostgreSQL), as SearchRepository.candidates() hands them to the vector stage. */
async function deferred(database: Database, filters: SearchFilters): Promise<DeferredCandidates> {
  const c = await new SearchRepository(database.db, "postgres").candidates(STORE, filters);
  if (!isDeferred(c)) throw new Error("expected a filter left in the database");
  return c;
}
const wideDatabase = () => recordingDatabase("postgres", planner(1_000_000)).database;

/** A 4-dimensional unit query vector. */
const UNIT = new Float32Array([0.5, 0.5, 0.5, 0.5]);

/** Groups as query understanding makes them: a word with a typo correction and a synonym, a phrase, a prefix. */
const GROUPS: Group[] = [
  {
    text: "sneakers",
    alternatives: [
      { words: ["sneakers"], weight: 1, kind: "exact" },
      { words: ["trainers"], weight: 0.8, kind: "synonym" },
    ],
  },
  { text: "running shoe", alternatives: [{ words: ["running", "shoe"], weight: 1, kind: "joined" }] },
  { text: "wat", alternatives: [{ words: ["wat"], weight: 0.6, kind: "prefix", prefix: true }] },
];

export const AREAS: readonly Area[] = [
  {
    name: "search",
    description: "search: filters and product reads (src/search/query/repository.ts, src/search/products/repository.ts)",
    entries: [
      {
        title: `SearchRepository.candidates(${args(STORE, CATEGORY_AND_PRICE)})`,
        note: "PostgreSQL: the planner estimates 3,000 rows, the count finds 1,500 (under the listing limit): listed.",
        dialects: BOTH,
        respond: planner(3_000, 1_500),
        run: (d) => new SearchRepository(d.db, d.dialect).candidates(STORE, CATEGORY_AND_PRICE),
      },
      {
        title: `SearchRepository.candidates(${args(STORE, METADATA)}) then keep(${args(["p1", "p2", "p3"])})`,
        note: "PostgreSQL: the planner estimates 1,000,000 rows: left in the database, ids checked against it.",
        dialects: BOTH,
        respond: planner(1_000_000),
        run: async (d) => {
          const c = await new SearchRepository(d.db, d.dialect).candidates(STORE, METADATA);
          if (isDeferred(c)) await c.keep(["p1", "p2", "p3"]);
        },
      },
      {
        title: `SearchRepository.candidates(${args(STORE, WITH_COLOR)})`,
        note: "A colour filter: the rows with their colours, matched in code.",
        dialects: BOTH,
        run: (d) => new SearchRepository(d.db, d.dialect).candidates(STORE, WITH_COLOR),
      },
      {
        title: `SearchRepository.categories(${args(STORE)})`,
        dialects: BOTH,
        run: (d) => new SearchRepository(d.db, d.dialect).categories(STORE),
      },
      {
        title: `SearchRepository.findHistory(${args(STORE, "srch_1")})`,
        dialects: BOTH,
        run: (d) => new SearchRepository(d.db, d.dialect).findHistory(STORE, "srch_1"),
      },
      {
        title: `ProductsRepository.find(${args(STORE, "p1")})`,
        dialects: BOTH,
        run: (d) => new ProductsRepository(d.db, d.dialect).find(STORE, "p1"),
      },
      {
        title: `ProductsRepository.findMany(${args(STORE, ["p1", "p2", "p3"])})`,
        dialects: BOTH,
        run: (d) => new ProductsRepository(d.db, d.dialect).findMany(STORE, ["p1", "p2", "p3"]),
      },
    ],
  },
  {
    name: "lexical",
    description: "the lexical index: candidates, terms, vocabulary (src/lexical/repository.ts)",
    entries: [
      {
        title: `LexicalRepository.search(${args(STORE, "red leather boots", 10)})`,
        note: "No product matches every word: the AND query, then the OR query.",
        dialects: BOTH,
        run: (d) => new LexicalRepository(d.db, d.dialect).search(STORE, "red leather boots", 10),
      },
      {
        title: `LexicalRepository.search(${args(STORE, "red leather boots", 10)}) with the cache, asked a second time`,
        note:
          "SQLite caches rankings per lexical version from a query's second ask (LexicalCache.admits()), and the rows of each phrase from its second ask (postings.ts): " +
          "the first ask reads the version, then sends the statements above (nothing kept); the second reads the version, then each phrase's rows, matches the query from them and keeps the ranking.",
        dialects: ["sqlite"],
        before: (d) => new LexicalRepository(d.db, d.dialect, { cached: true }).search(STORE, "red leather boots", 10),
        run: (d) => new LexicalRepository(d.db, d.dialect, { cached: true }).search(STORE, "red leather boots", 10),
      },
      {
        title: `LexicalRepository.search(${args(STORE, "boots red", 10)}) with the cache, after "red leather boots" was asked twice`,
        note: "A new query whose phrases are held (postings.ts): the version read only, no full-text statement.",
        dialects: ["sqlite"],
        before: async (d) => {
          const lexical = new LexicalRepository(d.db, d.dialect, { cached: true });
          for (let i = 0; i < 2; i++) await lexical.search(STORE, "red leather boots", 10);
        },
        run: (d) => new LexicalRepository(d.db, d.dialect, { cached: true }).search(STORE, "boots red", 10),
      },
      {
        title: `LexicalRepository.search(${args(STORE, "<groups>", 10, new Set(["p1", "p2", "p3"]))})`,
        note: `Groups ${JSON.stringify(GROUPS.map((g) => g.alternatives.map((a) => a.words.join(" ") + (a.prefix ? "*" : ""))))}: a synonym, a phrase, a prefix; few candidates restrict the query itself.`,
        dialects: BOTH,
        run: (d) => new LexicalRepository(d.db, d.dialect).search(STORE, GROUPS, 10, new Set(["p1", "p2", "p3"])),
      },
      {
        title: `LexicalRepository.search(${args(STORE, "red leather boots", 100)}) under a filter left in the database`,
        note: "PostgreSQL: the statement checks each row it returns against the filter (the search's deferred candidates), with no keep() after it.",
        dialects: ["postgres"],
        respond: planner(1_000_000),
        run: async (d) => new LexicalRepository(d.db, d.dialect).search(STORE, "red leather boots", 100, await deferred(d, METADATA)),
      },
      {
        title: `LexicalRepository.nameMatches(${args(STORE, "red dre", 8)})`,
        dialects: BOTH,
        run: (d) => new LexicalRepository(d.db, d.dialect).nameMatches(STORE, "red dre", 8),
      },
      {
        title: `LexicalRepository.terms(${args(STORE)})`,
        dialects: BOTH,
        run: (d) => new LexicalRepository(d.db, d.dialect).terms(STORE),
      },
    ],
  },
  {
    name: "vectors",
    description: "the vector search's counts and filter stage (src/vectors/postgres.ts, filter-indexes.ts, repository.ts)",
    entries: [
      {
        title: `VectorRepository.count(${args(STORE, 4)}) and countDim(${args(4)})`,
        note: "The store's and the index's vectors of the dimension (the plan's counts, cached).",
        dialects: PG,
        respond: planner(0, 1_000),
        run: async (d) => {
          const repo = new VectorRepository(d);
          await repo.count(STORE, 4);
          await repo.countDim(4);
        },
      },
      {
        title: `annQuery(${args(STORE, UNIT, 40, 100, false)})`,
        note: "HNSW through the dimension's function product_vectors_nearest_<dim>.",
        dialects: PG,
        run: async () => annQuery(STORE, UNIT, 40, 100, false),
      },
      {
        title: `annQuery(${args(STORE, UNIT, 10, 100, true, ["p1", "p2"])})`,
        note: "The same, none of the products apart among the rows (a text search's lexical hits): the function leaves them out as its scan goes.",
        dialects: PG,
        run: async () => annQuery(STORE, UNIT, 10, 100, true, ["p1", "p2"]),
      },
      {
        title: `annQuery(${args(STORE, UNIT, 40, 100, true)})`,
        note: "The same with half-precision HNSW (VECTOR_HALFVEC).",
        dialects: PG,
        run: async () => annQuery(STORE, UNIT, 40, 100, true),
      },
      {
        title: `exactQuery(${args(STORE, UNIT, 10, undefined)})`,
        note: "Exact scan of the store's rows.",
        dialects: PG,
        run: async () => exactQuery(STORE, UNIT, 10, undefined),
      },
      {
        title: `exactQuery(${args(STORE, UNIT, 10, new Set(["p1", "p2", "p3"]))})`,
        note: "Exact scan of listed candidates.",
        dialects: PG,
        run: async () => exactQuery(STORE, UNIT, 10, new Set(["p1", "p2", "p3"])),
      },
      {
        title: `exactQuery(${args(STORE, UNIT, 10, "<deferred>")})`,
        note: `Exact scan of a filter left in the database: the candidates of ${JSON.stringify(METADATA)}.`,
        dialects: PG,
        run: async () => exactQuery(STORE, UNIT, 10, await deferred(wideDatabase(), METADATA)),
      },
      {
        title: `FilterIndexes.serving(${args(STORE, 4, [{ field: "category", values: ["Shoes", "Boots"], whole: true }])})`,
        note: "The ready filter indexes (copies, inverted lists and graphs) of a scope.",
        dialects: PG,
        run: (d) =>
          new FilterIndexes(d, {
            minRows: 2_000,
            maxPerStore: 128,
            listsMinRows: 20_000,
            graphMinRows: 5_000,
            clock: { now: () => NOW },
            cacheMs: 0,
            rescoreMargin: 3,
          }).serving(STORE, 4, [{ field: "category", values: ["Shoes", "Boots"], whole: true }]),
      },
      {
        title: `nearestCopiesQuery(${args(STORE, toPgVector(UNIT), 4, [7, 9], 10, 40, "<deferred>", false)})`,
        note: `Copies of whole values through their inverted lists (product_vector_copies_nearest), checked against the filter ${JSON.stringify({ category: "Shoes" })}.`,
        dialects: PG,
        run: async () =>
          nearestCopiesQuery(STORE, toPgVector(UNIT), 4, [7, 9], 10, 40, await deferred(wideDatabase(), { category: "Shoes" }), false),
      },
      {
        title: `nearestCopiesQuery(${args(STORE, toPgVector(UNIT), 4, [7], 10, 40, "<deferred>", true)})`,
        note: `A filter narrower than the value: its copies scanned exactly under the filter ${JSON.stringify(CATEGORY_AND_PRICE)}.`,
        dialects: PG,
        run: async () =>
          nearestCopiesQuery(STORE, toPgVector(UNIT), 4, [7], 10, 40, await deferred(wideDatabase(), CATEGORY_AND_PRICE), true),
      },
      {
        title: `nearestCopiesQuery(${args(STORE, toPgVector(UNIT), 4, [7, 9], 10, 40, "<deferred>", false, 10, ["p-1", "p-2"])})`,
        note: "The same, with two products asked for apart (a text search's lexical hits): the function leaves them out inside each value's scan.",
        dialects: PG,
        run: async () =>
          nearestCopiesQuery(STORE, toPgVector(UNIT), 4, [7, 9], 10, 40, await deferred(wideDatabase(), { category: "Shoes" }), false, 10, [
            "p-1",
            "p-2",
          ]),
      },
      {
        title: `nearestCopiesQuery(${args(STORE, toPgVector(UNIT), 4, [7], 10, 40, "<deferred>", true, 10, ["p-1", "p-2"])})`,
        note: "The narrower filter's exact scan with two products apart: it reads as many more copies and drops them.",
        dialects: PG,
        run: async () =>
          nearestCopiesQuery(STORE, toPgVector(UNIT), 4, [7], 10, 40, await deferred(wideDatabase(), CATEGORY_AND_PRICE), true, 10, [
            "p-1",
            "p-2",
          ]),
      },
    ],
  },
  {
    name: "auth",
    description: "authentication (src/tenancy/authenticate.ts: stores, revoked tokens, IP allow-list, API keys)",
    entries: [
      {
        title: `SecurityRepository.findApiKeyByHash(sha256(${args("sk_live_sample")}))`,
        note: "An API key bearer (apiKeyPrincipal).",
        dialects: BOTH,
        run: (d) => new SecurityRepository(d.db).findApiKeyByHash(sha256("sk_live_sample")),
      },
      {
        title: `SecurityRepository.touchApiKey(${args(STORE, "key_1", NOW)})`,
        note: "At most once a minute per key.",
        dialects: BOTH,
        run: (d) => new SecurityRepository(d.db).touchApiKey(STORE, "key_1", NOW),
      },
      {
        title: `RevocationStore.isRevoked(${args("jti_1")})`,
        note: "A signed access token (principalFor).",
        dialects: BOTH,
        run: (d) => createRevocationStore(d, { now: () => NOW }).isRevoked("jti_1"),
      },
      {
        title: `AccountsRepository.findStore(${args(STORE)})`,
        note: "A machine grant's or API key's store (storeFor).",
        dialects: BOTH,
        run: (d) => new AccountsRepository(d.db).findStore(STORE),
      },
      {
        title: `SecurityRepository.allowlistRanges(${args(STORE)})`,
        note: "The store's IP allow-list (ipAllowedForStore).",
        dialects: BOTH,
        run: (d) => new SecurityRepository(d.db).allowlistRanges(STORE),
      },
      {
        title: `AccountsRepository.membershipsOfUser(${args(USER)})`,
        note: "A user login's stores (storeFor).",
        dialects: BOTH,
        run: (d) => new AccountsRepository(d.db).membershipsOfUser(USER),
      },
      {
        title: `UsersRepository.permissionsOfUser(${args(STORE, USER)})`,
        note: "The member's custom groups' permissions (memberPermissions).",
        dialects: BOTH,
        run: (d) => new UsersRepository(d.db).permissionsOfUser(STORE, USER),
      },
      {
        title: `AccountsRepository.findStoreBySlug(${args("acme")})`,
        note: "A super admin naming a store it is not a member of (X-Service-Active-Tenant).",
        dialects: BOTH,
        run: (d) => new AccountsRepository(d.db).findStoreBySlug("acme"),
      },
    ],
  },
];

// ------------------------------------------------------------------------------- formatting ---

/** Sample arguments as the headers show them. */
function args(...values: unknown[]): string {
  return values.map(show).join(", ");
}

function show(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v instanceof Float32Array) return `Float32Array ${JSON.stringify([...v])}`;
  if (v instanceof Set) return `Set ${JSON.stringify([...(v as Set<unknown>)])}`;
  if (typeof v === "string" && v.startsWith("<") && v.endsWith(">")) return v;
  return JSON.stringify(v);
}

/** Keywords that start a new line when at the top level of a one-line statement. */
const CLAUSES = [
  "from",
  "inner join",
  "left join",
  "join",
  "where",
  "group by",
  "having",
  "order by",
  "limit",
  "offset",
  "set",
  "returning",
];

/**
 * Light formatting. A statement written on several lines (a `sql` template) keeps its lines,
 * dedented; one on a single line (Kysely's builder) gets a new line before each top-level clause
 * (outside parentheses and quotes).
 */
export function formatSql(text: string): string {
  const lines = text.split("\n").map((l) => l.trimEnd());
  if (lines.length > 1) {
    const firstBlank = lines[0]!.trim() === "";
    while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
    while (lines.length > 0 && lines.at(-1)!.trim() === "") lines.pop();
    const indented = firstBlank ? lines : lines.slice(1);
    const indents = indented.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length);
    const cut = indents.length > 0 ? Math.min(...indents) : 0;
    return lines.map((l, i) => (i === 0 && !firstBlank ? l.trimStart() : l.slice(cut))).join("\n");
  }
  let out = "";
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "(") {
      depth++;
    } else if (ch === ")") {
      depth--;
    } else if (ch === " " && depth === 0) {
      const rest = text.slice(i + 1).toLowerCase();
      if (CLAUSES.some((c) => rest.startsWith(`${c} `))) {
        out += "\n";
        continue;
      }
    }
    out += ch;
  }
  return out.trim();
}

function showParameter(p: unknown): string {
  if (Buffer.isBuffer(p)) return `<${p.length} bytes>`;
  return JSON.stringify(p) ?? String(p);
}

function block(query: CompiledQuery, dialect: Dialect, index: number, of: number): string {
  const n = query.parameters.length;
  // PostgreSQL numbers its placeholders ($1); SQLite's are positional (?), shown as #1.
  const numbered = query.parameters.map((p, i) => `${dialect === "postgres" ? "$" : "#"}${i + 1} = ${showParameter(p)}`);
  const head = [`-- ${of > 1 ? `query ${index + 1} of ${of}, ` : ""}${n} parameter${n === 1 ? "" : "s"}${n > 0 ? ":" : ""}`];
  if (n > 0) head.push(...numbered.map((p) => `--   ${p}`));
  return `${head.join("\n")}\n${formatSql(query.sql)};\n`;
}

const FILE_HEADER = (area: Area, dialect: Dialect) =>
  [
    `-- Generated by \`npm run query-snapshots\` (scripts/query-snapshots.ts): do not edit.`,
    `-- The hot queries of ${area.description}`,
    `-- on ${dialect === "sqlite" ? "SQLite" : "PostgreSQL"}, with fixed sample arguments. A change in a query shows here in review;`,
    `-- \`npm test\` fails when this file is stale: run \`npm run query-snapshots\` and commit the result.`,
    ``,
  ].join("\n");

/** The queries of one entry on one dialect: those its method sent, then the builder it returned, compiled. */
async function queriesOf(entry: Entry, dialect: Dialect): Promise<CompiledQuery[]> {
  const { database, queries } = recordingDatabase(dialect, entry.respond);
  if (entry.before) {
    await entry.before(database);
    queries.length = 0;
  }
  const result = await entry.run(database);
  const out = [...queries];
  if (isCompilable(result)) out.push(result.compile(database.db));
  await database.close();
  if (out.length === 0) throw new Error(`${entry.title} on ${dialect} sent no query`);
  return out;
}

function isCompilable(v: unknown): v is RawBuilder<unknown> {
  return typeof v === "object" && v !== null && "compile" in v && typeof (v as { compile: unknown }).compile === "function";
}

/** Every snapshot file's content as the current code generates it, by file name (`<area>.<dialect>.sql`). */
export async function querySnapshotFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const area of AREAS) {
    for (const dialect of BOTH) {
      const entries = area.entries.filter((e) => e.dialects.includes(dialect));
      if (entries.length === 0) continue;
      const blocks: string[] = [];
      for (const entry of entries) {
        const queries = await queriesOf(entry, dialect);
        const head = [`-- ${entry.title}`, ...(entry.note ? [`-- ${entry.note}`] : [])].join("\n");
        blocks.push(`${head}\n${queries.map((q, i) => block(q, dialect, i, queries.length)).join("\n")}`);
      }
      files.set(`${area.name}.${dialect}.sql`, `${FILE_HEADER(area, dialect)}\n${blocks.join("\n")}`);
    }
  }
  return files;
}

/** The names of the snapshot files in `dir` that differ from `files`: missing, changed, or no longer generated. */
export function staleSnapshots(files: ReadonlyMap<string, string>, dir: string = SNAPSHOT_DIR): string[] {
  const read = (name: string) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), "utf8") : undefined);
  const stale = [...files].filter(([name, text]) => read(name) !== text).map(([name]) => name);
  const extra = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".sql") && !files.has(f)) : [];
  return [...stale, ...extra].sort();
}

async function main(argv: string[]): Promise<number> {
  const files = await querySnapshotFiles();
  const stale = staleSnapshots(files);
  const rel = (name: string) => path.relative(ROOT, path.join(SNAPSHOT_DIR, name));
  if (argv.includes("--check")) {
    if (stale.length === 0) {
      console.log(`query snapshots are current (${files.size} files)`);
      return 0;
    }
    console.error(`Query snapshots are stale: ${stale.map(rel).join(", ")}. Run \`npm run query-snapshots\` and commit the result.`);
    return 1;
  }
  fs.mkdirSync(SNAPSHOT_DIR, { recursive: true });
  for (const name of stale) {
    const text = files.get(name);
    if (text === undefined) fs.rmSync(path.join(SNAPSHOT_DIR, name));
    else fs.writeFileSync(path.join(SNAPSHOT_DIR, name), text);
  }
  console.log(stale.length > 0 ? `wrote ${stale.map(rel).join(", ")}` : `query snapshots are current (${files.size} files)`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? (err.stack ?? err.message) : err);
      process.exit(1);
    },
  );
}
