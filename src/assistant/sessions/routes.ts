// Shopper sessions and threads: POST /v1/sessions/anonymous, POST /v1/sessions/revoke,
// POST /v1/chat/sessions, GET /v1/chat/sessions/{thread_id}.
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { shopperOf, type AssistantGuards } from "../http/auth.js";
import { shopperRoutes } from "../http/routes.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { MINT_LIMIT, type SessionsService } from "./service.js";
import { AnonymousSessionBody, RevokeBody, ThreadBody, ThreadParams, TranscriptSchema } from "./schemas.js";

export async function sessionRoutes(app: App, deps: { guards: AssistantGuards; sessions: SessionsService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.sessions;
  const chat = shopperRoutes(deps.guards, "chat");
  const sessions = shopperRoutes(deps.guards, "sessions");

  r.post(
    "/v1/sessions/anonymous",
    {
      config: { auth: "none" },
      schema: {
        tags: ["sessions"],
        summary: `Mint an anonymous shopper session with the store's public key (at most ${MINT_LIMIT.points} per ${MINT_LIMIT.durationSec} s per client address)`,
        body: AnonymousSessionBody,
        response: {
          200: Type.Object({
            session_token: Type.String({ description: "Opaque bearer ast_…" }),
            expires_in: Type.Integer(),
            role: Type.Literal("anonymous"),
            correlation_id: CorrelationId,
          }),
          ...problems(400, 401, 429),
        },
      },
    },
    async (request) => ({
      ...(await service.mintAnonymous(request.body.store_public_key, request.body.locale, request.ip)),
      correlation_id: request.id,
    }),
  );

  r.post(
    "/v1/sessions/revoke",
    sessions({
      summary: "Revoke the calling session: its token stops working at once",
      body: RevokeBody,
      response: { 204: Type.Null(), ...problems(400) },
    }),
    async (request, reply) => {
      await service.revoke(shopperOf(request), request.body.reason);
      return reply.status(204).send(null);
    },
  );

  r.post(
    "/v1/chat/sessions",
    chat({
      summary: "Open a chat thread bound to the calling session",
      body: ThreadBody,
      response: { 201: Type.Object({ thread_id: Type.String({ description: "thr_…" }), correlation_id: CorrelationId }), ...problems(400) },
    }),
    async (request, reply) => {
      const created = await service.createThread(shopperOf(request), request.body.locale);
      return reply.status(201).send({ ...created, correlation_id: request.id });
    },
  );

  r.get(
    "/v1/chat/sessions/:thread_id",
    chat({
      summary: "The thread's transcript (only for the session that opened it)",
      description:
        "messages in order: per turn the user's message (outcome and answer null), then — once the turn completed — the assistant's message: text is the answer's response_markdown, with the turn's outcome and the whole answer object. A turn still running (or failed) shows only the user's message.",
      params: ThreadParams,
      response: {
        200: Type.Object({ ...TranscriptSchema.properties, correlation_id: CorrelationId }),
        ...problems(400, 404),
      },
    }),
    async (request) => ({ ...(await service.transcript(shopperOf(request), request.params.thread_id)), correlation_id: request.id }),
  );
}
