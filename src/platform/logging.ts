// Structured JSON logs (pino, through Fastify). Secrets never reach a log line: the redaction
// list covers credentials in headers and bodies wherever they appear.
import type { FastifyServerOptions } from "fastify";
import type { Config } from "./config.js";

export const redactPaths = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-service-key"]',
  "*.password",
  "*.client_secret",
  "*.totp_code",
  "*.private_token",
  "*.secret",
  "*.access_token",
];

export function loggerOptions(config: Pick<Config, "logLevel">): FastifyServerOptions["logger"] {
  return { level: config.logLevel, redact: { paths: redactPaths, censor: "[redacted]" } };
}
