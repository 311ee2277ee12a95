// Fresh databases for tests and the admin connection that makes and drops them: SQLite in a fresh
// temp folder (which is also DATA_DIR), PostgreSQL in a fresh schema of the TEST_DATABASE_URL
// server. Configuration and contexts for apps over them, as a deployment would build them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Kysely, Selectable } from "kysely";
import { loadConfig, type Config } from "../../src/platform/config.js";
import { createContext, type AppContext } from "../../src/context/context.js";
import type { Clock } from "../../src/platform/clock.js";
import type { Database } from "../../src/platform/db/index.js";
import { ensureTestModel } from "../../src/embeddings/load.js";
import { TEST_MODEL_VERSION } from "../../src/embeddings/testmodel/build.js";
import type { SearchHistoryTable } from "../../src/db/schema.js";
import type { VectorIndex } from "../../src/vectors/types.js";
import { testEnv } from "./env.js";

export type DialectName = "sqlite" | "postgres";

/** The project's tiny test model, generated once per machine into the temp folder. */
export const testModelDir = (): Promise<string> => ensureTestModel(path.join(os.tmpdir(), `shopsight-test-model-v${TEST_MODEL_VERSION}`));

/**
 * Runs `fn` with one connection to `connectionString` (default TEST_DATABASE_URL: create and drop
 * schemas and databases, look at or change rows behind an app's back), closed afterwards.
 */
export async function withPg<T>(fn: (client: pg.Client) => Promise<T>, connectionString = testEnv.databaseUrl): Promise<T> {
  if (!connectionString) throw new Error("TEST_DATABASE_URL is not set");
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A schema name nobody else uses: `<prefix>_<12 hex>`. */
export const randomPgSchema = (prefix = "t"): string => `${prefix}_${randomBytes(6).toString("hex")}`;

export async function dropPgSchemas(schemas: string[]): Promise<void> {
  if (schemas.length === 0) return;
  await withPg(async (c) => {
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  });
}

/** Where one test deployment keeps its data: DATA_DIR (the SQLite file) and, on PostgreSQL, its schema. */
export interface TestStorage {
  dialect: DialectName;
  dataDir: string;
  pgSchema: string | undefined;
  /** Drops the schema and deletes DATA_DIR. */
  remove(): Promise<void>;
}

export function createTestStorage(dialect: DialectName, prefix = "shopsight-test"): TestStorage {
  if (dialect === "postgres" && !testEnv.databaseUrl) throw new Error("TEST_DATABASE_URL is not set");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const pgSchema = dialect === "postgres" ? randomPgSchema() : undefined;
  return {
    dialect,
    dataDir,
    pgSchema,
    async remove() {
      if (pgSchema) await dropPgSchemas([pgSchema]);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestConfigOptions {
  /** Load the tiny test model (default false: routes that need it answer 503 model_unavailable). */
  model?: boolean;
  /** Extra environment, applied last. */
  env?: Record<string, string>;
}

/** The configuration of an app over `storage`: silent logs, private outbound addresses allowed (local test servers). */
export async function testConfig(storage: Pick<TestStorage, "dialect" | "dataDir">, options: TestConfigOptions = {}): Promise<Config> {
  return loadConfig({
    DATA_DIR: storage.dataDir,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    OUTBOUND_ALLOW_PRIVATE: "true",
    // The model's parallel workers (src/embeddings/runtime.test.ts, and the bulk test that turns them
    // on) are off here: each would cost a test context seconds of CPU to start under tsx.
    ...(options.model ? { CLIP_MODEL: await testModelDir(), MODEL_PARALLEL_WORKERS: "0" } : { MODEL_DISABLED: "true" }),
    ...(storage.dialect === "postgres" ? { DATABASE_URL: testEnv.databaseUrl! } : {}),
    ...options.env,
  });
}

/** A context over `pgSchema` (PostgreSQL) or DATA_DIR's SQLite file, with `clock` when given. */
export function openTestContext(config: Config, pgSchema: string | undefined, clock?: Clock): Promise<AppContext> {
  return createContext(config, { ...(clock ? { clock } : {}), ...(pgSchema ? { pgSchema } : {}) });
}

/** Bare active stores (free plan) with these ids, for tests below the HTTP layer. */
export async function createStores(database: Database, ids: string[]): Promise<void> {
  for (const id of ids) {
    await database.db
      .insertInto("stores")
      .values({
        id,
        slug: id,
        name: id,
        status: "active",
        plan: "free",
        client_secret_hash: null,
        secret_rotated_at: null,
        created_at: 0,
        updated_at: 0,
      })
      .execute();
  }
}

/** A search_history row of `storeId` with id `id`: placeholders, `fields` over them. */
export function historyRow(
  storeId: string,
  id: string,
  fields: Partial<Selectable<SearchHistoryTable>> = {},
): Selectable<SearchHistoryTable> {
  return {
    id,
    store_id: storeId,
    mode: "text",
    query_text: `query ${id}`,
    query_summary: "{}",
    filters: "{}",
    results: "[]",
    result_count: 0,
    latency_ms: 1,
    source: "api",
    created_at: 0,
    ...fields,
  };
}

/** A product to write with its vector: its id, vector and metadata (productRow's). */
export interface ProductWithVector {
  id: string;
  vector: Float32Array;
  meta: Record<string, unknown>;
}

/**
 * Writes `rows` into `storeId` as the service does: products and their vectors (through `index`,
 * with its after-commit step), 500 per transaction.
 */
export async function writeProducts(
  database: Database,
  index: VectorIndex,
  storeId: string,
  rows: readonly ProductWithVector[],
  model: string,
): Promise<void> {
  for (let start = 0; start < rows.length; start += 500) {
    const chunk = rows.slice(start, start + 500);
    const upserted = chunk.map((r) => ({ vectorId: `v-${r.id}`, productId: r.id, model, vector: r.vector }));
    await database.transaction(async (tx) => {
      await tx
        .insertInto("products")
        .values(chunk.map((r) => productRow(storeId, r.id, r.meta)))
        .execute();
      for (const item of upserted) await index.upsert(tx, storeId, item);
    });
    index.afterCommit(storeId, { upserted });
  }
}

/** A products row carrying `meta`, its columns (name, category, brand, price, color_name) read from it. */
export function productRow(storeId: string, id: string, meta: Record<string, unknown>, colors: { hex: string; share: number }[] = []) {
  const str = (k: string) => (typeof meta[k] === "string" ? (meta[k] as string) : null);
  return {
    store_id: storeId,
    product_id: id,
    vector_id: `v-${id}`,
    image_url: `https://img.example/${id}.png`,
    image_sha256: "0".repeat(64),
    name: str("name"),
    category: str("category"),
    brand: str("brand"),
    price: typeof meta.price === "number" ? meta.price : null,
    color_name: str("color_name"),
    metadata: JSON.stringify(meta),
    dominant_colors: JSON.stringify(colors),
    model: "m",
    created_at: 0,
    updated_at: 0,
  };
}

/** `db` with a plugin recording the SQL text of each statement built through it (`statements`, oldest first). */
export function recordingStatements<DB>(db: Kysely<DB>): { recorded: Kysely<DB>; statements: string[] } {
  const statements: string[] = [];
  const recorded = db.withPlugin({
    transformQuery: (args) => {
      statements.push(db.getExecutor().compileQuery(args.node, args.queryId).sql);
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { recorded, statements };
}
