// Request and response schemas of the search modes. Bodies of modes that accept uploads are
// given per content type (JSON, multipart/form-data); multipart fields arrive as text and are
// coerced (the `x-coerce` marker selects the coercing validator).
import { Type, type TSchema } from "typebox";
import { OPERATORS } from "./filters.js";
import { FIELD_PATTERN } from "../products/schemas.js";
import { SearchErrorSchema } from "../http/schemas.js";

export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "Results wanted (default 10, at most 100)" });
export const Threshold = Type.Number({ minimum: 0, maximum: 1, default: 0, description: "Minimum similarity_score (0–1, default 0)" });
const Hex = Type.String({ pattern: "^#?[0-9a-fA-F]{6}$" });

export const MetadataFilterSchema = Type.Object(
  {
    field: Type.String({ pattern: FIELD_PATTERN, description: "Metadata key; dotted for nested keys" }),
    operator: Type.Union(OPERATORS.map((o) => Type.Literal(o))),
    value: Type.Union([
      Type.String({ maxLength: 500 }),
      Type.Number(),
      Type.Boolean(),
      Type.Array(Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean()]), { maxItems: 100 }),
    ]),
  },
  { additionalProperties: false },
);

/** Pre-filters accepted by every mode. */
export const filterFields = {
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  price_min: Type.Optional(Type.Number({ minimum: 0 })),
  price_max: Type.Optional(Type.Number({ minimum: 0 })),
  color: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 50,
      description: "Colour name (e.g. navy blue) or hex #rrggbb; hex matches dominant colours within ΔE00 15",
    }),
  ),
  metadata_filters: Type.Optional(Type.Array(MetadataFilterSchema, { maxItems: 20 })),
};

export const commonFields = { limit: Limit, threshold: Threshold, ...filterFields };

/** How lexical (full-text) evidence joins the visual one in text ranking (see fusion.ts). */
export const SemanticWeight = Type.Number({
  minimum: 0,
  maximum: 1,
  description:
    "The image's share of text ranking: 0 = pure lexical (the product's name, brand, category, colour, tags, description and other metadata text), 1 = pure visual (query embedding vs product image). With fusion_method coverage (the default) it shares the tie-break among products matching the same query words; with blend and rrf it weighs the two scores (at least 0.7 when no product holds every word). Default: GET /v1/search/model default_semantic_weight.",
});
export const rankingFields = {
  semantic_weight: Type.Optional(SemanticWeight),
  fusion_method: Type.Optional(
    Type.Union([Type.Literal("coverage"), Type.Literal("blend"), Type.Literal("rrf")], {
      description:
        "coverage (default): products matching more of the query's words first (typos and synonyms count less), semantic_weight sharing the tie-break between word score and image similarity; blend: calibrated score blend; rrf: weighted reciprocal rank fusion",
    }),
  ),
};
export const Understand = Type.Union([Type.Boolean(), Type.Literal("boost"), Type.Literal("filter"), Type.Literal("off")], {
  description:
    'Query understanding: colour words, price phrases (en/de, e.g. "under 50", "unter 50 €", "between 20 and 40") and the store\'s category values. Prices become price filters; colours and categories boost matching products (true or "boost", the default) or filter ("filter"); false or "off" turns it off. The response echoes query_understanding',
});
const ImageUrl = Type.String({ minLength: 1, maxLength: 2048 });

export const Region = Type.Object(
  {
    x: Type.Number({ minimum: 0 }),
    y: Type.Number({ minimum: 0 }),
    width: Type.Number({ exclusiveMinimum: 0 }),
    height: Type.Number({ exclusiveMinimum: 0 }),
    unit: Type.Optional(Type.Union([Type.Literal("px"), Type.Literal("fraction")])),
  },
  {
    additionalProperties: false,
    description: "Pixels, or fractions of the image size; without `unit`, all four values ≤ 1 mean fractions",
  },
);

const body = <T extends Record<string, TSchema>>(fields: T) => Type.Object(fields, { additionalProperties: false });

export const UrlBody = body({ image_url: ImageUrl, ...commonFields });
export const TextBody = body({
  query: Type.String({ minLength: 1, maxLength: 500 }),
  ...rankingFields,
  understand: Type.Optional(Understand),
  ...commonFields,
});
export const HybridBody = body({
  image_url: Type.Optional(ImageUrl),
  query: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  colors: Type.Optional(Type.Array(Hex, { maxItems: 5 })),
  visual_weight: Type.Number({ minimum: 0, maximum: 1, default: 0.5 }),
  ...rankingFields,
  ...commonFields,
});
export const FusionBody = body({
  image_url: ImageUrl,
  query: Type.String({ minLength: 1, maxLength: 500 }),
  image_weight: Type.Number({ minimum: 0, maximum: 1, default: 0.5 }),
  ...rankingFields,
  ...commonFields,
});
const MultiMode = Type.Union([Type.Literal("average"), Type.Literal("union"), Type.Literal("best")], { default: "average" });
export const MultiImageBody = body({ image_urls: Type.Array(ImageUrl, { minItems: 2, maxItems: 10 }), mode: MultiMode, ...commonFields });
export const CropBody = body({ image_url: ImageUrl, region: Region, ...commonFields });
export const FilteredBody = body({
  image_url: Type.Optional(ImageUrl),
  query: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  filters: Type.Array(MetadataFilterSchema, {
    minItems: 1,
    maxItems: 20,
    description: "Payload filters, same operators as metadata_filters",
  }),
  ...commonFields,
});

/** Multipart bodies: files are Buffers; other fields arrive as text and are coerced. */
const file = { description: "image file (JPEG, PNG, WebP, GIF, AVIF or TIFF)" };
const multipartCommon = {
  limit: Limit,
  threshold: Threshold,
  category: filterFields.category,
  price_min: filterFields.price_min,
  price_max: filterFields.price_max,
  color: filterFields.color,
};
export const UploadMultipart = Type.Object(
  { image: Type.Unsafe<Buffer>(file), ...multipartCommon },
  { additionalProperties: false, "x-coerce": true },
);
export const MultiImageMultipart = Type.Object(
  {
    images: Type.Unsafe<Buffer | Buffer[]>({ description: "2 to 10 image files under the field name `images`" }),
    mode: MultiMode,
    ...multipartCommon,
  },
  { additionalProperties: false, "x-coerce": true },
);
export const CropMultipart = Type.Object(
  {
    image: Type.Unsafe<Buffer>(file),
    region: Type.String({ description: 'The region as JSON text, e.g. {"x":0,"y":0,"width":0.5,"height":0.5}' }),
    ...multipartCommon,
  },
  { additionalProperties: false, "x-coerce": true },
);

export const SearchResponseSchema = Type.Object({
  query_time_ms: Type.Integer(),
  count: Type.Integer(),
  results: Type.Array(
    Type.Object({
      product_id: Type.String(),
      similarity_score: Type.Number({ minimum: 0, maximum: 1 }),
      metadata: Type.Object({}, { additionalProperties: true }),
      pinned: Type.Optional(
        Type.Literal(true, {
          description:
            "Placed at its position by a merchandising rule's pin (GET /v1/search/rules); its similarity_score is 0 when the ranking did not return it",
        }),
      ),
    }),
  ),
  search_id: Type.String({ format: "uuid" }),
  applied_rules: Type.Optional(
    Type.Array(Type.String(), {
      description: "The store's merchandising rules (/v1/search/rules) the query met, in the order they applied; absent when none did",
    }),
  ),
  did_you_mean: Type.Optional(
    Type.String({
      description:
        "Text search: the query with each word that matched nothing as typed replaced by the store's nearest word (typo tolerance); absent when every word was found",
    }),
  ),
  query_understanding: Type.Optional(
    Type.Object(
      {
        colors: Type.Array(Type.String(), { description: "Colour names found (normalised, English)" }),
        categories: Type.Array(Type.String(), { description: "The store's category values found" }),
        price_min: Type.Union([Type.Number(), Type.Null()]),
        price_max: Type.Union([Type.Number(), Type.Null()]),
        applied_as: Type.Union([Type.Literal("boost"), Type.Literal("filter")], {
          description: "How colours and categories were applied; prices are always filters",
        }),
        remaining_text: Type.String({ description: "The text searched (the query without its price phrases)" }),
      },
      { description: 'Text search, unless the request set understand to false or "off"' },
    ),
  ),
});

export const ModelStatusSchema = Type.Object({
  model_id: Type.String({
    description: "CLIP_MODEL as configured (a local folder by its name); the built-in test model is shopsight-tiny-test-model",
  }),
  dimensions: Type.Integer({ description: "Embedding dimensions (0 when no model is loaded)" }),
  is_test_model: Type.Boolean({ description: "The built-in tiny test model (colour only; for trying the service out) is active" }),
  status: Type.Union([Type.Literal("ready"), Type.Literal("loading"), Type.Literal("disabled"), Type.Literal("failed")]),
  duplicate_detection: Type.Boolean({
    description: "product.duplicate_detected compares embeddings (off with the test model: identical images only)",
  }),
  default_semantic_weight: Type.Number({ description: "semantic_weight used when a text search gives none" }),
  default_fusion_method: Type.Union([Type.Literal("coverage"), Type.Literal("blend"), Type.Literal("rrf")]),
  visual_min_score: Type.Number({
    description:
      "Text search's relevance bar: a product whose text matches no word of the query is a result only with an image similarity of at least this (SEARCH_VISUAL_MIN_SCORE, else the model's calibrated value)",
  }),
});

/** GET /v1/search/model: the model, and where this store's products stand with it. */
export const StoreModelStatusSchema = Type.Object({
  ...ModelStatusSchema.properties,
  reindex: Type.Object(
    {
      stale_products: Type.Integer({
        description: "The store's products embedded by another model than the loaded one (0 without a model)",
      }),
      job: Type.Union([
        Type.Object({
          job_id: Type.String(),
          status: Type.Union([Type.Literal("processing"), Type.Literal("completed"), Type.Literal("failed")]),
          processed: Type.Integer(),
          total: Type.Integer(),
          summary: Type.String(),
        }),
        Type.Null(),
      ]),
    },
    { description: "The store's latest reindex (POST /v1/products/reindex, or queued by a start with a new CLIP_MODEL)" },
  ),
});

export const BATCH_TYPES = ["url", "text", "hybrid", "fusion", "multi-image", "crop", "filtered"] as const;
export const BatchBody = body({
  queries: Type.Array(Type.Object({ type: Type.Union(BATCH_TYPES.map((t) => Type.Literal(t))) }, { additionalProperties: true }), {
    minItems: 1,
    maxItems: 20,
    description: "1–20 queries: {type, …the JSON body of that mode}",
  }),
});
/** POST /v1/search/batch: per query, a search response or that query's error. */
export const BatchResponse = Type.Object({ results: Type.Array(Type.Union([SearchResponseSchema, SearchErrorSchema])) });
