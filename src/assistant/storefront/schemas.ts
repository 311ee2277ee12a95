// TypeBox schemas of the catalogue contract (./types.ts derives its types from them; the catalogue
// search route, src/assistant/catalog/routes.ts, documents its response with them).
import { Type } from "typebox";

export const MoneySchema = Type.Object({
  amount_minor: Type.Integer({ description: "Minor units (cents for USD)" }),
  currency: Type.String({ description: "ISO 4217" }),
});
export const StockStateSchema = Type.Union([
  Type.Literal("in_stock"),
  Type.Literal("out_of_stock"),
  Type.Literal("low_stock"),
  Type.Literal("unknown"),
]);
export const StockSchema = Type.Object({
  state: StockStateSchema,
  quantity: Type.Optional(Type.Integer()),
});
export const ReadStateSchema = Type.Union([Type.Literal("live"), Type.Literal("unavailable"), Type.Literal("not_requested")]);
export const ProductCardSchema = Type.Object({
  product_id: Type.String({ description: "prd_…" }),
  title: Type.String(),
  image_url: Type.Union([Type.String(), Type.Null()]),
  url: Type.Union([Type.String(), Type.Null()]),
  price_state: ReadStateSchema,
  price: Type.Union([MoneySchema, Type.Null()], { description: "Present only when price_state is live" }),
  availability_state: ReadStateSchema,
  availability: Type.Union([StockSchema, Type.Null()]),
});
export const LiveFactSchema = Type.Object({
  source: Type.String({ description: "shopsight_catalog or storefront:<host>" }),
  product_id: Type.String(),
  field: Type.Union([Type.Literal("price"), Type.Literal("availability")]),
  value: Type.Union([MoneySchema, StockSchema]),
  read_at: Type.String({ format: "date-time" }),
});
export const PriceFilterSchema = Type.Object({
  min_minor: Type.Union([Type.Integer(), Type.Null()]),
  max_minor: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.String(),
  checked: Type.Integer({ description: "Products whose price was read live for this response" }),
  excluded_outside_range: Type.Integer(),
  excluded_without_live_price: Type.Integer(),
});
export const CatalogSearchResultSchema = Type.Object({
  products: Type.Array(ProductCardSchema),
  price_filter: Type.Optional(PriceFilterSchema),
  warnings: Type.Array(Type.String()),
  live_facts: Type.Array(LiveFactSchema),
  source: Type.String(),
});
