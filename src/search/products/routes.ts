// /v1/products (spec: Products and jobs): index, list, get, update, delete (the demo catalogue:
// ./demo-routes.ts; reindex: ./reindex-routes.ts; bulk: ../jobs/routes.ts).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { IndexResponse, ListProductsQuery, ProductIdParams, ProductInput, ProductList, ProductView, UpdateProductBody } from "./schemas.js";
import type { ProductsService } from "./service.js";

const tags = ["products"];

export async function productRoutes(app: App, { products }: { products: ProductsService }) {
  app.post(
    "/v1/products",
    storeRoute("products:write", {
      tags,
      summary: "Index a product from an image URL and metadata (201 when new, 200 when an existing product_id was replaced)",
      body: ProductInput,
      response: { 200: IndexResponse, 201: IndexResponse, ...searchErrors(400, 401, 403, 413, 415, 422, 429, 503) },
    }),
    async (request, reply) => {
      const result = await products.index(storeOf(request).id, request.body);
      return reply.status(result.created ? 201 : 200).send(result);
    },
  );

  app.get(
    "/v1/products",
    storeRoute("products:read", {
      tags,
      summary: "List products, oldest first, with an opaque cursor",
      querystring: ListProductsQuery,
      response: { 200: ProductList, ...searchErrors(400, 401, 403) },
    }),
    async (request) => {
      const { limit, cursor, category, brand } = request.query;
      return products.list(storeOf(request).id, limit, cursor, { category, brand });
    },
  );

  app.get(
    "/v1/products/:product_id",
    storeRoute("products:read", {
      tags,
      summary: "One product",
      params: ProductIdParams,
      response: { 200: ProductView, ...searchErrors(400, 401, 403, 404) },
    }),
    async (request) => products.get(storeOf(request).id, request.params.product_id),
  );

  app.put(
    "/v1/products/:product_id",
    storeRoute("products:write", {
      tags,
      summary:
        "Update image_url, metadata and/or availability (each given field is replaced as a whole; availability null clears it); re-embeds only when image_url changed",
      params: ProductIdParams,
      body: UpdateProductBody,
      response: { 200: IndexResponse, ...searchErrors(400, 401, 403, 404, 413, 415, 422, 503) },
    }),
    async (request) => products.update(storeOf(request).id, request.params.product_id, request.body),
  );

  app.delete(
    "/v1/products/:product_id",
    storeRoute("products:delete", {
      tags,
      summary: "Remove a product and its vector",
      params: ProductIdParams,
      response: { 204: Type.Null(), ...searchErrors(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await products.remove(storeOf(request).id, request.params.product_id);
      return reply.status(204).send(null);
    },
  );
}
