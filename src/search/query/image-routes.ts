// Search by one image (spec: Search (Bearer)): an uploaded image (POST /v1/search, multipart) or
// an image URL (POST /v1/search/url).
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { UploadMultipart } from "./schemas.js";
import { common, jsonModes } from "./modes.js";
import { jsonModeRoute, response, searchGate, sourceOf, tags } from "./route-options.js";
import type { SearchService } from "./service.js";

export async function imageSearchRoutes(app: App, ctx: AppContext, { search: service }: { search: SearchService }) {
  const modes = jsonModes(service);
  const gate = searchGate(ctx);

  app.post(
    "/v1/search",
    {
      ...gate,
      schema: {
        tags,
        security: bearerSecurity,
        summary: "Search by an uploaded image (multipart/form-data: image file, limit, threshold, category, price_min, price_max, color)",
        consumes: ["multipart/form-data"],
        body: UploadMultipart,
        response,
      },
    },
    async (request) => {
      const b = request.body;
      return service.upload(storeOf(request).id, b.image, common(b), sourceOf(request));
    },
  );

  jsonModeRoute(app, ctx, modes, "/v1/search/url", "url", "Search by an image URL");
}
