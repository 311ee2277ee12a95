import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, loadConfig } from "./platform/config.js";
import { isRole, startRole, startupWarnings } from "./serve.js";

test("roles are api, worker and all; anything else is not a role", () => {
  for (const r of ["api", "worker", "all"]) assert.ok(isRole(r));
  for (const r of ["API", "web", "", undefined]) assert.ok(!isRole(r));
});

test("split roles on the embedded SQLite default are refused with a message naming DATABASE_URL", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-serve-"));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", MODEL_DISABLED: "true" });
    for (const role of ["api", "worker"] as const) {
      await assert.rejects(startRole(role, config), (e: unknown) => e instanceof ConfigError && /DATABASE_URL/.test(e.message));
    }
    assert.ok(!fs.existsSync(path.join(dataDir, "shopsight.db")), "refused before opening the database");
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("METRICS_PORT and METRICS_TOKEN are validated", () => {
  assert.throws(() => loadConfig({ METRICS_PORT: "99999" }), /METRICS_PORT/);
  assert.throws(() => loadConfig({ METRICS_TOKEN: "short" }), /METRICS_TOKEN/);
  const ok = loadConfig({ METRICS_PORT: "9464", METRICS_TOKEN: "a-long-enough-token" });
  assert.deepEqual(ok.ops, { metricsPort: 9464, metricsToken: "a-long-enough-token" });
});

test("a start with OUTBOUND_ALLOW_PRIVATE on warns that it is for development only", () => {
  const env = { DATA_DIR: os.tmpdir(), MODEL_DISABLED: "true" };
  const on = startupWarnings(loadConfig({ ...env, OUTBOUND_ALLOW_PRIVATE: "true" }), "all");
  assert.equal(on.length, 1);
  assert.match(on[0]!.message, /^OUTBOUND_ALLOW_PRIVATE=true: .* for development only; unset it in production$/);
  assert.deepEqual(startupWarnings(loadConfig(env), "all"), [], "the default warns of nothing");
  assert.match(startupWarnings(loadConfig(env), "api")[0]!.message, /REDIS_URL is not set/);
});
