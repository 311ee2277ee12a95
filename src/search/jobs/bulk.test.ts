import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, startReceiver, type ImageHost, type Receiver } from "../../../test/support/servers.js";
import { BulkJobsService } from "./service.js";

describeEachDialect("bulk jobs: 202, per-item errors, signed callback", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  let receiver: Receiver;
  let store: RegisteredStore;
  let token: string;
  const images: string[] = [];

  before(async () => {
    t = await createTestApp({ dialect, model: true });
    host = await startImageHost();
    for (const [i, hex] of ["#d01010", "#10d010", "#1010d0", "#d0d010", "#d010d0", "#10d0d0"].entries()) {
      images.push(host.put(`/img${i}.png`, await solidImage(hex)));
    }
    receiver = await startReceiver("cbs-secret-0123456789");
    store = await registerStore(t);
    token = await machineToken(t.search, store);
  });
  after(async () => {
    await receiver.close();
    await host.close();
    await t.close();
  });

  const submit = (payload: unknown, tok = token) =>
    t.search.inject({ method: "POST", url: "/v1/products/bulk", headers: bearer(tok), payload: payload as object });

  test("answers 202 at once, then indexes every good item and fails only the bad one", async () => {
    const products = images.map((url, i) => ({ product_id: `bulk-${i}`, image_url: url, metadata: { category: "bulk" } }));
    products.push({ product_id: "bulk-bad", image_url: `${host.url}/missing.png`, metadata: { category: "bulk" } });
    const res = await submit({ products, callback_url: `${receiver.url}/done`, callback_secret: "cbs-secret-0123456789" });
    assert.equal(res.statusCode, 202, res.body);
    const { job_id, status, total } = res.json();
    assert.equal(status, "processing");
    assert.equal(total, 7);
    const before = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.equal(before.status, "processing");
    assert.equal(before.processed, 0);

    await t.workers.drain();
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.equal(done.status, "completed");
    assert.deepEqual([done.total, done.processed, done.succeeded, done.failed], [7, 7, 6, 1]);
    assert.deepEqual(done.errors, [{ product_id: "bulk-bad", error: "image_unreachable", message: done.errors[0].message }]);
    assert.ok(done.finished_at && done.created_at);
    const list = (await t.search.inject({ method: "GET", url: "/v1/products?category=bulk&limit=100", headers: bearer(token) })).json();
    assert.equal(list.total, 6);

    const callback = receiver.calls.find((c) => c.json.job_id === job_id);
    assert.ok(callback, "callback delivered");
    assert.ok(callback.signatureValid, "callback signed like webhooks");
    assert.deepEqual(
      { ...callback.json, finished_at: undefined },
      { event: "bulk.completed", job_id, status: "completed", total: 7, succeeded: 6, failed: 1, finished_at: undefined },
    );
  });

  test("a callback without a secret gets a generated one, returned once", async () => {
    const res = await submit({ products: [{ product_id: "cb-1", image_url: images[0] }], callback_url: `${receiver.url}/gen` });
    assert.equal(res.statusCode, 202);
    assert.match(res.json().callback_secret, /^cbs_/);
  });

  test("running the job again redoes nothing", async () => {
    const res = await submit({ products: [{ product_id: "once-1", image_url: images[1] }] });
    await t.workers.drain();
    const hits = host.hits("/img1.png");
    const { job_id } = res.json();
    await t.ctx.database.db.updateTable("jobs").set({ status: "queued", run_after: 0 }).where("id", "=", job_id).execute();
    await t.workers.drain();
    assert.equal(host.hits("/img1.png"), hits, "no item was fetched again");
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.deepEqual([done.succeeded, done.failed], [1, 0]);
  });

  test("items over the plan limit fail with plan_limit_reached; nothing is half-written", async () => {
    const s = await registerStore(t, { plan: "free" });
    const tok = await machineToken(t.search, s);
    const products = Array.from({ length: 53 }, (_, i) => ({ product_id: `lim-${i}`, image_url: images[i % images.length]! }));
    const { job_id } = (await submit({ products }, tok)).json();
    await t.workers.drain();
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(tok) })).json();
    assert.equal(done.status, "completed");
    assert.deepEqual([done.succeeded, done.failed], [50, 3]);
    assert.ok(done.errors.every((e: { error: string }) => e.error === "plan_limit_reached"));
    assert.equal(
      done.summary,
      "53 of 53 items processed: 50 succeeded, 3 failed. 3 items were not indexed because the store reached its plan's product limit " +
        "(Your plan allows 50 products; remove some or upgrade): remove products or upgrade the plan, then submit those items again.",
    );
    const list = (await t.search.inject({ method: "GET", url: "/v1/products?limit=1", headers: bearer(tok) })).json();
    assert.equal(list.total, 50);
    assert.equal(await t.ctx.vectors.count(s.clientId), 50, "no vector without its product");
  });

  test("the summary counts progress and names other failures without a plan sentence", async () => {
    const res = await submit({ products: [{ product_id: "sum-1", image_url: images[3] }, { product_id: "sum-bad", image_url: `${host.url}/nope.png` }] });
    const { job_id } = res.json();
    const before = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.equal(before.summary, "0 of 2 items processed: 0 succeeded, 0 failed. 2 pending.");
    await t.workers.drain();
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.equal(done.summary, "2 of 2 items processed: 1 succeeded, 1 failed. Other failures: 1 image_unreachable (see errors).");
  });

  test("a stopping worker starts no new item and puts the job back in the queue at once", async () => {
    const res = await submit({ products: [{ product_id: "stop-1", image_url: images[4] }, { product_id: "stop-2", image_url: images[5] }] });
    const { job_id } = res.json();
    // As if this instance had claimed the job, then stop() aborted it before any item started.
    await t.ctx.database.db
      .updateTable("jobs")
      .set({ status: "running", locked_by: t.ctx.jobs.instanceId, locked_until: Date.now() + 60_000 })
      .where("id", "=", job_id)
      .execute();
    const stopped = new AbortController();
    stopped.abort();
    const handler = new BulkJobsService(t.ctx).handler();
    await handler.run({ id: job_id, storeId: store.clientId, payload: { jobId: job_id }, attempt: 1, signal: stopped.signal });
    const row = await t.ctx.database.db.selectFrom("jobs").select(["status", "locked_by", "locked_until"]).where("id", "=", job_id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: "queued", locked_by: null, locked_until: null });
    const items = await t.ctx.database.db.selectFrom("bulk_job_items").select("status").where("job_id", "=", job_id).execute();
    assert.deepEqual(items.map((i) => i.status), ["pending", "pending"]);
    // The next run (the next start) picks it up and finishes it.
    await t.workers.drain();
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.deepEqual([done.status, done.succeeded], ["completed", 2]);
  });

  test("rejects bad bulk requests with 400", async () => {
    const one = { product_id: "x", image_url: images[0] };
    const cases: unknown[] = [
      { products: [] },
      { products: Array.from({ length: 1001 }, (_, i) => ({ ...one, product_id: `x${i}` })) },
      { products: [one, one] },
      { products: [{ product_id: "x" }] },
      { products: [one], callback_url: "not a url" },
      { products: [one], extra: true },
    ];
    for (const payload of cases) {
      const res = await submit(payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 80) + res.body);
    }
  });

  test("a second store cannot read the first store's job", async () => {
    const { job_id } = (await submit({ products: [{ product_id: "iso-1", image_url: images[2] }] })).json();
    const other = await registerStore(t);
    const tok = await machineToken(t.search, other);
    const res = await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(tok) });
    assert.equal(res.statusCode, 404);
  });
});
