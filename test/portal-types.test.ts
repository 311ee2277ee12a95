// The portal's API types (web/portal/src/generated/*.ts) must be what openapi-typescript makes of
// the two APIs' current /openapi.json (issue 21: one source for every type). A route whose schema
// changes without `npm run portal:types` fails here, and `npm run typecheck` (run by .ci/run)
// then checks every portal page against the regenerated types.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { API_NAMES, openapiDocuments, portalTypeFiles, portalTypePath, sortKeys } from "../scripts/openapi.js";

test("the portal's generated API types match both APIs' current OpenAPI documents", async () => {
  const docs = await openapiDocuments();
  const files = await portalTypeFiles(docs);
  for (const name of API_NAMES) {
    assert.ok(fs.existsSync(portalTypePath(name)), `${portalTypePath(name)} is missing: run npm run portal:types`);
    assert.equal(
      fs.readFileSync(portalTypePath(name), "utf8"),
      files[name],
      `${portalTypePath(name)} is stale: run npm run portal:types and commit it`,
    );
    // The generated paths are the documents' own (a sanity check that generation read the document).
    for (const route of Object.keys(docs[name].paths as Record<string, unknown>))
      assert.ok(files[name].includes(`"${route}": {`), `${route} missing from ${name} types`);
  }
});

test("the key-sorted OpenAPI dump is stable and sorted at every level", async () => {
  const a = JSON.stringify(sortKeys((await openapiDocuments())["search-api"]));
  const b = JSON.stringify(sortKeys((await openapiDocuments())["search-api"]));
  assert.equal(a, b);
  const check = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(check);
    if (v && typeof v === "object") {
      const keys = Object.keys(v);
      assert.deepEqual(keys, [...keys].sort());
      for (const k of keys) check((v as Record<string, unknown>)[k]);
    }
  };
  check(JSON.parse(a));
});
