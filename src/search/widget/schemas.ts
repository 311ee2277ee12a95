// The widget search response: a search response whose results carry the product's image URL.
import { Type } from "typebox";
import { SearchResponseSchema } from "../search/schemas.js";

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
});
