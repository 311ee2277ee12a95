// Builds real apps over a real database for route tests: SQLite in a fresh temp folder, or
// PostgreSQL in a fresh schema of the TEST_DATABASE_URL server. Nothing is mocked but the clock
// when a test asks for a ManualClock.
import { describe, type SuiteContext } from "node:test";
import type { Config } from "../../src/platform/config.js";
import type { AppContext } from "../../src/context/context.js";
import type { Clock } from "../../src/platform/clock.js";
import type { App } from "../../src/platform/http/app.js";
import { buildSearchApp } from "../../src/search/app.js";
import { buildAssistantApp } from "../../src/assistant/app.js";
import { composeAssistant } from "../../src/assistant/compose.js";
import { testEnv } from "./env.js";
import { createWorkers, type Workers } from "../../src/search/workers.js";
import { createTestStorage, openTestContext, testConfig, type DialectName } from "./database.js";
import { composeSearch, searchRepositories, type SearchServices } from "../../src/search/compose.js";
import { SearchRepository } from "../../src/search/query/repository.js";

export { testModelDir, type DialectName } from "./database.js";

export interface TestApp {
  ctx: AppContext;
  config: Config;
  search: App;
  /** The Search API services the apps and workers run on (one composition per test app). */
  services: SearchServices;
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
  /**
   * PostgreSQL: search filters keeping more products than this stay in the database (default
   * 5,000; 0 defers every filter, so tests run that path on a small catalogue).
   */
  filterListedMax?: number;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const storage = createTestStorage(options.dialect ?? "sqlite");
  const config = await testConfig(storage, options);
  const ctx = await openTestContext(config, storage.pgSchema, options.clock);
  const repositories = searchRepositories(ctx);
  if (options.filterListedMax !== undefined) {
    repositories.search = new SearchRepository(
      ctx.database.db,
      ctx.database.dialect,
      options.filterListedMax,
      config.vectorFilterIndexes.minRows,
    );
  }
  const services = composeSearch(ctx, repositories);
  const search = await buildSearchApp(ctx, { logger: false, services });
  const assistant = await buildAssistantApp(ctx, { logger: false, services: composeAssistant(ctx, { catalog: services.catalog }) });
  const workers = createWorkers(ctx, services, { random: () => 0.5 });
  await search.ready();
  await assistant.ready();
  return {
    ctx,
    config,
    search,
    services,
    assistant,
    dataDir: storage.dataDir,
    workers,
    async close() {
      await workers.stop();
      await search.close();
      await assistant.close();
      await ctx.close();
      await storage.remove();
    },
  };
}

export interface SearchInstance {
  ctx: AppContext;
  search: App;
  services: SearchServices;
  /** Closes the app, then the context (the database stays). */
  close(): Promise<void>;
}

/** The Search API alone (ready) over a new context of `config`, on `pgSchema` when PostgreSQL. */
export async function openSearchApp(config: Config, pgSchema: string | undefined, clock?: Clock): Promise<SearchInstance> {
  const ctx = await openTestContext(config, pgSchema, clock);
  const services = composeSearch(ctx);
  const search = await buildSearchApp(ctx, { logger: false, services });
  await search.ready();
  return {
    ctx,
    search,
    services,
    async close() {
      await search.close();
      await ctx.close();
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
