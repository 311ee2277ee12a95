// Store assistant settings: GET/PUT /v1/admin/settings and the store's vocabulary of the policy
// engine, GET/PUT /v1/admin/settings/vocabulary (dashboard session, connector:write:store).
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, problems } from "../http/schemas.js";
import type { AssistantSettingsService } from "./service.js";
import { SettingsBody, SettingsViewFields, VocabularyBody, VocabularyViewFields } from "./schemas.js";

const SettingsView = Type.Object({ ...SettingsViewFields, correlation_id: CorrelationId });
const VocabularyView = Type.Object({ ...VocabularyViewFields, correlation_id: CorrelationId });

export async function settingsRoutes(app: App, deps: { guards: AssistantGuards; settings: AssistantSettingsService }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = deps.settings;
  const admin = adminRoutes(deps.guards);

  r.get(
    "/v1/admin/settings",
    admin({ summary: "The store's assistant settings (currency, support contact)", response: { 200: SettingsView } }),
    async (request) => ({ ...(await service.view(storeOf(request).id)), correlation_id: request.id }),
  );

  r.put(
    "/v1/admin/settings",
    admin({
      summary: "Replace the store's assistant settings",
      body: SettingsBody,
      response: { 200: SettingsView, ...problems(400) },
    }),
    async (request) => ({ ...(await service.put(storeOf(request).id, request.body, actorUserIdOf(request))), correlation_id: request.id }),
  );

  r.get(
    "/v1/admin/settings/vocabulary",
    admin({
      summary: "The store's own words for the policy answers (synonyms, scope words, product words)",
      response: { 200: VocabularyView },
    }),
    async (request) => ({ ...(await service.vocabulary(storeOf(request).id)), correlation_id: request.id }),
  );

  r.put(
    "/v1/admin/settings/vocabulary",
    admin({
      summary: "Replace the store's own words for the policy answers",
      body: VocabularyBody,
      response: { 200: VocabularyView, ...problems(400) },
    }),
    async (request) => ({
      ...(await service.putVocabulary(storeOf(request).id, request.body, actorUserIdOf(request))),
      correlation_id: request.id,
    }),
  );
}
