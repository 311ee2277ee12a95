// The one place that reads the environment. Every variable is documented beside its schema and
// in the README table; `loadConfig` validates all of them at boot and names the bad variable.
import path from "node:path";
import { z } from "zod";

const bool = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

const schema = z.object({
  /** development | test | production. Production refuses a generated signing key when DATABASE_URL is set. */
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  /** Search API port. */
  PORT: port.default(8080),
  /** Assistant API port. */
  CHAT_PORT: port.default(8081),
  /** Interface both APIs listen on. */
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Folder for the embedded database, signing key, mail outbox and models. */
  DATA_DIR: z.string().min(1).default("./data"),
  /** postgres://… selects PostgreSQL; unset means embedded SQLite at DATA_DIR/shopsight.db. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /**
   * Read replicas of DATABASE_URL (PostgreSQL streaming replicas), comma-separated postgres://
   * URLs. Search, product listing and analytics reads go to a healthy replica that has replayed
   * the store's last write; everything else, and everything after a write in the same request,
   * goes to the primary. A replica that is down or lags falls back to the primary. Needs DATABASE_URL.
   */
  DATABASE_READ_URLS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, "each must be a postgres:// or postgresql:// URL")))
    .optional(),
  /** A replica lagging more than this many milliseconds behind the primary is skipped (reads go to the primary). */
  DATABASE_READ_MAX_LAG_MS: positiveInt.default(5_000),
  /**
   * Where copies of product images are kept: "filesystem" (files under IMAGE_STORE_PATH,
   * content-addressed, unreferenced files collected by the maintenance task) or "database"
   * (product_images.bytes). Default: filesystem on the embedded database, database on PostgreSQL.
   * Several processes on PostgreSQL with "filesystem" must share IMAGE_STORE_PATH (a shared volume).
   */
  IMAGE_STORE: z.enum(["filesystem", "database"]).optional(),
  /** Folder of the filesystem image store. Default DATA_DIR/images. */
  IMAGE_STORE_PATH: z.string().min(1).optional(),
  /**
   * PostgreSQL: index half-precision copies of the vectors (pgvector halfvec): half the HNSW index
   * size and memory, recall@10 0.997 instead of 1.000 in bench:scale at 100,000 × 512-d.
   */
  VECTOR_HALFVEC: bool.default("false"),
  /** redis://… shares rate limits, throttles and revocations across processes; unset means in-process. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  /**
   * Credentials whose authentication reads (store, key, revocation, allow-list, memberships) each
   * process keeps in memory, emptied on any change to them (docs/operations.md, "Authentication
   * cache"); 0 turns the cache off. On PostgreSQL it is used only with REDIS_URL, which tells the
   * other processes of a change.
   */
  AUTH_CACHE_ENTRIES: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  /** Public address of the Search API, used in e-mailed links. Default http://localhost:PORT. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** Public address of the Assistant API. Default http://localhost:CHAT_PORT. */
  CHAT_PUBLIC_BASE_URL: z.string().url().optional(),
  /** HS256 key for access tokens (at least 32 characters). Unset: generated once into DATA_DIR/jwt-signing.key. */
  JWT_SIGNING_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * AES-256-GCM key for connector secrets at rest (storefront private tokens, exchange secrets):
   * 32 bytes as base64 (44 characters) or hex (64 characters). Unset: generated once into
   * DATA_DIR/connector-encryption.key. Set it when several processes share one database.
   */
  CONNECTOR_ENCRYPTION_KEY: z
    .string()
    .refine(
      (v) => /^[0-9a-fA-F]{64}$/.test(v) || (/^[A-Za-z0-9+/_-]{43}=?$/.test(v) && Buffer.from(v, "base64").length === 32),
      "must be 32 bytes as base64 (44 characters) or hex (64 characters)",
    )
    .optional(),
  /** Access token lifetime in seconds. */
  TOKEN_TTL_SECONDS: positiveInt.default(3600),
  /** SMTP connection URL (smtp://user:pass@host:port). Unset: mails are written as .eml files to DATA_DIR/outbox. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .optional(),
  /** Sender address of outgoing mail. */
  MAIL_FROM: z.string().min(3).default("Shopsight <no-reply@shopsight.local>"),
  /** pino log level. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Trust X-Forwarded-For from a reverse proxy: "true", a hop count, or a comma-separated list of proxy addresses/CIDRs. */
  TRUST_PROXY: z.string().optional(),
  /** Time to receive a whole request, headers and body, in milliseconds; a slower one is cut with 408 (0: no limit). */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).default(60_000),
  /** Time to receive a request's headers, in milliseconds (at most HTTP_REQUEST_TIMEOUT_MS when that is set). */
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.default(15_000),
  /** How long an idle keep-alive connection stays open, in milliseconds (above a load balancer's idle timeout). */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt.default(72_000),
  /** A socket with no traffic either way for this long is closed, in milliseconds (0: never). */
  HTTP_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(120_000),
  /** Allow outbound fetches to private/loopback addresses and plain http (local development and tests only). */
  OUTBOUND_ALLOW_PRIVATE: bool.default("false"),
  /** Total time limit of one outbound fetch, in milliseconds. */
  OUTBOUND_TIMEOUT_MS: positiveInt.default(10_000),
  /** Largest outbound response body accepted, in bytes. */
  OUTBOUND_MAX_BYTES: positiveInt.default(20 * 1024 * 1024),
  /** Largest decoded image accepted, in pixels (decompression-bomb guard). */
  IMAGE_MAX_PIXELS: positiveInt.default(40_000_000),
  /**
   * CLIP model: a local folder in the transformers.js layout, or a Hugging Face model id
   * (downloaded once into DATA_DIR/models). Unset: Xenova/clip-vit-base-patch32, and when that
   * cannot be downloaded (no internet) the built-in tiny test model, with a warning.
   */
  CLIP_MODEL: z.string().min(1).optional(),
  /**
   * Text search's relevance cut-off: a product whose text matches no word of the query is a result
   * only when its image's similarity to the query is at least this. Unset: the active model's
   * calibrated bar (GET /v1/search/model visual_min_score; docs/api-search.md "Relevance cut-off").
   */
  SEARCH_VISUAL_MIN_SCORE: z.coerce.number().min(0).max(1).optional(),
  /** Similarity above which a newly indexed product is reported as a near-duplicate (product.duplicate_detected). */
  DUPLICATE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.95),
  /**
   * product.duplicate_detected by embedding similarity: auto (default: on with a real model; with the
   * built-in test model only identical images are reported), on, or off (identical images only).
   */
  DUPLICATE_DETECTION: z.enum(["auto", "on", "off"]).default("auto"),
  /** Bulk-import items processed at once per job (image downloads and embeddings). */
  BULK_CONCURRENCY: positiveInt.max(64).default(32),
  /** Jobs (bulk imports) one process runs at once. */
  JOBS_CONCURRENCY: positiveInt.max(64).default(2),
  /** Jobs of one store running at once over every worker process (within one process a store also leaves a slot free: at most JOBS_CONCURRENCY − 1, at least 1). */
  JOBS_PER_STORE: positiveInt.max(64).default(4),
  /** A job that has run this long hands its slot back (and goes to the back of the queue) when another store's job is waiting. */
  JOBS_SLICE_SECONDS: positiveInt.max(3600).default(30),
  /** Embedded vector index: storage of vectors inside HNSW (f16 halves, i8 quarters the f32 memory; see docs/operations.md "Vector index"). */
  VECTOR_QUANTIZATION: z.enum(["f32", "f16", "i8"]).default("f16"),
  /**
   * HNSW search depth (ef: neighbours a search collects before the best k). Unset: 64 embedded;
   * on PostgreSQL 100, growing with the square root of the index past 250,000 vectors (200 at a
   * million). Raise it for large embedded stores (docs/operations.md "Sizing notes": recall falls with size).
   */
  VECTOR_EF_SEARCH: positiveInt.min(10).max(1000).optional(),
  /**
   * PostgreSQL: a category or brand with at least this many products (and at most a quarter of its
   * store) gets a filter index (a compact copy of its vectors, which filtered searches scan),
   * made by the worker's maintenance round; 0 = none.
   */
  VECTOR_FILTER_INDEX_MIN_ROWS: z.coerce.number().int().min(0).default(2000),
  /** PostgreSQL: filter indexes per store and vector dimension at most (those that have one first, then the largest values). */
  VECTOR_FILTER_INDEXES_PER_STORE: z.coerce.number().int().min(0).max(1000).default(128),
  /**
   * PostgreSQL: a filter index of at least this many products also gets inverted lists (pgvector
   * IVFFlat over its copies), so searches on it read an eighth of them; below it an exact scan of
   * the copies stays within ~20 ms; 0 = none, every scan exact.
   */
  VECTOR_FILTER_INDEX_LISTS_MIN_ROWS: z.coerce.number().int().min(0).default(20000),
  /**
   * PostgreSQL: a filter index of at least this many products and no inverted lists may also get a
   * graph (pgvector HNSW over its copies), kept when its recall@10, checked on a sample of the
   * store's vectors, holds; 0 = none.
   */
  VECTOR_FILTER_INDEX_GRAPH_MIN_ROWS: z.coerce.number().int().min(0).default(5000),
  /** Skip loading the model at start (the API then answers model-dependent calls with 503). */
  MODEL_DISABLED: bool.default("false"),
  /**
   * Single-threaded model workers that take image batches in parallel while images pile up (docs/operations.md
   * "The embedding model"); each holds its own copy of the model, loaded at the first backlog
   * while twice their size is available. Unset: as many as the model's threads (the CPUs, at most
   * 4) when that is 2 or more; 0 = none.
   */
  MODEL_PARALLEL_WORKERS: z.coerce.number().int().min(0).max(16).optional(),
  /**
   * Under concurrent load, the longest (ms) the free model worker holds a batch smaller than the
   * recent concurrency for the other callers to arrive (docs/operations.md "The embedding model").
   * Unset: the runtime's default (10); 0 = never hold. A lone caller is never held.
   */
  MODEL_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(1000).optional(),
  /**
   * Stripe secret API key (sk_test_… / sk_live_…). Set: POST /v1/billing/checkout creates Stripe
   * Checkout Sessions (then STRIPE_WEBHOOK_SECRET and the three STRIPE_PRICE_* are required).
   * Unset: a local checkout page marked TEST MODE, served by the Search API, completes purchases.
   */
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_\S+$/, "must be a Stripe secret key (sk_test_… or sk_live_…)")
    .optional(),
  /** Signing secret (whsec_…) of the Stripe webhook endpoint POST /billing/webhooks/stripe. */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Stripe price id (price_…) of the monthly basic plan. */
  STRIPE_PRICE_BASIC: z.string().min(1).optional(),
  /** Stripe price id (price_…) of the monthly premium plan. */
  STRIPE_PRICE_PREMIUM: z.string().min(1).optional(),
  /** Stripe price id (price_…) of the monthly enterprise plan. */
  STRIPE_PRICE_ENTERPRISE: z.string().min(1).optional(),
  /** Tests only (refused in production): base URL of a fake Stripe API used instead of https://api.stripe.com. */
  STRIPE_API_BASE: z.string().url().optional(),
  /**
   * on: the spec's plans with prices, limits and checkout. off (a self-hosted install that sells
   * nothing): checkout is refused, the portal shows no prices, and new stores start on
   * DEFAULT_PLAN, which is then enterprise (no product or request limit) unless set.
   */
  BILLING_MODE: z.enum(["on", "off"]).default("on"),
  /** Plan a newly registered store starts on: free, basic, premium or enterprise. Default: free (BILLING_MODE=on) or enterprise (off). */
  DEFAULT_PLAN: z.enum(["free", "basic", "premium", "enterprise"]).optional(),
  /**
   * Port of the worker role's small HTTP server (GET /metrics, /health/live, /health/ready).
   * Unset: `serve --role worker` opens no port. The api and all roles serve these on both APIs.
   */
  METRICS_PORT: port.optional(),
  /**
   * Bearer token GET /metrics requires (at least 16 characters). Unset: /metrics is open, so keep
   * it off the public network (reverse proxy rule or a private METRICS_PORT).
   */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /**
   * Optional LLM: base URL of an OpenAI-compatible API (POST {LLM_BASE_URL}/chat/completions,
   * through the safe outbound fetch, so a local server needs OUTBOUND_ALLOW_PRIVATE=true).
   * Unset: answers are composed extractively (no model needed). Its output is checked and discarded
   * for the extractive answer when it states a number, price or promise not in its sources.
   */
  LLM_BASE_URL: z.string().url().optional(),
  /**
   * What the LLM does (with LLM_BASE_URL): `agent` (default) — it chooses tools through
   * OpenAI-compatible tool calling and writes the reply, checked by src/assistant/agent;
   * `phrase` — it only rephrases the extractive policy answer (for models without tool calling).
   */
  LLM_MODE: z.enum(["agent", "phrase"]).default("agent"),
  /**
   * Calibrated abstention of extractive policy answers (src/assistant/knowledge/abstain.ts): "on"
   * hands off an answer the model of abstention.json judges probably wrong. Off by default: with
   * today's features it withholds more right answers than wrong ones on the fixtures (docs/evaluation.md).
   */
  ASSISTANT_ABSTENTION: z.enum(["on", "off"]).default("off"),
  /** Agent mode: model responses that may request tools in one turn (1–8); then the reply must come. */
  LLM_MAX_TOOL_ROUNDS: positiveInt.max(8).default(3),
  /** Bearer key sent to LLM_BASE_URL (optional: local servers often need none). */
  LLM_API_KEY: z.string().min(1).optional(),
  /** Model name sent to LLM_BASE_URL; required when LLM_BASE_URL is set. */
  LLM_MODEL: z.string().min(1).optional(),
  /** Time limit of one LLM call in milliseconds; on timeout the extractive answer is used. */
  LLM_TIMEOUT_MS: positiveInt.default(8000),
});

export const DEFAULT_CLIP_MODEL = "Xenova/clip-vit-base-patch32";

export type Env = z.input<typeof schema>;
type Parsed = z.output<typeof schema>;

export interface Config {
  env: Parsed["NODE_ENV"];
  port: number;
  chatPort: number;
  host: string;
  dataDir: string;
  database: { kind: "sqlite"; file: string } | { kind: "postgres"; url: string; readUrls?: string[]; readMaxLagMs?: number };
  redisUrl: string | undefined;
  /** AUTH_CACHE_ENTRIES: how many authentication lookups a process caches (0: none). */
  authCacheEntries: number;
  /** PostgreSQL vector index over halfvec copies (VECTOR_HALFVEC). */
  vectorHalfvec: boolean;
  /** The image store (src/shared/images/store.ts). */
  imageStore: { kind: "filesystem" | "database"; path: string };
  publicBaseUrl: string;
  chatPublicBaseUrl: string;
  jwtSigningKey: string | undefined;
  /** CONNECTOR_ENCRYPTION_KEY as given (decoded in src/platform/secrets.ts); undefined = generated file. */
  connectorEncryptionKey: string | undefined;
  tokenTtlSeconds: number;
  /** `logLinks`: print the links of outbox mail to the log (NODE_ENV=development without SMTP_URL). */
  mail: { smtpUrl: string | undefined; from: string; outboxDir: string; logLinks: boolean };
  logLevel: Parsed["LOG_LEVEL"];
  trustProxy: boolean | number | string[];
  /** HTTP server time limits (both APIs): whole request, headers, idle keep-alive, idle socket; ms, 0 = none. */
  http: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number; connectionTimeoutMs: number };
  outbound: { allowPrivate: boolean; timeoutMs: number; maxBytes: number; maxPixels: number };
  /** `explicit`: CLIP_MODEL was set (then a model that cannot load stops start-up). */
  /** `parallelWorkers`: MODEL_PARALLEL_WORKERS, `batchWaitMs`: MODEL_BATCH_WAIT_MS (undefined: the runtime's defaults). */
  model: {
    id: string;
    explicit: boolean;
    cacheDir: string;
    disabled: boolean;
    parallelWorkers: number | undefined;
    batchWaitMs: number | undefined;
  };
  /** SEARCH_VISUAL_MIN_SCORE (undefined: the model's calibrated bar). */
  searchVisualMinScore: number | undefined;
  duplicateThreshold: number;
  duplicateDetection: "auto" | "on" | "off";
  bulkConcurrency: number;
  /** The job queue: jobs per process, running jobs per store over all processes, time slice before yielding to another store. */
  jobs: { concurrency: number; perStore: number; sliceMs: number };
  vectorQuantization: "f32" | "f16" | "i8";
  /** HNSW search depth when VECTOR_EF_SEARCH is set (else the engine default). */
  vectorEfSearch: number | undefined;
  /** PostgreSQL filter indexes (VECTOR_FILTER_INDEX_MIN_ROWS, VECTOR_FILTER_INDEXES_PER_STORE, VECTOR_FILTER_INDEX_LISTS_MIN_ROWS, VECTOR_FILTER_INDEX_GRAPH_MIN_ROWS). */
  vectorFilterIndexes: { minRows: number; maxPerStore: number; listsMinRows: number; graphMinRows: number };
  /** Operations endpoints: the worker role's optional HTTP port and the /metrics bearer token. */
  ops: { metricsPort: number | undefined; metricsToken: string | undefined };
  /**
   * Optional OpenAI-compatible LLM (src/assistant/knowledge/llm.ts): the tool-calling agent of
   * src/assistant/agent (`mode: "agent"`) or the phrasing of policy answers (`"phrase"`); null =
   * extractive only.
   */
  /** Calibrated abstention of extractive policy answers (ASSISTANT_ABSTENTION). */
  assistantAbstention: boolean;
  llm: {
    baseUrl: string;
    apiKey: string | undefined;
    model: string;
    timeoutMs: number;
    mode: "agent" | "phrase";
    maxToolRounds: number;
  } | null;
  /** Billing: Stripe when `stripe.secretKey` is set, otherwise the local test-mode checkout; `enabled` false = BILLING_MODE=off. */
  billing: {
    enabled: boolean;
    /** Plan of a newly registered store. */
    defaultPlan: "free" | "basic" | "premium" | "enterprise";
    stripe: {
      secretKey: string | undefined;
      webhookSecret: string | undefined;
      prices: { basic: string | undefined; premium: string | undefined; enterprise: string | undefined };
      apiBase: string | undefined;
    };
  };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === "" || value === "false") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Validates `env` (the process environment by default) and returns the typed configuration. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, env[k] === "" ? undefined : env[k]]));
  const result = schema.safeParse(known);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = result.data;
  if (e.DATABASE_READ_URLS?.length && !e.DATABASE_URL)
    throw new ConfigError("Invalid configuration:\n  DATABASE_READ_URLS: needs DATABASE_URL (replicas are of a PostgreSQL primary)");
  if (e.LLM_BASE_URL && !e.LLM_MODEL) throw new ConfigError("Invalid configuration:\n  LLM_MODEL: is required when LLM_BASE_URL is set");
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    chatPort: e.CHAT_PORT,
    host: e.HOST,
    dataDir,
    database: e.DATABASE_URL
      ? { kind: "postgres", url: e.DATABASE_URL, readUrls: e.DATABASE_READ_URLS ?? [], readMaxLagMs: e.DATABASE_READ_MAX_LAG_MS }
      : { kind: "sqlite", file: path.join(dataDir, "shopsight.db") },
    redisUrl: e.REDIS_URL,
    authCacheEntries: e.AUTH_CACHE_ENTRIES,
    vectorHalfvec: e.VECTOR_HALFVEC,
    imageStore: {
      kind: e.IMAGE_STORE ?? (e.DATABASE_URL ? "database" : "filesystem"),
      path: path.resolve(e.IMAGE_STORE_PATH ?? path.join(dataDir, "images")),
    },
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ""),
    chatPublicBaseUrl: (e.CHAT_PUBLIC_BASE_URL ?? `http://localhost:${e.CHAT_PORT}`).replace(/\/$/, ""),
    jwtSigningKey: e.JWT_SIGNING_KEY,
    connectorEncryptionKey: e.CONNECTOR_ENCRYPTION_KEY,
    tokenTtlSeconds: e.TOKEN_TTL_SECONDS,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, outboxDir: path.join(dataDir, "outbox"), logLinks: e.NODE_ENV === "development" },
    logLevel: e.LOG_LEVEL,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    http: {
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs:
        e.HTTP_REQUEST_TIMEOUT_MS > 0 ? Math.min(e.HTTP_HEADERS_TIMEOUT_MS, e.HTTP_REQUEST_TIMEOUT_MS) : e.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      connectionTimeoutMs: e.HTTP_CONNECTION_TIMEOUT_MS,
    },
    outbound: {
      allowPrivate: e.OUTBOUND_ALLOW_PRIVATE,
      timeoutMs: e.OUTBOUND_TIMEOUT_MS,
      maxBytes: e.OUTBOUND_MAX_BYTES,
      maxPixels: e.IMAGE_MAX_PIXELS,
    },
    model: {
      id: e.CLIP_MODEL ?? DEFAULT_CLIP_MODEL,
      explicit: e.CLIP_MODEL !== undefined,
      cacheDir: path.join(dataDir, "models"),
      disabled: e.MODEL_DISABLED,
      parallelWorkers: e.MODEL_PARALLEL_WORKERS,
      batchWaitMs: e.MODEL_BATCH_WAIT_MS,
    },
    searchVisualMinScore: e.SEARCH_VISUAL_MIN_SCORE,
    duplicateThreshold: e.DUPLICATE_THRESHOLD,
    duplicateDetection: e.DUPLICATE_DETECTION,
    bulkConcurrency: e.BULK_CONCURRENCY,
    jobs: {
      concurrency: e.JOBS_CONCURRENCY,
      perStore: e.JOBS_PER_STORE,
      sliceMs: e.JOBS_SLICE_SECONDS * 1000,
    },
    vectorQuantization: e.VECTOR_QUANTIZATION,
    vectorEfSearch: e.VECTOR_EF_SEARCH,
    vectorFilterIndexes: {
      minRows: e.VECTOR_FILTER_INDEX_MIN_ROWS,
      maxPerStore: e.VECTOR_FILTER_INDEXES_PER_STORE,
      listsMinRows: e.VECTOR_FILTER_INDEX_LISTS_MIN_ROWS,
      graphMinRows: e.VECTOR_FILTER_INDEX_GRAPH_MIN_ROWS,
    },
    ops: { metricsPort: e.METRICS_PORT, metricsToken: e.METRICS_TOKEN },
    assistantAbstention: e.ASSISTANT_ABSTENTION === "on",
    llm: e.LLM_BASE_URL
      ? {
          baseUrl: e.LLM_BASE_URL.replace(/\/$/, ""),
          apiKey: e.LLM_API_KEY,
          model: e.LLM_MODEL ?? "",
          timeoutMs: e.LLM_TIMEOUT_MS,
          mode: e.LLM_MODE,
          maxToolRounds: e.LLM_MAX_TOOL_ROUNDS,
        }
      : null,
    billing: {
      enabled: e.BILLING_MODE === "on",
      defaultPlan: e.DEFAULT_PLAN ?? (e.BILLING_MODE === "on" ? "free" : "enterprise"),
      stripe: {
        secretKey: e.STRIPE_SECRET_KEY,
        webhookSecret: e.STRIPE_WEBHOOK_SECRET,
        prices: { basic: e.STRIPE_PRICE_BASIC, premium: e.STRIPE_PRICE_PREMIUM, enterprise: e.STRIPE_PRICE_ENTERPRISE },
        apiBase: e.STRIPE_API_BASE,
      },
    },
  };
}

/** Names and one-line descriptions of every variable, for the README and `cli config`. */
export const configVariables = Object.keys(schema.shape);
