// Process roles. `npm start` runs role "all" (src/main.ts); `npm run cli -- serve --role R` runs
// one role, so that several processes can share one PostgreSQL and one Redis:
//   api     both HTTP APIs (PORT, CHAT_PORT) and no background loops. Usage counts are
//           metered and flushed by the process that served the calls (every 5 s and on stop).
//   worker  the job queue consumers (bulk imports), the webhook outbox dispatcher and the
//           maintenance loop (expired revocations); no API port, only GET /metrics,
//           /health/live and /health/ready on METRICS_PORT when it is set.
//   all     both (today's single process).
// api and worker need PostgreSQL (DATABASE_URL); Redis (REDIS_URL) makes the limits shared.
// Migrations run at start in every role (Kysely's migrator locks, so concurrent starts apply each
// migration once). A JSON log line `{"msg":"Shopsight is ready","role":…,"ports":{…}}` is written
// once every port listens; SIGTERM/SIGINT stop listening, end event streams with a retry hint,
// close idle keep-alive connections, finish in-flight requests and the running jobs' current step
// (Workers.stop(), which puts interrupted bulk items back for the next start), flush usage counts,
// close the database and exit 0 — within STOP_DEADLINE_MS whatever clients do.
import { searchErrors } from "./search/errors.js";
import type { FastifyBaseLogger } from "fastify";
import { ConfigError, loadConfig, type Config } from "./platform/config.js";
import { createContext, type AppContext } from "./context/context.js";
import { createHttpApp, type App } from "./platform/http/app.js";
import { opsRoutes } from "./context/ops.js";
import { closeGracefully } from "./platform/http/shutdown.js";
import { startMaintenance } from "./context/maintenance.js";
import { buildSearchApp } from "./search/app.js";
import { buildAssistantApp } from "./assistant/app.js";
import { composeAssistant } from "./assistant/compose.js";
import { createWorkers } from "./search/workers.js";
import { composeSearch } from "./search/compose.js";

export const ROLES = ["api", "worker", "all"] as const;

/** A stop completes within this (orchestrators send SIGKILL at 30 s; the issue asks for 10 s). */
export const STOP_DEADLINE_MS = 10_000;
/** In-flight requests get this long; then every connection still open is cut. */
const REQUEST_GRACE_MS = 6_000;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export interface Running {
  role: Role;
  ctx: AppContext;
  /** Bound ports (0 ports resolved). */
  ports: { search?: number; assistant?: number; metrics?: number };
  stop(signal?: string): Promise<void>;
}

function portOf(app: App): number {
  const address = app.server.address();
  return typeof address === "object" && address ? address.port : 0;
}

/** The worker role's small HTTP server: /health, /health/live, /health/ready and /metrics. */
async function buildOpsApp(ctx: AppContext, isReady: () => boolean): Promise<App> {
  const app = await createHttpApp({
    errors: searchErrors,
    config: ctx.config,
    title: "Shopsight worker",
    description: "Health and metrics of a worker process.",
    isReady,
  });
  await opsRoutes(app, ctx, { api: "worker", isReady });
  return app;
}

/** What a start-up must warn of in this configuration (besides the model's stale vectors). */
export function startupWarnings(config: Config, role: Role): { fields: Record<string, unknown>; message: string }[] {
  const warnings: { fields: Record<string, unknown>; message: string }[] = [];
  if (role !== "all" && !config.redisUrl) {
    warnings.push({
      fields: { role },
      message:
        "REDIS_URL is not set: rate limits, login throttles and chat concurrency bounds are enforced per process; set REDIS_URL when running more than one API process",
    });
  }
  if (config.outbound.allowPrivate) {
    warnings.push({
      fields: { setting: "OUTBOUND_ALLOW_PRIVATE" },
      message:
        "OUTBOUND_ALLOW_PRIVATE=true: image URLs, webhooks and storefront URLs may reach this machine and your private network, over plain http — for development only; unset it in production",
    });
  }
  return warnings;
}

/** Starts `role` on `config`; resolves once every listener is open and the loops run. */
export async function startRole(role: Role, config: Config = loadConfig()): Promise<Running> {
  if (role !== "all" && config.database.kind === "sqlite") {
    // The embedded vector index lives in the memory of the process that writes it: a worker's
    // bulk imports would stay invisible to a separate API process until it restarts.
    throw new ConfigError(
      `serve --role ${role} needs DATABASE_URL (PostgreSQL): the embedded SQLite database and its in-memory vector index belong to one process. Use --role all (npm start) on the embedded default.`,
    );
  }
  const ctx = await createContext(config);
  let ready = false;
  const isReady = () => ready;
  const serveApis = role === "api" || role === "all";
  const runWorkers = role === "worker" || role === "all";

  // The composition root of this role: every service of both APIs, built once (src/search/compose.ts,
  // src/assistant/compose.ts); the Assistant reads products through the Search API's catalogue port.
  const services = composeSearch(ctx);
  const search = serveApis ? await buildSearchApp(ctx, { isReady, services }) : undefined;
  const assistant = serveApis
    ? await buildAssistantApp(ctx, { isReady, services: composeAssistant(ctx, { catalog: services.catalog }) })
    : undefined;
  // The worker's ops app also provides its logger; it listens only when METRICS_PORT is set.
  const ops = serveApis ? undefined : await buildOpsApp(ctx, isReady);
  const log: FastifyBaseLogger = (search ?? ops)!.log;
  const workers = runWorkers ? createWorkers(ctx, services, { log }) : undefined;
  const maintenance = runWorkers ? startMaintenance(ctx, { log }) : undefined;

  for (const warning of startupWarnings(config, role)) log.warn(warning.fields, warning.message);
  if (ctx.model && serveApis) {
    // Products embedded by another model (CLIP_MODEL changed): re-embed them in the background,
    // as a job per store (src/search/products/reindex.ts); searches use each new vector at once.
    const queued = await services.reindexer.enqueueStale();
    if (queued.length > 0) {
      log.warn(
        { stores: queued },
        `${queued.reduce((n, s) => n + s.count, 0)} products were embedded by another model than CLIP_MODEL; re-embedding them in the background (GET /v1/jobs/{job_id} shows progress)`,
      );
    }
  }

  const ports: Running["ports"] = {};
  if (search && assistant) {
    await search.listen({ port: config.port, host: config.host });
    await assistant.listen({ port: config.chatPort, host: config.host });
    ports.search = portOf(search);
    ports.assistant = portOf(assistant);
  }
  if (ops && config.ops.metricsPort !== undefined) {
    await ops.listen({ port: config.ops.metricsPort, host: config.host });
    ports.metrics = portOf(ops);
  }
  await workers?.start();
  ready = true;
  log.info({ role, ports, database: config.database.kind, redis: Boolean(config.redisUrl), pid: process.pid }, "Shopsight is ready");

  let stopping: Promise<void> | undefined;
  return {
    role,
    ctx,
    ports,
    stop(signal = "stop") {
      stopping ??= (async () => {
        ready = false;
        log.info({ signal, role }, "shutting down: finishing in-flight requests and jobs");
        // Listeners and loops stop together: listeners stop accepting, end event streams and close
        // idle connections at once, and let in-flight requests finish for up to REQUEST_GRACE_MS
        // (closing the apps flushes usage counts); the loops finish their current unit of work
        // (Workers.stop: running bulk items go back to the queue for the next start).
        await Promise.allSettled([
          ...[search, assistant, ops].map((app) => (app ? closeGracefully(app, REQUEST_GRACE_MS) : undefined)),
          maintenance?.stop(),
          workers?.stop(),
        ]);
        await ctx.close();
      })();
      return stopping;
    },
  };
}

/** Starts `role` and exits 0 after a clean stop on SIGTERM/SIGINT (1 when it could not stop in time). */
export async function runRole(role: Role, config?: Config): Promise<void> {
  const running = await startRole(role, config);
  const stop = (signal: string) => {
    // A last resort: whatever still runs at the deadline, the process exits.
    setTimeout(() => {
      console.error(`Shopsight did not stop within ${STOP_DEADLINE_MS / 1000} s after ${signal}; exiting.`);
      process.exit(1);
    }, STOP_DEADLINE_MS - 500).unref();
    void running.stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`Shopsight failed to stop cleanly: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
