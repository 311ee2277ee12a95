// How a search body becomes a call of the search service: the fields every mode shares (with
// their defaults), `understand`, and the JSON modes by batch `type` (each its body schema and its
// run), used by the mode routes, the batch route and the widget.
import type { Static, TSchema } from "typebox";
import { BATCH_TYPES, CropBody, FilteredBody, FusionBody, HybridBody, MultiImageBody, TextBody, UrlBody } from "./schemas.js";
import type { Common, SearchResponse, SearchService, SearchSource, TextRanking, UnderstandMode } from "./service.js";

/** The fields every search body may carry (each body schema declares the ones it takes; see schemas.ts). */
export type CommonFields = Partial<
  Pick<Common, "limit" | "threshold" | "category" | "price_min" | "price_max" | "color" | "metadata_filters">
>;

/** A body's common fields with their defaults (limit 10 for the API; the widget asks 12). */
export const common = (b: CommonFields, defaultLimit = 10): Common => ({
  limit: b.limit ?? defaultLimit,
  threshold: b.threshold ?? 0,
  category: b.category,
  price_min: b.price_min,
  price_max: b.price_max,
  color: b.color,
  metadata_filters: b.metadata_filters,
});

const ranking = (b: TextRanking): TextRanking => ({ semantic_weight: b.semantic_weight, fusion_method: b.fusion_method });
/** `understand` as sent: absent → auto (boost, echoed when something was understood), true → boost, false → off. */
export const understandMode = (u: unknown): UnderstandMode =>
  u === undefined ? "auto" : u === true ? "boost" : u === "boost" || u === "filter" ? u : "off";

/** A JSON mode: its body schema, and a run of a body that schema validated. */
export interface JsonMode {
  schema: TSchema;
  run: (storeId: string, body: unknown, source: SearchSource) => Promise<SearchResponse>;
}

/**
 * A JSON mode: its body schema and a run typed by it. Bodies reach `run` only after that schema
 * validated them (the route's schema, or the batch item's validator), so the body is `Static<S>`.
 */
function mode<S extends TSchema>(schema: S, run: (storeId: string, b: Static<S>, source: SearchSource) => Promise<SearchResponse>) {
  return { schema, run: (storeId: string, body: unknown, source: SearchSource) => run(storeId, body as Static<S>, source) };
}

/** The JSON modes, by batch `type`: each validates its body and runs. */
export function jsonModes(service: SearchService) {
  return {
    url: mode(UrlBody, (s, b, source) => service.url(s, b.image_url, common(b), source)),
    text: mode(TextBody, (s, b, source) =>
      service.text(s, b.query, common(b), source, { ...ranking(b), understand: understandMode(b.understand) }),
    ),
    hybrid: mode(HybridBody, (s, b, source) =>
      service.hybrid(
        s,
        { image_url: b.image_url, query: b.query, colors: b.colors, visual_weight: b.visual_weight, ...ranking(b) },
        common(b),
        source,
      ),
    ),
    fusion: mode(FusionBody, (s, b, source) =>
      service.fusion(s, { image_url: b.image_url, query: b.query, image_weight: b.image_weight, ...ranking(b) }, common(b), source),
    ),
    "multi-image": mode(MultiImageBody, (s, b, source) => service.multiImage(s, { urls: b.image_urls }, b.mode, common(b), source)),
    crop: mode(CropBody, (s, b, source) => service.crop(s, { image_url: b.image_url, region: b.region }, common(b), source)),
    filtered: mode(FilteredBody, (s, b, source) =>
      service.filtered(
        s,
        { image_url: b.image_url, query: b.query },
        { ...common(b), metadata_filters: [...(b.metadata_filters ?? []), ...b.filters] },
        source,
      ),
    ),
  } satisfies Record<(typeof BATCH_TYPES)[number], JsonMode>;
}
export type JsonModes = ReturnType<typeof jsonModes>;
