// The HTTP shell shared by both APIs: Fastify with schema-first routes (TypeBox schemas drive
// validation, serialisation and the OpenAPI document), request ids, the API's error shape,
// JSON 404s, /health, /openapi.json and /docs.
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from "fastify";
import formbody from "@fastify/formbody";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Config } from "../config.js";
import { loggerOptions } from "../logging.js";
import { AppError } from "../errors/catalogue.js";
import { toAppError } from "../errors/map.js";
import { compileSchema } from "./validation.js";
import { boundedJsonParser } from "./json-body.js";

/** How an API writes its errors (each API hands in its own: src/search/errors.ts, src/assistant/errors.ts). */
export interface ErrorFormat {
  /** Media type of an error response. */
  contentType: string;
  /** Response header that carries the request id on every response. */
  correlationHeader: string;
  body(e: AppError, requestId: string): Record<string, unknown>;
}
export type { App } from "./types.js";
import type { App } from "./types.js";

/** How a process builds either API's app (src/search/app.ts, src/assistant/app.ts). */
export interface BuildOptions {
  isReady?: () => boolean;
  /** false: silent; `{ stream }`: JSON log lines to that stream (tests). */
  logger?: boolean | { stream: NodeJS.WritableStream };
}

export interface HttpAppOptions {
  errors: ErrorFormat;
  /** OpenAPI security schemes besides bearer (e.g. the Search API's widget key). */
  securitySchemes?: Record<string, object>;
  config: Pick<Config, "logLevel" | "trustProxy" | "http">;
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
        : {
            ...(loggerOptions(options.config) as object),
            ...(typeof options.logger === "object" ? { stream: options.logger.stream } : {}),
          },
    // A hop count is accepted by Fastify (proxy-addr) though its types omit it.
    trustProxy: options.config.trustProxy as boolean | string[],
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // Time limits of the HTTP server (README "Configuration", HTTP_*_TIMEOUT_MS): a request trickled in slower
    // than requestTimeout is cut with 408 in the API's shape (clientErrorHandler below).
    requestTimeout: options.config.http.requestTimeoutMs,
    keepAliveTimeout: options.config.http.keepAliveTimeoutMs,
    connectionTimeout: options.config.http.connectionTimeoutMs,
    http: {
      headersTimeout: options.config.http.headersTimeoutMs,
      // Node checks the two limits above on this interval (its default, 30 s, would let a
      // trickled request run that much past its limit).
      connectionsCheckingInterval: checkingInterval(options.config.http),
      // A request without Host reaches the API, which answers in its own error shape (Node's own
      // refusal is an empty 400).
      requireHostHeader: false,
    },
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: "request_id" }),
    return503OnClosing: true,
    // The router's own refusals (a path that does not percent-decode, a path parameter over
    // maxParamLength) in the API's error shape instead of Fastify's.
    frameworkErrors: (error, request, reply) => {
      const appError = toAppError(error);
      request.log.info({ code: (error as { code?: string }).code }, "request refused by the router");
      void present(appError, request, reply);
    },
    // Requests Node's HTTP parser cannot read (bad header bytes, oversized headers): answered on
    // the socket in the API's error shape, since no request object exists.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => answerClientError(options.errors, error, socket),
  }).withTypeProvider<TypeBoxTypeProvider>();
  const present = presenter(options.errors);

  // Query strings, params, headers and multipart fields arrive as text and are coerced;
  // JSON bodies are validated as sent.
  app.setValidatorCompiler(({ schema, httpPart }) => compileSchema(schema as object, httpPart));

  const correlationHeader = options.errors.correlationHeader;
  app.addHook("onRequest", async (request, reply) => {
    reply.header(correlationHeader, request.id);
    if (request.raw.httpVersion === "1.1" && !request.headers.host) {
      throw new AppError("validation_failed", "The request has no Host header, which HTTP/1.1 requires: send Host with the server's name.");
    }
    // PostgreSQL text cannot hold NUL: refused here rather than failing in a query.
    if (/%00/.test(request.url)) throw new AppError("validation_failed", "The URL contains a NUL character (%00); remove it.");
  });

  // JSON and form bodies only (multipart where a route registers it): text/plain is refused with 415.
  // JSON bodies are bounded in depth and keys per object before any handler runs (json-body.ts).
  app.removeContentTypeParser("text/plain");
  refuseUndeclaredBodyTypes(app);
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, boundedJsonParser(app.getDefaultJsonParser("error", "error")));
  await app.register(formbody);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: options.title, description: options.description, version: "1.0.0" },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
          ...options.securitySchemes,
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

  app.setErrorHandler((error, request, reply) => {
    const appError = nameAcceptedTypes(toAppError(error), request);
    if (appError.status >= 500) request.log.error({ err: error }, "request failed");
    else if (appError.reportable) request.log.warn({ err: error }, "request refused");
    else if (appError.cause !== undefined) request.log.info({ code: appError.code, cause: detailOf(appError.cause) }, "request refused");
    for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
    return present(appError, request, reply);
  });
  app.setNotFoundHandler((request, reply) =>
    present(new AppError("route_not_found", `No route ${request.method} ${request.url.split("?")[0]}.`), request, reply),
  );
  return app;
}

interface BodySchemaOptions {
  consumes?: string[];
  body?: { content?: Record<string, unknown> };
}

/** The content types a route accepts: its body schema per content type, its OpenAPI `consumes`, else JSON. */
function acceptedTypes(schema: BodySchemaOptions | undefined): string[] {
  const perType = schema?.body?.content ? Object.keys(schema.body.content) : [];
  if (perType.length > 0) return perType;
  return schema?.consumes && schema.consumes.length > 0 ? schema.consumes : ["application/json"];
}

/** A 415 names the content types the route accepts. */
function nameAcceptedTypes(e: AppError, request: FastifyRequest): AppError {
  if (e.code !== "unsupported_media_type" || e.details.accepted !== undefined) return e;
  const accepted = acceptedTypes(request.routeOptions.schema as BodySchemaOptions | undefined);
  const sent = request.headers["content-type"];
  const got = sent
    ? `Content-Type ${sent.split(";")[0]!.trim()} is not accepted here`
    : "The request has a body but no Content-Type header";
  return new AppError("unsupported_media_type", `${got}: send the body as ${accepted.join(" or ")}.`, { accepted }, e.headers);
}

/**
 * Routes whose body schema is given per content type (JSON or multipart) are validated only for
 * those types: a body of another type that some parser still reads (form-urlencoded) would reach
 * the handler unvalidated. Such bodies are refused with 415 before validation.
 */
function refuseUndeclaredBodyTypes(app: App): void {
  app.addHook("onRoute", (route) => {
    const content = (route.schema as BodySchemaOptions | undefined)?.body?.content;
    if (!content) return;
    const accepted = Object.keys(content);
    const check = async (request: FastifyRequest) => {
      if (request.body === undefined) return;
      const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      if (!accepted.includes(type)) throw new AppError("unsupported_media_type");
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [check] : [check, ...(Array.isArray(existing) ? existing : [existing])];
  });
}

/** What the log keeps of an error's internal cause: its message and any details it carries. */
function detailOf(cause: unknown): unknown {
  if (!(cause instanceof Error)) return cause;
  const details = (cause as { details?: unknown }).details;
  return { message: cause.message, ...(details && typeof details === "object" ? details : {}) };
}

/** How often Node checks the request and header time limits: a quarter of the shorter one, 0.25 s to 30 s. */
function checkingInterval(limits: Config["http"]): number {
  const shortest = Math.min(...[limits.requestTimeoutMs, limits.headersTimeoutMs].filter((ms) => ms > 0));
  return Math.min(30_000, Math.max(250, Math.floor(shortest / 4)));
}

const CLIENT_ERRORS: Record<string, AppError> = {
  ERR_HTTP_REQUEST_TIMEOUT: new AppError("request_timeout"),
  HPE_HEADER_OVERFLOW: new AppError("headers_too_large"),
  HPE_URI_TOO_LONG: new AppError("uri_too_long", "The request URL is too long; shorten it."),
};

/** Answers a request Node could not parse, in the API's error shape, and closes the connection. */
function answerClientError(format: ErrorFormat, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const e =
    CLIENT_ERRORS[error.code ?? ""] ??
    new AppError("validation_failed", "The request could not be parsed as HTTP/1.1: check the request line and the header syntax.");
  const id = randomUUID();
  const body = JSON.stringify(format.body(e, id));
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? "Error"}\r\n` +
      `Content-Type: ${format.contentType}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n` +
      `${format.correlationHeader}: ${id}\r\n\r\n${body}`,
  );
}

function presenter(format: ErrorFormat) {
  return (e: AppError, request: FastifyRequest, reply: FastifyReply) =>
    reply.status(e.status).header(format.correlationHeader, request.id).type(format.contentType).send(format.body(e, request.id));
}
