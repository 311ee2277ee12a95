// GET /v1/search/model: the active embedding model and where the store's products stand with it
// (its latest reindex, src/search/products/reindex.ts).
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import type { Reindexer } from "../products/reindex.js";
import { StoreModelStatusSchema } from "./schemas.js";
import { modelStatus } from "./model.js";
import { searchGate, tags } from "./route-options.js";

export async function searchModelRoutes(app: App, ctx: AppContext, { reindexer }: { reindexer: Reindexer }) {
  app.get(
    "/v1/search/model",
    {
      ...searchGate(ctx),
      schema: {
        tags,
        security: bearerSecurity,
        summary:
          "The active embedding model: id, dimensions, whether it is the built-in test model, status, duplicate detection and text-ranking defaults",
        response: { 200: StoreModelStatusSchema, ...searchErrors(401, 403, 429) },
      },
    },
    async (request) => ({ ...modelStatus(ctx), reindex: await reindexer.progress(storeOf(request).id) }),
  );
}
