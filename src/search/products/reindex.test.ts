import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore } from "../../../test/support/factories.js";
import { solidImage } from "../../../test/support/servers.js";

describeEachDialect("reindex: products embedded by another model are re-embedded from stored images", (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ dialect, model: true });
  });
  after(() => t.close());

  test("detects stale vectors and re-embeds them without downloading anything", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const products = t.services.products;
    for (const [id, hex] of [
      ["r", "#d01010"],
      ["g", "#10a030"],
      ["b", "#1030c0"],
    ] as const) {
      const image = await t.ctx.images.fromBytes(await solidImage(hex));
      const [vector] = await t.ctx.images.embed([image.decoded]);
      await products.write(store.clientId, {
        productId: id,
        imageUrl: `https://cdn.example/${id}.png`,
        metadata: {},
        embedded: { image, vector: vector! },
      });
    }
    const reindexer = t.services.reindexer;
    assert.deepEqual(await reindexer.stale(), []);
    // As if the products had been embedded by an earlier model.
    await t.ctx.database.db
      .updateTable("products")
      .set({ model: "0000000000000000/64" })
      .where("store_id", "=", store.clientId)
      .where("product_id", "in", ["r", "g"])
      .execute();
    assert.deepEqual(await reindexer.stale(), [{ store_id: store.clientId, count: 2 }]);
    const report = await reindexer.store(store.clientId);
    assert.deepEqual(
      { checked: report.checked, reindexed: report.reindexed, failed: report.failed },
      { checked: 3, reindexed: 2, failed: [] },
    );
    assert.deepEqual(await reindexer.stale(), []);
    const all = await reindexer.store(store.clientId, { all: true });
    assert.equal(all.reindexed, 3);
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(token),
      payload: { query: "green", limit: 1 },
    });
    assert.equal(res.json().results[0].product_id, "g");
  });

  test("live: a reindex job run by the serving process replaces the vectors it searches, with progress (no restart)", async () => {
    const store = await registerStore(t);
    const other = await registerStore(t);
    const token = await machineToken(t.search, store);
    const otherToken = await machineToken(t.search, other);
    const products = t.services.products;
    const embed = async (hex: string) => {
      const image = await t.ctx.images.fromBytes(await solidImage(hex));
      const [vector] = await t.ctx.images.embed([image.decoded]);
      return { image, vector: vector! };
    };
    const green = await embed("#10a030");
    // "r" shows red but was embedded (by "an earlier model") as if it were green.
    for (const [id, hex, vector] of [
      ["r", "#d01010", green.vector],
      ["b", "#1030c0", undefined],
    ] as const) {
      const own = await embed(hex);
      await products.write(store.clientId, {
        productId: id,
        imageUrl: `https://cdn.example/${id}.png`,
        metadata: {},
        embedded: { image: own.image, vector: vector ?? own.vector },
      });
    }
    await t.ctx.database.db
      .updateTable("products")
      .set({ model: "0000000000000000/64" })
      .where("store_id", "=", store.clientId)
      .where("product_id", "=", "r")
      .execute();
    const ranked = async (query: string): Promise<{ product_id: string; similarity_score: number }[]> =>
      (
        await t.search.inject({
          method: "POST",
          url: "/v1/search/text",
          headers: bearer(token),
          payload: { query, limit: 2, semantic_weight: 1 },
        })
      ).json().results;
    const top = async (query: string) => (await ranked(query))[0]?.product_id;
    const scoreOfR = async (query: string) => (await ranked(query)).find((r) => r.product_id === "r")?.similarity_score ?? 0;
    const greenBefore = await scoreOfR("green");
    assert.equal(await top("green"), "r", "the stale vector is what the server searches before the reindex");
    const model = async (tok: string) => (await t.search.inject({ method: "GET", url: "/v1/search/model", headers: bearer(tok) })).json();
    assert.deepEqual((await model(token)).reindex, { stale_products: 1, job: null });

    const started = await t.search.inject({ method: "POST", url: "/v1/products/reindex", headers: bearer(token) });
    assert.equal(started.statusCode, 202, started.body);
    const { job_id: jobId } = started.json();
    assert.deepEqual(started.json(), { job_id: jobId, status: "processing", total: 1, queued: true });
    // A second call while it waits returns the same job.
    const again = await t.search.inject({ method: "POST", url: "/v1/products/reindex", headers: bearer(token) });
    assert.deepEqual(again.json(), { job_id: jobId, status: "processing", total: 1, queued: false });
    const job = async (tok: string) => t.search.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers: bearer(tok) });
    assert.equal((await job(token)).json().processed, 0);
    // Another store can neither see the job nor has anything to reindex.
    assert.equal((await job(otherToken)).statusCode, 404);
    assert.deepEqual((await model(otherToken)).reindex, { stale_products: 0, job: null });

    await t.workers.drain();
    const done = (await job(token)).json();
    assert.deepEqual(
      { status: done.status, total: done.total, processed: done.processed, succeeded: done.succeeded, failed: done.failed },
      { status: "completed", total: 1, processed: 1, succeeded: 1, failed: 0 },
    );
    assert.equal((await model(token)).reindex.stale_products, 0);
    assert.equal((await model(token)).reindex.job.status, "completed");
    await t.ctx.vectors.settled();
    assert.equal(await top("red"), "r", "the same process now searches the new vector");
    assert.ok((await scoreOfR("green")) < greenBefore, "its old (green) vector is gone");

    // all: every product again, as one job.
    const all = await t.search.inject({ method: "POST", url: "/v1/products/reindex?all=true", headers: bearer(token) });
    assert.equal(all.json().total, 2);
    assert.equal((await t.search.inject({ method: "POST", url: "/v1/products/reindex?all=yes", headers: bearer(token) })).statusCode, 400);
    await t.workers.drain();
    assert.equal((await job(token)).json().status, "completed");
    assert.equal((await model(token)).reindex.stale_products, 0);
  });

  test("a server starting with another model than its products' queues their reindex (enqueueStale)", async () => {
    const store = await registerStore(t);
    const image = await t.ctx.images.fromBytes(await solidImage("#d01010"));
    const [vector] = await t.ctx.images.embed([image.decoded]);
    await t.services.products.write(store.clientId, {
      productId: "p",
      imageUrl: "https://cdn.example/p.png",
      metadata: {},
      embedded: { image, vector: vector! },
    });
    await t.ctx.database.db.updateTable("products").set({ model: "0000000000000000/64" }).where("store_id", "=", store.clientId).execute();
    const queued = await t.services.reindexer.enqueueStale();
    const mine = queued.filter((q) => q.store_id === store.clientId);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.count, 1);
    // Starting again before it ran queues nothing new.
    assert.deepEqual(
      (await t.services.reindexer.enqueueStale()).filter((q) => q.store_id === store.clientId).map((q) => q.job_id),
      [mine[0]!.job_id],
    );
    await t.workers.drain();
    assert.deepEqual(
      (await t.services.reindexer.stale()).filter((s) => s.store_id === store.clientId),
      [],
    );
  });

  test("a product replaced while a reindex runs keeps its new image's vector (the job skips it)", async () => {
    const store = await registerStore(t);
    const embed = async (hex: string) => {
      const image = await t.ctx.images.fromBytes(await solidImage(hex));
      const [vector] = await t.ctx.images.embed([image.decoded]);
      return { image, vector: vector! };
    };
    await t.services.products.write(store.clientId, {
      productId: "p",
      imageUrl: "https://cdn.example/red.png",
      metadata: {},
      embedded: await embed("#d01010"),
    });
    await t.ctx.database.db.updateTable("products").set({ model: "0000000000000000/64" }).where("store_id", "=", store.clientId).execute();
    const blue = await embed("#1030c0");
    const late = await t.services.reindexer.store(store.clientId, {
      stop: () => false,
      beforeWrite: async () => {
        await t.services.products.write(store.clientId, {
          productId: "p",
          imageUrl: "https://cdn.example/blue.png",
          metadata: {},
          embedded: blue,
        });
      },
    });
    assert.equal(late.reindexed, 0, "the replaced product is skipped");
    await t.ctx.vectors.settled();
    const token = await machineToken(t.search, store);
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(token),
      payload: { query: "blue", limit: 1, semantic_weight: 1 },
    });
    assert.ok(res.json().results[0].similarity_score > 0.5, res.body);
    const row = await t.ctx.database.db
      .selectFrom("products")
      .select(["model"])
      .where("store_id", "=", store.clientId)
      .executeTakeFirstOrThrow();
    assert.notEqual(row.model, "0000000000000000/64", "the replacement wrote the loaded model");
  });
});
