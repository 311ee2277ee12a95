// One store's bulk jobs cannot hold up another store's (issue: seven 1,000-item jobs whose image
// hosts hang kept another store's 1-item job queued for minutes). The workers run for real here
// (workers.start()), with a short fetch timeout standing in for the default 10 s.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";

const FETCH_TIMEOUT_MS = 1200;

interface Tenant {
  store: RegisteredStore;
  token: string;
}

async function tenant(t: TestApp, plan?: "free"): Promise<Tenant> {
  const store = await registerStore(t, plan ? { plan } : {});
  return { store, token: await machineToken(t.search, store) };
}

const submit = (t: TestApp, who: Tenant, products: { product_id: string; image_url: string }[]) =>
  t.search.inject({ method: "POST", url: "/v1/products/bulk", headers: bearer(who.token), payload: { products } });

const statusOf = async (t: TestApp, who: Tenant, jobId: string) =>
  (await t.search.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers: bearer(who.token) })).json().status as string;

/**
 * Store A queues `jobs` jobs of `items` images from a host that never answers; once A's jobs hold
 * the workers, store B sends one good image. Returns the status of A's jobs at the moment B's job
 * completed (B must not wait for any of A's jobs to finish).
 */
async function slowNeighbour(t: TestApp, host: ImageHost, opts: { jobs: number; items: number }) {
  const a = await tenant(t);
  const b = await tenant(t);
  const aJobs: string[] = [];
  for (let j = 0; j < opts.jobs; j++) {
    const products = Array.from({ length: opts.items }, (_, i) => ({
      product_id: `slow-${j}-${i}`,
      image_url: host.hang(`/hang-${j}-${i}.png`),
    }));
    const res = await submit(t, a, products);
    assert.equal(res.statusCode, 202, res.body);
    aJobs.push(res.json().job_id as string);
  }
  await t.workers.start();
  // Wait until A's jobs have the workers (some image requests arrived at the hanging host).
  for (let i = 0; i < 100 && !(await anyHit(host, opts)); i++) await sleep(20);
  const good = host.put(`/good-${b.store.clientId}.png`, await solidImage("#2050d0"));
  const res = await submit(t, b, [{ product_id: "quick-1", image_url: good }]);
  assert.equal(res.statusCode, 202, res.body);
  const bJob = res.json().job_id as string;
  for (;;) {
    const status = await statusOf(t, b, bJob);
    if (status !== "processing") {
      assert.equal(status, "completed");
      break;
    }
    await sleep(25);
  }
  const aStatuses = await Promise.all(aJobs.map((id) => statusOf(t, a, id)));
  return { aStatuses };
}

async function anyHit(host: ImageHost, opts: { jobs: number; items: number }): Promise<boolean> {
  for (let j = 0; j < opts.jobs; j++) for (let i = 0; i < opts.items; i++) if (host.hits(`/hang-${j}-${i}.png`) > 0) return true;
  return false;
}

describeEachDialect("bulk jobs: one store cannot starve another", (dialect) => {
  let host: ImageHost;
  before(async () => {
    host = await startImageHost();
  });
  after(() => host.close());

  test("two slots: a store whose hosts hang holds one, and another store's 1-item job runs in the other at once", async () => {
    const t = await createTestApp({
      dialect,
      model: true,
      env: { OUTBOUND_TIMEOUT_MS: String(FETCH_TIMEOUT_MS), BULK_CONCURRENCY: "2", JOBS_CONCURRENCY: "2", JOBS_SLICE_SECONDS: "60" },
    });
    try {
      // Each of A's jobs needs 3 rounds of 2 hanging fetches (≥ 3.6 s); B must not wait for one.
      const { aStatuses } = await slowNeighbour(t, host, { jobs: 3, items: 6 });
      assert.deepEqual(aStatuses, ["processing", "processing", "processing"], "B finished before any of A's jobs");
    } finally {
      await t.close();
    }
  });

  test("one slot: a long job yields it after its time slice to another store's waiting job", async () => {
    const t = await createTestApp({
      dialect,
      model: true,
      env: { OUTBOUND_TIMEOUT_MS: String(FETCH_TIMEOUT_MS), BULK_CONCURRENCY: "2", JOBS_CONCURRENCY: "1", JOBS_SLICE_SECONDS: "1" },
    });
    try {
      // A's job needs 5 rounds of hanging fetches (≥ 6 s); after its 1 s slice and the fetches in
      // flight (≤ 1.2 s) it hands the only slot to B, and resumes afterwards.
      const { aStatuses } = await slowNeighbour(t, host, { jobs: 1, items: 10 });
      assert.deepEqual(aStatuses, ["processing"], "B finished before A's job");
      const jobs = await t.ctx.database.db.selectFrom("jobs").select("attempts").where("kind", "=", "bulk_import").execute();
      assert.ok(
        jobs.every((j) => j.attempts <= 1),
        "yielding is not a failed attempt",
      );
    } finally {
      await t.close();
    }
  });

  test("a store's waiting bulk items are capped by its plan: 429 queue_limit_reached names the limit", async () => {
    const t = await createTestApp({ dialect });
    try {
      const a = await tenant(t, "free");
      const b = await tenant(t, "free");
      const batch = (prefix: string, n: number) =>
        Array.from({ length: n }, (_, i) => ({ product_id: `${prefix}-${i}`, image_url: `${host.url}/never-fetched-${i}.png` }));
      // Nothing runs the queue here: the items stay pending.
      assert.equal((await submit(t, a, batch("one", 1000))).statusCode, 202);
      assert.equal((await submit(t, a, batch("two", 1000))).statusCode, 202);
      const over = await submit(t, a, batch("three", 1));
      assert.equal(over.statusCode, 429, over.body);
      const body = over.json();
      assert.equal(body.error, "queue_limit_reached");
      assert.deepEqual(
        { ...body.details, retry_after: undefined },
        { limit: "queued_bulk_items", max: 2000, queued: 2000, requested: 1, plan: "free", retry_after: undefined },
      );
      assert.match(body.message, /free plan allows 2000 bulk items waiting/);
      assert.ok(Number(over.headers["retry-after"]) > 0);
      // Another store's queue is its own.
      assert.equal((await submit(t, b, batch("b", 10))).statusCode, 202);
    } finally {
      await t.close();
    }
  });
});
