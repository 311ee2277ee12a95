// /v1/products (spec: Products and jobs): index, list, get, update, delete, demo (bulk: ../jobs/routes.ts).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { AvailabilityInput, ImageUrl, IndexResponse, Metadata, ProductId, ProductInput, ProductView } from "./schemas.js";
import type { DemoCatalogue } from "./demo.js";
import type { ProductsService } from "./service.js";

const tags = ["products"];

export async function productRoutes(app: App, { products, demo }: { demo: DemoCatalogue; products: ProductsService }) {
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
      querystring: Type.Object(
        {
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          cursor: Type.Optional(Type.String({ maxLength: 500 })),
          category: Type.Optional(Type.String({ maxLength: 100 })),
          brand: Type.Optional(Type.String({ maxLength: 100 })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object({
          products: Type.Array(ProductView),
          next_cursor: Type.Union([Type.String(), Type.Null()]),
          total: Type.Integer(),
        }),
        ...searchErrors(400, 401, 403),
      },
    }),
    async (request) => {
      const { limit, cursor, category, brand } = request.query;
      return products.list(storeOf(request).id, limit, cursor, { category, brand });
    },
  );

  const idParams = Type.Object({ product_id: ProductId }, { additionalProperties: false });

  app.get(
    "/v1/products/:product_id",
    storeRoute("products:read", {
      tags,
      summary: "One product",
      params: idParams,
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
      params: idParams,
      body: Type.Object(
        { image_url: Type.Optional(ImageUrl), metadata: Type.Optional(Metadata), availability: Type.Optional(AvailabilityInput) },
        { additionalProperties: false, minProperties: 1 },
      ),
      response: { 200: IndexResponse, ...searchErrors(400, 401, 403, 404, 413, 415, 422, 503) },
    }),
    async (request) => products.update(storeOf(request).id, request.params.product_id, request.body),
  );

  app.delete(
    "/v1/products/:product_id",
    storeRoute("products:delete", {
      tags,
      summary: "Remove a product and its vector",
      params: idParams,
      response: { 204: Type.Null(), ...searchErrors(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await products.remove(storeOf(request).id, request.params.product_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    "/v1/products/demo",
    storeRoute("products:write", {
      tags,
      summary: "Install the demo catalogue (24 products whose images ship with the service)",
      response: {
        200: Type.Object({
          installed: Type.Integer(),
          failed: Type.Array(Type.Object({ product_id: Type.String(), error: Type.String(), message: Type.String() })),
          products: Type.Array(Type.String()),
        }),
        ...searchErrors(401, 403, 503),
      },
    }),
    async (request) => demo.install(storeOf(request).id, products),
  );

  app.get(
    "/demo/images/:name",
    {
      schema: {
        tags: ["products"],
        summary: "Images of the demo catalogue (PNG), served by the service itself",
        params: Type.Object({ name: Type.String({ pattern: "^[a-z0-9-]+\\.png$" }) }),
      },
    },
    async (request, reply) => {
      const png = await demo.image(request.params.name.replace(/\.png$/, ""));
      return reply.type("image/png").header("cache-control", "public, max-age=86400").send(png);
    },
  );
}
