// /v1/jobs/{job_id} (spec: Products and jobs).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../platform/context.js";
import { searchErrors } from "../../platform/http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { BulkJobsService } from "./service.js";

export async function jobRoutes(app: App, ctx: AppContext) {
  const bulk = new BulkJobsService(ctx);
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
