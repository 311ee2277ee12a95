// Bulk actions (issue 38, item 5): POST /v1/products/bulk-delete and /v1/products/bulk-update
// select products by ids or by a filter and run as bulk jobs (progress through GET /v1/jobs/{id},
// resumable, one transaction per chunk of products).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { productRowsOf } from "../../../test/support/store-snapshot.js";
import { bearer, loginToken, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startReceiver, type Receiver } from "../../../test/support/servers.js";
import { createApiKey } from "../../../test/support/members.js";
import type { Metadata } from "../products/service.js";
import { applyChanges } from "./actions.js";

interface Tenant {
  store: RegisteredStore;
  token: string;
}

describeEachDialect("bulk actions: delete and update a selection of products as a job", (dialect) => {
  let t: TestApp;
  let receiver: Receiver;
  let embedded: { image: Awaited<ReturnType<TestApp["ctx"]["images"]["fromBytes"]>>; vector: Float32Array }[];

  before(async () => {
    t = await createTestApp({ dialect, model: true });
    receiver = await startReceiver("w".repeat(32));
    embedded = [];
    for (const hex of ["#c81e1e", "#1ec81e", "#1e1ec8", "#c8c81e"]) {
      const image = await t.ctx.images.fromBytes(await solidImage(hex));
      const [vector] = await t.ctx.images.embed([image.decoded]);
      embedded.push({ image, vector: vector! });
    }
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  /** A store with a webhook on product events (so each change leaves an outbox row to count). */
  async function tenant(): Promise<Tenant> {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const hook = await t.search.inject({
      method: "POST",
      url: "/v1/search/webhooks",
      headers: bearer(token),
      payload: { url: `${receiver.url}/events`, events: ["product.deleted", "product.updated"], secret: "w".repeat(32) },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    return { store, token };
  }

  async function seed(who: Tenant, products: { id: string; metadata: Metadata }[]): Promise<void> {
    for (const [i, p] of products.entries()) {
      await t.services.products.write(who.store.clientId, {
        productId: p.id,
        imageUrl: `http://img.test/${p.id}.png`,
        metadata: p.metadata,
        embedded: embedded[i % embedded.length]!,
      });
    }
  }

  const post = (who: Tenant, path: string, payload: object) =>
    t.search.inject({ method: "POST", url: `/v1/products/${path}`, headers: bearer(who.token), payload });
  const jobOf = async (who: Tenant, jobId: string) =>
    (await t.search.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers: bearer(who.token) })).json();

  const rowsOf = (storeId: string, productId: string) => productRowsOf(t, storeId, productId);
  const gone = { products: 0, vectors: 0, lexical: 0, events: ["product.deleted"] };
  const kept = { products: 1, vectors: 1, lexical: 1, events: [] };

  /** Product ids the in-memory (or pgvector) index still finds for the store. */
  async function indexed(storeId: string): Promise<string[]> {
    return (await t.ctx.vectors.search(storeId, embedded[0]!.vector, { k: 100 })).map((m) => m.productId).sort();
  }

  const metadataOf = async (storeId: string, productId: string) => {
    const row = await t.ctx.database.db
      .selectFrom("products")
      .select(["metadata", "vector_id", "availability"])
      .where("store_id", "=", storeId)
      .where("product_id", "=", productId)
      .executeTakeFirstOrThrow();
    return { metadata: JSON.parse(row.metadata) as Metadata, vectorId: row.vector_id, availability: row.availability };
  };

  test("delete by ids: 202 with a job, progress through GET /v1/jobs; products go with their vectors and text rows; another store's ids are not found and untouched", async () => {
    const a = await tenant();
    const b = await tenant();
    await seed(a, [
      { id: "del-1", metadata: { name: "One" } },
      { id: "del-2", metadata: { name: "Two" } },
      { id: "keep-1", metadata: { name: "Keep" } },
      { id: "twin", metadata: { name: "A's twin" } },
    ]);
    await seed(b, [
      { id: "b-only", metadata: { name: "B's" } },
      { id: "twin", metadata: { name: "B's twin" } },
    ]);
    const res = await post(a, "bulk-delete", { ids: ["del-1", "del-2", "del-1", "twin", "b-only", "never-was"] });
    assert.equal(res.statusCode, 202, res.body);
    const { job_id, status, total, action } = res.json();
    assert.deepEqual([status, total, action], ["processing", 5, "delete"], "repeated ids count once");
    const waiting = await jobOf(a, job_id);
    assert.deepEqual([waiting.status, waiting.action, waiting.processed], ["processing", "delete", 0]);

    await t.workers.drain();
    const done = await jobOf(a, job_id);
    assert.deepEqual([done.status, done.total, done.processed, done.succeeded, done.failed], ["completed", 5, 5, 3, 2]);
    assert.deepEqual(
      done.errors.map((e: { product_id: string; error: string }) => [e.product_id, e.error]),
      [
        ["b-only", "not_found"],
        ["never-was", "not_found"],
      ],
    );
    assert.equal(
      done.summary,
      "5 of 5 items processed: 3 succeeded, 2 failed. 2 products were not found in this store (deleted already, or not this store's ids): nothing was done to them.",
    );
    for (const id of ["del-1", "del-2", "twin"]) assert.deepEqual(await rowsOf(a.store.clientId, id), gone, id);
    assert.deepEqual(await rowsOf(a.store.clientId, "keep-1"), kept);
    assert.deepEqual(await indexed(a.store.clientId), ["keep-1"]);
    // The other store keeps both its products, the one named by id and its own "twin".
    for (const id of ["b-only", "twin"]) assert.deepEqual(await rowsOf(b.store.clientId, id), kept, `b: ${id}`);
    assert.deepEqual(await indexed(b.store.clientId), ["b-only", "twin"]);
    // The other store cannot read the job.
    assert.equal((await t.search.inject({ method: "GET", url: `/v1/jobs/${job_id}`, headers: bearer(b.token) })).statusCode, 404);
  });

  test("delete by filter: the store's products matching category, brand and tags (as search filters them), none of another store's", async () => {
    const a = await tenant();
    const b = await tenant();
    await seed(a, [
      { id: "c-1", metadata: { category: "Clearance", brand: "Acme", tags: ["Old", "red"] } },
      { id: "c-2", metadata: { category: "clearance", brand: "acme", tags: ["old"] } },
      { id: "c-3", metadata: { category: "clearance", brand: "Other", tags: ["old"] } },
      { id: "c-4", metadata: { category: "clearance", brand: "Acme" } },
      { id: "n-1", metadata: { category: "new", brand: "Acme", tags: ["old"] } },
    ]);
    await seed(b, [{ id: "c-1", metadata: { category: "clearance", brand: "Acme", tags: ["old"] } }]);
    const res = await post(a, "bulk-delete", { filter: { category: "clearance", brand: "ACME", tags: ["old"] } });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.json().total, 2);
    await t.workers.drain();
    const done = await jobOf(a, res.json().job_id);
    assert.deepEqual([done.status, done.succeeded, done.failed], ["completed", 2, 0]);
    for (const id of ["c-1", "c-2"]) assert.deepEqual(await rowsOf(a.store.clientId, id), gone, id);
    assert.deepEqual(await indexed(a.store.clientId), ["c-3", "c-4", "n-1"]);
    assert.deepEqual(await rowsOf(b.store.clientId, "c-1"), kept, "another store's matching product stays");

    // A search-style filter: price range and metadata_filters.
    await seed(a, [
      { id: "p-1", metadata: { category: "shoes", price: 10 } },
      { id: "p-2", metadata: { category: "shoes", price: 30, season: "winter" } },
      { id: "p-3", metadata: { category: "shoes", price: 50, season: "winter" } },
    ]);
    const priced = await post(a, "bulk-delete", {
      filter: { price_min: 20, metadata_filters: [{ field: "season", operator: "eq", value: "winter" }], price_max: 40 },
    });
    assert.equal(priced.statusCode, 202, priced.body);
    assert.equal(priced.json().total, 1);
    await t.workers.drain();
    assert.deepEqual(await indexed(a.store.clientId), ["c-3", "c-4", "n-1", "p-1", "p-3"]);
  });

  test("update by ids and by filter: sets category, brand, tags and availability; keeps other metadata, the image and the vector", async () => {
    const a = await tenant();
    const b = await tenant();
    await seed(a, [
      { id: "u-1", metadata: { name: "Linen shirt", category: "shirts", brand: "Acme", price: 40, tags: ["summer", "old"] } },
      { id: "u-2", metadata: { name: "Wool coat", category: "coats", brand: "Acme", price: 120 } },
      { id: "u-3", metadata: { name: "Rain jacket", category: "coats", brand: "Brolly", price: 90 } },
    ]);
    await seed(b, [{ id: "u-1", metadata: { name: "B's shirt", category: "shirts" } }]);
    const before = await metadataOf(a.store.clientId, "u-1");

    const res = await post(a, "bulk-update", {
      ids: ["u-1", "u-2", "missing"],
      set: { category: "sale", brand: null, availability: { state: "low_stock", quantity: 3 } },
      add_tags: ["Promo", "summer"],
      remove_tags: ["OLD"],
    });
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual([res.json().action, res.json().total], ["update", 3]);
    await t.workers.drain();
    const done = await jobOf(a, res.json().job_id);
    assert.deepEqual([done.status, done.action, done.succeeded, done.failed], ["completed", "update", 2, 1]);
    assert.deepEqual(done.errors, [{ product_id: "missing", error: "not_found", message: 'No product "missing" in this store.' }]);

    const u1 = await metadataOf(a.store.clientId, "u-1");
    assert.deepEqual(u1.metadata, { name: "Linen shirt", category: "sale", price: 40, tags: ["summer", "Promo"] });
    assert.equal(u1.vectorId, before.vectorId, "not re-embedded");
    assert.equal(u1.availability, "low_stock");
    const u2 = await metadataOf(a.store.clientId, "u-2");
    assert.deepEqual(u2.metadata, { name: "Wool coat", category: "sale", price: 120, tags: ["Promo", "summer"] });
    assert.deepEqual((await metadataOf(a.store.clientId, "u-3")).metadata.category, "coats");
    assert.deepEqual(
      (await metadataOf(b.store.clientId, "u-1")).metadata,
      { name: "B's shirt", category: "shirts" },
      "another store's u-1",
    );
    // The API, the text index and the search filters see the change.
    const product = (await t.search.inject({ method: "GET", url: "/v1/products/u-1", headers: bearer(a.token) })).json();
    assert.deepEqual(product.availability, { state: "low_stock", quantity: 3 });
    const listed = (await t.search.inject({ method: "GET", url: "/v1/products?category=sale", headers: bearer(a.token) })).json();
    assert.equal(listed.total, 2);
    const { rows } = await sql<{
      words: string;
    }>`SELECT words FROM product_text WHERE store_id = ${a.store.clientId} AND product_id = 'u-2'`.execute(t.ctx.database.db);
    assert.match(rows[0]!.words.toLowerCase(), /promo/, "the text index row follows the new tags");
    const found = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(a.token),
      payload: { query: "shirt", category: "sale", limit: 10 },
    });
    assert.equal(found.statusCode, 200, found.body);
    assert.ok(
      found.json().results.some((r: { product_id: string }) => r.product_id === "u-1"),
      "a search filtered by the new category finds it",
    );
    assert.deepEqual((await rowsOf(a.store.clientId, "u-1")).events, ["product.updated"]);

    // By filter, replacing the tags.
    const byFilter = await post(a, "bulk-update", { filter: { brand: "brolly" }, set: { tags: ["rain"] } });
    assert.equal(byFilter.statusCode, 202, byFilter.body);
    assert.equal(byFilter.json().total, 1);
    await t.workers.drain();
    assert.deepEqual((await metadataOf(a.store.clientId, "u-3")).metadata.tags, ["rain"]);

    // By the availability the first job stated.
    const byStock = await post(a, "bulk-delete", { filter: { availability: "low_stock" } });
    assert.equal(byStock.statusCode, 202, byStock.body);
    assert.equal(byStock.json().total, 2);
    await t.workers.drain();
    assert.deepEqual(await indexed(a.store.clientId), ["u-3"]);
    assert.deepEqual(await indexed(b.store.clientId), ["u-1"]);
  });

  test("a request that selects nothing, or is malformed, is 400 naming the field", async () => {
    const a = await tenant();
    await seed(a, [{ id: "v-1", metadata: { category: "shirts" } }]);
    const cases: [string, object, string][] = [
      ["bulk-delete", {}, "ids"],
      ["bulk-delete", { ids: [] }, "ids"],
      ["bulk-delete", { ids: ["bad id!"] }, "ids.0"],
      ["bulk-delete", { ids: Array.from({ length: 1001 }, (_, i) => `x${i}`) }, "ids"],
      ["bulk-delete", { ids: ["v-1"], filter: { category: "shirts" } }, "filter"],
      ["bulk-delete", { filter: {} }, "filter"],
      ["bulk-delete", { filter: { metadata_filters: [] } }, "filter"],
      ["bulk-delete", { filter: { category: "no such category" } }, "filter"],
      ["bulk-delete", { filter: { price_min: 10, price_max: 5 } }, "price_min"],
      ["bulk-delete", { filter: { shape: "round" } }, "filter.shape"],
      ["bulk-delete", { ids: ["v-1"], extra: true }, "extra"],
      ["bulk-update", { ids: ["v-1"] }, "set"],
      ["bulk-update", { ids: ["v-1"], set: {} }, "set"],
      ["bulk-update", { ids: ["v-1"], set: { tags: ["a"] }, add_tags: ["b"] }, "add_tags"],
      ["bulk-update", { ids: ["v-1"], set: { price: 3 } }, "set.price"],
      ["bulk-update", { ids: ["v-1"], set: { category: "" } }, "set.category"],
      ["bulk-update", { ids: ["v-1"], set: { availability: { state: "plenty" } } }, "set.availability.state"],
      ["bulk-update", { filter: { category: "nothing here" }, set: { brand: "x" } }, "filter"],
    ];
    for (const [path, payload, field] of cases) {
      const res = await post(a, path, payload);
      assert.equal(res.statusCode, 400, `${path} ${JSON.stringify(payload).slice(0, 80)}: ${res.body}`);
      const body = res.json();
      assert.equal(body.error, "validation_failed");
      const fields = (body.details.errors as { field: string }[]).map((e) => e.field);
      assert.ok(
        fields.some((f) => f === field || f.startsWith(`${field}`)),
        `${path} ${JSON.stringify(payload).slice(0, 80)}: ${fields.join(", ")}`,
      );
    }
    const empty = await post(a, "bulk-delete", { filter: { category: "no such category" } });
    assert.equal(empty.json().message, "The selection is empty: the filter matches no products of this store.");
    const none = await t.ctx.database.db.selectFrom("bulk_jobs").select("job_id").where("store_id", "=", a.store.clientId).execute();
    assert.deepEqual(none, [], "no job was created");
  });

  test("needs products:delete (or products:write) besides products:bulk", async () => {
    const a = await tenant();
    await seed(a, [{ id: "k-1", metadata: {} }]);
    const owner = await loginToken(t.search, a.store.email, a.store.password);
    const bulkOnly = await createApiKey(t, owner, { products: ["bulk"] });
    const send = (path: string, payload: object) =>
      t.search.inject({ method: "POST", url: `/v1/products/${path}`, headers: bearer(bulkOnly.key), payload });
    const del = await send("bulk-delete", { ids: ["k-1"] });
    assert.equal(del.statusCode, 403, del.body);
    assert.equal(del.json().details.missing_permission, "products:delete");
    const upd = await send("bulk-update", { ids: ["k-1"], set: { category: "x" } });
    assert.equal(upd.statusCode, 403, upd.body);
    assert.equal(upd.json().details.missing_permission, "products:write");
    const both = await createApiKey(t, owner, { products: ["bulk", "delete"] });
    const ok = await t.search.inject({
      method: "POST",
      url: "/v1/products/bulk-delete",
      headers: bearer(both.key),
      payload: { ids: ["k-1"] },
    });
    assert.equal(ok.statusCode, 202, ok.body);
  });

  test("progress is visible between chunks; a job that yields its turn or is stopped resumes where it was", async () => {
    const a = await tenant();
    const ids = Array.from({ length: 5 }, (_, i) => `r-${i}`);
    await seed(
      a,
      ids.map((id) => ({ id, metadata: { category: "resume" } })),
    );
    // 150 items: the 5 products and 145 ids the store lacks. Chunks hold 100 items.
    const selection = [...ids, ...Array.from({ length: 145 }, (_, i) => `ghost-${i}`)];
    const { job_id } = (await post(a, "bulk-delete", { ids: selection })).json();
    const handler = t.services.bulkActions.handler();
    const claim = () =>
      t.ctx.database.db
        .updateTable("jobs")
        .set({ status: "running", locked_by: t.ctx.jobs.instanceId, locked_until: Date.now() + 60_000 })
        .where("id", "=", job_id)
        .execute();
    const context = (signal: AbortSignal, turnOver: AbortSignal) => ({
      id: job_id,
      storeId: a.store.clientId,
      payload: { jobId: job_id, action: "delete" as const },
      attempt: 1,
      signal,
      turnOver,
    });

    // Stopped before it starts: nothing is done and the job is back in the queue at once.
    await claim();
    const stopped = new AbortController();
    stopped.abort();
    assert.equal(await handler.run(context(stopped.signal, new AbortController().signal)), undefined);
    const row = await t.ctx.database.db
      .selectFrom("jobs")
      .select(["status", "locked_by"])
      .where("id", "=", job_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: "queued", locked_by: null });
    assert.equal((await jobOf(a, job_id)).processed, 0);

    // Its time slice ends while the first chunk commits: it yields with 100 items done, 50 pending.
    await claim();
    const turnOver = new AbortController();
    const transaction = t.ctx.database.transaction;
    t.ctx.database.transaction = (fn) => transaction(fn).finally(() => turnOver.abort());
    let outcome;
    try {
      outcome = await handler.run(context(new AbortController().signal, turnOver.signal));
    } finally {
      t.ctx.database.transaction = transaction;
    }
    assert.equal(outcome, "yield");
    const midway = await jobOf(a, job_id);
    assert.deepEqual([midway.status, midway.processed, midway.succeeded], ["processing", 100, 5]);
    assert.equal(
      midway.summary,
      "100 of 150 items processed: 5 succeeded, 95 failed. 50 pending. 95 products were not found in this store (deleted already, or not this store's ids): nothing was done to them.",
    );

    // The queue runs it again (as after the yield): it finishes the rest, redoing nothing.
    await t.ctx.database.db.updateTable("jobs").set({ status: "queued", run_after: 0 }).where("id", "=", job_id).execute();
    await t.workers.drain();
    const done = await jobOf(a, job_id);
    assert.deepEqual([done.status, done.processed, done.succeeded, done.failed], ["completed", 150, 5, 145]);
    for (const id of ids) assert.deepEqual(await rowsOf(a.store.clientId, id), gone, id);
  });

  test("a chunk lost before its commit (as by a SIGKILL) leaves its items pending; the retry deletes and updates each product once", async () => {
    const a = await tenant();
    const ids = Array.from({ length: 6 }, (_, i) => `k-${i}`);
    await seed(
      a,
      ids.map((id) => ({ id, metadata: { category: "crash", tags: ["x"] } })),
    );
    const transaction = t.ctx.database.transaction;
    let crashes = 2;
    // The chunk's transaction does all its work, then fails instead of committing (the first of each job).
    t.ctx.database.transaction = (fn) =>
      transaction(async (tx) => {
        const out = await fn(tx);
        const settled = await tx
          .selectFrom("bulk_job_items")
          .select("idx")
          .where("status", "!=", "pending")
          .where("store_id", "=", a.store.clientId)
          .execute();
        if (crashes > 0 && settled.length > 0) {
          crashes--;
          throw new Error("killed before commit");
        }
        return out;
      });
    let update: string;
    let del: string;
    try {
      update = (await post(a, "bulk-update", { ids: ids.slice(0, 3), add_tags: ["y"] })).json().job_id;
      await t.workers.drain();
      del = (await post(a, "bulk-delete", { ids: ids.slice(3) })).json().job_id;
      await t.workers.drain();
    } finally {
      t.ctx.database.transaction = transaction;
    }
    assert.equal(crashes, 0, "both jobs lost a chunk");
    for (const jobId of [update, del]) {
      const job = await t.ctx.database.db
        .selectFrom("jobs")
        .select(["status", "attempts"])
        .where("id", "=", jobId)
        .executeTakeFirstOrThrow();
      assert.deepEqual([job.status, Number(job.attempts)], ["queued", 1], "the attempt failed and waits for its retry");
      assert.equal((await jobOf(a, jobId)).processed, 0);
    }
    for (const id of ids) assert.equal((await rowsOf(a.store.clientId, id)).products, 1, `${id} is still there`);

    await t.ctx.database.db.updateTable("jobs").set({ status: "queued", run_after: 0 }).where("id", "in", [update, del]).execute();
    await t.workers.drain();
    assert.deepEqual([(await jobOf(a, update)).succeeded, (await jobOf(a, del)).succeeded], [3, 3]);
    for (const id of ids.slice(0, 3)) {
      assert.deepEqual((await metadataOf(a.store.clientId, id)).metadata.tags, ["x", "y"]);
      assert.deepEqual((await rowsOf(a.store.clientId, id)).events, ["product.updated"], `${id}: one update event`);
    }
    for (const id of ids.slice(3)) assert.deepEqual(await rowsOf(a.store.clientId, id), gone, `${id}: one delete event`);
  });
});

test("applyChanges: set replaces or removes fields; add and remove tags ignore case; too many tags fail the product", () => {
  const current: Metadata = { name: "Shirt", category: "shirts", brand: "Acme", tags: ["Summer", "old"], color_name: "red" };
  assert.deepEqual(applyChanges(current, { set: { category: "sale", brand: null }, add_tags: ["summer", "Promo"], remove_tags: ["OLD"] }), {
    name: "Shirt",
    category: "sale",
    tags: ["Summer", "Promo"],
    color_name: "red",
  });
  assert.deepEqual(applyChanges(current, { set: { tags: null }, add_tags: [], remove_tags: [] }).tags, undefined);
  assert.deepEqual(applyChanges({}, { set: {}, add_tags: ["a", "A"], remove_tags: [] }).tags, ["a"]);
  assert.deepEqual(current.tags, ["Summer", "old"], "the input is not changed");
  const many = Array.from({ length: 50 }, (_, i) => `t${i}`);
  assert.throws(() => applyChanges({ tags: many }, { set: {}, add_tags: ["one-more"], remove_tags: [] }), /51 tags; at most 50/);
});
