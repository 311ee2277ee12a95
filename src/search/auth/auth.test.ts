import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { ManualClock } from "../../platform/clock.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp, loginToken, machineToken, registerStore } from "../../../test/support/factories.js";
import { addMember } from "../../../test/support/members.js";

const form = (fields: Record<string, string>) => ({
  headers: { "content-type": "application/x-www-form-urlencoded" },
  payload: new URLSearchParams(fields).toString(),
});

describeEachDialect("auth: tokens, login, refresh, throttles, active tenant", (dialect) => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 12));
  before(async () => {
    t = await createTestApp({ dialect, clock });
  });
  after(() => t.close());

  test("machine grant returns a bearer token whose claims follow the spec", async () => {
    const store = await registerStore(t, { plan: "free" });
    const res = await t.search.inject({
      method: "POST",
      url: "/oauth/token",
      ...form({ grant_type: "client_credentials", client_id: store.clientId, client_secret: store.clientSecret }),
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.token_type, "Bearer");
    assert.equal(body.expires_in, 3600);
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.sub, store.clientId);
    assert.equal(claims.user_type, "client");
    assert.equal(claims.plan, "free");
    assert.equal(claims.rate_limit, 10);
    assert.equal(claims.is_super_admin, false);
    assert.equal(typeof claims.jti, "string");
    assert.equal((claims.exp as number) - (claims.iat as number), 3600);
  });

  test("machine grant refuses JSON bodies (415), other grant types (400) and a wrong secret (401)", async () => {
    const store = await registerStore(t);
    const json = await t.search.inject({
      method: "POST",
      url: "/oauth/token",
      payload: { grant_type: "client_credentials", client_id: store.clientId, client_secret: store.clientSecret },
    });
    assert.equal(json.statusCode, 415);
    assert.equal(json.json().error, "unsupported_media_type");
    const grant = await t.search.inject({
      method: "POST",
      url: "/oauth/token",
      ...form({ grant_type: "password", client_id: store.clientId, client_secret: store.clientSecret }),
    });
    assert.equal(grant.statusCode, 400);
    const wrong = await t.search.inject({
      method: "POST",
      url: "/oauth/token",
      ...form({ grant_type: "client_credentials", client_id: store.clientId, client_secret: "cs_wrong" }),
    });
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(wrong.json(), { error: "unauthorized", message: "Invalid credentials.", details: {} });
  });

  test("login answers the spec's fields and redirects a one-store user to its portal", async () => {
    const store = await registerStore(t, { name: "Login Shop", plan: "free" });
    const res = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: store.email, password: store.password },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.user_type, "user");
    assert.equal(body.is_super_admin, false);
    assert.equal(body.redirect, `/${store.slug}/portal`);
    assert.equal(body.client_name, "Login Shop");
    assert.equal(body.memberships.length, 1);
    assert.deepEqual(
      {
        client_id: body.memberships[0].client_id,
        slug: body.memberships[0].slug,
        role: body.memberships[0].role,
        plan: body.memberships[0].plan,
      },
      { client_id: store.clientId, slug: store.slug, role: "owner", plan: "free" },
    );
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.sub, body.user_id);
    assert.equal(claims.user_id, body.user_id);
    assert.equal(claims.user_type, "user");
    assert.deepEqual(claims.memberships, [{ client_id: store.clientId, slug: store.slug, role: "owner" }]);
    assert.equal(claims.active_store, undefined, "the token does not carry the active store");
  });

  test("unknown e-mail and wrong password give byte-identical 401s", async () => {
    const store = await registerStore(t);
    const unknown = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: "nobody-here@example.com", password: store.password },
    });
    const wrong = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: store.email, password: "Wrong-password-9" },
    });
    assert.equal(unknown.statusCode, 401);
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.body, wrong.body);
  });

  test("login is throttled to 10 requests per minute per IP", async () => {
    const ip = freshIp();
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await t.search.inject({
        method: "POST",
        url: "/oauth/login",
        remoteAddress: ip,
        payload: { email: `ip-throttle-${i}@example.com`, password: "Whatever-123" },
      });
      codes.push(res.statusCode);
      if (i === 10) {
        assert.equal(res.json().error, "too_many_requests");
        assert.ok(res.json().details.retry_after > 0);
        assert.ok(Number(res.headers["retry-after"]) > 0);
      }
    }
    assert.deepEqual(codes, [...Array(10).fill(401), 429]);
  });

  test("five failed logins for one e-mail throttle it; a success before that resets the count", async () => {
    const store = await registerStore(t);
    const attempt = (password: string) =>
      t.search.inject({ method: "POST", url: "/oauth/login", remoteAddress: freshIp(), payload: { email: store.email, password } });
    for (let i = 0; i < 4; i++) assert.equal((await attempt("Wrong-password-9")).statusCode, 401);
    assert.equal((await attempt(store.password)).statusCode, 200, "success resets the failure count");
    for (let i = 0; i < 5; i++) assert.equal((await attempt("Wrong-password-9")).statusCode, 401);
    const locked = await attempt(store.password);
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.json().error, "too_many_requests");
    assert.ok(locked.json().details.retry_after > 0 && locked.json().details.retry_after <= 900);
  });

  test("ten failed machine grants for one client_id throttle it", async () => {
    const store = await registerStore(t);
    const grant = (secret: string) =>
      t.search.inject({
        method: "POST",
        url: "/oauth/token",
        remoteAddress: freshIp(),
        ...form({ grant_type: "client_credentials", client_id: store.clientId, client_secret: secret }),
      });
    for (let i = 0; i < 10; i++) assert.equal((await grant("cs_wrong")).statusCode, 401);
    const locked = await grant(store.clientSecret);
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.json().error, "too_many_requests");
  });

  test("refresh returns a new token and revokes the old one", async () => {
    const store = await registerStore(t);
    const old = await machineToken(t.search, store);
    const res = await t.search.inject({ method: "POST", url: "/oauth/refresh", headers: bearer(old) });
    assert.equal(res.statusCode, 200, res.body);
    const fresh = res.json().access_token as string;
    assert.notEqual(fresh, old);
    const reuse = await t.search.inject({ method: "POST", url: "/oauth/refresh", headers: bearer(old) });
    assert.equal(reuse.statusCode, 401);
    const withOld = await t.search.inject({ method: "POST", url: "/v1/security/client-secret/rotate", headers: bearer(old) });
    assert.equal(withOld.statusCode, 401);
    assert.match(withOld.json().message, /revoked/);
  });

  test("refresh accepts a token expired for up to 5 minutes and rejects it after", async () => {
    const store = await registerStore(t);
    const a = await machineToken(t.search, store);
    const b = await machineToken(t.search, store);
    clock.advance((3600 + 240) * 1000); // 4 minutes past expiry
    const expiredCall = await t.search.inject({ method: "POST", url: "/v1/security/client-secret/rotate", headers: bearer(a) });
    assert.equal(expiredCall.statusCode, 401);
    assert.equal(expiredCall.json().error, "token_expired");
    const inGrace = await t.search.inject({ method: "POST", url: "/oauth/refresh", headers: bearer(a) });
    assert.equal(inGrace.statusCode, 200, inGrace.body);
    clock.advance(120 * 1000); // 6 minutes past expiry
    const late = await t.search.inject({ method: "POST", url: "/oauth/refresh", headers: bearer(b) });
    assert.equal(late.statusCode, 401);
    assert.equal(late.json().error, "unauthorized");
  });

  test("a token verified once is still refused once it expires, and a forged copy of it never passes", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const call = (bearerToken: string) => t.search.inject({ method: "GET", url: "/v1/products", headers: bearer(bearerToken) });
    assert.equal((await call(token)).statusCode, 200); // verified and remembered
    const [header, payload] = token.split(".");
    const forged = `${header}.${payload}.${"A".repeat(43)}`;
    const refused = await call(forged);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error, "unauthorized");
    clock.advance(3600 * 1000); // exactly at expiry
    const expired = await call(token);
    assert.equal(expired.statusCode, 401);
    assert.equal(expired.json().error, "token_expired");
  });

  test("a refreshed token cannot be refreshed again within the grace, even after housekeeping ran", async () => {
    const store = await registerStore(t);
    const old = await machineToken(t.search, store);
    const first = await t.search.inject({ method: "POST", url: "/oauth/refresh", remoteAddress: freshIp(), headers: bearer(old) });
    assert.equal(first.statusCode, 200, first.body);
    clock.advance((3600 + 60) * 1000); // past expiry, inside the 5-minute grace
    await t.ctx.revocations.prune();
    const again = await t.search.inject({ method: "POST", url: "/oauth/refresh", remoteAddress: freshIp(), headers: bearer(old) });
    assert.equal(again.statusCode, 401, again.body);
    assert.match(again.json().message, /revoked/);
    clock.advance(300 * 1000); // past the grace: the revocation may go now
    assert.ok((await t.ctx.revocations.prune()) >= 1);
  });

  test("a member removed from their only store is told there is no active membership, not to verify", async () => {
    const store = await registerStore(t);
    const owner = await loginToken(t.search, store.email, store.password);
    const member = await addMember(t, owner, "viewer");
    const removed = await t.search.inject({ method: "DELETE", url: `/v1/team/members/${member.id}`, headers: bearer(owner) });
    assert.ok(removed.statusCode < 300, removed.body);
    const login = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: member.email, password: member.password },
    });
    assert.equal(login.statusCode, 403, login.body);
    assert.equal(login.json().error, "not_a_member");
    assert.match(login.json().message, /no active store membership/i);
    assert.doesNotMatch(login.json().message, /verify/i);
  });

  test("tampered, malformed and missing bearers are 401", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const [h, p, s] = token.split(".");
    const payload = JSON.parse(Buffer.from(p!, "base64url").toString());
    payload.sub = "00000000-0000-4000-8000-000000000000";
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${s}`;
    for (const headers of [bearer(forged), bearer("not.a.jwt"), { authorization: "Basic abc" }, {}]) {
      const res = await t.search.inject({ method: "POST", url: "/v1/security/client-secret/rotate", headers });
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.equal(res.json().error, "unauthorized");
    }
  });

  test("active tenant: one membership is used, several need the header, a foreign slug is 403, super admins are exempt", async () => {
    const a = await registerStore(t, { name: "Tenant A" });
    const b = await registerStore(t, { name: "Tenant B" });
    const repo = t.services.repositories.accounts;
    const userA = (await repo.findUserByEmail(a.email))!;
    const rotate = (token: string, slug?: string) =>
      t.search.inject({
        method: "POST",
        url: "/v1/security/client-secret/rotate",
        headers: { ...bearer(token), ...(slug ? { "X-Service-Active-Tenant": slug } : {}) },
      });

    const single = await loginToken(t.search, a.email, a.password);
    const own = await rotate(single);
    assert.equal(own.statusCode, 200);
    assert.equal(own.json().client_id, a.clientId);
    const foreign = await rotate(single, b.slug);
    assert.equal(foreign.statusCode, 403);
    assert.equal(foreign.json().error, "not_a_member");

    await repo.addMembership(b.clientId, userA.id, "admin", t.ctx.clock.now());
    const login = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: a.email, password: a.password },
    });
    assert.equal(login.json().redirect, "/portal/select-store");
    assert.equal(login.json().memberships.length, 2);
    const multi = login.json().access_token as string;
    const ambiguous = await rotate(multi);
    assert.equal(ambiguous.statusCode, 401);
    assert.equal(ambiguous.json().error, "ambiguous_active_store");
    assert.match(ambiguous.json().message, /X-Service-Active-Tenant/);
    const chosen = await rotate(multi, b.slug);
    assert.equal(chosen.statusCode, 200);
    assert.equal(chosen.json().client_id, b.clientId);

    const admin = await t.services.accounts.createSuperAdmin(`root-${Date.now()}@example.com`, "Root-password-1");
    const adminLogin = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: admin.email, password: "Root-password-1" },
    });
    assert.equal(adminLogin.statusCode, 200, adminLogin.body);
    assert.equal(adminLogin.json().redirect, "/admin");
    assert.equal(adminLogin.json().is_super_admin, true);
    const asAny = await rotate(adminLogin.json().access_token, a.slug);
    assert.equal(asAny.statusCode, 200);
    assert.equal(asAny.json().client_id, a.clientId);
  });

  test("rotating the client secret invalidates the old secret at once", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const res = await t.search.inject({ method: "POST", url: "/v1/security/client-secret/rotate", headers: bearer(token) });
    assert.equal(res.statusCode, 200);
    const next = res.json().client_secret as string;
    const old = await t.search.inject({
      method: "POST",
      url: "/oauth/token",
      remoteAddress: freshIp(),
      ...form({ grant_type: "client_credentials", client_id: store.clientId, client_secret: store.clientSecret }),
    });
    assert.equal(old.statusCode, 401);
    await machineToken(t.search, { ...store, clientSecret: next });
  });

  test("rotating the client secret revokes every machine token and refresh chain minted before it", async () => {
    const store = await registerStore(t);
    const old = await machineToken(t.search, store);
    // A refresh chain started before the rotation: two generations deep.
    let chain = old;
    for (let i = 0; i < 2; i++) {
      const refreshed = await t.search.inject({ method: "POST", url: "/oauth/refresh", remoteAddress: freshIp(), headers: bearer(chain) });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      chain = refreshed.json().access_token as string;
    }
    const spare = await machineToken(t.search, store);
    clock.advance(1000); // iat has whole-second precision: the rotation happens a second later
    const rotate = await t.search.inject({ method: "POST", url: "/v1/security/client-secret/rotate", headers: bearer(spare) });
    assert.equal(rotate.statusCode, 200, rotate.body);
    const next = rotate.json().client_secret as string;
    for (const token of [chain, spare]) {
      const call = await t.search.inject({ method: "GET", url: "/v1/security/api-keys", headers: bearer(token) });
      assert.equal(call.statusCode, 401, call.body);
      assert.match(call.json().message, /rotated/);
      const refresh = await t.search.inject({ method: "POST", url: "/oauth/refresh", remoteAddress: freshIp(), headers: bearer(token) });
      assert.equal(refresh.statusCode, 401, refresh.body);
      assert.equal(refresh.json().error, "unauthorized");
    }
    // A grant with the new secret works at once, in the rotation's own second, and refreshes.
    const fresh = await machineToken(t.search, { ...store, clientSecret: next });
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/security/api-keys", headers: bearer(fresh) })).statusCode, 200);
    const refreshed = await t.search.inject({ method: "POST", url: "/oauth/refresh", remoteAddress: freshIp(), headers: bearer(fresh) });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    // User logins are not machine tokens: the owner's session survives the rotation.
    const owner = await loginToken(t.search, store.email, store.password);
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/security/api-keys", headers: bearer(owner) })).statusCode, 200);
  });

  test("a second store's token never acts on the first store", async () => {
    const a = await registerStore(t);
    const b = await registerStore(t);
    const tokenB = await machineToken(t.search, b);
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/security/client-secret/rotate",
      headers: { ...bearer(tokenB), "X-Service-Active-Tenant": a.slug },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().client_id, b.clientId, "a machine grant acts only on its own store");
    await machineToken(t.search, a); // A's secret still works
    const userB = await loginToken(t.search, b.email, b.password);
    const cross = await t.search.inject({
      method: "POST",
      url: "/v1/security/client-secret/rotate",
      headers: { ...bearer(userB), "X-Service-Active-Tenant": a.slug },
    });
    assert.equal(cross.statusCode, 403);
    await machineToken(t.search, a);
  });
});
