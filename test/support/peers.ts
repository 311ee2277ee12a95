// Several application contexts over ONE database (the same PostgreSQL schema, or the same SQLite
// file) and, when asked, one Redis: each peer stands for a separate process of a scaled-out
// deployment (its own connection pool, job queue instance, dispatcher and limiters), so tests can
// show that work and limits are shared correctly without starting processes.
import { randomBytes } from "node:crypto";
import { describe } from "node:test";
import type { Config } from "../../src/platform/config.js";
import type { AppContext } from "../../src/context/context.js";
import type { Clock } from "../../src/platform/clock.js";
import type { App } from "../../src/platform/http/app.js";
import { createWorkers, type Workers } from "../../src/search/workers.js";
import type { DispatcherOptions } from "../../src/search/webhooks/dispatcher.js";
import type { SearchServices } from "../../src/search/compose.js";
import { testEnv } from "./env.js";
import { openSearchApp, type TestApp } from "./harness.js";
import { createTestStorage, testConfig, type DialectName } from "./database.js";

export interface Peer {
  ctx: AppContext;
  config: Config;
  search: App;
  /** This peer's Search API services (its own composition, as a separate process has). */
  services: SearchServices;
  workers: Workers;
  /** This peer as a TestApp, for the factories (registerStore, machineToken, …). */
  asTestApp(): TestApp;
}

export interface Peers {
  peers: Peer[];
  close(): Promise<void>;
}

export interface PeerOptions {
  count?: number;
  clock?: Clock;
  /** Share rate limits through TEST_REDIS_URL (required then). */
  redis?: boolean;
  dispatcher?: DispatcherOptions;
}

export async function createPeers(dialect: DialectName, options: PeerOptions = {}): Promise<Peers> {
  if (options.redis && !testEnv.redisUrl) throw new Error("TEST_REDIS_URL is not set");
  const storage = createTestStorage(dialect, "shopsight-peers");
  const { dataDir } = storage;
  const config = await testConfig(storage, {
    env: { JWT_SIGNING_KEY: randomBytes(32).toString("hex"), ...(options.redis ? { REDIS_URL: testEnv.redisUrl! } : {}) },
  });
  const peers: Peer[] = [];
  const stops: Array<() => Promise<void>> = [];
  for (let i = 0; i < (options.count ?? 2); i++) {
    const app = await openSearchApp(config, storage.pgSchema, options.clock);
    const { ctx, search, services } = app;
    const workers = createWorkers(ctx, services, { random: () => 0.5, ...options.dispatcher });
    const peer: Peer = {
      ctx,
      config,
      search,
      services,
      workers,
      asTestApp: () => ({ ctx, config, search, services, assistant: search, dataDir, workers, close: async () => undefined }),
    };
    peers.push(peer);
    stops.push(async () => {
      await workers.stop();
      await app.close();
    });
  }
  return {
    peers,
    async close() {
      for (const stop of stops) await stop();
      await storage.remove();
    },
  };
}

/**
 * A suite that needs PostgreSQL and Redis (shared limits across processes). Without
 * TEST_DATABASE_URL and TEST_REDIS_URL it is reported as skipped with the reason; in CI it fails.
 */
export function describeWithPostgresAndRedis(name: string, fn: () => void): void {
  const missing = [!testEnv.databaseUrl && "TEST_DATABASE_URL", !testEnv.redisUrl && "TEST_REDIS_URL"].filter(Boolean);
  if (missing.length === 0) describe(`${name} [postgres+redis]`, fn);
  else if (testEnv.ci) {
    describe(`${name} [postgres+redis]`, () => {
      throw new Error(`CI run without ${missing.join(" and ")}: this suite cannot run`);
    });
  } else {
    describe(
      `${name} [postgres+redis]`,
      { skip: `${missing.join(" and ")} not set: start PostgreSQL 15 and Redis (see .ci/run) to run this suite` },
      () => {},
    );
  }
}

/** A random address in 10.0.0.0/8, so per-IP limits in a shared Redis never collide across runs. */
export const randomIp = (): string => `10.${1 + (randomBytes(1)[0]! % 250)}.${randomBytes(1)[0]!}.${1 + (randomBytes(1)[0]! % 250)}`;
