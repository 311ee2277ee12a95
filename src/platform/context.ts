// The composition root: every adapter (database, clock, mail, token signing, revocations, rate
// limiters, Redis) is built here once and handed to the APIs. Tests build a context with their
// own clock, data folder or PostgreSQL schema; nothing else constructs adapters.
import { Redis } from "ioredis";
import type { Config } from "./config.js";
import { systemClock, type Clock } from "./clock.js";
import { openDatabase, type Database } from "./db/index.js";
import { createMailer, type Mailer } from "./mail/index.js";
import { TokenSigner, loadSigningKey } from "./auth/tokens.js";
import { createRevocationStore, type RevocationStore } from "./auth/revocations.js";
import { createLimiterFactory, type LimiterFactory } from "./rate-limit.js";

export interface AppContext {
  config: Config;
  clock: Clock;
  database: Database;
  mailer: Mailer;
  signer: TokenSigner;
  revocations: RevocationStore;
  limiters: LimiterFactory;
  redis: Redis | undefined;
  close(): Promise<void>;
}

export interface ContextOverrides {
  clock?: Clock;
  mailer?: Mailer;
  /** PostgreSQL schema to isolate this context in (tests). */
  pgSchema?: string;
}

export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const clock = overrides.clock ?? systemClock;
  const database = await openDatabase(config.database, overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {});
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : undefined;
  const mailer = overrides.mailer ?? createMailer(config.mail, clock);
  const signer = new TokenSigner(loadSigningKey(config.jwtSigningKey, config.dataDir), config.tokenTtlSeconds, clock);
  return {
    config,
    clock,
    database,
    mailer,
    signer,
    revocations: createRevocationStore(database, clock),
    limiters: createLimiterFactory(redis),
    redis,
    async close() {
      mailer.close();
      redis?.disconnect();
      await database.close();
    },
  };
}
