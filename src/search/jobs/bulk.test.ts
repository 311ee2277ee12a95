import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { productRowsOf } from "../../../test/support/store-snapshot.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, startReceiver, type ImageHost, type Receiver } from "../../../test/support/servers.js";
import type { Tx } from "../../platform/db/index.js";
import { isAppError } from "../../platform/errors/catalogue.js";
import { BulkJobsRepository } from "./repository.js";

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
    const res = await submit({
      products: [
        { product_id: "sum-1", image_url: images[3] },
        { product_id: "sum-bad", image_url: `${host.url}/nope.png` },
      ],
    });
    const { job_id } = res.json();
    const before = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.equal(before.summary, "0 of 2 items processed: 0 succeeded, 0 failed. 2 pending.");
    await t.workers.drain();
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.equal(done.summary, "2 of 2 items processed: 1 succeeded, 1 failed. Other failures: 1 image_unreachable (see errors).");
  });

  test("a stopping worker starts no new item and puts the job back in the queue at once", async () => {
    const res = await submit({
      products: [
        { product_id: "stop-1", image_url: images[4] },
        { product_id: "stop-2", image_url: images[5] },
      ],
    });
    const { job_id } = res.json();
    // As if this instance had claimed the job, then stop() aborted it before any item started.
    await t.ctx.database.db
      .updateTable("jobs")
      .set({ status: "running", locked_by: t.ctx.jobs.instanceId, locked_until: Date.now() + 60_000 })
      .where("id", "=", job_id)
      .execute();
    const stopped = new AbortController();
    stopped.abort();
    const handler = t.services.bulkJobs.handler();
    await handler.run({
      id: job_id,
      storeId: store.clientId,
      payload: { jobId: job_id },
      attempt: 1,
      signal: stopped.signal,
      turnOver: new AbortController().signal,
    });
    const row = await t.ctx.database.db
      .selectFrom("jobs")
      .select(["status", "locked_by", "locked_until"])
      .where("id", "=", job_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: "queued", locked_by: null, locked_until: null });
    const items = await t.ctx.database.db.selectFrom("bulk_job_items").select("status").where("job_id", "=", job_id).execute();
    assert.deepEqual(
      items.map((i) => i.status),
      ["pending", "pending"],
    );
    // The next run (the next start) picks it up and finishes it.
    await t.workers.drain();
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(token) })).json();
    assert.deepEqual([done.status, done.succeeded], ["completed", 2]);
  });

  const rowsOf = (storeId: string, productId: string) => productRowsOf(t, storeId, productId);

  async function storeWithWebhook() {
    const s = await registerStore(t);
    const tok = await machineToken(t.search, s);
    const hook = await t.search.inject({
      method: "POST",
      url: "/v1/search/webhooks",
      headers: bearer(tok),
      payload: { url: `${receiver.url}/events`, events: ["product.indexed", "product.duplicate_detected"], secret: "w".repeat(32) },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    return { s, tok };
  }

  test("a batch is one transaction: an item failing inside its write rolls back only its own rows", async () => {
    const { s } = await storeWithWebhook();
    const products = t.services.products;
    const embed = async (hex: string) => {
      const image = await t.ctx.images.fromBytes(await solidImage(hex));
      const [vector] = await t.ctx.images.embed([image.decoded]);
      return { image, vector: vector! };
    };
    const [red, green, blue] = [await embed("#c81e1e"), await embed("#1ec81e"), await embed("#1e1ec8")];
    // The vector of "sp-bad" is written, then its write fails (after its product, lexical and image rows).
    const vectors = t.ctx.vectors;
    const upsert = vectors.upsert.bind(vectors);
    vectors.upsert = async (tx, storeId, item) => {
      await upsert(tx, storeId, item);
      if (item.productId === "sp-bad") throw new Error("disk full");
    };
    const transaction = t.ctx.database.transaction;
    let transactions = 0;
    t.ctx.database.transaction = (fn) => (transactions++, transaction(fn));
    const failures: string[] = [];
    const onFailure = async (_tx: Tx, error: unknown) => void failures.push(isAppError(error) ? error.code : (error as Error).message);
    let outcomes;
    try {
      outcomes = await products.writeBatch(s.clientId, [
        { productId: "sp-1", imageUrl: "http://img/r.png", metadata: { name: "one" }, embedded: red, onFailure },
        { productId: "sp-bad", imageUrl: "http://img/g.png", metadata: { name: "bad" }, embedded: green, onFailure },
        {
          productId: "sp-big",
          imageUrl: "http://img/b.png",
          metadata: { name: "big", blob: "x".repeat(17_000) },
          embedded: blue,
          onFailure,
        },
        { productId: "sp-2", imageUrl: "http://img/b.png", metadata: { name: "two" }, embedded: blue, onFailure },
      ]);
    } finally {
      vectors.upsert = upsert;
      t.ctx.database.transaction = transaction;
    }
    assert.equal(transactions, 1, "four items, one transaction");
    assert.deepEqual(
      outcomes.map((o) => (o.ok ? o.result?.product_id : isAppError(o.error) ? o.error.code : (o.error as Error).message)),
      ["sp-1", "disk full", "validation_failed", "sp-2"],
    );
    assert.deepEqual(failures, ["disk full", "validation_failed"], "each failure recorded inside the batch's transaction");
    for (const id of ["sp-1", "sp-2"])
      assert.deepEqual(await rowsOf(s.clientId, id), { products: 1, vectors: 1, lexical: 1, events: ["product.indexed"] }, id);
    for (const id of ["sp-bad", "sp-big"])
      assert.deepEqual(await rowsOf(s.clientId, id), { products: 0, vectors: 0, lexical: 0, events: [] }, id);
    const images = await t.ctx.database.db.selectFrom("product_images").select("sha256").where("store_id", "=", s.clientId).execute();
    assert.deepEqual(
      new Set(images.map((i) => i.sha256)),
      new Set([red.image.sha256, blue.image.sha256]),
      "the failed item's image row rolled back",
    );
    // The in-memory index holds the committed products only.
    const found = await t.ctx.vectors.search(s.clientId, green.vector, { k: 10 });
    assert.deepEqual(found.map((m) => m.productId).sort(), ["sp-1", "sp-2"]);
  });

  test("identical images in one bulk job are reported as duplicates, also within a batch; oversized metadata fails its item", async () => {
    const { s, tok } = await storeWithWebhook();
    const products = [
      { product_id: "dup-a", image_url: images[0]! },
      { product_id: "dup-b", image_url: images[0]! },
      { product_id: "dup-big", image_url: images[1]!, metadata: { blob: "x".repeat(17_000) } },
    ];
    const { job_id } = (await submit({ products }, tok)).json();
    await t.workers.drain();
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(tok) })).json();
    assert.deepEqual([done.succeeded, done.failed], [2, 1]);
    assert.deepEqual(
      done.errors.map((e: { product_id: string; error: string }) => [e.product_id, e.error]),
      [["dup-big", "validation_failed"]],
    );
    const dupes = await t.ctx.database.db
      .selectFrom("webhook_deliveries")
      .select("body")
      .where("store_id", "=", s.clientId)
      .where("event", "=", "product.duplicate_detected")
      .execute();
    assert.equal(dupes.length, 1, "the second of the pair duplicates the first");
    const data = JSON.parse(dupes[0]!.body).data;
    assert.deepEqual(new Set([data.new_product_id, data.existing_product_id]), new Set(["dup-a", "dup-b"]));
  });

  test("a batch lost before its commit (as by a SIGKILL) leaves its items pending; the resumed job writes each product once", async () => {
    const { s, tok } = await storeWithWebhook();
    const png = await solidImage("#a0522d");
    const products = Array.from({ length: 12 }, (_, i) => ({ product_id: `crash-${i}`, image_url: host.put(`/crash-${i}.png`, png) }));
    const path = (url: string) => new URL(url).pathname;
    // The first batch transaction does all its work, then is rolled back instead of committing.
    const batchTxs = new WeakSet<object>();
    const settle = BulkJobsRepository.prototype.settleItem;
    BulkJobsRepository.prototype.settleItem = function (this: BulkJobsRepository, ...args) {
      batchTxs.add((this as unknown as { db: object }).db);
      return settle.apply(this, args);
    };
    const transaction = t.ctx.database.transaction;
    let crashes = 1;
    t.ctx.database.transaction = (fn) =>
      transaction(async (tx) => {
        const out = await fn(tx);
        if (crashes > 0 && batchTxs.has(tx)) {
          crashes--;
          throw new Error("killed before commit");
        }
        return out;
      });
    let job_id: string;
    try {
      job_id = (await submit({ products }, tok)).json().job_id;
      await t.workers.drain();
    } finally {
      BulkJobsRepository.prototype.settleItem = settle;
      t.ctx.database.transaction = transaction;
    }
    assert.equal(crashes, 0, "a batch was lost");
    const job = await t.ctx.database.db
      .selectFrom("jobs")
      .select(["status", "attempts"])
      .where("id", "=", job_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([job.status, Number(job.attempts)], ["queued", 1], "the attempt failed and waits for its retry");
    const items = await t.ctx.database.db
      .selectFrom("bulk_job_items")
      .select(["product_id", "status"])
      .where("job_id", "=", job_id)
      .execute();
    const settled = items
      .filter((i) => i.status !== "pending")
      .map((i) => i.product_id)
      .sort();
    assert.ok(settled.length < products.length, "the lost batch's items are still pending");
    const committed = (await t.ctx.database.db.selectFrom("products").select("product_id").where("store_id", "=", s.clientId).execute())
      .map((r) => r.product_id)
      .sort();
    assert.deepEqual(committed, settled, "exactly the settled items have products");
    const probe = await t.ctx.images.fromBytes(await solidImage("#808080"));
    const [vector] = await t.ctx.images.embed([probe.decoded]);
    const inMemory = (await t.ctx.vectors.search(s.clientId, vector!, { k: 100 })).map((m) => m.productId).sort();
    assert.deepEqual(inMemory, committed, "the in-memory index never saw the lost batch");
    const fetched = new Map(products.map((p) => [p.product_id, host.hits(path(p.image_url))]));

    // The retry (as the next start would): it finishes the job without duplicating or skipping anything.
    await t.ctx.database.db.updateTable("jobs").set({ status: "queued", run_after: 0 }).where("id", "=", job_id).execute();
    await t.workers.drain();
    const done = (await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(tok) })).json();
    assert.deepEqual([done.status, done.succeeded, done.failed], ["completed", 12, 0]);
    for (const p of products) {
      const rows = await rowsOf(s.clientId, p.product_id);
      assert.deepEqual(
        [rows.products, rows.vectors, rows.lexical, rows.events.filter((e) => e === "product.indexed").length],
        [1, 1, 1, 1],
        p.product_id,
      );
      if (settled.includes(p.product_id))
        assert.equal(host.hits(path(p.image_url)), fetched.get(p.product_id), `${p.product_id} was committed and not fetched again`);
    }
    assert.equal(await t.ctx.vectors.count(s.clientId), 12);
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

test("with parallel model workers on, a bulk job's images are embedded on them, each product found first by its own image", async () => {
  const t = await createTestApp({ model: true, env: { MODEL_PARALLEL_WORKERS: "2" } });
  const host = await startImageHost();
  try {
    const hexes = ["#d01010", "#10d010", "#1010d0", "#d0d010", "#d010d0", "#10d0d0", "#808080", "#202020"];
    const urls: string[] = [];
    for (const [i, hex] of hexes.entries()) urls.push(host.put(`/lane${i}.png`, await solidImage(hex)));
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const model = t.ctx.model as unknown as { parallelReady(): Promise<boolean>; stats(): { parallelBatches: number } };
    assert.ok(await model.parallelReady());
    const products = urls.map((url, i) => ({ product_id: `lane-${i}`, image_url: url }));
    const res = await t.search.inject({ method: "POST", url: "/v1/products/bulk", headers: bearer(token), payload: { products } });
    assert.equal(res.statusCode, 202, res.body);
    await t.workers.drain();
    const job = (await t.search.inject({ method: "GET", url: `/v1/jobs/${res.json().job_id}`, headers: bearer(token) })).json();
    assert.equal(job.succeeded, urls.length);
    assert.ok(model.stats().parallelBatches > 0, "the images went to the parallel workers");
    for (const [i, url] of urls.entries()) {
      // The query image is embedded alone, on the main worker: its vector matches the product's.
      const found = await t.search.inject({
        method: "POST",
        url: "/v1/search/url",
        headers: bearer(token),
        payload: { image_url: url, limit: 1 },
      });
      assert.equal(found.statusCode, 200, found.body);
      assert.equal(found.json().results[0].product_id, `lane-${i}`);
      assert.ok(found.json().results[0].similarity_score > 0.999, `score ${found.json().results[0].similarity_score}`);
    }
  } finally {
    await host.close();
    await t.close();
  }
});
