// The composition root: every adapter (database, clock, mail, token signing, revocations, rate
// limiters, Redis, outbound fetch, model, image pipeline, vector index, job queue) is built here
// once and handed to the APIs. Tests build a context with their own clock, data folder or
// PostgreSQL schema; nothing else constructs adapters.
import path from "node:path";
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import type { Config } from "../platform/config.js";
import { systemClock, type Clock } from "../platform/clock.js";
import { openDatabase, type Database } from "../db/index.js";
import { createMailer, type Mailer } from "../platform/mail/index.js";
import { TokenSigner, loadSigningKey } from "../platform/auth/tokens.js";
import { secretBoxFor, type SecretBox } from "../platform/secrets.js";
import { createRevocationStore, type RevocationStore } from "../platform/auth/revocations.js";
import { createInvalidations, type Invalidations } from "../platform/invalidation.js";
import { announceAuthChanges } from "../tenancy/auth-cache.js";
import { createLimiterFactory, type LimiterFactory } from "../platform/rate-limit.js";
import { createConcurrencyFactory, type ConcurrencyFactory } from "../platform/concurrency.js";
import { createSafeFetch, type SafeFetch } from "../platform/outbound/safe-fetch.js";
import { JobQueue } from "../platform/jobs/queue.js";
import { createMetrics, type Metrics } from "../platform/metrics.js";
import { ImagePipeline } from "../embeddings/pipeline.js";
import { loadConfiguredModel, type LoadLog } from "../embeddings/load.js";
import type { EmbeddingModel } from "../embeddings/types.js";
import { createVectorIndex, type VectorIndex } from "../vectors/index.js";
import { indexAllProducts, indexAllTerms } from "../lexical/repository.js";
import type { DataHooks } from "../db/migrations/types.js";
import { createImageStore, type ImageStore } from "../shared/images/store.js";

export interface AppContext {
  config: Config;
  clock: Clock;
  database: Database;
  mailer: Mailer;
  signer: TokenSigner;
  /** Seals and opens stored secrets (webhook and callback secrets, TOTP seeds, connector tokens). */
  secrets: SecretBox;
  revocations: RevocationStore;
  limiters: LimiterFactory;
  /** Counting semaphores with leases (concurrent chat turns per store); Redis-backed when REDIS_URL is set. */
  concurrency: ConcurrencyFactory;
  redis: Redis | undefined;
  /** Tells every process of the deployment of a change (over Redis when REDIS_URL is set), so caches empty. */
  invalidations: Invalidations;
  /** Every outbound HTTP call (images, webhooks, callbacks, storefronts) goes through this. */
  fetch: SafeFetch;
  model: EmbeddingModel | null;
  images: ImagePipeline;
  /** Where copies of product images are kept (IMAGE_STORE). */
  imageStore: ImageStore;
  vectors: VectorIndex;
  jobs: JobQueue;
  /** Prometheus registry and instruments of this context (GET /metrics). */
  metrics: Metrics;
  /** Runs `fn` at the start of close(), before any adapter closes (flushing deferred writes). */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

/** The data steps of migrations that need product code (platform imports none). */
export const dataHooks: DataHooks = {
  // 0018 runs before the vocabulary table exists (0023 fills it from the rows written here); 0033
  // writes rows again whose words the vocabulary holds already.
  indexProductText: async (db, dialect) => {
    await indexAllProducts(db, dialect, 1, undefined, { terms: false });
  },
  indexProductTerms: (db, dialect) => indexAllTerms(db, dialect),
};

export interface ContextOverrides {
  clock?: Clock;
  mailer?: Mailer;
  /** PostgreSQL schema to isolate this context in (tests). */
  pgSchema?: string;
  /** An already loaded model to share (tests), or null for none. */
  model?: EmbeddingModel | null;
  fetch?: SafeFetch;
  log?: LoadLog;
}

/**
 * What Redis holds for a deployment (rate-limit budgets, concurrency slots) belongs to it, which is
 * its database: keys are prefixed with a short hash of the database (host and name, or the SQLite
 * file, and the PostgreSQL schema), so deployments — or test runs — sharing one Redis never mix.
 */
function redisNamespace(config: Config, pgSchema: string | undefined): string {
  const db = config.database;
  const where = db.kind === "postgres" ? `${new URL(db.url).host}${new URL(db.url).pathname}` : db.file;
  return createHash("sha256")
    .update(`${db.kind}:${where}:${pgSchema ?? ""}`)
    .digest("hex")
    .slice(0, 12);
}

export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<AppContext> {
  const clock = overrides.clock ?? systemClock;
  const log = overrides.log ?? { warn: (m: string) => process.stderr.write(`WARNING: ${m}\n`) };
  const secrets = secretBoxFor(config);
  const database = await openDatabase(config.database, {
    ...(overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {}),
    secrets,
    hooks: dataHooks,
  });
  // Every key this deployment writes (rate limits, concurrency slots) carries its namespace.
  const namespace = redisNamespace(config, overrides.pgSchema);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        lazyConnect: false,
        maxRetriesPerRequest: 2,
        keyPrefix: `${namespace}:`,
      })
    : undefined;
  const invalidations = createInvalidations(redis, `${namespace}:invalidate`);
  announceAuthChanges({ database, invalidations });
  const mailer = overrides.mailer ?? createMailer(config.mail, clock);
  const signer = new TokenSigner(loadSigningKey(config.jwtSigningKey, config.dataDir), config.tokenTtlSeconds, clock);
  const fetch =
    overrides.fetch ??
    createSafeFetch({
      allowPrivate: config.outbound.allowPrivate,
      timeoutMs: config.outbound.timeoutMs,
      maxBytes: config.outbound.maxBytes,
    });
  const ownsModel = overrides.model === undefined;
  const model = ownsModel ? await loadConfiguredModel(config.model, log) : (overrides.model ?? null);
  const vectors = createVectorIndex(database, {
    halfvec: config.vectorHalfvec,
    filterIndexes: config.vectorFilterIndexes,
    snapshotDir: path.join(config.dataDir, "vector-snapshots"),
    quantization: config.vectorQuantization,
    ...(config.vectorEfSearch !== undefined ? { hnsw: { expansionSearch: config.vectorEfSearch } } : {}),
  });
  await vectors.init();
  const imageStore = createImageStore(database, config.imageStore.kind, config.imageStore.path);
  // Images kept elsewhere (blobs from before the filesystem store, or after a switch) move into
  // the configured store in the background; reads find them in either place meanwhile.
  const adopting = imageStore
    .adopt()
    .catch((error: unknown) => log.warn(`moving images into the ${imageStore.kind} image store failed: ${(error as Error).message}`));
  const jobs = new JobQueue(database, clock, {
    concurrency: config.jobs.concurrency,
    perStore: config.jobs.perStore,
    sliceMs: config.jobs.sliceMs,
  });
  // Process metrics (event-loop delay monitor, GC observer) only outside tests, which build many contexts.
  const metrics = createMetrics({
    queue: async () => ({ ...(await jobs.snapshot()), outboxPending: await pendingWebhookDeliveries(database) }),
    parallelModelWorkers: () => model?.stats?.().parallelWorkers ?? 0,
    defaults: config.env !== "test",
  });
  const unsubscribeInference = model?.onInference?.((e) => metrics.observeInference(e.kind, e.items, e.seconds));
  const images = new ImagePipeline(model, fetch, { maxPixels: config.outbound.maxPixels });
  images.queryCache.register(metrics.registry);
  const closeHooks: (() => Promise<void>)[] = [];
  return {
    config,
    clock,
    database,
    mailer,
    signer,
    secrets,
    revocations: createRevocationStore(database, clock),
    limiters: createLimiterFactory(redis),
    concurrency: createConcurrencyFactory(redis, clock),
    redis,
    invalidations,
    fetch,
    model,
    images,
    imageStore,
    vectors,
    jobs,
    metrics,
    onClose(fn) {
      closeHooks.push(fn);
    },
    async close() {
      await Promise.allSettled(closeHooks.splice(0).map((fn) => fn()));
      unsubscribeInference?.();
      await jobs.stop();
      await adopting;
      mailer.close();
      fetch.close();
      await invalidations.close();
      redis?.disconnect();
      if (ownsModel) await model?.close();
      await vectors.close();
      await database.close();
    },
  };
}

/** Webhook deliveries still to send (the outbox gauge of /metrics). */
async function pendingWebhookDeliveries(database: Database): Promise<number> {
  const row = await database.db
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
