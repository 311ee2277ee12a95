import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { createTestApp, describeEachDialect, type TestApp } from "../../test/support/harness.js";
import { bearer, registerStore, verificationTokenFor } from "../../test/support/factories.js";
import { buildSearchApp } from "../search/app.js";
import { composeSearch } from "../search/compose.js";
import type { App } from "./http/app.js";
import { CENSOR, redactUrl } from "./logging.js";

/** A stream collecting every log line the app writes. */
function capture(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  let out = "";
  const stream = new Writable({
    write(chunk, _enc, done) {
      out += String(chunk);
      done();
    },
  });
  return {
    stream,
    text: () => out,
    lines: () =>
      out
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

test("redactUrl hides the values of credential-like query parameters and keeps the rest", () => {
  assert.equal(redactUrl("/verify?token=abc.def"), `/verify?token=${CENSOR}`);
  assert.equal(redactUrl("/v1/products?limit=5&api_key=sk_live_x&cursor=c1"), `/v1/products?limit=5&api_key=${CENSOR}&cursor=c1`);
  assert.equal(
    redactUrl("/x?access_token=1&client_secret=2&code=3&session=4"),
    `/x?access_token=${CENSOR}&client_secret=${CENSOR}&code=${CENSOR}&session=${CENSOR}`,
  );
  assert.equal(redactUrl("/x?%74oken=1"), `/x?%74oken=${CENSOR}`, "an encoded parameter name is recognised");
  assert.equal(redactUrl("/v1/products/p1"), "/v1/products/p1");
  assert.equal(redactUrl("/a?flag&limit=2"), "/a?flag&limit=2");
});

describeEachDialect("logs: structured JSON with request ids, no secrets", (dialect) => {
  let t: TestApp;
  let logged: App;
  let sink: ReturnType<typeof capture>;

  before(async () => {
    t = await createTestApp({ dialect, env: { LOG_LEVEL: "trace" } });
    sink = capture();
    // A second Search API on the same context, logging everything to the capture stream.
    logged = await buildSearchApp(t.ctx, { logger: { stream: sink.stream }, services: composeSearch(t.ctx) });
    await logged.ready();
  });
  after(async () => {
    await logged.close();
    await t.close();
  });

  test("registration, verification, grants, logins, API keys and widget keys leave no secret in the log", async () => {
    const secrets: string[] = [];
    const through = { ...t, search: logged } as TestApp;
    const password = "Log-secret-password-91";
    secrets.push(password);

    // Register + verify: the password travels in the body, the verification token in the URL.
    const store = await registerStore(through, { password, verify: false });
    const verificationToken = verificationTokenFor(t, store.email);
    secrets.push(verificationToken);
    const verified = await logged.inject({ method: "GET", url: `/verify?token=${encodeURIComponent(verificationToken)}` });
    assert.equal(verified.statusCode, 200, verified.body);
    const clientSecret = verified.json().client_secret as string;
    secrets.push(clientSecret);
    await t.ctx.database.db.updateTable("stores").set({ plan: "enterprise" }).where("id", "=", store.clientId).execute();

    // Machine grant (form body with client_secret), and a refused one with a wrong secret.
    const grant = await logged.inject({
      method: "POST",
      url: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ grant_type: "client_credentials", client_id: store.clientId, client_secret: clientSecret }).toString(),
    });
    assert.equal(grant.statusCode, 200, grant.body);
    const machine = grant.json().access_token as string;
    secrets.push(machine);
    const wrongSecret = "wrong-client-secret-value-4711";
    secrets.push(wrongSecret);
    const refused = await logged.inject({
      method: "POST",
      url: "/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ grant_type: "client_credentials", client_id: store.clientId, client_secret: wrongSecret }).toString(),
    });
    assert.equal(refused.statusCode, 401);

    // Login (password in JSON), a failed login, a refresh.
    const login = await logged.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: "127.9.0.1",
      payload: { email: store.email, password },
    });
    assert.equal(login.statusCode, 200, login.body);
    const userToken = login.json().access_token as string;
    secrets.push(userToken);
    const wrongPassword = "Wrong-password-value-77";
    secrets.push(wrongPassword);
    const failed = await logged.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: "127.9.0.2",
      payload: { email: store.email, password: wrongPassword },
    });
    assert.equal(failed.statusCode, 401);
    const refreshed = await logged.inject({ method: "POST", url: "/oauth/refresh", remoteAddress: "127.9.0.3", headers: bearer(machine) });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    secrets.push(refreshed.json().access_token as string);
    // The revoked token used again: a refused request with a bearer.
    assert.equal((await logged.inject({ method: "GET", url: "/v1/products", headers: bearer(machine) })).statusCode, 401);

    // A bad registration whose body holds a password (400 validation_failed).
    const badPassword = "short1A";
    const bad = await logged.inject({
      method: "POST",
      url: "/register",
      payload: { client_name: "X", email: "not-an-email", password: badPassword },
    });
    assert.equal(bad.statusCode, 400);

    // API key: created (key in the response), used as a bearer, and as a query parameter.
    const created = await logged.inject({
      method: "POST",
      url: "/v1/security/api-keys",
      headers: bearer(userToken),
      payload: { name: "log test", scopes: { products: ["read"] } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const apiKey = created.json().key as string;
    secrets.push(apiKey);
    assert.equal((await logged.inject({ method: "GET", url: "/v1/products", headers: bearer(apiKey) })).statusCode, 200);
    const inQuery = await logged.inject({ method: "GET", url: `/v1/products?api_key=${apiKey}&token=${userToken}` });
    assert.equal(inQuery.statusCode, 401);

    // Widget key: created, then sent in X-Service-Key.
    const widget = await logged.inject({
      method: "POST",
      url: "/v1/widget/keys",
      headers: bearer(userToken),
      payload: { name: "shop", allowed_origins: ["https://shop.example"] },
    });
    assert.equal(widget.statusCode, 201, widget.body);
    const widgetKey = widget.json().key as string;
    secrets.push(widgetKey);
    await logged.inject({
      method: "POST",
      url: "/v1/widget/search/text",
      headers: { "x-service-key": widgetKey, origin: "https://shop.example", cookie: "session=cookie-secret-123456" },
      payload: { query: "red shoes" },
    });
    secrets.push("cookie-secret-123456");

    const text = sink.text();
    for (const secret of secrets) {
      assert.ok(!text.includes(secret), `the log must not contain ${secret.slice(0, 12)}…`);
      assert.ok(!text.includes(encodeURIComponent(secret)), `the log must not contain ${secret.slice(0, 12)}… URL-encoded`);
    }

    // The log is useful: JSON lines, each request line with its request id, query secrets shown as redacted.
    const lines = sink.lines();
    const requests = lines.filter((l) => l.msg === "incoming request");
    assert.equal(requests.length, 14, "one line per request above");
    for (const l of requests) assert.match(String(l.request_id), /^[0-9a-f-]{36}$/);
    const verifyLine = requests.find((l) => String((l.req as { url: string }).url).startsWith("/verify"));
    assert.equal((verifyLine!.req as { url: string }).url, `/verify?token=${CENSOR}`);
    const queryLine = requests.find((l) => String((l.req as { url: string }).url).includes("api_key="));
    assert.equal((queryLine!.req as { url: string }).url, `/v1/products?api_key=${CENSOR}&token=${CENSOR}`);
    const completed = lines.find((l) => l.msg === "request completed" && l.request_id === verifyLine!.request_id);
    assert.equal((completed!.res as { statusCode: number }).statusCode, 200);
  });

  test("a caller's X-Request-Id becomes the request id of its log lines", async () => {
    const res = await logged.inject({ method: "GET", url: "/health/live", headers: { "x-request-id": "trace-abc-123456" } });
    assert.equal(res.headers["x-request-id"], "trace-abc-123456");
    assert.ok(sink.lines().some((l) => l.request_id === "trace-abc-123456" && l.msg === "request completed"));
  });

  test("credential fields in logged objects are censored wherever they sit", () => {
    const before = sink.text().length;
    logged.log.warn(
      {
        body: { password: "p-secret-1", client_secret: "c-secret-2", nested: { token: "t-secret-3" } },
        headers: { authorization: "Bearer b-secret-4", "x-service-key": "pk-secret-5" },
      },
      "custom line",
    );
    const line = sink.text().slice(before);
    for (const s of ["p-secret-1", "c-secret-2", "t-secret-3", "b-secret-4", "pk-secret-5"]) assert.ok(!line.includes(s), s);
    assert.ok(line.includes(CENSOR));
  });
});
