// Builds real apps over a real database for route tests: SQLite in a fresh temp folder, or
// PostgreSQL in a fresh schema of the TEST_DATABASE_URL server. Nothing is mocked but the clock
// when a test asks for a ManualClock.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { describe, type SuiteContext } from "node:test";
import pg from "pg";
import { loadConfig, type Config } from "../../src/platform/config.js";
import { createContext, type AppContext } from "../../src/platform/context.js";
import type { Clock } from "../../src/platform/clock.js";
import type { App } from "../../src/platform/http/app.js";
import { buildSearchApp } from "../../src/search/app.js";
import { buildAssistantApp } from "../../src/assistant/app.js";
import { testEnv } from "./env.js";
import { ensureTestModel } from "../../src/embeddings/load.js";
import { TEST_MODEL_VERSION } from "../../src/embeddings/testmodel/build.js";
import { createWorkers, type Workers } from "../../src/search/workers.js";

/** The project's tiny test model, generated once per machine into the temp folder. */
export const testModelDir = (): Promise<string> =>
  ensureTestModel(path.join(os.tmpdir(), `shopsight-test-model-v${TEST_MODEL_VERSION}`));

export type DialectName = "sqlite" | "postgres";

export interface TestApp {
  ctx: AppContext;
  config: Config;
  search: App;
  assistant: App;
  dataDir: string;
  /** Job handlers and the webhook dispatcher, driven by the test (`workers.drain()`). */
  workers: Workers;
  close(): Promise<void>;
}

export interface TestAppOptions {
  dialect?: DialectName;
  clock?: Clock;
  env?: Record<string, string>;
  /** Load the tiny test model (default false: routes that need it answer 503 model_unavailable). */
  model?: boolean;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-test-"));
  const dialect = options.dialect ?? "sqlite";
  if (dialect === "postgres" && !testEnv.databaseUrl) throw new Error("TEST_DATABASE_URL is not set");
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    OUTBOUND_ALLOW_PRIVATE: "true",
    ...(options.model ? { CLIP_MODEL: await testModelDir() } : { MODEL_DISABLED: "true" }),
    ...(dialect === "postgres" ? { DATABASE_URL: testEnv.databaseUrl } : {}),
    ...options.env,
  });
  const pgSchema = dialect === "postgres" ? `t_${randomBytes(6).toString("hex")}` : undefined;
  const ctx = await createContext(config, {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(pgSchema ? { pgSchema } : {}),
  });
  const search = await buildSearchApp(ctx, { logger: false });
  const assistant = await buildAssistantApp(ctx, { logger: false });
  const workers = createWorkers(ctx, { random: () => 0.5 });
  await search.ready();
  await assistant.ready();
  return {
    ctx,
    config,
    search,
    assistant,
    dataDir,
    workers,
    async close() {
      await workers.stop();
      await search.close();
      await assistant.close();
      await ctx.close();
      if (pgSchema && testEnv.databaseUrl) {
        const client = new pg.Client({ connectionString: testEnv.databaseUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
        await client.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Declares the suite once per database: always on SQLite, and on PostgreSQL when
 * TEST_DATABASE_URL is set. Outside CI a missing server skips the PostgreSQL variant and says
 * why; in CI it fails.
 */
export function describeEachDialect(name: string, fn: (dialect: DialectName) => void): void {
  describe(`${name} [sqlite]`, () => fn("sqlite"));
  if (testEnv.databaseUrl) {
    describe(`${name} [postgres]`, () => fn("postgres"));
  } else if (testEnv.ci) {
    describe(`${name} [postgres]`, () => {
      throw new Error("CI run without TEST_DATABASE_URL: the PostgreSQL variant cannot run");
    });
  } else {
    describe(`${name} [postgres]`, { skip: "TEST_DATABASE_URL not set: start PostgreSQL 15 (see .ci/run) to run this variant" }, () => {});
  }
}

export type { SuiteContext };
