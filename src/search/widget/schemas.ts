// The widget search response: a search response whose results carry the product's image URL, and
// the store's currency; the widget's type-ahead suggestions.
import { Type } from "typebox";
import { SearchResponseSchema } from "../query/schemas.js";

/** Suggestions a type-ahead answer holds at most. */
export const WIDGET_SUGGESTIONS_MAX = 10;

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
