// /v1/search/* (spec: Search (Bearer)). Every mode answers the search response shape
// {query_time_ms, count, results[{product_id, similarity_score, metadata}], search_id}.
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type, type Static, type TSchema } from "typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { AppError, isAppError } from "../../platform/errors/catalogue.js";
import { bearerSecurity } from "../../platform/http/schemas.js";
import { searchErrors, SearchErrorSchema } from "../http/schemas.js";
import { strictAjv, validateBody } from "../../platform/http/validation.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { requirePermission } from "../../tenancy/permissions.js";
import type { Region } from "../../embeddings/image.js";
import {
  BATCH_TYPES,
  BatchBody,
  CropBody,
  CropMultipart,
  FilteredBody,
  FusionBody,
  HybridBody,
  MultiImageBody,
  StoreModelStatusSchema,
  MultiImageMultipart,
  SearchResponseSchema,
  TextBody,
  UploadMultipart,
  UrlBody,
} from "./schemas.js";
import { modelStatus } from "./model.js";
import type { Reindexer } from "../products/reindex.js";
import { SearchService, type Common, type SearchResponse, type SearchSource, type TextRanking, type UnderstandMode } from "./service.js";
import "../../embeddings/errors.js"; // registers the error codes thrown here

const tags = ["search"];
const errors = searchErrors(400, 401, 403, 413, 415, 422, 429, 503);

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

const isMultipart = (request: FastifyRequest) => (request.headers["content-type"] ?? "").startsWith("multipart/form-data");

function parseRegion(text: string): Region {
  try {
    return JSON.parse(text) as Region;
  } catch {
    throw new AppError("invalid_region", 'region must be JSON such as {"x":0,"y":0,"width":0.5,"height":0.5}.');
  }
}

/**
 * A JSON mode: its body schema and a run typed by it. Bodies reach `run` only after that schema
 * validated them (the route's schema, or the batch item's validator), so the body is `Static<S>`.
 */
function mode<S extends TSchema>(schema: S, run: (storeId: string, b: Static<S>, source: SearchSource) => Promise<SearchResponse>) {
  return { schema, run: (storeId: string, body: unknown, source: SearchSource) => run(storeId, body as Static<S>, source) };
}

/** Where a search comes from: a user login is a person (the portal's playground), anything else the store's backend. */
const sourceOf = (request: FastifyRequest): SearchSource => (request.principal?.kind === "user" ? "portal" : "api");

/** The JSON modes, by batch `type`: each validates its body and runs. */
function jsonModes(service: SearchService) {
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
  } satisfies Record<
    (typeof BATCH_TYPES)[number],
    { schema: TSchema; run: (storeId: string, body: unknown, source: SearchSource) => Promise<SearchResponse> }
  >;
}

export async function searchRoutes(
  app: App,
  ctx: AppContext,
  { search: service, reindexer }: { search: SearchService; reindexer: Reindexer },
) {
  const modes = jsonModes(service);
  // Every search response names the active model (X-Shopsight-Model), errors included.
  const modelHeader = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header("x-shopsight-model", modelStatus(ctx).model_id);
  };
  const gate = { config: { auth: "store" as const }, onRequest: modelHeader, preHandler: requirePermission("search:execute") };

  app.get(
    "/v1/search/model",
    {
      ...gate,
      schema: {
        tags,
        security: bearerSecurity,
        summary:
          "The active embedding model: id, dimensions, whether it is the built-in test model, status, duplicate detection and text-ranking defaults",
        response: { 200: StoreModelStatusSchema, ...searchErrors(401, 403, 429) },
      },
    },
    async (request) => ({ ...modelStatus(ctx), reindex: await reindexer.progress(storeOf(request).id) }),
  );
  const response = { 200: SearchResponseSchema, ...errors };

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

  const jsonRoute = (path: string, type: keyof typeof modes, summary: string) =>
    app.post(path, { ...gate, schema: { tags, security: bearerSecurity, summary, body: modes[type].schema, response } }, async (request) =>
      modes[type].run(storeOf(request).id, request.body, sourceOf(request)),
    );
  jsonRoute("/v1/search/url", "url", "Search by an image URL");
  jsonRoute("/v1/search/text", "text", "Natural-language search");
  jsonRoute(
    "/v1/search/hybrid",
    "hybrid",
    "Image + text blended by visual_weight, colours scored by distance, metadata filters before ranking",
  );
  jsonRoute("/v1/search/fusion", "fusion", "Image and text embeddings blended by image_weight; the nearest product's category is boosted");
  jsonRoute("/v1/search/filtered", "filtered", "Visual (image_url) or text (query) search restricted by payload filters");

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

  const batchValidators = Object.fromEntries(
    Object.entries(modes).map(([type, m]) => [
      type,
      strictAjv.compile({ ...m.schema, properties: { ...(m.schema as { properties?: object }).properties, type: {} } }),
    ]),
  );
  app.post(
    "/v1/search/batch",
    {
      ...gate,
      schema: {
        tags,
        security: bearerSecurity,
        summary: "Up to 20 searches in one request; each item answers a search response or its own error",
        body: BatchBody,
        response: {
          200: Type.Object({ results: Type.Array(Type.Union([SearchResponseSchema, SearchErrorSchema])) }),
          ...errors,
        },
      },
    },
    async (request) => {
      const storeId = storeOf(request).id;
      const results = [];
      for (const [i, q] of request.body.queries.entries()) {
        const type = q.type as keyof typeof modes;
        const invalid = validateBody(batchValidators[type]!, q, `queries.${i}`);
        try {
          if (invalid) throw invalid;
          results.push(await modes[type].run(storeId, q, sourceOf(request)));
        } catch (error) {
          if (!isAppError(error) || error.status >= 500) throw error;
          results.push({ error: error.code, message: error.message, details: error.details });
        }
      }
      return { results };
    },
  );
}
