// Several application contexts over ONE database (the same PostgreSQL schema, or the same SQLite
// file) and, when asked, one Redis: each peer stands for a separate process of a scaled-out
// deployment (its own connection pool, job queue instance, dispatcher and limiters), so tests can
// show that work and limits are shared correctly without starting processes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { describe } from "node:test";
import pg from "pg";
import { loadConfig, type Config } from "../../src/platform/config.js";
import { createContext, type AppContext } from "../../src/platform/context.js";
import type { Clock } from "../../src/platform/clock.js";
import type { App } from "../../src/platform/http/app.js";
import { buildSearchApp } from "../../src/search/app.js";
import { createWorkers, type Workers } from "../../src/search/workers.js";
import type { DispatcherOptions } from "../../src/search/webhooks/dispatcher.js";
import { testEnv } from "./env.js";
import type { DialectName, TestApp } from "./harness.js";

export interface Peer {
  ctx: AppContext;
  config: Config;
  search: App;
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
  if (dialect === "postgres" && !testEnv.databaseUrl) throw new Error("TEST_DATABASE_URL is not set");
  if (options.redis && !testEnv.redisUrl) throw new Error("TEST_REDIS_URL is not set");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-peers-"));
  const pgSchema = dialect === "postgres" ? `t_${randomBytes(6).toString("hex")}` : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    OUTBOUND_ALLOW_PRIVATE: "true",
    MODEL_DISABLED: "true",
    JWT_SIGNING_KEY: randomBytes(32).toString("hex"),
    ...(dialect === "postgres" ? { DATABASE_URL: testEnv.databaseUrl } : {}),
    ...(options.redis ? { REDIS_URL: testEnv.redisUrl } : {}),
  });
  const peers: Peer[] = [];
  for (let i = 0; i < (options.count ?? 2); i++) {
    const ctx = await createContext(config, {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(pgSchema ? { pgSchema } : {}),
    });
    const search = await buildSearchApp(ctx, { logger: false });
    await search.ready();
    const workers = createWorkers(ctx, { random: () => 0.5, ...options.dispatcher });
    const peer: Peer = {
      ctx,
      config,
      search,
      workers,
      asTestApp: () => ({ ctx, config, search, assistant: search, dataDir, workers, close: async () => undefined }),
    };
    peers.push(peer);
  }
  return {
    peers,
    async close() {
      for (const p of peers) {
        await p.workers.stop();
        await p.search.close();
        await p.ctx.close();
      }
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
    describe(`${name} [postgres+redis]`, { skip: `${missing.join(" and ")} not set: start PostgreSQL 15 and Redis (see .ci/run) to run this suite` }, () => {});
  }
}

/** A random address in 10.0.0.0/8, so per-IP limits in a shared Redis never collide across runs. */
export const randomIp = (): string => `10.${1 + (randomBytes(1)[0]! % 250)}.${randomBytes(1)[0]!}.${1 + (randomBytes(1)[0]! % 250)}`;
