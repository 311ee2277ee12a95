// GET /v1/catalog/search (shopper session bearer): the store's catalogue with live prices.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { shopperOf, type AssistantGuards } from "../http/auth.js";
import { shopperRoutes } from "../http/routes.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { DEFAULT_LIMIT, LIVE_READ_LIMIT, MAX_LIMIT } from "../storefront/rules.js";
import type { CatalogService } from "./service.js";
import { CatalogSearchResultSchema } from "../storefront/schemas.js";

const Repeatable = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20, description: `${description} (repeatable)` }),
  );

export async function catalogRoutes(app: App, deps: { guards: AssistantGuards; catalog: CatalogService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.catalog;
  const catalog = shopperRoutes(deps.guards, "catalog");

  r.get(
    "/v1/catalog/search",
    catalog({
      summary: `Search the store's published catalogue; price and availability are read live for the first ${LIVE_READ_LIMIT} products`,
      querystring: Type.Object(
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
      ),
      response: {
        200: Type.Object({ ...CatalogSearchResultSchema.properties, correlation_id: CorrelationId }),
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
