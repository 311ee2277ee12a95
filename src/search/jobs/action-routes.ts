// The bulk actions on products, POST /v1/products/bulk-delete and /v1/products/bulk-update: jobs
// over a selection, run like bulk imports (progress: GET /v1/jobs/{job_id}); registered by
// ./routes.ts.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { requirePermission, storeRoute } from "../../tenancy/permissions.js";
import type { BulkActionsService } from "./actions.js";
import { BULK_ACTION_MAX_IDS, BULK_ACTION_MAX_MATCHED, BulkActionAccepted, BulkDeleteBody, BulkUpdateBody } from "./schemas.js";

const selectionHelp =
  `Select products by ids (up to ${BULK_ACTION_MAX_IDS}) or by a filter (the search pre-filters plus brand, tags and availability; at most ${BULK_ACTION_MAX_MATCHED.toLocaleString("en")} matches), not both; ` +
  "the selection is fixed when the job is created. Ids the store does not have (another store's included) are reported per item as not_found; an empty selection is 400. " +
  "Progress, per-item errors and the callback are those of bulk imports (GET /v1/jobs/{job_id}); the job's items count against the plan's waiting bulk items.";

export async function bulkActionRoutes(app: App, { bulkActions: actions }: { bulkActions: BulkActionsService }) {
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
}
