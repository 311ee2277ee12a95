// POST /v1/search/batch: up to 20 searches of the JSON modes in one request; each item answers a
// search response or its own error (validated by its mode's body schema, errors below 500 kept per item).
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { isAppError } from "../../platform/errors/catalogue.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { strictAjv, validateBody } from "../../platform/http/validation.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { BatchBody, BatchResponse } from "./schemas.js";
import { jsonModes } from "./modes.js";
import { errors, searchGate, sourceOf, tags } from "./route-options.js";
import type { SearchService } from "./service.js";

export async function batchSearchRoutes(app: App, ctx: AppContext, { search: service }: { search: SearchService }) {
  const modes = jsonModes(service);
  const batchValidators = Object.fromEntries(
    Object.entries(modes).map(([type, m]) => [
      type,
      strictAjv.compile({ ...m.schema, properties: { ...(m.schema as { properties?: object }).properties, type: {} } }),
    ]),
  );
  app.post(
    "/v1/search/batch",
    {
      ...searchGate(ctx),
      schema: {
        tags,
        security: bearerSecurity,
        summary: "Up to 20 searches in one request; each item answers a search response or its own error",
        body: BatchBody,
        response: { 200: BatchResponse, ...errors },
      },
    },
    async (request) => {
      const storeId = storeOf(request).id;
      const results = [];
      for (const [i, q] of request.body.queries.entries()) {
        const type = q.type as keyof typeof modes;
        const invalid = validateBody(batchValidators[type]!, q, `queries.${i}`);
        try {
          if (invalid) throw invalid;
          results.push(await modes[type].run(storeId, q, sourceOf(request)));
        } catch (error) {
          if (!isAppError(error) || error.status >= 500) throw error;
          results.push({ error: error.code, message: error.message, details: error.details });
        }
      }
      return { results };
    },
  );
}
