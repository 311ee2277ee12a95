// GET /v1/catalog/search (shopper session bearer): the store's catalogue with live prices.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { AppContext } from "../../context/context.js";
import type { App } from "../../platform/http/app.js";
import { shopperOf, type AssistantGuards } from "../http/auth.js";
import { shopperRoutes } from "../http/routes.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { DEFAULT_LIMIT, LIVE_READ_LIMIT, MAX_LIMIT } from "../storefront/rules.js";
import { CatalogService } from "./service.js";
import type { StorefrontGateway } from "../storefront/types.js";

const Money = Type.Object({ amount_minor: Type.Integer({ description: "Minor units (cents for USD)" }), currency: Type.String({ description: "ISO 4217" }) });
const Stock = Type.Object({
  state: Type.Union([Type.Literal("in_stock"), Type.Literal("out_of_stock"), Type.Literal("low_stock"), Type.Literal("unknown")]),
  quantity: Type.Optional(Type.Integer()),
});
const State = Type.Union([Type.Literal("live"), Type.Literal("unavailable"), Type.Literal("not_requested")]);
export const ProductCardSchema = Type.Object({
  product_id: Type.String({ description: "prd_…" }),
  title: Type.String(),
  image_url: Type.Union([Type.String(), Type.Null()]),
  url: Type.Union([Type.String(), Type.Null()]),
  price_state: State,
  price: Type.Union([Money, Type.Null()], { description: "Present only when price_state is live" }),
  availability_state: State,
  availability: Type.Union([Stock, Type.Null()]),
});
export const LiveFactSchema = Type.Object({
  source: Type.String({ description: "shopsight_catalog or storefront:<host>" }),
  product_id: Type.String(),
  field: Type.Union([Type.Literal("price"), Type.Literal("availability")]),
  value: Type.Union([Money, Stock]),
  read_at: Type.String({ format: "date-time" }),
});
const Repeatable = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20, description: `${description} (repeatable)` }));

export async function catalogRoutes(app: App, ctx: AppContext, gateway: StorefrontGateway, guards: AssistantGuards): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = new CatalogService(gateway);
  const catalog = shopperRoutes(guards, "catalog");

  r.get(
    "/v1/catalog/search",
    catalog({
      summary: `Search the store's published catalogue; price and availability are read live for the first ${LIVE_READ_LIMIT} products`,
      querystring: Type.Object(
        {
          q: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
          category_id: Repeatable("Category (metadata.category / product_type), any of"),
          color: Repeatable("Colour name or #rrggbb, any of"),
          size: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { minItems: 1, maxItems: 20, description: "Size, any of (repeatable)" })),
          sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          price_min_minor: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
          price_max_minor: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Default ${DEFAULT_LIMIT}; when given, price_filter is returned` })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object({
          products: Type.Array(ProductCardSchema),
          price_filter: Type.Optional(
            Type.Object({
              min_minor: Type.Union([Type.Integer(), Type.Null()]),
              max_minor: Type.Union([Type.Integer(), Type.Null()]),
              currency: Type.String(),
              checked: Type.Integer({ description: "Products whose price was read live for this response" }),
              excluded_outside_range: Type.Integer(),
              excluded_without_live_price: Type.Integer(),
            }),
          ),
          warnings: Type.Array(Type.String()),
          live_facts: Type.Array(LiveFactSchema),
          source: Type.String(),
          correlation_id: CorrelationId,
        }),
        ...problems(400, 503),
      },
    }),
    async (request) => {
      const q = request.query;
      const result = await service.search(shopperOf(request).storeId, {
        q: q.q,
        category_id: q.category_id,
        color: q.color,
        size: q.size,
        sku: q.sku,
        price_min_minor: q.price_min_minor,
        price_max_minor: q.price_max_minor,
        limit: q.limit,
      });
      return { ...result, correlation_id: request.id };
    },
  );
}
