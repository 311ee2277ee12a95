// POST /v1/products/bulk, the bulk actions POST /v1/products/bulk-delete and bulk-update, and
// GET /v1/jobs/{job_id} (spec: Products and jobs).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { requirePermission, storeRoute } from "../../tenancy/permissions.js";
import { ProductInput } from "../products/schemas.js";
import { QUEUED_BULK_ITEMS } from "../../tenancy/plans.js";
import { BULK_MAX_ITEMS } from "./service.js";
import type { BulkJobsService } from "./service.js";
import type { BulkActionsService } from "./actions.js";
import { BULK_ACTION_MAX_IDS, BULK_ACTION_MAX_MATCHED, BulkActionAccepted, BulkDeleteBody, BulkUpdateBody } from "./schemas.js";
import type { Reindexer } from "../products/reindex.js";

const queueLimits = Object.entries(QUEUED_BULK_ITEMS)
  .map(([plan, max]) => `${plan} ${max.toLocaleString("en")}`)
  .join(", ");

const selectionHelp =
  `Select products by ids (up to ${BULK_ACTION_MAX_IDS}) or by a filter (the search pre-filters plus brand, tags and availability; at most ${BULK_ACTION_MAX_MATCHED.toLocaleString("en")} matches), not both; ` +
  "the selection is fixed when the job is created. Ids the store does not have (another store's included) are reported per item as not_found; an empty selection is 400. " +
  "Progress, per-item errors and the callback are those of bulk imports (GET /v1/jobs/{job_id}); the job's items count against the plan's waiting bulk items.";

export async function jobRoutes(
  app: App,
  { bulkJobs: bulk, bulkActions: actions, reindexer }: { bulkJobs: BulkJobsService; bulkActions: BulkActionsService; reindexer: Reindexer },
) {
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

  app.post(
    "/v1/products/bulk-delete",
    storeRoute(
      "products:bulk",
      {
        tags: ["products"],
        summary: "Delete a selection of products (with their vectors, images and text index rows) in the background; 202 at once",
        description: `Needs products:bulk and products:delete. ${selectionHelp}`,
        body: BulkDeleteBody,
        response: { 202: BulkActionAccepted, ...searchErrors(400, 401, 403, 429) },
      },
      requirePermission("products:delete"),
    ),
    async (request, reply) => {
      const store = storeOf(request);
      return reply.status(202).send(await actions.delete(store.id, store.plan, request.body));
    },
  );

  app.post(
    "/v1/products/bulk-update",
    storeRoute(
      "products:bulk",
      {
        tags: ["products"],
        summary: "Set category, brand, tags or availability of a selection of products in the background; 202 at once",
        description:
          "Needs products:bulk and products:write. `set` replaces fields (null removes one); add_tags and remove_tags change the tags (ignoring case) and cannot be combined with set.tags. " +
          `Other metadata, the image and the vector are kept. ${selectionHelp}`,
        body: BulkUpdateBody,
        response: { 202: BulkActionAccepted, ...searchErrors(400, 401, 403, 429) },
      },
      requirePermission("products:write"),
    ),
    async (request, reply) => {
      const store = storeOf(request);
      return reply.status(202).send(await actions.update(store.id, store.plan, request.body));
    },
  );

  app.get(
    "/v1/jobs/:job_id",
    storeRoute("products:bulk", {
      tags: ["products"],
      summary: "Status of a bulk job or a reindex (POST /v1/products/reindex): processing, completed or failed, with per-item errors",
      params: Type.Object({ job_id: Type.String({ maxLength: 100 }) }),
      response: {
        200: Type.Object({
          job_id: Type.String(),
          status: Type.Union([Type.Literal("processing"), Type.Literal("completed"), Type.Literal("failed")]),
          action: Type.Optional(
            Type.Union([Type.Literal("import"), Type.Literal("delete"), Type.Literal("update")], {
              description: "What a bulk job does: import (POST /v1/products/bulk), delete or update (bulk actions)",
            }),
          ),
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
    async (request) => {
      const storeId = storeOf(request).id;
      return (await reindexer.status(storeId, request.params.job_id)) ?? bulk.status(storeId, request.params.job_id);
    },
  );
}
