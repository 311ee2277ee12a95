import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "./config.js";

test("defaults: ports 8080/8081, SQLite under ./data", () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.chatPort, 8081);
  assert.equal(c.database.kind, "sqlite");
  assert.match(c.database.kind === "sqlite" ? c.database.file : "", /data\/shopsight\.db$/);
  assert.equal(c.tokenTtlSeconds, 3600);
  assert.equal(c.outbound.allowPrivate, false);
  assert.equal(c.publicBaseUrl, "http://localhost:8080");
});

test("DATABASE_URL selects PostgreSQL", () => {
  const c = loadConfig({ DATABASE_URL: "postgres://u:p@db:5432/x" });
  assert.deepEqual(c.database, { kind: "postgres", url: "postgres://u:p@db:5432/x" });
});

test("a bad variable is named in the error", () => {
  assert.throws(() => loadConfig({ PORT: "eighty" }), (e: unknown) => e instanceof ConfigError && /PORT/.test(e.message));
  assert.throws(() => loadConfig({ DATABASE_URL: "mysql://x" }), /DATABASE_URL/);
  assert.throws(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE: "maybe" }), /OUTBOUND_ALLOW_PRIVATE/);
  assert.throws(() => loadConfig({ JWT_SIGNING_KEY: "short" }), /JWT_SIGNING_KEY/);
});

test("TRUST_PROXY accepts true, a hop count or a list", () => {
  assert.equal(loadConfig({ TRUST_PROXY: "true" }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: "2" }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: "10.0.0.1, 10.0.0.0/8" }).trustProxy, ["10.0.0.1", "10.0.0.0/8"]);
  assert.equal(loadConfig({}).trustProxy, false);
});
