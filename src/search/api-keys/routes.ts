// /v1/security/api-keys* (spec: Security records; issue 7): create, list and revoke the store's
// scoped API keys.
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import type { ApiKeysService } from "./service.js";
import { ApiKeyList, ApiKeyView, CreateApiKeyBody, CreatedApiKey, KeyParams } from "./schemas.js";

const tags = ["security"];

export async function apiKeyRoutes(app: App, { apiKeys }: { apiKeys: ApiKeysService }) {
  app.post(
    "/v1/security/api-keys",
    storeRoute("security:write", {
      tags,
      summary: "Create a scoped API key; the secret `key` (sk_live_…) is returned this once",
      description:
        "Use it as `Authorization: Bearer sk_live_…` on /v1/* calls; it may do only what its scopes allow (403 missing_permission naming the scope otherwise). A user may grant only permissions it holds. security:write and team:write are never API-key scopes.",
      body: CreateApiKeyBody,
      response: { 201: CreatedApiKey, ...searchErrors(400, 401, 403, 422) },
    }),
    async (request, reply) => {
      const store = storeOf(request);
      const created = await apiKeys.create(store.id, { userId: actorUserIdOf(request), grant: store.permissions }, request.body);
      return reply.status(201).send(created);
    },
  );

  app.get(
    "/v1/security/api-keys",
    storeRoute("security:read", {
      tags,
      summary: "The store's API keys, newest first, with their status (never the secret)",
      response: { 200: ApiKeyList, ...searchErrors(401, 403) },
    }),
    async (request) => apiKeys.list(storeOf(request).id),
  );

  app.delete(
    "/v1/security/api-keys/:key_id",
    storeRoute("security:write", {
      tags,
      summary: "Revoke an API key; its next use is 401",
      params: KeyParams,
      response: { 200: ApiKeyView, ...searchErrors(401, 403, 404) },
    }),
    async (request) => apiKeys.revoke(storeOf(request).id, request.params.key_id),
  );
}
