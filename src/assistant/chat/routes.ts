// Chat turns: POST /v1/chat/messages, POST /v1/chat/messages/stream and
// GET /v1/chat/sessions/{thread_id}/events. The actions (confirm/cancel) are in ./actions-routes.ts.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { shopperOf, type AssistantGuards } from "../http/auth.js";
import { shopperRoutes } from "../http/routes.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { MAX_REPLAY_EVENTS } from "../turns/limits.js";
import { MessageBody, MessageResponseSchema, ReplayHeaders, ReplayQuery, ReplaySchema, ThreadParams } from "./schemas.js";
import type { ChatService } from "./service.js";
import { openSse } from "./sse.js";

const LIMITS_NOTE =
  "Refused with 429 RATE_LIMITED (details.window: session_turns_per_minute, thread_turns, store_turns_per_minute, store_concurrent_turns; details.retry_after seconds and Retry-After header) — never queued.";

export async function chatRoutes(app: App, deps: { guards: AssistantGuards; chat: ChatService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.chat;
  const chat = shopperRoutes(deps.guards, "chat");

  r.post(
    "/v1/chat/messages",
    chat({
      summary: "Send a message to a thread of this session and get the answer",
      description: `Outcome: answer, clarification, confirmation_required, handoff, denied or temporary_failure (all 200). ${LIMITS_NOTE}`,
      body: MessageBody,
      response: { 200: MessageResponseSchema, ...problems(400, 404, 429) },
    }),
    async (request) => {
      const result = await service.message(shopperOf(request), request.body.thread_id, request.body.text);
      return { outcome: result.outcome, answer: result.answer, events: result.events, turn_id: result.turn_id, correlation_id: request.id };
    },
  );

  r.post(
    "/v1/chat/messages/stream",
    chat({
      summary: "Send a message and receive the turn as server-sent events",
      description:
        "text/event-stream: frames `id: <per-thread sequence>`, `event: <name>`, `data: <JSON>`; ends with `message.completed` whose data is {outcome, …answer}. " +
        "Validation, ownership and limits are checked before the 200 headers (errors stay problem details). " +
        LIMITS_NOTE,
      body: MessageBody,
      response: { 200: Type.String({ description: "text/event-stream" }), ...problems(400, 404, 429) },
    }),
    async (request, reply) => {
      const handle = await service.begin(shopperOf(request), request.body.thread_id, request.body.text);
      const stream = openSse(reply);
      try {
        await service.run(handle, (event) => stream.send(event));
      } catch (err) {
        // Headers are out: the failure was already sent as a `turn.failed` event.
        request.log.error({ err }, "chat turn failed while streaming");
      } finally {
        stream.end();
      }
      return reply;
    },
  );

  r.get(
    "/v1/chat/sessions/:thread_id/events",
    chat({
      summary: "Replay the thread's events after Last-Event-ID (or ?after=) for reconnecting clients",
      description:
        `Events with id greater than the Last-Event-ID header (or the \`after\` query; the header wins; default 0), at most ${MAX_REPLAY_EVENTS} per call. ` +
        "As text/event-stream (closed after the stored events), or as JSON when Accept names application/json and not text/event-stream.",
      params: ThreadParams,
      querystring: ReplayQuery,
      headers: ReplayHeaders,
      response: {
        200: Type.Object({ ...ReplaySchema.properties, correlation_id: CorrelationId }),
        ...problems(400, 404),
      },
    }),
    async (request, reply) => {
      const header = request.headers["last-event-id"];
      const after = typeof header === "string" ? Number(header) : (request.query.after ?? 0);
      const replay = await service.replay(shopperOf(request), request.params.thread_id, after);
      const accept = request.headers.accept ?? "";
      if (accept.includes("application/json") && !accept.includes("text/event-stream")) {
        return { ...replay, correlation_id: request.id };
      }
      const stream = openSse(reply);
      for (const event of replay.events) stream.send(event);
      stream.end();
      return reply;
    },
  );
}
