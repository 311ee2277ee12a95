// /v1/widget/keys (Bearer): a store's public widget keys, each bound to exact origins
// (spec: Authentication 3).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { actorUserIdOf, storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { WIDGET_KEY_MAX_ACTIVE, type WidgetKeysService } from "./service.js";
import { widgetTags as tags } from "./gate.js";
import { CreateWidgetKeyBody, UpdateWidgetKeyBody, WidgetKeyCreated, WidgetKeyParams, WidgetKeyView } from "./schemas.js";

export async function widgetKeyRoutes(app: App, { widgetKeys: keys }: { widgetKeys: WidgetKeysService }) {
  app.post(
    "/v1/widget/keys",
    storeRoute("widget:write", {
      tags,
      summary: "Mint a public widget key (pk_live_…) bound to exact origins; the key is returned this once",
      description: `Origins are compared exactly (scheme, host, port; default ports omitted, hosts lower-cased). At most ${WIDGET_KEY_MAX_ACTIVE} active keys per store (422 beyond).`,
      body: CreateWidgetKeyBody,
      response: { 201: WidgetKeyCreated, ...searchErrors(400, 401, 403, 422, 429) },
    }),
    async (request, reply) => reply.status(201).send(await keys.create(storeOf(request).id, actorUserIdOf(request), request.body)),
  );

  app.get(
    "/v1/widget/keys",
    storeRoute("widget:read", {
      tags,
      summary: "The store's widget keys, newest first (never the key itself)",
      response: { 200: Type.Array(WidgetKeyView), ...searchErrors(401, 403, 429) },
    }),
    async (request) => keys.list(storeOf(request).id),
  );

  app.patch(
    "/v1/widget/keys/:widget_key_id",
    storeRoute("widget:write", {
      tags,
      summary: "Rename a widget key or replace its allowed origins (the key itself stays the same)",
      params: WidgetKeyParams,
      body: UpdateWidgetKeyBody,
      response: { 200: WidgetKeyView, ...searchErrors(400, 401, 403, 404, 409, 429) },
    }),
    async (request) => keys.update(storeOf(request).id, request.params.widget_key_id, request.body),
  );

  app.delete(
    "/v1/widget/keys/:widget_key_id",
    storeRoute("widget:write", {
      tags,
      summary: "Revoke a widget key; its next use is 401",
      params: WidgetKeyParams,
      response: { 200: WidgetKeyView, ...searchErrors(401, 403, 404, 429) },
    }),
    async (request) => keys.revoke(storeOf(request).id, request.params.widget_key_id),
  );
}
