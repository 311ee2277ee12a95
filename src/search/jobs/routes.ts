// POST /v1/products/bulk and GET /v1/jobs/{job_id} (spec: Products and jobs), with the bulk
// actions POST /v1/products/bulk-delete and bulk-update (./action-routes.ts) registered between
// them: the OpenAPI document lists paths in registration order, and the portal's generated API
// types follow it.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { QUEUED_BULK_ITEMS } from "../../tenancy/plans.js";
import { BULK_MAX_ITEMS } from "./service.js";
import type { BulkJobsService } from "./service.js";
import type { BulkActionsService } from "./actions.js";
import { bulkActionRoutes } from "./action-routes.js";
import { BulkImportAccepted, BulkImportBody, JobParams, JobStatus } from "./schemas.js";
import type { Reindexer } from "../products/reindex.js";

const queueLimits = Object.entries(QUEUED_BULK_ITEMS)
  .map(([plan, max]) => `${plan} ${max.toLocaleString("en")}`)
  .join(", ");

export async function jobRoutes(app: App, services: { bulkJobs: BulkJobsService; bulkActions: BulkActionsService; reindexer: Reindexer }) {
  const { bulkJobs: bulk, reindexer } = services;
  app.post(
    "/v1/products/bulk",
    {
      ...storeRoute("products:bulk", {
        tags: ["products"],
        summary: `Index up to ${BULK_MAX_ITEMS} products in the background; 202 at once`,
        description:
          'When the job finishes, callback_url receives {event: "bulk.completed", job_id, status, total, succeeded, failed, finished_at} signed like webhooks (X-Webhook-Signature) with callback_secret — the one given, or one generated and returned here once. ' +
          `A store may have a plan-dependent number of items waiting (${queueLimits}); a job that would exceed it is refused with 429 queue_limit_reached. ` +
          "Jobs of different stores share the workers fairly: one store runs at most JOBS_PER_STORE jobs at once, and a long job yields its slot to a waiting store after JOBS_SLICE_SECONDS.",
        body: BulkImportBody,
        response: { 202: BulkImportAccepted, ...searchErrors(400, 401, 403, 413, 429) },
      }),
      bodyLimit: 8 * 1024 * 1024,
    },
    async (request, reply) => {
      const store = storeOf(request);
      return reply.status(202).send(await bulk.create(store.id, store.plan, request.body));
    },
  );

  await bulkActionRoutes(app, services);

  app.get(
    "/v1/jobs/:job_id",
    storeRoute("products:bulk", {
      tags: ["products"],
      summary: "Status of a bulk job or a reindex (POST /v1/products/reindex): processing, completed or failed, with per-item errors",
      params: JobParams,
      response: { 200: JobStatus, ...searchErrors(401, 403, 404) },
    }),
    async (request) => {
      const storeId = storeOf(request).id;
      return (await reindexer.status(storeId, request.params.job_id)) ?? bulk.status(storeId, request.params.job_id);
    },
  );
}
