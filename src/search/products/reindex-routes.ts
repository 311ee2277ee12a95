// POST /v1/products/reindex (issue 38: a reindex that takes effect in the running server; not in
// the spec, which has no such call). Progress: GET /v1/jobs/{job_id} (src/search/jobs/routes.ts).
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import type { Reindexer } from "./reindex.js";
import { ReindexAccepted, ReindexQuery } from "./schemas.js";

export async function reindexRoutes(app: App, { reindexer }: { reindexer: Reindexer }) {
  app.post(
    "/v1/products/reindex",
    storeRoute("products:write", {
      tags: ["products"],
      summary: "Re-embed the store's products with the loaded model in the background; 202 at once",
      description:
        "Re-embeds, from their stored images, the products embedded by another model than the loaded CLIP_MODEL (all of them with `?all=true`), as a background job of the server: each new vector is searched as soon as it is written. " +
        "A reindex already waiting or running for the store is returned instead of a second one (`queued: false`). Progress: GET /v1/jobs/{job_id}. 503 model_unavailable when the service runs without a model.",
      querystring: ReindexQuery,
      response: { 202: ReindexAccepted, ...searchErrors(400, 401, 403, 503) },
    }),
    async (request, reply) => {
      const storeId = storeOf(request).id;
      const { jobId, queued } = await reindexer.enqueue(storeId, { all: request.query.all === true });
      const status = await reindexer.status(storeId, jobId);
      return reply.status(202).send({ job_id: jobId, status: "processing" as const, total: status?.total ?? 0, queued });
    },
  );
}
