// The widget's public searches (/v1/widget/search/text, url, upload), registered inside the scope
// the widget gate guards (./routes.ts).
import type { FastifyReply, FastifyRequest } from "fastify";
import type { TSchema } from "typebox";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";
import { searchErrors } from "../http/schemas.js";
import { searchArrived, timedSerializer } from "../http/stage-timing.js";
import { modelStatus } from "../query/model.js";
import { common as commonOf, understandMode, type CommonFields } from "../query/modes.js";
import type { Common } from "../query/service.js";
import type { WidgetSearchService } from "./service.js";
import { WIDGET_CALL_DESCRIPTION, widgetKeySecurity as security, widgetOf, widgetTags as tags } from "./gate.js";
import { WidgetHeaders, WidgetSearchResponseSchema, WidgetTextBody, WidgetUploadBody, WidgetUrlBody } from "./schemas.js";

/** Widget searches return 12 products unless the page asks otherwise. */
const common = (b: CommonFields): Common => commonOf(b, 12);

const errors = searchErrors(400, 401, 403, 413, 415, 422, 429, 503);

export async function widgetSearchRoutes(scope: App, ctx: AppContext, { widgetSearch: search }: { widgetSearch: WidgetSearchService }) {
  /** The options every widget search route shares; only the summary and body differ. */
  // Their stages around the search are timed like the API's (src/search/http/stage-timing.ts).
  const widgetSearch = <B extends TSchema>(summary: string, body: B, extra: { consumes?: string[] } = {}) => ({
    config: { auth: "none" as const },
    serializerCompiler: timedSerializer(scope, ctx.metrics),
    onRequest: async (_request: FastifyRequest, reply: FastifyReply) => {
      reply.header("x-shopsight-model", modelStatus(ctx).model_id);
    },
    schema: {
      tags,
      security,
      summary,
      description: WIDGET_CALL_DESCRIPTION,
      ...extra,
      headers: WidgetHeaders,
      body,
      response: { 200: WidgetSearchResponseSchema, ...errors },
    },
  });

  scope.post("/v1/widget/search/text", widgetSearch("Widget: natural-language search", WidgetTextBody), async (request, reply) => {
    searchArrived(ctx.metrics, request, reply);
    return search.text(widgetOf(request).store.id, request.body.query, common(request.body), {
      semantic_weight: request.body.semantic_weight,
      understand: understandMode(request.body.understand),
    });
  });

  scope.post("/v1/widget/search/url", widgetSearch("Widget: search by an image URL", WidgetUrlBody), async (request, reply) => {
    searchArrived(ctx.metrics, request, reply);
    return search.url(widgetOf(request).store.id, request.body.image_url, common(request.body));
  });

  scope.post(
    "/v1/widget/search/upload",
    widgetSearch(
      "Widget: search by an uploaded image (multipart/form-data: image file, limit, threshold, category, price_min, price_max, color)",
      WidgetUploadBody,
      { consumes: ["multipart/form-data"] },
    ),
    async (request, reply) => {
      searchArrived(ctx.metrics, request, reply);
      const b = request.body;
      return search.upload(widgetOf(request).store.id, b.image, common(b));
    },
  );
}
