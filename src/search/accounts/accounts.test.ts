import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import fs from "node:fs";
import { freshIp, lastMailTo, registerStore, verificationTokenFor } from "../../../test/support/factories.js";

describeEachDialect("accounts: /register and /verify", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect, env: { PUBLIC_BASE_URL: "https://search.example.test" } });
  });
  after(() => t.close());

  const register = (payload: unknown, headers: Record<string, string> = {}, remoteAddress = freshIp()) =>
    t.search.inject({ method: "POST", url: "/register", remoteAddress, payload: payload as object, headers });
  const resend = (email: string, remoteAddress = freshIp()) =>
    t.search.inject({ method: "POST", url: "/register/resend", remoteAddress, payload: { email } });
  const mailCount = () => (fs.existsSync(t.config.mail.outboxDir) ? fs.readdirSync(t.config.mail.outboxDir).length : 0);
  const password = "Sturdy-pass-1";

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
    const apostrophe = await registerStore(t, { name: "Lena’s Closet", verify: false });
    assert.equal(apostrophe.slug, "lenas-closet", "an apostrophe joins, it does not split a word");
    assert.equal((await registerStore(t, { name: "Joe's Café & Bar", verify: false })).slug, "joes-cafe-bar");
  });

  for (const [label, payload, field] of [
    ["a missing password", { client_name: "X", email: "x@example.com" }, "password"],
    ["a malformed e-mail", { client_name: "X", email: "not-an-email", password: "Sturdy-pass-1" }, "email"],
    ["an unknown field", { client_name: "X", email: "x@example.com", password: "Sturdy-pass-1", plan: "enterprise" }, "plan"],
    ["a short password", { client_name: "X", email: "x@example.com", password: "Ab1" }, "password"],
    ["a one-class password", { client_name: "X", email: "x@example.com", password: "aaaaaaaaaaaaaa" }, "password"],
    ["a common password (a shipped list)", { client_name: "X", email: "x@example.com", password: "password12" }, "password"],
    ["a common password in other case", { client_name: "X", email: "x@example.com", password: "Password123" }, "password"],
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

  test("sign-ups are throttled per client address (10 an hour) and per e-mail (3), in the 429 shape with the retry time", async () => {
    const before = mailCount();
    const address = "10.20.30.40";
    for (let i = 0; i < 10; i++) {
      const ok = await register({ client_name: `Flood ${i}`, email: `flood-${i}@example.com`, password }, {}, address);
      assert.equal(ok.statusCode, 201, ok.body);
    }
    const over = await register({ client_name: "Flood 10", email: "flood-10@example.com", password }, {}, address);
    assert.equal(over.statusCode, 429, over.body);
    assert.equal(over.json().error, "too_many_requests");
    assert.equal(over.json().details.scope, "client_address");
    assert.ok(over.json().details.retry_after > 0);
    assert.equal(over.headers["retry-after"], String(over.json().details.retry_after));
    assert.match(over.json().message, /Too many sign-ups for this client address; try again in \d+ s\./);
    assert.equal(mailCount() - before, 10, "the refused sign-up wrote no mail");
    // Another address is not held back.
    assert.equal((await register({ client_name: "Elsewhere", email: "elsewhere@example.com", password })).statusCode, 201);

    const email = "one-address@example.com";
    assert.equal((await register({ client_name: "Once", email, password })).statusCode, 201);
    assert.equal((await register({ client_name: "Twice", email, password })).statusCode, 409);
    assert.equal((await register({ client_name: "Thrice", email, password })).statusCode, 409);
    const perEmail = await register({ client_name: "Four", email, password });
    assert.equal(perEmail.statusCode, 429);
    assert.equal(perEmail.json().details.scope, "email");
  });

  test("a lost verification mail can be sent again; the answer does not tell which addresses have accounts", async () => {
    const store = await registerStore(t, { verify: false });
    const first = verificationTokenFor(t, store.email);
    const res = await resend(store.email.toUpperCase());
    assert.equal(res.statusCode, 202, res.body);
    const second = verificationTokenFor(t, store.email);
    assert.notEqual(second, first, "a new link was mailed");
    const before = mailCount();
    const unknown = await resend("nobody-here@example.com");
    assert.equal(unknown.statusCode, 202);
    assert.equal(unknown.json().message, res.json().message, "same answer for an unknown address");
    assert.equal(mailCount(), before, "and no mail");
    const verified = await t.search.inject({ method: "GET", url: `/verify?token=${encodeURIComponent(second)}` });
    assert.equal(verified.statusCode, 200, verified.body);
    const active = await resend(store.email);
    assert.equal(active.statusCode, 202);
    assert.equal(mailCount(), before, "an active store gets no verification mail");
    assert.equal((await resend(store.email)).statusCode, 202, "the third resend of the hour");
    const over = await resend(store.email);
    assert.equal(over.statusCode, 429, "3 resends per e-mail an hour");
    assert.equal(over.json().details.scope, "email");
    const bad = await t.search.inject({ method: "POST", url: "/register/resend", payload: { email: "not-an-address" } });
    assert.equal(bad.statusCode, 400);
  });
});
