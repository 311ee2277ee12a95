import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../../platform/clock.js";
import type { App } from "../../platform/http/app.js";
import { describeEachDialect, openSearchApp, type DialectName, type SearchInstance, type TestApp } from "../../../test/support/harness.js";
import { createTestStorage, testConfig } from "../../../test/support/database.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { HOUR_MS } from "./period.js";
import { createUsageMeter } from "./usage-meter.js";

const NOW = Date.UTC(2026, 10, 21, 12, 30, 0);

type Instance = SearchInstance;

/** Real apps that can be stopped and started again over one database (SQLite file or PostgreSQL schema). */
function instances(dialect: DialectName, clock: ManualClock) {
  const storage = createTestStorage(dialect, "shopsight-usage");
  const open = async (): Promise<Instance> => openSearchApp(await testConfig(storage), storage.pgSchema, clock);
  /** What the factories need of a TestApp. */
  const asTestApp = (i: Instance) => ({ ctx: i.ctx, config: i.ctx.config, search: i.search, services: i.services }) as unknown as TestApp;
  return { open, asTestApp, cleanup: () => storage.remove() };
}

describeEachDialect("billing: usage metering", (dialect) => {
  const clock = new ManualClock(NOW);
  let env: ReturnType<typeof instances>;
  before(() => {
    env = instances(dialect, clock);
  });
  after(() => env.cleanup());

  const call = (app: App, token: string, url = "/v1/billing/current-plan") => app.inject({ method: "GET", url, headers: bearer(token) });
  const stored = (i: Instance, storeId: string) => i.services.repositories.billing.sumUsage(storeId, 0, Number.MAX_SAFE_INTEGER);

  test("counts survive a restart: closing the app flushes them and the next app over the same database reports them", async () => {
    const first = await env.open();
    let store: RegisteredStore;
    let token: string;
    try {
      store = await registerStore(env.asTestApp(first));
      token = await machineToken(first.search, store);
      for (let i = 0; i < 7; i++) assert.equal((await call(first.search, token)).statusCode, 200);
    } finally {
      await first.close();
    }
    const second = await env.open();
    try {
      assert.equal(await stored(second, store.clientId), 7, "close() flushed the pending counts");
      const usage = await call(second.search, token, "/v1/billing/usage");
      assert.equal(usage.statusCode, 200, usage.body);
      assert.equal(usage.json().api_calls, 7);
      assert.equal((await call(second.search, token, "/v1/billing/usage")).json().api_calls, 8);
    } finally {
      await second.close();
    }
  });

  test("two app instances over one database count 2 × 60 concurrent calls exactly", async () => {
    const a = await env.open();
    const b = await env.open();
    let bOpen = true;
    const closeB = async () => {
      if (bOpen) await b.close();
      bOpen = false;
    };
    try {
      const store = await registerStore(env.asTestApp(a));
      const token = await machineToken(a.search, store);
      const results = await Promise.all([
        ...Array.from({ length: 60 }, () => call(a.search, token)),
        ...Array.from({ length: 60 }, () => call(b.search, token)),
      ]);
      assert.deepEqual(new Set(results.map((r) => r.statusCode)), new Set([200]));
      const fromA = (await call(a.search, token, "/v1/billing/usage")).json();
      assert.ok(fromA.api_calls >= 60 && fromA.api_calls <= 120, "A sees its own calls at once, B's once B flushed");
      await closeB();
      const afterB = (await call(a.search, token, "/v1/billing/usage")).json();
      assert.equal(afterB.api_calls, 121, "120 concurrent calls plus the first usage call");
    } finally {
      await a.close();
      await closeB();
    }
  });

  test("calls refused by the plan rate limit (429), unauthenticated calls and non-/v1 routes are not counted", async () => {
    const inst = await env.open();
    let storeId = "";
    try {
      const store = await registerStore(env.asTestApp(inst), { plan: "free" });
      storeId = store.clientId;
      const token = await machineToken(inst.search, store);
      const codes: number[] = [];
      for (let i = 0; i < 12; i++) codes.push((await call(inst.search, token)).statusCode);
      assert.deepEqual(codes, [...Array(10).fill(200), 429, 429]);
      assert.equal((await inst.search.inject({ method: "GET", url: "/v1/billing/current-plan" })).statusCode, 401);
      assert.equal(
        (await inst.search.inject({ method: "GET", url: "/v1/billing/current-plan", headers: bearer("not-a-token") })).statusCode,
        401,
      );
      assert.equal((await inst.search.inject({ method: "GET", url: "/health" })).statusCode, 200);
      await machineToken(inst.search, store);
    } finally {
      await inst.close();
    }
    const reopened = await env.open();
    try {
      assert.equal(await stored(reopened, storeId), 10);
    } finally {
      await reopened.close();
    }
  });

  test("the meter writes nothing per request: counts reach the database only when flushed, in UTC-hour buckets", async () => {
    const inst = await env.open();
    try {
      const store = await registerStore(env.asTestApp(inst));
      const repo = inst.services.repositories.billing;
      const meter = createUsageMeter(inst.ctx, repo, { flushIntervalMs: 3_600_000 });
      for (let i = 0; i < 25; i++) meter.record(store.clientId);
      clock.advance(HOUR_MS);
      for (let i = 0; i < 5; i++) meter.record(store.clientId);
      meter.record("no-such-store");
      assert.equal(await stored(inst, store.clientId), 0, "nothing written before the flush");
      await meter.flush();
      const hour = Math.floor(NOW / HOUR_MS) * HOUR_MS;
      assert.equal(await repo.sumUsage(store.clientId, hour, hour + HOUR_MS), 25);
      assert.equal(await repo.sumUsage(store.clientId, hour + HOUR_MS, hour + 2 * HOUR_MS), 5);
      for (let i = 0; i < 3; i++) meter.record(store.clientId);
      await meter.close();
      assert.equal(await stored(inst, store.clientId), 33, "close flushes; a store that does not exist is dropped, not retried forever");
      await meter.flush();
      assert.equal(await stored(inst, store.clientId), 33, "a second flush adds nothing");
    } finally {
      clock.set(NOW);
      await inst.close();
    }
  });

  test("a new calendar month starts from zero", async () => {
    const inst = await env.open();
    try {
      const store = await registerStore(env.asTestApp(inst));
      const token = await machineToken(inst.search, store);
      for (let i = 0; i < 4; i++) await call(inst.search, token);
      assert.equal((await call(inst.search, token, "/v1/billing/usage")).json().api_calls, 4);
      clock.set(Date.UTC(2026, 11, 1, 0, 0, 1));
      const fresh = await machineToken(inst.search, store);
      const december = (await call(inst.search, fresh, "/v1/billing/usage")).json();
      assert.equal(december.period_start, "2026-12-01T00:00:00.000Z");
      assert.equal(december.api_calls, 0);
    } finally {
      clock.set(NOW);
      await inst.close();
    }
  });
});
