// POST /v1/widget/search/feedback: a click, add-to-cart or purchase from the widget (the record
// and rules of POST /v1/search/feedback), inside the scope the widget gate guards (./routes.ts).
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { FeedbackBody, FeedbackView } from "../feedback/schemas.js";
import type { FeedbackService } from "../feedback/service.js";
import { WIDGET_CALL_DESCRIPTION, widgetKeySecurity as security, widgetOf, widgetTags as tags } from "./gate.js";
import { WidgetHeaders } from "./schemas.js";

export async function widgetFeedbackRoutes(scope: App, { feedback }: { feedback: FeedbackService }) {
  scope.post(
    "/v1/widget/search/feedback",
    {
      config: { auth: "none" },
      schema: {
        tags,
        security,
        summary: "Widget: record a click, add-to-cart or purchase (same record and rules as POST /v1/search/feedback)",
        description: WIDGET_CALL_DESCRIPTION,
        headers: WidgetHeaders,
        body: FeedbackBody,
        response: { 201: FeedbackView, ...searchErrors(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const caller = widgetOf(request);
      return reply.status(201).send(await feedback.record(caller.store.id, request.body, { source: "widget", widgetKeyId: caller.keyId }));
    },
  );
}
