// How the Search API writes errors: `{error, message, details}` as application/json, the request
// id in X-Request-Id (spec: search-api.md, errors).
import type { ErrorFormat } from "../platform/http/app.js";

export const searchErrors: ErrorFormat = {
  contentType: "application/json",
  correlationHeader: "x-request-id",
  body: (e) => ({ error: e.code, message: e.message, details: e.details }),
};

/** The Search API's security schemes besides bearer tokens: the public widget key. */
export const searchSecuritySchemes = { widgetKey: { type: "apiKey", in: "header", name: "X-Service-Key" } };
