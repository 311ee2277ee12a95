import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp, loginToken, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { addMember } from "../../../test/support/members.js";
import { MINT_LIMIT, SESSION_TTL_SECONDS } from "./service.js";
import { ManualClock } from "../../platform/clock.js";

interface Shop {
  store: RegisteredStore;
  owner: string;
  publicKey: string;
  keyId: string;
}

describeEachDialect("assistant: public keys, anonymous sessions, revocation, threads", (dialect) => {
  let t: TestApp;
  let clock: ManualClock;
  let a: Shop;
  let b: Shop;

  async function shop(): Promise<Shop> {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/public-keys",
      headers: bearer(owner),
      payload: { name: "widget" },
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json() as { id: string; key: string; status: string; correlation_id: string };
    assert.match(body.key, /^store_pub_/);
    assert.equal(body.status, "active");
    assert.equal(body.correlation_id, res.headers["x-correlation-id"]);
    return { store, owner, publicKey: body.key, keyId: body.id };
  }

  async function session(s: Shop): Promise<string> {
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: freshIp(),
      payload: { store_public_key: s.publicKey, locale: "en-GB" },
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { session_token: string }).session_token;
  }

  async function thread(token: string): Promise<string> {
    const res = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: bearer(token), payload: { locale: "en" } });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as { thread_id: string }).thread_id;
  }

  before(async () => {
    clock = new ManualClock(Date.parse("2026-03-01T10:00:00Z"));
    t = await createTestApp({ dialect, clock });
    a = await shop();
    b = await shop();
  });
  after(async () => {
    await t.close();
  });

  test("public keys: listed without the key, revoked keys mint nothing", async () => {
    const list = await t.assistant.inject({ method: "GET", url: "/v1/admin/public-keys", headers: bearer(a.owner) });
    assert.equal(list.statusCode, 200, list.body);
    const keys = (list.json() as { keys: Array<Record<string, unknown>> }).keys;
    assert.deepEqual(
      keys.map((k) => k.id),
      [a.keyId],
    );
    assert.equal(keys[0]!.key, undefined);
    assert.ok(!list.body.includes(a.publicKey));

    const extra = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/public-keys",
      headers: bearer(a.owner),
      payload: { name: "old" },
    });
    const { id, key } = extra.json() as { id: string; key: string };
    const del = await t.assistant.inject({ method: "DELETE", url: `/v1/admin/public-keys/${id}`, headers: bearer(a.owner) });
    assert.equal(del.statusCode, 204);
    const mint = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: freshIp(),
      payload: { store_public_key: key },
    });
    assert.equal(mint.statusCode, 401);
    assert.equal(mint.json().code, "UNAUTHENTICATED");
    const after = await t.assistant.inject({ method: "GET", url: "/v1/admin/public-keys", headers: bearer(a.owner) });
    assert.equal((after.json() as { keys: Array<{ id: string; status: string }> }).keys.find((k) => k.id === id)?.status, "revoked");
  });

  test("public keys: admin calls need a dashboard session with connector:write:store", async () => {
    const none = await t.assistant.inject({ method: "GET", url: "/v1/admin/public-keys" });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().code, "UNAUTHENTICATED");
    assert.ok(none.json().correlation_id);

    const viewer = await addMember(t, a.owner, "viewer");
    const denied = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/public-keys",
      headers: bearer(viewer.token),
      payload: { name: "x" },
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().code, "MISSING_PERMISSION");

    const machine = await machineToken(t.search, a.store);
    const m = await t.assistant.inject({ method: "GET", url: "/v1/admin/public-keys", headers: bearer(machine) });
    assert.equal(m.statusCode, 403);

    const shopper = await session(a);
    const s = await t.assistant.inject({ method: "GET", url: "/v1/admin/public-keys", headers: bearer(shopper) });
    assert.equal(s.statusCode, 401);
  });

  test("public keys: bad input is VALIDATION_FAILED; other stores' keys are not found", async () => {
    for (const payload of [{}, { name: "" }, { name: "x", extra: 1 }, { name: 5 }]) {
      const res = await t.assistant.inject({ method: "POST", url: "/v1/admin/public-keys", headers: bearer(a.owner), payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().code, "VALIDATION_FAILED");
      assert.match(String(res.headers["content-type"]), /problem\+json/);
    }
    const cross = await t.assistant.inject({ method: "DELETE", url: `/v1/admin/public-keys/${b.keyId}`, headers: bearer(a.owner) });
    assert.equal(cross.statusCode, 404);
    const listB = await t.assistant.inject({ method: "GET", url: "/v1/admin/public-keys", headers: bearer(b.owner) });
    assert.deepEqual(
      (listB.json() as { keys: Array<{ id: string; status: string }> }).keys.map((k) => [k.id, k.status]),
      [[b.keyId, "active"]],
    );
  });

  test("anonymous session: token, lifetime, not accepted by the Search API, expires", async () => {
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: freshIp(),
      payload: { store_public_key: a.publicKey },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { session_token: string; expires_in: number; role: string; correlation_id: string };
    assert.equal(body.expires_in, SESSION_TTL_SECONDS);
    assert.equal(body.role, "anonymous");
    assert.ok(body.correlation_id);
    const search = await t.search.inject({ method: "GET", url: "/v1/products", headers: bearer(body.session_token) });
    assert.equal(search.statusCode, 401);

    const thr = await thread(body.session_token);
    clock.advance(SESSION_TTL_SECONDS * 1000);
    const expired = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}`, headers: bearer(body.session_token) });
    assert.equal(expired.statusCode, 401);
    assert.equal(expired.json().code, "UNAUTHENTICATED");
  });

  test("anonymous session: bad input, unknown key, mint limit per client address", async () => {
    for (const payload of [
      {},
      { store_public_key: "" },
      { store_public_key: a.publicKey, locale: "not a locale!" },
      { store_public_key: a.publicKey, x: 1 },
    ]) {
      const res = await t.assistant.inject({ method: "POST", url: "/v1/sessions/anonymous", remoteAddress: freshIp(), payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().code, "VALIDATION_FAILED");
    }
    const unknown = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: freshIp(),
      payload: { store_public_key: "store_pub_nope" },
    });
    assert.equal(unknown.statusCode, 401);

    const ip = freshIp();
    for (let i = 0; i < MINT_LIMIT.points; i++) {
      const ok = await t.assistant.inject({
        method: "POST",
        url: "/v1/sessions/anonymous",
        remoteAddress: ip,
        payload: { store_public_key: a.publicKey },
      });
      assert.equal(ok.statusCode, 200, ok.body);
    }
    const limited = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: ip,
      payload: { store_public_key: a.publicKey },
    });
    assert.equal(limited.statusCode, 429);
    const problem = limited.json() as { code: string; details: { window: string; retry_after: number } };
    assert.equal(problem.code, "RATE_LIMITED");
    assert.equal(problem.details.window, "session_mint_per_client_address");
    assert.ok(problem.details.retry_after >= 1);
    assert.ok(Number(limited.headers["retry-after"]) >= 1);
    const other = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/anonymous",
      remoteAddress: freshIp(),
      payload: { store_public_key: a.publicKey },
    });
    assert.equal(other.statusCode, 200);
  });

  test("revoke: 204, then the token stops working at once", async () => {
    const token = await session(a);
    const thr = await thread(token);
    const bad = await t.assistant.inject({ method: "POST", url: "/v1/sessions/revoke", headers: bearer(token), payload: {} });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, "VALIDATION_FAILED");
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/sessions/revoke",
      headers: bearer(token),
      payload: { reason: "user logged out" },
    });
    assert.equal(res.statusCode, 204);
    for (const call of [
      { method: "GET" as const, url: `/v1/chat/sessions/${thr}` },
      { method: "POST" as const, url: "/v1/chat/sessions", payload: {} },
      { method: "POST" as const, url: "/v1/sessions/revoke", payload: { reason: "again" } },
    ]) {
      const r = await t.assistant.inject({ ...call, headers: bearer(token) });
      assert.equal(r.statusCode, 401, call.url);
      assert.equal(r.json().code, "UNAUTHENTICATED");
    }
  });

  test("threads: transcript for the owning session only; other sessions and stores get 404", async () => {
    const token = await session(a);
    const thr = await thread(token);
    assert.match(thr, /^thr_[0-9a-f]{32}$/);
    const res = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}`, headers: bearer(token) });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { thread_id: string; locale: string; messages: unknown[]; correlation_id: string };
    assert.equal(body.thread_id, thr);
    assert.equal(body.locale, "en");
    assert.deepEqual(body.messages, []);
    assert.ok(body.correlation_id);

    const sameStoreOther = await session(a);
    const r1 = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}`, headers: bearer(sameStoreOther) });
    assert.equal(r1.statusCode, 404);
    const storeB = await session(b);
    const r2 = await t.assistant.inject({ method: "GET", url: `/v1/chat/sessions/${thr}`, headers: bearer(storeB) });
    assert.equal(r2.statusCode, 404);
    assert.equal(r2.json().code, "NOT_FOUND");

    const noToken = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", payload: {} });
    assert.equal(noToken.statusCode, 401);
    const badBody = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: bearer(token), payload: { locale: 7 } });
    assert.equal(badBody.statusCode, 400);
    assert.equal(badBody.json().code, "VALIDATION_FAILED");
    const dashboard = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: bearer(a.owner), payload: {} });
    assert.equal(dashboard.statusCode, 401);
  });
});
