// POST /v1/sessions/exchange (the store backend's signed assertion → customer session) and the
// per-store exchange secret: POST /v1/admin/exchange-secret (create or rotate; shown once),
// GET /v1/admin/exchange-secret (whether one is set, never the secret).
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { AppContext } from "../../context/context.js";
import type { App } from "../../platform/http/app.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, Locale, problems } from "../http/schemas.js";
import { ExchangeService, MAX_ASSERTION_LIFETIME_SECONDS } from "./service.js";

const SecretInfo = {
  configured: Type.Boolean(),
  secret_id: Type.Union([Type.String(), Type.Null()]),
  secret_prefix: Type.Union([Type.String(), Type.Null()], { description: "First characters of the secret, to recognise it" }),
  created_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  issuer: Type.String({ description: "The `iss` claim assertions must carry: the store id" }),
  audience: Type.String({ description: "The `aud` claim assertions must carry" }),
  algorithm: Type.Literal("HS256"),
  max_lifetime_seconds: Type.Integer({ description: "Largest exp − iat accepted" }),
};

export async function exchangeRoutes(app: App, ctx: AppContext, guards: AssistantGuards): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = new ExchangeService(ctx);
  const admin = adminRoutes(guards);

  r.post(
    "/v1/sessions/exchange",
    {
      config: { auth: "none" },
      schema: {
        tags: ["sessions"],
        summary: `Exchange the store backend's signed assertion (HS256 JWT: iss = store id, aud, sub = customer id, single-use jti, exp ≤ ${MAX_ASSERTION_LIFETIME_SECONDS} s after iat) for a customer session`,
        body: Type.Object(
          { assertion: Type.String({ minLength: 10, maxLength: 4096, pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*$" }), locale: Type.Optional(Locale) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            session_token: Type.String({ description: "Opaque bearer ast_…" }),
            expires_in: Type.Integer(),
            role: Type.Literal("customer"),
            customer_id: Type.String(),
            correlation_id: CorrelationId,
          }),
          ...problems(400, 401, 429),
        },
      },
    },
    async (request) => ({ ...(await service.exchange(request.body.assertion, request.body.locale, request.ip)), correlation_id: request.id }),
  );

  r.get(
    "/v1/admin/exchange-secret",
    admin({
      summary: "Whether the store has an exchange secret, and the claims assertions must carry (never the secret)",
      response: { 200: Type.Object({ ...SecretInfo, correlation_id: CorrelationId }) },
    }),
    async (request) => ({ ...(await service.secretInfo(storeOf(request).id)), correlation_id: request.id }),
  );

  r.post(
    "/v1/admin/exchange-secret",
    admin({
      summary: "Create or rotate the store's exchange secret (shown once; the previous one stops verifying at once)",
      body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500, pattern: "\\S" }) }, { additionalProperties: false }),
      response: { 201: Type.Object({ ...SecretInfo, secret: Type.String({ description: "exs_… (shown once)" }), correlation_id: CorrelationId }), ...problems(400) },
    }),
    async (request, reply) => {
      const created = await service.rotate(storeOf(request).id, actorUserIdOf(request));
      request.auditTarget = created.secret_id;
      return reply.status(201).send({ ...created, correlation_id: request.id });
    },
  );
}
