// The text modes of /v1/search (spec: Search (Bearer)): natural-language text, and text with an
// image (hybrid, fusion) or with payload filters (filtered).
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { jsonModes } from "./modes.js";
import { jsonModeRoute } from "./route-options.js";
import type { SearchService } from "./service.js";

export async function textSearchRoutes(app: App, ctx: AppContext, { search: service }: { search: SearchService }) {
  const modes = jsonModes(service);
  const route = (path: string, type: "text" | "hybrid" | "fusion" | "filtered", summary: string) =>
    jsonModeRoute(app, ctx, modes, path, type, summary);

  route("/v1/search/text", "text", "Natural-language search");
  route(
    "/v1/search/hybrid",
    "hybrid",
    "Image + text blended by visual_weight, colours scored by distance, metadata filters before ranking",
  );
  route("/v1/search/fusion", "fusion", "Image and text embeddings blended by image_weight; the nearest product's category is boosted");
  route("/v1/search/filtered", "filtered", "Visual (image_url) or text (query) search restricted by payload filters");
}
