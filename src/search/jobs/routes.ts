// POST /v1/products/bulk and /v1/jobs/{job_id} (spec: Products and jobs).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../../platform/http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { ProductInput } from "../products/schemas.js";
import { QUEUED_BULK_ITEMS } from "../../tenancy/plans.js";
import { BULK_MAX_ITEMS } from "./service.js";
import type { BulkJobsService } from "./service.js";

const queueLimits = Object.entries(QUEUED_BULK_ITEMS)
  .map(([plan, max]) => `${plan} ${max.toLocaleString("en")}`)
  .join(", ");

export async function jobRoutes(app: App, { bulkJobs: bulk }: { bulkJobs: BulkJobsService }) {
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
        body: Type.Object(
          {
            products: Type.Array(ProductInput, { minItems: 1, maxItems: BULK_MAX_ITEMS }),
            callback_url: Type.Optional(Type.String({ maxLength: 2048 })),
            callback_secret: Type.Optional(Type.String({ minLength: 16, maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
        response: {
          202: Type.Object({
            job_id: Type.String(),
            status: Type.Literal("processing"),
            total: Type.Integer(),
            callback_secret: Type.Optional(Type.String()),
          }),
          ...searchErrors(400, 401, 403, 413, 429),
        },
      }),
      bodyLimit: 8 * 1024 * 1024,
    },
    async (request, reply) => {
      const store = storeOf(request);
      return reply.status(202).send(await bulk.create(store.id, store.plan, request.body));
    },
  );

  app.get(
    "/v1/jobs/:job_id",
    storeRoute("products:bulk", {
      tags: ["products"],
      summary: "Status of a bulk job: processing, completed or failed, with per-item errors",
      params: Type.Object({ job_id: Type.String({ maxLength: 100 }) }),
      response: {
        200: Type.Object({
          job_id: Type.String(),
          status: Type.Union([Type.Literal("processing"), Type.Literal("completed"), Type.Literal("failed")]),
          total: Type.Integer(),
          processed: Type.Integer(),
          succeeded: Type.Integer(),
          failed: Type.Integer(),
          errors: Type.Array(Type.Object({ product_id: Type.String(), error: Type.String(), message: Type.String() })),
          summary: Type.String({
            description:
              "One sentence on where the job stands; when items failed on the plan's product limit it names the limit and what to do (remove products or upgrade, then resubmit those items).",
          }),
          created_at: Type.String({ format: "date-time" }),
          finished_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
        }),
        ...searchErrors(401, 403, 404),
      },
    }),
    async (request) => bulk.status(storeOf(request).id, request.params.job_id),
  );
}
