// /v1/search/* (spec: Search (Bearer)). Every mode answers the search response shape
// {query_time_ms, count, results[{product_id, similarity_score, metadata}], search_id}; every
// answer, errors included, names the active model (X-Shopsight-Model; ./route-options.ts).
// The parts, registered in this order (the OpenAPI document lists paths in registration order,
// and the portal's generated API types follow it):
//   GET /v1/search/model                                     ./model-routes.ts
//   POST /v1/search (upload), /v1/search/url                 ./image-routes.ts (multipart: ../http/uploads.ts)
//   POST /v1/search/text, hybrid, fusion, filtered           ./text-routes.ts
//   POST /v1/search/multi-image, crop (JSON or multipart)    ./reference-routes.ts
//   POST /v1/search/batch                                    ./batch-routes.ts
// How bodies become service calls: ./modes.ts.
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import type { Reindexer } from "../products/reindex.js";
import { searchModelRoutes } from "./model-routes.js";
import { imageSearchRoutes } from "./image-routes.js";
import { textSearchRoutes } from "./text-routes.js";
import { referenceImageSearchRoutes } from "./reference-routes.js";
import { batchSearchRoutes } from "./batch-routes.js";
import { withUploads } from "../http/uploads.js";
import type { SearchService } from "./service.js";

export async function searchRoutes(app: App, ctx: AppContext, services: { search: SearchService; reindexer: Reindexer }) {
  await searchModelRoutes(app, ctx, services);
  await withUploads(app, ctx, (scope) => imageSearchRoutes(scope, ctx, services));
  await textSearchRoutes(app, ctx, services);
  await withUploads(app, ctx, (scope) => referenceImageSearchRoutes(scope, ctx, services));
  await batchSearchRoutes(app, ctx, services);
}
