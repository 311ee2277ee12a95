// GET /v1/products/{product_id}/image: the product's image as the service stored it when it was
// indexed (a normalised copy kept per store, content-addressed by SHA-256), so that the portal's
// playground and product list can show pictures without fetching the shop's own URLs again (which
// may be private, slow or gone). Permission products:read (every role, and API keys with that
// scope). The portal sends its bearer token with fetch() and shows the bytes as a blob: URL,
// because an <img src> cannot carry an Authorization header.
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { searchErrors } from "../http/schemas.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import type { ProductsRepository } from "../products/repository.js";
import { ProductIdParams } from "../products/schemas.js";

export async function productImageRoutes(app: App, ctx: AppContext, { products: repo }: { products: ProductsRepository }) {
  app.get(
    "/v1/products/:product_id/image",
    storeRoute("products:read", {
      tags: ["products"],
      summary: "The product's stored image (the copy made at indexing), for showing it in the portal",
      description:
        "Answers the image bytes with their content type (image/jpeg, image/png or image/webp), `Cache-Control: private, max-age=300` and an ETag of the image's SHA-256.",
      params: ProductIdParams,
      produces: ["image/jpeg", "image/png", "image/webp"],
      response: {
        200: Type.Any({ description: "Image bytes" }),
        304: Type.Null({ description: "If-None-Match matched" }),
        ...searchErrors(400, 401, 403, 404),
      },
    }),
    async (request, reply) => {
      const storeId = storeOf(request).id;
      const product = await repo.find(storeId, request.params.product_id);
      if (!product) throw new AppError("not_found", `No product "${request.params.product_id}".`);
      // The ETag is the image's SHA-256, known from the product: a revalidation reads no bytes.
      const etag = `"${product.image_sha256}"`;
      if (request.headers["if-none-match"] === etag)
        return reply.status(304).header("etag", etag).header("cache-control", "private, max-age=300").send(null);
      const image = await repo.getImage(storeId, product.image_sha256);
      if (!image) throw new AppError("not_found", `The image of "${request.params.product_id}" is not stored.`);
      reply.header("cache-control", "private, max-age=300").header("etag", etag).header("x-content-type-options", "nosniff");
      return reply.type(image.content_type).send(await ctx.imageStore.read(storeId, image));
    },
  );
}
