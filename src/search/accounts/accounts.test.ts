import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { lastMailTo, registerStore, verificationTokenFor } from "../../../test/support/factories.js";

describeEachDialect("accounts: /register and /verify", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect, env: { PUBLIC_BASE_URL: "https://search.example.test" } });
  });
  after(() => t.close());

  const register = (payload: unknown, headers: Record<string, string> = {}) =>
    t.search.inject({ method: "POST", url: "/register", payload: payload as object, headers });

  test("registers an inactive store and e-mails a verification link built on PUBLIC_BASE_URL", async () => {
    const res = await register({ client_name: "Blue Fox Boutique", email: "Owner@BlueFox.example", password: "Sturdy-pass-1" });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.equal(body.status, "inactive");
    assert.equal(body.slug, "blue-fox-boutique");
    assert.match(body.client_id, /^[0-9a-f-]{36}$/);
    const mail = lastMailTo(t, "owner@bluefox.example");
    assert.match(mail, /https:\/\/search\.example\.test\/verify\?token=/);
  });

  test("refuses a duplicate e-mail with 409", async () => {
    await register({ client_name: "Dup One", email: "dup@example.com", password: "Sturdy-pass-1" });
    const res = await register({ client_name: "Dup Two", email: "DUP@example.com", password: "Sturdy-pass-1" });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error, "conflict");
  });

  test("gives two stores with the same name distinct slugs", async () => {
    const a = await registerStore(t, { name: "Twin Shop", verify: false });
    const b = await registerStore(t, { name: "Twin Shop", verify: false });
    assert.equal(a.slug, "twin-shop");
    assert.equal(b.slug, "twin-shop-2");
  });

  for (const [label, payload, field] of [
    ["a missing password", { client_name: "X", email: "x@example.com" }, "password"],
    ["a malformed e-mail", { client_name: "X", email: "not-an-email", password: "Sturdy-pass-1" }, "email"],
    ["an unknown field", { client_name: "X", email: "x@example.com", password: "Sturdy-pass-1", plan: "enterprise" }, "plan"],
    ["a short password", { client_name: "X", email: "x@example.com", password: "Ab1" }, "password"],
    ["a one-class password", { client_name: "X", email: "x@example.com", password: "aaaaaaaaaaaaaa" }, "password"],
    ["a wrong type", { client_name: 42, email: "x@example.com", password: "Sturdy-pass-1" }, "client_name"],
  ] as const) {
    test(`rejects ${label} with 400 validation_failed naming the field`, async () => {
      const res = await register(payload);
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json();
      assert.equal(body.error, "validation_failed");
      assert.ok(
        body.details.errors.some((e: { field: string }) => e.field === field),
        `details name ${field}: ${res.body}`,
      );
    });
  }

  test("rejects malformed JSON and a wrong content type without a 500", async () => {
    const bad = await t.search.inject({
      method: "POST",
      url: "/register",
      payload: "{not json",
      headers: { "content-type": "application/json" },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, "validation_failed");
    const text = await t.search.inject({ method: "POST", url: "/register", payload: "hello", headers: { "content-type": "text/plain" } });
    assert.equal(text.statusCode, 415);
    assert.equal(text.json().error, "unsupported_media_type");
  });

  test("verification activates the store once and shows the client secret once", async () => {
    const email = "verify-me@example.com";
    await register({ client_name: "Verify Me", email, password: "Sturdy-pass-1" });
    const token = verificationTokenFor(t, email);
    const first = await t.search.inject({ method: "GET", url: `/verify?token=${encodeURIComponent(token)}` });
    assert.equal(first.statusCode, 200);
    assert.equal(first.json().status, "active");
    assert.match(first.json().client_secret, /^cs_/);
    const again = await t.search.inject({ method: "GET", url: `/verify?token=${encodeURIComponent(token)}` });
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().error, "invalid_verification_token");
    const missing = await t.search.inject({ method: "GET", url: "/verify" });
    assert.equal(missing.statusCode, 400);
  });

  test("an unverified store cannot obtain a token or sign in", async () => {
    const store = await registerStore(t, { verify: false });
    const login = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      payload: { email: store.email, password: store.password },
    });
    assert.equal(login.statusCode, 403);
    assert.equal(login.json().error, "account_inactive");
    const grant = await t.search.inject({
      method: "POST",
      url: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `grant_type=client_credentials&client_id=${store.clientId}&client_secret=anything`,
    });
    assert.equal(grant.statusCode, 401);
  });
});
