// Request and response schemas of the widget: widget keys (/v1/widget/keys), the public search
// bodies and the headers they need, the widget search response (a search response whose results
// carry the product's image URL, and the store's currency) and the type-ahead suggestions.
import { Type } from "typebox";
import { DateTime, NullableDate } from "../../platform/http/schemas.js";
import { filterFields, SearchResponseSchema, SemanticWeight, Threshold, Understand } from "../query/schemas.js";

/** Suggestions a type-ahead answer holds at most. */
export const WIDGET_SUGGESTIONS_MAX = 10;
/** Origins one widget key may list. */
export const WIDGET_KEY_MAX_ORIGINS = 20;

// --- widget keys (Bearer) ----------------------------------------------------------------------

export const WidgetKeyView = Type.Object({
  id: Type.String({ description: "wk_…" }),
  name: Type.String(),
  key_prefix: Type.String({ description: "The first characters of the key, to recognise it" }),
  allowed_origins: Type.Array(Type.String()),
  status: Type.Union([Type.Literal("active"), Type.Literal("revoked")]),
  created_at: DateTime,
  updated_at: DateTime,
  last_used_at: NullableDate,
  revoked_at: NullableDate,
});
export const WidgetKeyCreated = Type.Object({
  ...WidgetKeyView.properties,
  key: Type.String({ description: "pk_live_…, shown this once (stored hashed)" }),
});
const Origins = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
  minItems: 1,
  maxItems: WIDGET_KEY_MAX_ORIGINS,
  description: "Exact origins (scheme, host, optional port), e.g. https://shop.example; no paths or wildcards",
});
const KeyName = Type.String({ minLength: 1, maxLength: 100, pattern: "\\S" });
export const WidgetKeyParams = Type.Object({ widget_key_id: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
export const CreateWidgetKeyBody = Type.Object({ name: KeyName, allowed_origins: Origins }, { additionalProperties: false });
export const UpdateWidgetKeyBody = Type.Object(
  { name: Type.Optional(KeyName), allowed_origins: Type.Optional(Origins) },
  { additionalProperties: false, minProperties: 1 },
);

// --- widget search bodies: the spec's `query, limit` plus the pre-filters (no metadata_filters).
const WidgetLimit = Type.Integer({ minimum: 1, maximum: 50, default: 12, description: "Results wanted (default 12, at most 50)" });
const widgetCommon = {
  limit: WidgetLimit,
  threshold: Threshold,
  category: filterFields.category,
  price_min: filterFields.price_min,
  price_max: filterFields.price_max,
  color: filterFields.color,
};
export const WidgetTextBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500 }),
    semantic_weight: Type.Optional(SemanticWeight),
    understand: Type.Optional(Understand),
    ...widgetCommon,
  },
  { additionalProperties: false },
);
export const WidgetUrlBody = Type.Object(
  { image_url: Type.String({ minLength: 1, maxLength: 2048 }), ...widgetCommon },
  { additionalProperties: false },
);
export const WidgetUploadBody = Type.Object(
  { image: Type.Unsafe<Buffer>({ description: "image file (JPEG, PNG, WebP, GIF, AVIF or TIFF)" }), ...widgetCommon },
  { additionalProperties: false, "x-coerce": true },
);
/** The headers of every public widget call. */
export const WidgetHeaders = Type.Object({
  "x-service-key": Type.String({ description: "Public widget key pk_live_…" }),
  origin: Type.String({ description: "Set by the browser; must be on the key's allow-list" }),
});

export const WidgetSearchResponseSchema = Type.Object({
  ...SearchResponseSchema.properties,
  results: Type.Array(
    Type.Object({
      product_id: Type.String(),
      similarity_score: Type.Number({ minimum: 0, maximum: 1 }),
      metadata: Type.Object({}, { additionalProperties: true }),
      image_url: Type.Union([Type.String(), Type.Null()], { description: "The product's image URL (as indexed)" }),
    }),
  ),
  currency: Type.String({
    pattern: "^[A-Z]{3}$",
    description:
      "The store's currency (ISO 4217), in which the widget shows `metadata.price` of a product that names no `metadata.currency`: the currency the store set in its Assistant settings (PUT /v1/admin/settings on the Assistant API, or the portal's Assistant page), USD until it sets one",
  }),
});

export const WidgetSuggestionsQuery = Type.Object(
  {
    q: Type.String({ minLength: 1, maxLength: 100, description: "What the shopper has typed so far" }),
    limit: Type.Integer({
      minimum: 1,
      maximum: WIDGET_SUGGESTIONS_MAX,
      default: 8,
      description: `Suggestions wanted (default 8, at most ${WIDGET_SUGGESTIONS_MAX})`,
    }),
  },
  { additionalProperties: false },
);

export const WidgetSuggestionsResponse = Type.Object({
  query: Type.String({ description: "`q` as matched: lower-cased, spaces collapsed" }),
  suggestions: Type.Array(
    Type.Object({
      kind: Type.Union([Type.Literal("query"), Type.Literal("product")], {
        description: "`query`: a popular search of this store's shoppers; `product`: a product's name",
      }),
      text: Type.String({ description: "What the widget shows and searches when the shopper picks it" }),
      product_id: Type.Optional(Type.String({ description: "The product, for `product` suggestions" })),
    }),
    { description: "Popular searches first, then product names; no text twice (case ignored)" },
  ),
});
