import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../platform/clock.js";
import { sha256 } from "../../platform/ids.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, loginToken, machineToken, registerStore } from "../../../test/support/factories.js";
import { addMember, createApiKey, createGroup, setGroups } from "../../../test/support/members.js";

describeEachDialect("security: scoped API keys", (dialect) => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9));
  before(async () => {
    t = await createTestApp({ dialect, clock });
  });
  after(() => t.close());

  const call = (method: "GET" | "POST" | "DELETE", url: string, token: string, payload?: object, headers: Record<string, string> = {}) =>
    t.search.inject({ method, url, headers: { ...bearer(token), ...headers }, ...(payload ? { payload } : {}) });

  test("creates a key shown once (sk_live_, stored as SHA-256) and lists keys without secrets", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const res = await call("POST", "/v1/security/api-keys", owner, {
      name: "catalogue sync",
      scopes: { products: ["read", "write"], search: ["execute"] },
      expires_in_days: 30,
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.match(body.key, /^sk_live_[A-Za-z0-9_-]{43}$/);
    assert.equal(body.name, "catalogue sync");
    assert.deepEqual(body.scopes, { products: ["read", "write"], search: ["execute"] });
    assert.equal(body.status, "active");
    assert.equal(body.expires_at, new Date(clock.now() + 30 * 86_400_000).toISOString());
    assert.equal(body.prefix, body.key.slice(0, 16));

    const row = await t.ctx.database.db.selectFrom("api_keys").selectAll().where("id", "=", body.id).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, sha256(body.key));
    assert.ok(!JSON.stringify(row).includes(body.key), "the secret is not stored");

    const list = await call("GET", "/v1/security/api-keys", owner);
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().length, 1);
    assert.equal(list.json()[0].id, body.id);
    assert.equal(list.json()[0].key, undefined);
    assert.ok(!list.body.includes(body.key));
    const defaulted = await call("POST", "/v1/security/api-keys", owner, { name: "default expiry", scopes: { products: ["read"] } });
    assert.equal(defaulted.json().expires_at, new Date(clock.now() + 90 * 86_400_000).toISOString());
  });

  test("a key acts on its own store within its scopes; a missing scope is 403 naming it", async () => {
    const a = await registerStore(t);
    const b = await registerStore(t);
    const machine = await machineToken(t.search, a);
    const key = await createApiKey(t, machine, { team: ["read"] });
    const users = await call("GET", "/v1/users", key.key, undefined, { "X-Service-Active-Tenant": b.slug });
    assert.equal(users.statusCode, 200, users.body);
    assert.deepEqual(
      users.json().map((u: { email: string }) => u.email),
      [a.email],
      "the active-tenant header is ignored: the key acts on its own store",
    );
    const refused = await call("GET", "/v1/security/overview", key.key);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, "missing_permission");
    assert.equal(refused.json().details.missing_permission, "security:read");
    assert.deepEqual(refused.json().details.missing_scope, { security: ["read"] });
    assert.match(refused.json().message, /security:read/);
    const write = await call("POST", "/v1/user-groups", key.key, { name: "x", permission_names: ["products:read"] });
    assert.equal(write.statusCode, 403);
    assert.equal(write.json().details.missing_permission, "team:write");
    const used = await call("GET", "/v1/security/api-keys", machine);
    assert.ok(used.json()[0].last_used_at, "last use is recorded");
  });

  test("revoked and expired keys are 401", async () => {
    const store = await registerStore(t);
    const machine = await machineToken(t.search, store);
    const key = await createApiKey(t, machine, { team: ["read"] });
    assert.equal((await call("GET", "/v1/users", key.key)).statusCode, 200);
    const revoke = await call("DELETE", `/v1/security/api-keys/${key.id}`, machine);
    assert.equal(revoke.statusCode, 200);
    assert.equal(revoke.json().status, "revoked");
    assert.ok(revoke.json().revoked_at);
    const again = await call("DELETE", `/v1/security/api-keys/${key.id}`, machine);
    assert.equal(again.statusCode, 200, "revoking twice is harmless");
    const afterRevoke = await call("GET", "/v1/users", key.key);
    assert.equal(afterRevoke.statusCode, 401);
    assert.equal(afterRevoke.json().error, "unauthorized");
    assert.match(afterRevoke.json().message, /revoked/);

    const short = await createApiKey(t, machine, { team: ["read"] }, { expires_in_days: 1 });
    clock.advance(86_400_000 - 1000);
    assert.equal((await call("GET", "/v1/users", short.key)).statusCode, 200);
    clock.advance(1000);
    const expired = await call("GET", "/v1/users", short.key);
    assert.equal(expired.statusCode, 401);
    assert.equal(expired.json().error, "unauthorized", "not token_expired: a key cannot be refreshed");
    assert.match(expired.json().message, /expired/);
    const fresh = await machineToken(t.search, store); // the first machine token expired with the day
    const list = (await call("GET", "/v1/security/api-keys", fresh)).json() as { id: string; status: string }[];
    assert.equal(list.find((k) => k.id === short.id)?.status, "expired");

    for (const bogus of ["sk_live_", "sk_live_nope", `sk_live_${"A".repeat(43)}`]) {
      const res = await call("GET", "/v1/users", bogus);
      assert.equal(res.statusCode, 401, bogus);
    }
  });

  test("keys cannot use per-user or role-gated endpoints", async () => {
    const store = await registerStore(t);
    const machine = await machineToken(t.search, store);
    const key = await createApiKey(t, machine, { products: ["read"], team: ["read"], security: ["read"] });
    const twoFactor = await call("POST", "/v1/security/2fa/setup", key.key);
    assert.equal(twoFactor.statusCode, 403);
    assert.equal(twoFactor.json().error, "forbidden");
    const rotate = await call("POST", "/v1/security/client-secret/rotate", key.key);
    assert.equal(rotate.statusCode, 403);
    assert.equal(rotate.json().error, "forbidden");
    await machineToken(t.search, store); // the secret was not rotated
  });

  test("refuses malformed requests with 400 validation_failed", async () => {
    const store = await registerStore(t);
    const machine = await machineToken(t.search, store);
    const bad: object[] = [
      { scopes: { products: ["read"] } },
      { name: "", scopes: { products: ["read"] } },
      { name: "k" },
      { name: "k", scopes: {} },
      { name: "k", scopes: { products: [] } },
      { name: "k", scopes: { products: ["fly"] } },
      { name: "k", scopes: { spaceships: ["read"] } },
      { name: "k", scopes: { security: ["write"] } },
      { name: "k", scopes: { team: ["write"] } },
      { name: "k", scopes: { products: ["read", "read"] } },
      { name: "k", scopes: { products: "read" } },
      { name: "k", scopes: { products: ["read"] }, expires_in_days: 0 },
      { name: "k", scopes: { products: ["read"] }, expires_in_days: 366 },
      { name: "k", scopes: { products: ["read"] }, expires_in_days: "7" },
      { name: "k", scopes: { products: ["read"] }, admin: true },
    ];
    for (const payload of bad) {
      const res = await call("POST", "/v1/security/api-keys", machine, payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().error, "validation_failed", JSON.stringify(payload));
    }
    const count = await t.ctx.database.db.selectFrom("api_keys").select("id").where("store_id", "=", store.clientId).execute();
    assert.equal(count.length, 0, "nothing was created");
  });

  test("nobody grants more than they hold: scopes must be the creator's own permissions", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const dev = await addMember(t, owner, "developer");
    const noRight = await call("POST", "/v1/security/api-keys", dev.token, { name: "k", scopes: { products: ["read"] } });
    assert.equal(noRight.statusCode, 403);
    assert.equal(noRight.json().details.missing_permission, "security:write");

    const keyAdmins = await createGroup(t, owner, ["security:write"]);
    await setGroups(t, owner, dev.id, [keyAdmins]);
    const tooMuch = await call("POST", "/v1/security/api-keys", dev.token, { name: "k", scopes: { billing: ["write"] } });
    assert.equal(tooMuch.statusCode, 403);
    assert.equal(tooMuch.json().error, "missing_permission");
    assert.equal(tooMuch.json().details.missing_permission, "billing:write");
    const within = await call("POST", "/v1/security/api-keys", dev.token, { name: "k", scopes: { products: ["read", "write"] } });
    assert.equal(within.statusCode, 201, within.body);
  });

  test("a second store's token and ids never reach the first store's keys", async () => {
    const a = await registerStore(t);
    const b = await registerStore(t);
    const machineA = await machineToken(t.search, a);
    const machineB = await machineToken(t.search, b);
    const keyA = await createApiKey(t, machineA, { team: ["read"] });
    const revoke = await call("DELETE", `/v1/security/api-keys/${keyA.id}`, machineB);
    assert.equal(revoke.statusCode, 404);
    const ownerB = await loginToken(t.search, b.email, b.password);
    const viaHeader = await call("DELETE", `/v1/security/api-keys/${keyA.id}`, ownerB, undefined, { "X-Service-Active-Tenant": a.slug });
    assert.equal(viaHeader.statusCode, 403);
    assert.equal(viaHeader.json().error, "not_a_member");
    const listB = await call("GET", "/v1/security/api-keys", machineB);
    assert.deepEqual(listB.json(), []);
    assert.equal((await call("GET", "/v1/users", keyA.key)).statusCode, 200, "A's key still works");
    const row = await t.ctx.database.db.selectFrom("api_keys").select("revoked_at").where("id", "=", keyA.id).executeTakeFirstOrThrow();
    assert.equal(row.revoked_at, null);
  });
});
