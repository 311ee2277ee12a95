// Operations endpoints shared by both APIs and the worker role's optional port:
//   GET /health/live   200 while the process runs (liveness: restart me only when this fails);
//   GET /health/ready  200 when the database answers, Redis answers PING (when REDIS_URL is set),
//                      the model is usable (unless MODEL_DISABLED) and the service is not starting
//                      or stopping; otherwise 503 naming the failed checks (readiness: route no
//                      traffic to me). Failure details go to the log, not the response. Both name
//                      the active model: {model: {id, is_test_model}} (src/embeddings/identity.ts);
//   GET /metrics       Prometheus text (src/platform/metrics.ts); when METRICS_TOKEN is set it
//                      needs `Authorization: Bearer <METRICS_TOKEN>`.
// `GET /health` (src/platform/http/app.ts) keeps its meaning: 200 once start-up completed.
// Also installs the onResponse hook that feeds the HTTP request metrics.
import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "./context.js";
import { modelIdentity } from "../embeddings/identity.js";
import { AppError } from "../platform/errors/catalogue.js";
import type { App } from "../platform/http/app.js";

export type CheckResult = "ok" | "failed" | "not_configured" | "disabled";

export interface Readiness {
  ready: boolean;
  checks: { service: "ok" | "failed"; database: CheckResult; redis: CheckResult; model: CheckResult };
  failed: string[];
}

export interface OpsOptions {
  /** Metrics label of this HTTP server: "search", "assistant" or "worker". */
  api: string;
  isReady: () => boolean;
}

const CHECK_TIMEOUT_MS = 2000;

async function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      p,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the readiness checks; `log` receives the reason of each failure. */
export async function checkReadiness(
  ctx: AppContext,
  isReady: () => boolean,
  log?: (check: string, error: unknown) => void,
): Promise<Readiness> {
  const run = async (name: string, fn: () => Promise<unknown>): Promise<CheckResult> => {
    try {
      await withTimeout(fn(), CHECK_TIMEOUT_MS);
      return "ok";
    } catch (error) {
      log?.(name, error);
      return "failed";
    }
  };
  const [database, redis] = await Promise.all([
    run("database", () => ctx.database.ping()),
    ctx.redis ? run("redis", () => ctx.redis!.ping()) : Promise.resolve<CheckResult>("not_configured"),
  ]);
  let model: CheckResult;
  if (ctx.config.model.disabled) model = "disabled";
  else if (ctx.model && ctx.model.usable !== false) model = "ok";
  else {
    model = "failed";
    log?.("model", new Error(ctx.model ? "the model runtime failed or is closing" : "no model loaded"));
  }
  const checks = { service: isReady() ? ("ok" as const) : ("failed" as const), database, redis, model };
  const failed = Object.entries(checks)
    .filter(([, v]) => v === "failed")
    .map(([k]) => k);
  return { ready: failed.length === 0, checks, failed };
}

function tokenMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const checkSchema = { type: "string", enum: ["ok", "failed", "not_configured", "disabled"] } as const;
const readinessSchema = {
  type: "object",
  additionalProperties: false,
  required: ["status", "checks", "failed"],
  properties: {
    status: { type: "string", enum: ["ok", "unavailable"] },
    checks: {
      type: "object",
      additionalProperties: false,
      required: ["service", "database", "redis", "model"],
      properties: { service: checkSchema, database: checkSchema, redis: checkSchema, model: checkSchema },
    },
    failed: { type: "array", items: { type: "string" } },
    model: {
      type: "object",
      additionalProperties: false,
      required: ["id", "is_test_model"],
      description: "The active embedding model (id as configured; the built-in test model is shopsight-tiny-test-model)",
      properties: { id: { type: "string" }, is_test_model: { type: "boolean" } },
    },
  },
} as const;

/** Adds /health/live, /health/ready, /metrics and the request-metrics hook to `app`. */
export async function opsRoutes(app: App, ctx: AppContext, options: OpsOptions): Promise<void> {
  const { metrics } = ctx;
  app.addHook("onResponse", async (request: FastifyRequest, reply: FastifyReply) => {
    // The route pattern, never the raw URL (ids and query strings would explode the label set).
    const route = request.routeOptions.url ?? "unmatched";
    metrics.observeRequest(options.api, request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.get(
    "/health/live",
    {
      config: { auth: "none" },
      schema: {
        tags: ["health"],
        summary: "Liveness: 200 while the process runs",
        response: {
          200: {
            type: "object",
            additionalProperties: false,
            required: ["status"],
            properties: { status: { type: "string", const: "ok" } },
          },
        },
      },
    },
    async () => ({ status: "ok" as const }),
  );

  app.get(
    "/health/ready",
    {
      config: { auth: "none" },
      schema: {
        tags: ["health"],
        summary: "Readiness: database, Redis (when configured) and model usable; 503 names the failed checks",
        response: { 200: readinessSchema, 503: readinessSchema },
      },
    },
    async (request, reply) => {
      const identity = modelIdentity(ctx.model, ctx.config.model.id);
      const result = await checkReadiness(ctx, options.isReady, (check, error) =>
        request.log.warn({ check, err: error }, "readiness check failed"),
      );
      return reply.status(result.ready ? 200 : 503).send({
        status: result.ready ? "ok" : "unavailable",
        checks: result.checks,
        failed: result.failed,
        model: { id: identity.id, is_test_model: identity.is_test_model },
      });
    },
  );

  app.get(
    "/metrics",
    {
      config: { auth: "none" },
      schema: {
        tags: ["health"],
        summary: "Prometheus metrics (text exposition format); Bearer METRICS_TOKEN when configured",
        produces: ["text/plain"],
      },
    },
    async (request, reply) => {
      const expected = ctx.config.ops.metricsToken;
      if (expected) {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
        if (!match || !tokenMatches(match[1]!, expected)) {
          throw new AppError("unauthorized", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.");
        }
      }
      const body = await metrics.render();
      return reply.type(metrics.contentType).send(body);
    },
  );
}
