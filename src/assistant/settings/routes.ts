// Store assistant settings: GET/PUT /v1/admin/settings (dashboard session, connector:write:store).
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { AppContext } from "../../context/context.js";
import type { App } from "../../platform/http/app.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { adminRoutes } from "../http/routes.js";
import type { AssistantGuards } from "../http/auth.js";
import { CorrelationId, problems } from "../http/schemas.js";
import { AssistantSettingsService } from "./service.js";

const SupportContact = Type.Object(
  {
    email: Type.Optional(Type.String({ format: "email", maxLength: 254 })),
    url: Type.Optional(Type.String({ format: "uri", pattern: "^https?://", maxLength: 2000 })),
    phone: Type.Optional(Type.String({ minLength: 3, maxLength: 40, pattern: "^[0-9+() .-]+$" })),
    hours: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
const Settings = {
  currency: Type.String({ pattern: "^[A-Za-z]{3}$", description: "ISO 4217 code of the store currency (default USD)" }),
  support_contact: Type.Union([SupportContact, Type.Null()], { description: "Shown to shoppers on handoff; null for none" }),
};
const SettingsView = Type.Object({
  ...Settings,
  updated_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "null: never saved (defaults)" }),
  correlation_id: CorrelationId,
});

export async function settingsRoutes(app: App, ctx: AppContext, guards: AssistantGuards): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const service = new AssistantSettingsService(ctx);
  const admin = adminRoutes(guards);

  r.get(
    "/v1/admin/settings",
    admin({ summary: "The store's assistant settings (currency, support contact)", response: { 200: SettingsView } }),
    async (request) => ({ ...(await service.view(storeOf(request).id)), correlation_id: request.id }),
  );

  r.put(
    "/v1/admin/settings",
    admin({
      summary: "Replace the store's assistant settings",
      body: Type.Object(Settings, { additionalProperties: false }),
      response: { 200: SettingsView, ...problems(400) },
    }),
    async (request) => ({ ...(await service.put(storeOf(request).id, request.body, actorUserIdOf(request))), correlation_id: request.id }),
  );
}
