// GET /v1/catalog/search (shopper session bearer): the store's catalogue with live prices.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { shopperOf, type AssistantGuards } from "../http/auth.js";
import { shopperRoutes } from "../http/routes.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { LIVE_READ_LIMIT } from "../storefront/rules.js";
import type { CatalogService } from "./service.js";
import { CatalogSearchResultSchema } from "../storefront/schemas.js";
import { CatalogSearchQuery } from "./schemas.js";

export async function catalogRoutes(app: App, deps: { guards: AssistantGuards; catalog: CatalogService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.catalog;
  const catalog = shopperRoutes(deps.guards, "catalog");

  r.get(
    "/v1/catalog/search",
    catalog({
      summary: `Search the store's published catalogue; price and availability are read live for the first ${LIVE_READ_LIMIT} products`,
      querystring: CatalogSearchQuery,
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
