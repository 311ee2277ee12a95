// How the Assistant API writes errors: RFC 9457 problem details (application/problem+json) with a
// stable `code` and `correlation_id`, the id also in X-Correlation-Id (spec: assistant-api.md).
import type { ErrorFormat } from "../platform/http/app.js";

export const assistantErrors: ErrorFormat = {
  contentType: "application/problem+json",
  correlationHeader: "x-correlation-id",
  body: (e, id) => {
    const code = e.assistantCode;
    return {
      type: `https://shopsight.dev/problems/${code.toLowerCase().replace(/_/g, "-")}`,
      title: e.message,
      status: e.status,
      detail: e.message,
      code,
      correlation_id: id,
      ...(Object.keys(e.details).length > 0 ? { details: e.details } : {}),
    };
  },
};
