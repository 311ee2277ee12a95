import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, loginToken, registerStore } from "../../../test/support/factories.js";
import { addMember } from "../../../test/support/members.js";

const returns = {
  handle: "returns",
  title: "Returns",
  body_markdown: "You may return items within 30 days.",
  locale: "en",
  published: true,
};

describeEachDialect("assistant: versioned store policies", (dialect) => {
  let t: TestApp;
  let ownerA: string;
  let ownerB: string;

  before(async () => {
    t = await createTestApp({ dialect });
    const a = await registerStore(t);
    const b = await registerStore(t);
    ownerA = await loginToken(t.search, a.email, a.password);
    ownerB = await loginToken(t.search, b.email, b.password);
  });
  after(async () => {
    await t.close();
  });

  const put = (token: string, concept: string, payload: unknown) =>
    t.assistant.inject({ method: "PUT", url: `/v1/admin/policies/${concept}`, headers: bearer(token), payload: payload as object });

  test("every change adds a concept_version; an identical PUT changes nothing", async () => {
    const v1 = await put(ownerA, "returns-policy", returns);
    assert.equal(v1.statusCode, 200, v1.body);
    assert.equal(v1.json().concept_version, 1);
    assert.equal(v1.json().changed, true);
    assert.ok(v1.json().correlation_id);

    const same = await put(ownerA, "returns-policy", returns);
    assert.equal(same.json().concept_version, 1);
    assert.equal(same.json().changed, false);

    const v2 = await put(ownerA, "returns-policy", { ...returns, body_markdown: "You may return items within 14 days." });
    assert.equal(v2.json().concept_version, 2);
    const v3 = await put(ownerA, "returns-policy", { ...returns, body_markdown: "You may return items within 14 days.", published: false });
    assert.equal(v3.json().concept_version, 3);
    assert.equal(v3.json().published, false);

    const list = await t.assistant.inject({ method: "GET", url: "/v1/admin/policies", headers: bearer(ownerA) });
    assert.equal(list.statusCode, 200, list.body);
    const policies = list.json().policies as Array<{
      concept_id: string;
      concept_version: number;
      published: boolean;
      body_markdown: string;
    }>;
    assert.equal(policies.length, 1);
    assert.deepEqual([policies[0]!.concept_id, policies[0]!.concept_version, policies[0]!.published], ["returns-policy", 3, false]);
  });

  test("bad input is VALIDATION_FAILED; a handle is one concept's", async () => {
    for (const payload of [
      {},
      { ...returns, published: "yes" },
      { ...returns, handle: "Bad Handle" },
      { ...returns, extra: 1 },
      { ...returns, title: "" },
    ]) {
      const res = await put(ownerA, "shipping", payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().code, "VALIDATION_FAILED");
    }
    const badId = await put(ownerA, "Not_Valid!", returns);
    assert.equal(badId.statusCode, 400);
    const clash = await put(ownerA, "other-concept", returns);
    assert.equal(clash.statusCode, 409);
    assert.equal(clash.json().code, "CONFLICT");
  });

  test("concurrent changes of one concept each get their own version (no 500, nothing lost)", async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => ({ ...returns, handle: "care-guide", body_markdown: `Care guide revision ${i}.` }));
    const results = await Promise.all(bodies.map((b) => put(ownerA, "care-guide", b)));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), results.map(() => 200).sort(), results.map((r) => r.body).join("\n"));
    const versions = results.map((r) => r.json().concept_version as number).sort((x, y) => x - y);
    assert.deepEqual(versions, [1, 2, 3, 4, 5, 6]);
  });

  test("permissions and cross-store isolation", async () => {
    const none = await t.assistant.inject({ method: "GET", url: "/v1/admin/policies" });
    assert.equal(none.statusCode, 401);
    const viewer = await addMember(t, ownerA, "viewer");
    const denied = await put(viewer.token, "shipping", { ...returns, handle: "shipping" });
    assert.equal(denied.statusCode, 403);
    // connector:write:store belongs to owners and admins by default, not developers.
    const developer = await addMember(t, ownerA, "developer");
    const devDenied = await put(developer.token, "shipping", { ...returns, handle: "shipping" });
    assert.equal(devDenied.statusCode, 403, devDenied.body);
    const admin = await addMember(t, ownerA, "admin");
    const adminPut = await put(admin.token, "shipping", { ...returns, handle: "shipping" });
    assert.equal(adminPut.statusCode, 200, adminPut.body);

    // Store B may use the same concept id and handle: it gets its own version 1, and A's are unseen.
    const b1 = await put(ownerB, "returns-policy", returns);
    assert.equal(b1.json().concept_version, 1);
    const listB = await t.assistant.inject({ method: "GET", url: "/v1/admin/policies", headers: bearer(ownerB) });
    const policiesB = listB.json().policies as Array<{ concept_id: string; concept_version: number; body_markdown: string }>;
    assert.deepEqual(
      policiesB.map((p) => [p.concept_id, p.concept_version, p.body_markdown]),
      [["returns-policy", 1, returns.body_markdown]],
    );
  });

  test("GET …/versions lists every version of a policy, newest first, of the caller's store only", async () => {
    const history = await t.assistant.inject({ method: "GET", url: "/v1/admin/policies/returns-policy/versions", headers: bearer(ownerA) });
    assert.equal(history.statusCode, 200, history.body);
    const versions = history.json().versions as Array<{ concept_version: number; published: boolean; body_markdown: string }>;
    assert.deepEqual(
      versions.map((v) => [v.concept_version, v.published]),
      [
        [3, false],
        [2, true],
        [1, true],
      ],
    );
    assert.equal(versions[2]!.body_markdown, returns.body_markdown);
    // Store B's policy of the same id has only B's version; an unknown id is 404; no token is 401.
    const b = await t.assistant.inject({ method: "GET", url: "/v1/admin/policies/returns-policy/versions", headers: bearer(ownerB) });
    assert.deepEqual(
      (b.json().versions as Array<{ concept_version: number }>).map((v) => v.concept_version),
      [1],
    );
    assert.equal(
      (await t.assistant.inject({ method: "GET", url: "/v1/admin/policies/none/versions", headers: bearer(ownerA) })).statusCode,
      404,
    );
    assert.equal((await t.assistant.inject({ method: "GET", url: "/v1/admin/policies/returns-policy/versions" })).statusCode, 401);
    // A concept id that is no slug is a validation problem naming the parameter.
    const bad = await t.assistant.inject({ method: "GET", url: "/v1/admin/policies/Bad%20Id/versions", headers: bearer(ownerA) });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(bad.json().code, "VALIDATION_FAILED");
    assert.match(bad.body, /concept_id/);
  });
});
