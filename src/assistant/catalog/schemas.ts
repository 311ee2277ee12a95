// TypeBox schema of the catalogue search route's querystring (routes.ts validates and documents
// with it; the response is the catalogue contract's, src/assistant/storefront/schemas.ts).
import { Type } from "typebox";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../storefront/rules.js";

const Repeatable = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20, description: `${description} (repeatable)` }),
  );

/** GET /v1/catalog/search's querystring. */
export const CatalogSearchQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    category_id: Repeatable("Category (metadata.category / product_type), any of"),
    color: Repeatable("Colour name or #rrggbb, any of"),
    size: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
        minItems: 1,
        maxItems: 20,
        description: "Size, any of (repeatable)",
      }),
    ),
    sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    price_min_minor: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
    price_max_minor: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Default ${DEFAULT_LIMIT}; when given, price_filter is returned` }),
    ),
  },
  { additionalProperties: false },
);
