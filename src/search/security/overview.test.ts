import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { authenticator } from "otplib";
import { ManualClock } from "../../platform/clock.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp, loginToken, machineToken, registerStore } from "../../../test/support/factories.js";
import { addMember, createApiKey } from "../../../test/support/members.js";

describeEachDialect("security: overview", (dialect) => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9));
  before(async () => {
    t = await createTestApp({ dialect, clock });
  });
  after(() => t.close());

  const overview = (token: string, headers: Record<string, string> = {}) =>
    t.search.inject({ method: "GET", url: "/v1/security/overview", headers: { ...bearer(token), ...headers } });
  const failGrant = (clientId: string, ip: string) =>
    t.search.inject({
      method: "POST",
      url: "/oauth/token",
      remoteAddress: ip,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: "cs_wrong" }).toString(),
    });

  test("reports 2FA per member, active keys without secrets, the allow-list, failed logins and the last rotation", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const dev = await addMember(t, owner, "developer");
    // The developer turns 2FA on.
    const { secret } = (await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(dev.token) })).json();
    const code = authenticator.clone({ epoch: clock.now() }).generate(secret);
    assert.equal(
      (await t.search.inject({ method: "POST", url: "/v1/security/2fa/enable", headers: bearer(dev.token), payload: { totp_code: code } }))
        .statusCode,
      200,
    );

    const machine = await machineToken(t.search, store);
    const active = await createApiKey(t, machine, { products: ["read"] }, { name: "active one" });
    const revoked = await createApiKey(t, machine, { products: ["read"] }, { name: "revoked one" });
    await t.search.inject({ method: "DELETE", url: `/v1/security/api-keys/${revoked.id}`, headers: bearer(machine) });
    await t.search.inject({
      method: "POST",
      url: "/v1/security/ip-whitelist",
      headers: bearer(owner),
      payload: { ip_address: "127.0.0.0/8", description: "loopback" },
    });

    clock.advance(60_000);
    await failGrant(store.clientId, "127.0.0.9");
    clock.advance(60_000);
    const wrongLogin = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: "127.0.0.8",
      payload: { email: dev.email, password: "Wrong-password-1" },
    });
    assert.equal(wrongLogin.statusCode, 401);
    await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: "nobody@example.com", password: "Wrong-password-1" },
    });

    const rotatedAt = clock.now();
    const rotate = await t.search.inject({ method: "POST", url: "/v1/security/client-secret/rotate", headers: bearer(owner) });
    assert.equal(rotate.statusCode, 200);

    const res = await overview(owner);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.client_id, store.clientId);
    assert.equal(body.slug, store.slug);
    assert.equal(body.two_factor.member_count, 2);
    assert.equal(body.two_factor.enabled_count, 1);
    assert.deepEqual(
      body.two_factor.users.map((u: { email: string; role: string; enabled: boolean }) => [u.email, u.role, u.enabled]),
      [
        [store.email, "owner", false],
        [dev.email, "developer", true],
      ],
    );
    assert.deepEqual(
      body.api_keys.map((k: { name: string }) => k.name),
      ["active one"],
    );
    assert.equal(body.api_keys[0].id, active.id);
    assert.ok(!res.body.includes(active.key) && !res.body.includes(revoked.key), "no secrets");
    assert.deepEqual(body.ip_whitelist.enforced, true);
    assert.deepEqual(
      body.ip_whitelist.entries.map((e: { ip_address: string }) => e.ip_address),
      ["127.0.0.0/8"],
    );
    assert.equal(body.failed_logins.count, 2, "the unknown e-mail is nobody's business here");
    assert.deepEqual(
      body.failed_logins.recent.map((e: { kind: string; identity: string; ip: string }) => [e.kind, e.identity, e.ip]),
      [
        ["user_login", dev.email, "127.0.0.8"],
        ["machine_grant", store.clientId, "127.0.0.9"],
      ],
    );
    assert.equal(body.last_secret_rotation, new Date(rotatedAt).toISOString());
  });

  test("old failed logins drop out of the window", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    await failGrant(store.clientId, "127.0.0.10");
    assert.equal((await overview(owner)).json().failed_logins.count, 1);
    clock.advance(7 * 24 * 3600_000 + 1);
    const fresh = await loginToken(t.search, store.email, store.password);
    const later = (await overview(fresh)).json();
    assert.equal(later.failed_logins.count, 0);
    assert.deepEqual(later.failed_logins.recent, []);
    assert.equal(later.ip_whitelist.enforced, false);
    assert.notEqual(later.last_secret_rotation, null, "verification set the first secret");
  });

  test("needs security:read: a viewer may read it, an API key without the scope may not", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const viewer = await addMember(t, owner, "viewer");
    assert.equal((await overview(viewer.token)).statusCode, 200);
    const key = await createApiKey(t, owner, { products: ["read"] });
    const refused = await overview(key.key);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().details.missing_permission, "security:read");
  });

  test("a second store's token never reads the first store's overview", async () => {
    const a = await registerStore(t);
    const b = await registerStore(t);
    const ownerA = await loginToken(t.search, a.email, a.password);
    await createApiKey(t, ownerA, { products: ["read"] }, { name: "A-private-key-name" });
    await failGrant(a.clientId, "127.0.0.11");
    const machineB = await machineToken(t.search, b);
    const own = await overview(machineB, { "X-Service-Active-Tenant": a.slug });
    assert.equal(own.statusCode, 200);
    assert.equal(own.json().client_id, b.clientId);
    assert.ok(!own.body.includes("A-private-key-name"));
    assert.ok(!own.body.includes(a.clientId) && !own.body.includes(a.email));
    const ownerB = await loginToken(t.search, b.email, b.password);
    const cross = await overview(ownerB, { "X-Service-Active-Tenant": a.slug });
    assert.equal(cross.statusCode, 403);
    assert.equal(cross.json().error, "not_a_member");
  });
});
