// /v1/search/synonyms — a store's own synonyms of text search (issue 35; not in the spec: the
// issue decides). Reading needs search:read, changing products:write (the people who edit the
// catalogue also tune how it is found).
import { Type } from "typebox";
import type { App } from "../../platform/http/app.js";
import { searchErrors } from "../http/schemas.js";
import { storeOf } from "../../tenancy/authenticate.js";
import { storeRoute } from "../../tenancy/permissions.js";
import { SYNONYMS_MAX_PER_STORE, type SynonymsService } from "./service.js";
import { Synonym, SynonymBody, SynonymDeleted, SynonymIdParams } from "./schemas.js";

const tags = ["synonyms"];
const APPLIES =
  "Applied to this store's text search, widget text search and the assistant's catalogue search, beside the built-in vocabulary (gender and apparel words in en/de, colour families); a match through a synonym ranks below the word itself.";

export async function synonymRoutes(app: App, { synonyms }: { synonyms: SynonymsService }) {
  app.get(
    "/v1/search/synonyms",
    storeRoute("search:read", {
      tags,
      summary: "The store's own synonyms, oldest first",
      description: APPLIES,
      response: { 200: Type.Array(Synonym), ...searchErrors(401, 403) },
    }),
    async (request) => synonyms.list(storeOf(request).id),
  );

  app.post(
    "/v1/search/synonyms",
    storeRoute("products:write", {
      tags,
      summary: "Add a synonym entry (one_way or multi_way)",
      description: `${APPLIES} At most ${SYNONYMS_MAX_PER_STORE} entries per store (422 beyond); the same entry twice is 409.`,
      body: SynonymBody,
      response: { 201: Synonym, ...searchErrors(400, 401, 403, 409, 422) },
    }),
    async (request, reply) => reply.status(201).send(await synonyms.create(storeOf(request).id, request.body)),
  );

  app.put(
    "/v1/search/synonyms/:synonym_id",
    storeRoute("products:write", {
      tags,
      summary: "Replace a synonym entry's kind and phrases",
      params: SynonymIdParams,
      body: SynonymBody,
      response: { 200: Synonym, ...searchErrors(400, 401, 403, 404, 409) },
    }),
    async (request) => synonyms.replace(storeOf(request).id, request.params.synonym_id, request.body),
  );

  app.delete(
    "/v1/search/synonyms/:synonym_id",
    storeRoute("products:write", {
      tags,
      summary: "Delete a synonym entry",
      params: SynonymIdParams,
      response: { 200: SynonymDeleted, ...searchErrors(401, 403, 404) },
    }),
    async (request) => synonyms.remove(storeOf(request).id, request.params.synonym_id),
  );
}
