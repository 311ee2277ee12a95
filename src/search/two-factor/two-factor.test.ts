import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { authenticator } from "otplib";
import { ManualClock } from "../../platform/clock.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, freshIp, loginToken, machineToken, registerStore } from "../../../test/support/factories.js";

describeEachDialect("security: two-factor authentication", (dialect) => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 9));
  const codeAt = (secret: string, ms = clock.now()) => authenticator.clone({ epoch: ms }).generate(secret);
  before(async () => {
    t = await createTestApp({ dialect, clock });
  });
  after(() => t.close());

  const login = (email: string, password: string, totp_code?: string) =>
    t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email, password, ...(totp_code ? { totp_code } : {}) },
    });

  test("setup, enable, login with a code, and disable with a current code", async () => {
    const store = await registerStore(t);
    const token = await loginToken(t.search, store.email, store.password);
    const status0 = await t.search.inject({ method: "GET", url: "/v1/security/2fa/status", headers: bearer(token) });
    assert.deepEqual(status0.json(), { enabled: false, pending_setup: false });

    const setup = await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(token) });
    assert.equal(setup.statusCode, 200, setup.body);
    const { secret, qr_code_url, otpauth_url } = setup.json();
    assert.match(qr_code_url, /^data:image\/png;base64,/);
    assert.match(otpauth_url, /^otpauth:\/\/totp\/Shopsight:/);

    // Pending setup is not enforced yet.
    assert.equal((await login(store.email, store.password)).statusCode, 200);

    const wrongEnable = await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/enable",
      headers: bearer(token),
      payload: { totp_code: codeAt(secret, clock.now() - 10 * 60_000) },
    });
    assert.equal(wrongEnable.statusCode, 401);
    assert.equal(wrongEnable.json().error, "invalid_2fa");

    const enable = await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/enable",
      headers: bearer(token),
      payload: { totp_code: codeAt(secret) },
    });
    assert.equal(enable.statusCode, 200, enable.body);
    assert.deepEqual(enable.json(), { enabled: true });

    const noCode = await login(store.email, store.password);
    assert.equal(noCode.statusCode, 401);
    assert.equal(noCode.json().error, "requires_2fa");
    assert.equal(noCode.json().details.requires_2fa, true);

    const badCode = await login(store.email, store.password, codeAt(secret, clock.now() - 10 * 60_000));
    assert.equal(badCode.statusCode, 401);
    assert.equal(badCode.json().error, "invalid_2fa");

    clock.advance(30_000);
    const good = await login(store.email, store.password, codeAt(secret));
    assert.equal(good.statusCode, 200, good.body);

    const disableWrong = await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/disable",
      headers: bearer(token),
      payload: { totp_code: "000000" === codeAt(secret) ? "111111" : "000000" },
    });
    assert.equal(disableWrong.statusCode, 401);
    clock.advance(30_000); // the login above used this step's code: a code verifies once
    const disable = await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/disable",
      headers: bearer(token),
      payload: { totp_code: codeAt(secret) },
    });
    assert.equal(disable.statusCode, 200);
    assert.equal((await login(store.email, store.password)).statusCode, 200);
  });

  test("a code verifies once: replayed at login, neighbouring older codes and reuse across enable/login/disable are 401 invalid_2fa", async () => {
    const store = await registerStore(t);
    const token = await loginToken(t.search, store.email, store.password);
    const { secret } = (await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(token) })).json();
    const enableCode = codeAt(secret);
    const enable = await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/enable",
      headers: bearer(token),
      payload: { totp_code: enableCode },
    });
    assert.equal(enable.statusCode, 200, enable.body);
    // The code that enabled 2FA cannot also sign in.
    const reuse = await login(store.email, store.password, enableCode);
    assert.equal(reuse.statusCode, 401);
    assert.equal(reuse.json().error, "invalid_2fa");

    clock.advance(30_000);
    const code = codeAt(secret);
    assert.equal((await login(store.email, store.password, code)).statusCode, 200);
    const replay = await login(store.email, store.password, code);
    assert.equal(replay.statusCode, 401, "the same code twice");
    assert.equal(replay.json().error, "invalid_2fa");
    // The previous step's code is within the drift window but older than the one used.
    const previous = await login(store.email, store.password, codeAt(secret, clock.now() - 30_000));
    assert.equal(previous.json().error, "invalid_2fa");
    // The secret is sealed in the database, never stored as given.
    const row = await t.ctx.database.db
      .selectFrom("users")
      .select("totp_secret")
      .where("email", "=", store.email)
      .executeTakeFirstOrThrow();
    assert.ok(row.totp_secret && !row.totp_secret.includes(secret), "TOTP secret sealed at rest");
    // Disabling with the code already used for login is a replay too.
    const disable = await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/disable",
      headers: bearer(token),
      payload: { totp_code: code },
    });
    assert.equal(disable.statusCode, 401);
    // The next step's code (one step of drift) still verifies, once.
    const next = codeAt(secret, clock.now() + 30_000);
    assert.equal((await login(store.email, store.password, next)).statusCode, 200);
    assert.equal((await login(store.email, store.password, next)).json().error, "invalid_2fa");
  });

  test("replayed codes count toward the per-identity throttle", async () => {
    const store = await registerStore(t);
    const token = await loginToken(t.search, store.email, store.password);
    const { secret } = (await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(token) })).json();
    const used = codeAt(secret);
    await t.search.inject({ method: "POST", url: "/v1/security/2fa/enable", headers: bearer(token), payload: { totp_code: used } });
    for (let i = 0; i < 5; i++) assert.equal((await login(store.email, store.password, used)).json().error, "invalid_2fa");
    const locked = await login(store.email, store.password, codeAt(secret, clock.now() + 30_000));
    assert.equal(locked.statusCode, 429);
  });

  test("a wrong password never reveals requires_2fa or invalid_2fa", async () => {
    const store = await registerStore(t);
    const token = await loginToken(t.search, store.email, store.password);
    const { secret } = (await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(token) })).json();
    await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/enable",
      headers: bearer(token),
      payload: { totp_code: codeAt(secret) },
    });
    const noCode = await login(store.email, "Wrong-password-1");
    assert.equal(noCode.json().error, "unauthorized");
    const withCode = await login(store.email, "Wrong-password-1", "123456");
    assert.equal(withCode.json().error, "unauthorized");
  });

  test("wrong codes count toward the per-identity throttle", async () => {
    const store = await registerStore(t);
    const token = await loginToken(t.search, store.email, store.password);
    const { secret } = (await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(token) })).json();
    await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/enable",
      headers: bearer(token),
      payload: { totp_code: codeAt(secret) },
    });
    const stale = codeAt(secret, clock.now() - 3600_000);
    for (let i = 0; i < 5; i++) assert.equal((await login(store.email, store.password, stale)).json().error, "invalid_2fa");
    const locked = await login(store.email, store.password, codeAt(secret));
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.json().error, "too_many_requests");
  });

  test("2FA endpoints need a user login and validate the code's shape", async () => {
    const store = await registerStore(t);
    const machine = await machineToken(t.search, store);
    const res = await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(machine) });
    assert.equal(res.statusCode, 403);
    const user = await loginToken(t.search, store.email, store.password);
    for (const payload of [{}, { totp_code: "12345" }, { totp_code: "abcdef" }, { totp_code: 123456 }]) {
      const bad = await t.search.inject({ method: "POST", url: "/v1/security/2fa/enable", headers: bearer(user), payload });
      assert.equal(bad.statusCode, 400, JSON.stringify(payload));
      assert.equal(bad.json().error, "validation_failed");
    }
    const notSetUp = await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/enable",
      headers: bearer(user),
      payload: { totp_code: "123456" },
    });
    assert.equal(notSetUp.statusCode, 400);
    assert.equal(notSetUp.json().error, "invalid_totp_setup");
  });
});
