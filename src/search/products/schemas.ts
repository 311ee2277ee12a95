// Product schemas shared by the single, bulk and list routes.
import { Type } from "typebox";

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

export const ProductInput = Type.Object(
  { product_id: ProductId, image_url: ImageUrl, metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);

export const DominantColor = Type.Object({ hex: Type.String(), share: Type.Number() });

export const ProductView = Type.Object({
  product_id: Type.String(),
  vector_id: Type.String(),
  image_url: Type.String(),
  metadata: Type.Object({}, { additionalProperties: true }),
  dominant_colors: Type.Array(DominantColor),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
});

export const IndexResponse = Type.Object({
  status: Type.Literal("indexed"),
  product_id: Type.String(),
  vector_id: Type.String(),
  message: Type.String(),
});
