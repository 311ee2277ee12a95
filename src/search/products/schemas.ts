// Product schemas shared by the single, bulk and list routes, with the request and response
// schemas of the product routes (./routes.ts, ./demo-routes.ts, ./reindex-routes.ts).
import { Type } from "typebox";

/** A metadata key, dotted for nested keys (search filters' and merchandising rules' `field`). */
export const FIELD_PATTERN = "^[A-Za-z_][A-Za-z0-9_]{0,63}(\\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,3}$";

export const ProductId = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$",
  description: "Caller-chosen id: 1–200 characters from letters, digits and . _ : @ -, starting with a letter or digit",
});

export const Metadata = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 300 })),
    category: Type.Optional(Type.String({ maxLength: 100 })),
    brand: Type.Optional(Type.String({ maxLength: 100 })),
    price: Type.Optional(Type.Number({ minimum: 0 })),
    color_name: Type.Optional(Type.String({ maxLength: 50 })),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
  },
  {
    additionalProperties: true,
    description: "Known fields are validated; other keys are kept and usable in metadata filters. At most 16 KB of JSON.",
  },
);

export const ImageUrl = Type.String({ minLength: 1, maxLength: 2048, description: "http(s) URL of the product image" });

/** What a store may say about a product's stock (migration 0026); no value = unknown. */
export const AVAILABILITY_STATES = ["in_stock", "low_stock", "out_of_stock"] as const;
export const AvailabilityState = Type.Union([Type.Literal("in_stock"), Type.Literal("low_stock"), Type.Literal("out_of_stock")], {
  description: "in_stock, low_stock or out_of_stock",
});
export const STOCK_QUANTITY_MAX = 1_000_000_000;

export const AvailabilityInput = Type.Union(
  [
    Type.Object(
      {
        state: AvailabilityState,
        quantity: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: STOCK_QUANTITY_MAX,
            description: "Units in stock; informational, not checked against state",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      "The product's stock as the store states it, shown to shoppers by the assistant as a live read. null or left out = unknown (on PUT, left out keeps the current value and null clears it).",
  },
);

export const ProductInput = Type.Object(
  { product_id: ProductId, image_url: ImageUrl, metadata: Type.Optional(Metadata), availability: Type.Optional(AvailabilityInput) },
  { additionalProperties: false },
);

export const DominantColor = Type.Object({ hex: Type.String(), share: Type.Number() });

export const ProductView = Type.Object({
  product_id: Type.String(),
  vector_id: Type.String(),
  image_url: Type.String(),
  metadata: Type.Object({}, { additionalProperties: true }),
  dominant_colors: Type.Array(DominantColor),
  availability: Type.Union([Type.Object({ state: AvailabilityState, quantity: Type.Union([Type.Integer(), Type.Null()]) }), Type.Null()], {
    description: "The stock the store stated; null = unknown",
  }),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
});

export const IndexResponse = Type.Object({
  status: Type.Literal("indexed"),
  product_id: Type.String(),
  vector_id: Type.String(),
  message: Type.String(),
});

/** The path parameter of one product's routes. */
export const ProductIdParams = Type.Object({ product_id: ProductId }, { additionalProperties: false });

export const ListProductsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    category: Type.Optional(Type.String({ maxLength: 100 })),
    brand: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const ProductList = Type.Object({
  products: Type.Array(ProductView),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  total: Type.Integer(),
});

export const UpdateProductBody = Type.Object(
  { image_url: Type.Optional(ImageUrl), metadata: Type.Optional(Metadata), availability: Type.Optional(AvailabilityInput) },
  { additionalProperties: false, minProperties: 1 },
);

/** POST /v1/products/demo. */
export const DemoInstalled = Type.Object({
  installed: Type.Integer(),
  failed: Type.Array(Type.Object({ product_id: Type.String(), error: Type.String(), message: Type.String() })),
  products: Type.Array(Type.String()),
});
export const DemoImageParams = Type.Object({ name: Type.String({ pattern: "^[a-z0-9-]+\\.png$" }) });

/** POST /v1/products/reindex. */
export const ReindexQuery = Type.Object(
  { all: Type.Optional(Type.Boolean({ default: false, description: "Every product, not only those embedded by another model" })) },
  { additionalProperties: false },
);
export const ReindexAccepted = Type.Object({
  job_id: Type.String(),
  status: Type.Literal("processing"),
  total: Type.Integer({ description: "Products to re-embed when the job was queued." }),
  queued: Type.Boolean({ description: "false: a reindex of the store was already waiting or running; this is that job." }),
});
