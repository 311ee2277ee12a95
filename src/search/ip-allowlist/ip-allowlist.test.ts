import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp, loginToken, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { createApiKey } from "../../../test/support/members.js";

const grant = (
  t: TestApp,
  store: RegisteredStore,
  remoteAddress: string,
  secret = store.clientSecret,
  headers: Record<string, string> = {},
) =>
  t.search.inject({
    method: "POST",
    url: "/oauth/token",
    remoteAddress,
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    payload: new URLSearchParams({ grant_type: "client_credentials", client_id: store.clientId, client_secret: secret }).toString(),
  });

describeEachDialect("security: IP allow-list", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect });
  });
  after(() => t.close());

  const add = (token: string, ip_address: string, description = "office") =>
    t.search.inject({ method: "POST", url: "/v1/security/ip-whitelist", headers: bearer(token), payload: { ip_address, description } });
  const list = (token: string) => t.search.inject({ method: "GET", url: "/v1/security/ip-whitelist", headers: bearer(token) });
  const usersFrom = (token: string, remoteAddress: string) =>
    t.search.inject({ method: "GET", url: "/v1/users", headers: bearer(token), remoteAddress });

  test("adds, lists and deletes entries in canonical form; duplicates are 409", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const v4 = await add(owner, "203.0.113.7", "build server");
    assert.equal(v4.statusCode, 201, v4.body);
    assert.deepEqual(
      { ip_address: v4.json().ip_address, description: v4.json().description },
      { ip_address: "203.0.113.7", description: "build server" },
    );
    assert.match(v4.json().id, /^ip_[0-9a-f]{32}$/);
    const v6 = await add(owner, "2001:DB8:0:0:0:0:0:5");
    assert.equal(v6.json().ip_address, "2001:db8::5");
    const cidr = await add(owner, "198.51.100.0/24");
    assert.equal(cidr.json().ip_address, "198.51.100.0/24");
    const single32 = await add(owner, "203.0.113.7/32");
    assert.equal(single32.statusCode, 409, "the same address written as /32 is a duplicate");
    assert.equal(single32.json().error, "conflict");
    assert.equal((await add(owner, "2001:db8::5")).statusCode, 409);

    const listed = await list(owner);
    assert.deepEqual(
      listed.json().map((e: { ip_address: string }) => e.ip_address),
      ["203.0.113.7", "2001:db8::5", "198.51.100.0/24"],
    );
    const del = await t.search.inject({ method: "DELETE", url: `/v1/security/ip-whitelist/${v6.json().id}`, headers: bearer(owner) });
    assert.equal(del.statusCode, 200);
    assert.deepEqual(del.json(), { deleted: true, id: v6.json().id });
    const again = await t.search.inject({ method: "DELETE", url: `/v1/security/ip-whitelist/${v6.json().id}`, headers: bearer(owner) });
    assert.equal(again.statusCode, 404);
    assert.equal((await list(owner)).json().length, 2);
  });

  test("refuses malformed entries with 400 validation_failed", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    for (const ip_address of [
      "",
      "example.com",
      "300.1.1.1",
      "1.2.3",
      "203.0.113.7/24",
      "203.0.113.0/33",
      "2001:db8::1/32",
      "2001:db8::/129",
      "fe80::1%eth0",
    ]) {
      const res = await add(owner, ip_address);
      assert.equal(res.statusCode, 400, ip_address);
      assert.equal(res.json().error, "validation_failed", ip_address);
    }
    const hostBits = await add(owner, "203.0.113.7/24");
    assert.match(hostBits.json().message, /203\.0\.113\.0\/24/, "names the network that was probably meant");
    for (const payload of [{}, { description: "x" }, { ip_address: 1234 }, { ip_address: "203.0.113.1", extra: true }]) {
      const res = await t.search.inject({ method: "POST", url: "/v1/security/ip-whitelist", headers: bearer(owner), payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
    }
    assert.deepEqual((await list(owner)).json(), []);
  });

  test("an IPv4 entry restricts the machine grant, its tokens and API keys, but not user logins", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const earlyToken = await machineToken(t.search, store, "192.0.2.50");
    const key = await createApiKey(t, earlyToken, { team: ["read"] });
    assert.equal((await add(owner, "203.0.113.7")).statusCode, 201);

    const refused = await grant(t, store, "203.0.113.8");
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, "ip_not_allowed");
    assert.equal(refused.json().details.ip, "203.0.113.8");
    const wrongSecret = await grant(t, store, "203.0.113.8", "cs_wrong");
    assert.equal(wrongSecret.statusCode, 403, "from outside the list the secret is not even looked at");
    const allowed = await grant(t, store, "203.0.113.7");
    assert.equal(allowed.statusCode, 200, allowed.body);
    const allowedWrongSecret = await grant(t, store, "203.0.113.7", "cs_wrong");
    assert.equal(allowedWrongSecret.statusCode, 401, "an allowed address with a wrong secret is still 401");

    const tokenElsewhere = await usersFrom(earlyToken, "192.0.2.50");
    assert.equal(tokenElsewhere.statusCode, 403, "a token issued before the list existed is refused from other addresses");
    assert.equal(tokenElsewhere.json().error, "ip_not_allowed");
    assert.equal((await usersFrom(earlyToken, "203.0.113.7")).statusCode, 200);
    assert.equal((await usersFrom(key.key, "192.0.2.50")).json().error, "ip_not_allowed");
    assert.equal((await usersFrom(key.key, "203.0.113.7")).statusCode, 200);

    const login = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: store.email, password: store.password },
    });
    assert.equal(login.statusCode, 200, "user logins are not subject to the allow-list");
    assert.equal((await usersFrom(login.json().access_token, "192.0.2.99")).statusCode, 200);
  });

  test("IPv6 addresses and CIDR ranges of both families", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    await add(owner, "2001:db8:abcd::/48");
    await add(owner, "198.51.100.0/24");
    await add(owner, "2001:db8::7");
    const cases: [string, number][] = [
      ["2001:db8:abcd:12::1", 200],
      ["2001:db8:abce::1", 403],
      ["2001:db8::7", 200],
      ["2001:db8::8", 403],
      ["198.51.100.77", 200],
      ["::ffff:198.51.100.78", 200],
      ["198.51.101.1", 403],
      ["127.0.0.1", 403],
    ];
    for (const [ip, status] of cases) {
      const res = await grant(t, store, ip);
      assert.equal(res.statusCode, status, `${ip}: ${res.body}`);
      if (status === 403) assert.equal(res.json().error, "ip_not_allowed");
    }
  });

  test("an empty list allows every address; removing the last entry lifts the restriction", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    assert.equal((await grant(t, store, "192.0.2.1")).statusCode, 200);
    const entry = await add(owner, "203.0.113.0/24");
    assert.equal((await grant(t, store, "192.0.2.1")).statusCode, 403);
    await t.search.inject({ method: "DELETE", url: `/v1/security/ip-whitelist/${entry.json().id}`, headers: bearer(owner) });
    assert.equal((await grant(t, store, "192.0.2.1")).statusCode, 200);
  });

  test("X-Forwarded-For is ignored without TRUST_PROXY: the socket address counts", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    await add(owner, "203.0.113.7");
    const spoofed = await grant(t, store, "10.0.0.1", store.clientSecret, { "x-forwarded-for": "203.0.113.7" });
    assert.equal(spoofed.statusCode, 403);
    assert.equal(spoofed.json().details.ip, "10.0.0.1");
    const key = await createApiKey(t, owner, { team: ["read"] });
    const viaKey = await t.search.inject({
      method: "GET",
      url: "/v1/users",
      remoteAddress: "10.0.0.1",
      headers: { ...bearer(key.key), "x-forwarded-for": "203.0.113.7" },
    });
    assert.equal(viaKey.statusCode, 403);
  });

  test("a second store's token and ids never reach the first store's allow-list", async () => {
    const a = await registerStore(t);
    const b = await registerStore(t);
    const ownerA = await loginToken(t.search, a.email, a.password);
    const entry = await add(ownerA, "203.0.113.7");
    const machineB = await machineToken(t.search, b, "192.0.2.1");
    const del = await t.search.inject({ method: "DELETE", url: `/v1/security/ip-whitelist/${entry.json().id}`, headers: bearer(machineB) });
    assert.equal(del.statusCode, 404);
    const ownerB = await loginToken(t.search, b.email, b.password);
    const viaHeader = await t.search.inject({
      method: "DELETE",
      url: `/v1/security/ip-whitelist/${entry.json().id}`,
      headers: { ...bearer(ownerB), "X-Service-Active-Tenant": a.slug },
    });
    assert.equal(viaHeader.statusCode, 403);
    assert.deepEqual((await list(machineB)).json(), [], "B sees none of A's entries");
    assert.equal((await list(ownerA)).json().length, 1, "A's entry is still there");
    assert.equal((await grant(t, b, "192.0.2.77")).statusCode, 200, "A's list does not restrict B");
  });
});

// A second app with TRUST_PROXY, in a suite of its own (one database schema at a time).
describeEachDialect("security: IP allow-list behind a trusted proxy (TRUST_PROXY)", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect, env: { TRUST_PROXY: "10.0.0.0/8" } });
  });
  after(() => t.close());

  test("the client address comes from X-Forwarded-For when the socket is a trusted proxy", async () => {
    const s = await registerStore(t);
    const o = await loginToken(t.search, s.email, s.password);
    const entry = await t.search.inject({
      method: "POST",
      url: "/v1/security/ip-whitelist",
      headers: bearer(o),
      payload: { ip_address: "203.0.113.7" },
    });
    assert.equal(entry.statusCode, 201);
    const viaProxy = await grant(t, s, "10.0.0.1", s.clientSecret, { "x-forwarded-for": "203.0.113.7" });
    assert.equal(viaProxy.statusCode, 200, viaProxy.body);
    const otherClient = await grant(t, s, "10.0.0.1", s.clientSecret, { "x-forwarded-for": "203.0.113.8" });
    assert.equal(otherClient.statusCode, 403);
    assert.equal(otherClient.json().details.ip, "203.0.113.8");
    const chain = await grant(t, s, "10.0.0.1", s.clientSecret, { "x-forwarded-for": "203.0.113.7, 10.0.0.9" });
    assert.equal(chain.statusCode, 200, "trusted hops are skipped from the right");
    const untrustedHop = await grant(t, s, "192.0.2.1", s.clientSecret, { "x-forwarded-for": "203.0.113.7" });
    assert.equal(untrustedHop.statusCode, 403, "a header from a socket that is not a trusted proxy is ignored");
    assert.equal(untrustedHop.json().details.ip, "192.0.2.1");
  });
});
