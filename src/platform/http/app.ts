// The HTTP shell shared by both APIs: Fastify with schema-first routes (TypeBox schemas drive
// validation, serialisation and the OpenAPI document), request ids, the API's error shape,
// JSON 404s, /health, /openapi.json and /docs.
import { randomUUID } from "node:crypto";
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from "fastify";
import formbody from "@fastify/formbody";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Config } from "../config.js";
import { loggerOptions } from "../logging.js";
import { AppError } from "../errors/catalogue.js";
import { toAppError } from "../errors/map.js";
import { compileSchema } from "./validation.js";

export type ApiKind = "search" | "assistant";
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface HttpAppOptions {
  kind: ApiKind;
  config: Pick<Config, "logLevel" | "trustProxy">;
  title: string;
  description: string;
  /** Whether the service can take traffic (false while shutting down or before start-up completes). */
  isReady: () => boolean;
  bodyLimit?: number;
  /** false: no logging; `{ stream }`: JSON lines to that stream (tests capture them). Default stdout. */
  logger?: boolean | { stream: NodeJS.WritableStream };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Builds a bare API app. Routes are added by the caller before `ready()`. */
export async function createHttpApp(options: HttpAppOptions): Promise<App> {
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : ({ ...(loggerOptions(options.config) as object), ...(typeof options.logger === "object" ? { stream: options.logger.stream } : {}) } as object),
    // A hop count is accepted by Fastify (proxy-addr) though its types omit it.
    trustProxy: options.config.trustProxy as boolean | string[],
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Query strings, params, headers and multipart fields arrive as text and are coerced;
  // JSON bodies are validated as sent.
  app.setValidatorCompiler(({ schema, httpPart }) => compileSchema(schema as object, httpPart));

  const correlationHeader = options.kind === "search" ? "x-request-id" : "x-correlation-id";
  app.addHook("onRequest", async (request, reply) => {
    reply.header(correlationHeader, request.id);
  });

  // JSON and form bodies only (multipart where a route registers it): text/plain is refused with 415.
  app.removeContentTypeParser("text/plain");
  await app.register(formbody);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: options.title, description: options.description, version: "1.0.0" },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
          ...(options.kind === "search"
            ? { widgetKey: { type: "apiKey", in: "header", name: "X-Service-Key" } }
            : {}),
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs", staticCSP: true });

  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  app.get(
    "/health",
    {
      schema: {
        tags: ["health"],
        summary: "Readiness: 200 once migrations ran and the service takes traffic",
        response: {
          200: { type: "object", properties: { status: { type: "string", const: "ok" } }, required: ["status"] },
        },
      },
    },
    async (_req, reply) => {
      if (!options.isReady()) throw new AppError("service_unavailable", "The service is starting or stopping.");
      return reply.send({ status: "ok" });
    },
  );

  const present = options.kind === "search" ? presentSearchError : presentAssistantError;
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, "request failed");
    else if (appError.reportable) request.log.warn({ err: error }, "request refused");
    for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
    return present(appError, request, reply);
  });
  app.setNotFoundHandler((request, reply) =>
    present(
      new AppError("route_not_found", `No route ${request.method} ${request.url.split("?")[0]}.`),
      request,
      reply,
    ),
  );
  return app;
}

/** Search API error shape: `{error, message, details}`. */
function presentSearchError(e: AppError, _request: FastifyRequest, reply: FastifyReply) {
  return reply.status(e.status).type("application/json").send({ error: e.code, message: e.message, details: e.details });
}

/** Assistant API error shape: RFC 9457 problem details with a stable `code` and `correlation_id`. */
function presentAssistantError(e: AppError, request: FastifyRequest, reply: FastifyReply) {
  const code = e.assistantCode;
  return reply
    .status(e.status)
    .type("application/problem+json")
    .send({
      type: `https://shopsight.dev/problems/${code.toLowerCase().replace(/_/g, "-")}`,
      title: e.message,
      status: e.status,
      detail: e.message,
      code,
      correlation_id: request.id,
      ...(Object.keys(e.details).length > 0 ? { details: e.details } : {}),
    });
}
