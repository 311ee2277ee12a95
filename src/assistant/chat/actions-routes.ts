// Chat actions: POST /v1/chat/actions/confirm and POST /v1/chat/actions/cancel (the shopper's
// answer to a proposed action's preview; the turns that propose them are in ./routes.ts).
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { shopperOf, type AssistantGuards } from "../http/auth.js";
import { shopperRoutes } from "../http/routes.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { CancelResultSchema, ConfirmResultSchema, IntentBody } from "./schemas.js";
import type { ChatService } from "./service.js";

export async function chatActionRoutes(app: App, deps: { guards: AssistantGuards; chat: ChatService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.chat;
  const chat = shopperRoutes(deps.guards, "chat");

  r.post(
    "/v1/chat/actions/confirm",
    chat({
      summary: "Consent to a proposed action: runs it once with exactly the previewed arguments",
      description:
        "409 CONFIRMATION_INVALID when the intent is not bound to this session and thread, expired, already used or cancelled (details.reason). " +
        "503 SERVICE_UNAVAILABLE when the store could not run it (the intent is then used up: ask again for a fresh preview).",
      body: IntentBody,
      response: {
        200: Type.Object({ ...ConfirmResultSchema.properties, correlation_id: CorrelationId }),
        ...problems(400, 409, 503),
      },
    }),
    async (request) => ({
      ...(await service.confirm(shopperOf(request), request.body.thread_id, request.body.intent_id)),
      correlation_id: request.id,
    }),
  );

  r.post(
    "/v1/chat/actions/cancel",
    chat({
      summary: "Decline a proposed action (idempotent); 409 CONFIRMATION_INVALID when it was already used or is not bound to this session",
      body: IntentBody,
      response: {
        200: Type.Object({ ...CancelResultSchema.properties, correlation_id: CorrelationId }),
        ...problems(400, 409),
      },
    }),
    async (request) => ({
      ...(await service.cancel(shopperOf(request), request.body.thread_id, request.body.intent_id)),
      correlation_id: request.id,
    }),
  );
}
