import { test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore } from "../../../test/support/factories.js";
import { testEnv } from "../../../test/support/env.js";

// The same budget enforced by two API processes that share Redis (two apps, two contexts, one
// Redis, one database file each is not needed: the budget lives in Redis).
const redisMissing = !testEnv.redisUrl
  ? testEnv.ci
    ? false
    : "TEST_REDIS_URL not set: start Redis (see .ci/run) to run the shared rate-limit test"
  : false;

test("two API instances sharing Redis enforce one plan budget", { skip: redisMissing }, async () => {
  if (!testEnv.redisUrl) throw new Error("CI run without TEST_REDIS_URL");
  const a = await createTestApp({ env: { REDIS_URL: testEnv.redisUrl } });
  let b: TestApp | undefined;
  try {
    const store = await registerStore(a, { plan: "free" });
    const token = await machineToken(a.search, store);
    // A second "process": its own context and limiter objects, same database and Redis.
    b = await createTestApp({ env: { REDIS_URL: testEnv.redisUrl, DATA_DIR: a.dataDir } });
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) {
      const app = i % 2 === 0 ? a.search : b.search;
      codes.push((await app.inject({ method: "GET", url: "/v1/products", headers: bearer(token) })).statusCode);
    }
    assert.deepEqual(codes, [...Array(10).fill(200), 429, 429]);
  } finally {
    await b?.close().catch(() => undefined);
    await a.close();
  }
});

test("without Redis each process keeps its own in-memory budget", async () => {
  const a = await createTestApp();
  try {
    const store = await registerStore(a, { plan: "basic" });
    const token = await machineToken(a.search, store);
    const codes: number[] = [];
    for (let i = 0; i < 61; i++)
      codes.push((await a.search.inject({ method: "GET", url: "/v1/products", headers: bearer(token) })).statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 60);
    assert.equal(codes[60], 429);
  } finally {
    await a.close();
  }
});
