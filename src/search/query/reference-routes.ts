// Search with several reference images (POST /v1/search/multi-image) or by a region of an image
// (POST /v1/search/crop), each as JSON (image URLs) or multipart/form-data (image files).
import type { Static } from "typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import type { Region } from "../../embeddings/image.js";
import { CropBody, CropMultipart, MultiImageBody, MultiImageMultipart } from "./schemas.js";
import { common, jsonModes } from "./modes.js";
import { isMultipart, response, searchGate, sourceOf, tags } from "./route-options.js";
import type { SearchService } from "./service.js";
import "../../embeddings/errors.js"; // registers the error codes thrown here

function parseRegion(text: string): Region {
  try {
    return JSON.parse(text) as Region;
  } catch {
    throw new AppError("invalid_region", 'region must be JSON such as {"x":0,"y":0,"width":0.5,"height":0.5}.');
  }
}

export async function referenceImageSearchRoutes(app: App, ctx: AppContext, { search: service }: { search: SearchService }) {
  const modes = jsonModes(service);
  const gate = searchGate(ctx);

  app.post(
    "/v1/search/multi-image",
    {
      ...gate,
      schema: {
        tags,
        security: bearerSecurity,
        summary: "Search with 2–10 reference images (JSON image_urls, or multipart files `images`); mode average | union | best",
        body: { content: { "application/json": { schema: MultiImageBody }, "multipart/form-data": { schema: MultiImageMultipart } } },
        response,
      },
    },
    async (request) => {
      if (!isMultipart(request)) return modes["multi-image"].run(storeOf(request).id, request.body, sourceOf(request));
      const b = request.body as Static<typeof MultiImageMultipart>;
      const files = Array.isArray(b.images) ? b.images : [b.images];
      return service.multiImage(storeOf(request).id, { files }, b.mode, common(b), sourceOf(request));
    },
  );

  app.post(
    "/v1/search/crop",
    {
      ...gate,
      schema: {
        tags,
        security: bearerSecurity,
        summary: "Search by a region of an image (JSON image_url + region, or multipart image file + region as JSON text)",
        body: { content: { "application/json": { schema: CropBody }, "multipart/form-data": { schema: CropMultipart } } },
        response,
      },
    },
    async (request) => {
      if (!isMultipart(request)) return modes.crop.run(storeOf(request).id, request.body, sourceOf(request));
      const b = request.body as Static<typeof CropMultipart>;
      return service.crop(storeOf(request).id, { file: b.image, region: parseRegion(b.region) }, common(b), sourceOf(request));
    },
  );
}
