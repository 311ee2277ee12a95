// The demo catalogue: POST /v1/products/demo installs it, GET /demo/images/:name serves its
// images (they ship with the service: ./demo.ts).
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { DemoImageParams, DemoInstalled } from "./schemas.js";
import type { DemoCatalogue } from "./demo.js";
import type { ProductsService } from "./service.js";

export async function demoRoutes(app: App, { products, demo }: { demo: DemoCatalogue; products: ProductsService }) {
  app.post(
    "/v1/products/demo",
    storeRoute("products:write", {
      tags: ["products"],
      summary: "Install the demo catalogue (24 products whose images ship with the service)",
      response: { 200: DemoInstalled, ...searchErrors(401, 403, 503) },
    }),
    async (request) => demo.install(storeOf(request).id, products),
  );

  app.get(
    "/demo/images/:name",
    {
      schema: {
        tags: ["products"],
        summary: "Images of the demo catalogue (PNG), served by the service itself",
        params: DemoImageParams,
      },
    },
    async (request, reply) => {
      const png = await demo.image(request.params.name.replace(/\.png$/, ""));
      return reply.type("image/png").header("cache-control", "public, max-age=86400").send(png);
    },
  );
}
