// POST /v1/sessions/exchange (the store backend's signed assertion → customer session) and the
// per-store exchange secret: POST /v1/admin/exchange-secret (create or rotate; shown once),
// GET /v1/admin/exchange-secret (whether one is set, never the secret).
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { MAX_ASSERTION_LIFETIME_SECONDS, type ExchangeService } from "./service.js";
import { ExchangeBody, RotateSecretBody, SecretInfoFields } from "./schemas.js";

export async function exchangeRoutes(app: App, deps: { guards: AssistantGuards; exchange: ExchangeService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.exchange;
  const admin = adminRoutes(deps.guards);

  r.post(
    "/v1/sessions/exchange",
    {
      config: { auth: "none" },
      schema: {
        tags: ["sessions"],
        summary: `Exchange the store backend's signed assertion (HS256 JWT: iss = store id, aud, sub = customer id, single-use jti, exp ≤ ${MAX_ASSERTION_LIFETIME_SECONDS} s after iat) for a customer session`,
        body: ExchangeBody,
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
    async (request) => ({
      ...(await service.exchange(request.body.assertion, request.body.locale, request.ip)),
      correlation_id: request.id,
    }),
  );

  r.get(
    "/v1/admin/exchange-secret",
    admin({
      summary: "Whether the store has an exchange secret, and the claims assertions must carry (never the secret)",
      response: { 200: Type.Object({ ...SecretInfoFields, correlation_id: CorrelationId }) },
    }),
    async (request) => ({ ...(await service.secretInfo(storeOf(request).id)), correlation_id: request.id }),
  );

  r.post(
    "/v1/admin/exchange-secret",
    admin({
      summary: "Create or rotate the store's exchange secret (shown once; the previous one stops verifying at once)",
      body: RotateSecretBody,
      response: {
        201: Type.Object({
          ...SecretInfoFields,
          secret: Type.String({ description: "exs_… (shown once)" }),
          correlation_id: CorrelationId,
        }),
        ...problems(400),
      },
    }),
    async (request, reply) => {
      const created = await service.rotate(storeOf(request).id, actorUserIdOf(request));
      request.auditTarget = created.secret_id;
      return reply.status(201).send({ ...created, correlation_id: request.id });
    },
  );
}
