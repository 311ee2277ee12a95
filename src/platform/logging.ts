// Structured JSON logs (pino, through Fastify): one line per event with `request_id` (the
// X-Request-Id / X-Correlation-Id the API answers with), `pid` and `hostname`. Secrets never reach
// a log line:
//   - request lines carry method, URL, host and client address only (no headers, no bodies), and
//     the URL's query values of credential-like parameters (?token=, ?key=, ?secret=, ?code=, …)
//     are replaced by "[redacted]";
//   - the redaction list below censors credential fields wherever a logged object carries them
//     (headers, bodies, error details), one or two levels deep.
// src/platform/logging.test.ts drives real requests (registration, verification, login, machine
// grant, API keys, widget keys) and asserts that none of their secrets appears in the output.
import type { FastifyServerOptions } from "fastify";
import type { Config } from "./config.js";

export const CENSOR = "[redacted]";

/** Header names whose values are credentials. */
const SECRET_HEADERS = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-service-key",
  "x-api-key",
  "x-webhook-signature",
  "stripe-signature",
];

/** Field names whose values are credentials, in bodies, query objects and error details. */
const SECRET_FIELDS = [
  "password",
  "new_password",
  "current_password",
  "client_secret",
  "secret",
  "totp_code",
  "private_token",
  "access_token",
  "refresh_token",
  "token",
  "key",
  "api_key",
  "authorization",
  "cookie",
];

export const redactPaths = [
  ...SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `res.headers["${h}"]`, `headers["${h}"]`]),
  ...SECRET_FIELDS.flatMap((f) => [`*.${f}`, `*.*.${f}`]),
];

/** Query parameters whose values are never logged. */
const SECRET_PARAM = /token|secret|password|passwd|key|code|signature|session|auth|credential|jwt/i;

/** `url` with the values of credential-like query parameters replaced by "[redacted]". */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, " "));
      } catch {
        // keep the raw name
      }
      return SECRET_PARAM.test(name) ? `${pair.slice(0, eq)}=${CENSOR}` : pair;
    })
    .join("&");
  return `${url.slice(0, q)}?${query}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

export function loggerOptions(config: Pick<Config, "logLevel">): FastifyServerOptions["logger"] {
  return {
    level: config.logLevel,
    redact: { paths: redactPaths, censor: CENSOR },
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  };
}
