// Product availability (issue 38, item 3; migration 0026): `availability: {state, quantity}` on
// POST / PUT / GET / list and bulk items — validated with the allowed values named, stored, kept or
// cleared by PUT, left unknown (null) when omitted, and never visible to or changeable by another store.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, startReceiver, type ImageHost } from "../../../test/support/servers.js";

interface Problem {
  error: string;
  message: string;
  details: { errors: { field: string; message: string }[] };
}

describeEachDialect("products: availability", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  let store: RegisteredStore;
  let token: string;
  let red: string;
  let blue: string;
  before(async () => {
    t = await createTestApp({ dialect, model: true });
    host = await startImageHost();
    red = host.put("/red.png", await solidImage("#d01010"));
    blue = host.put("/blue.png", await solidImage("#1030d0"));
    store = await registerStore(t);
    token = await machineToken(t.search, store);
  });
  after(async () => {
    await host.close();
    await t.close();
  });

  const post = (payload: unknown, tok = token) =>
    t.search.inject({ method: "POST", url: "/v1/products", headers: bearer(tok), payload: payload as object });
  const put = (id: string, payload: unknown, tok = token) =>
    t.search.inject({ method: "PUT", url: `/v1/products/${id}`, headers: bearer(tok), payload: payload as object });
  const get = async (id: string, tok = token) => {
    const res = await t.search.inject({ method: "GET", url: `/v1/products/${id}`, headers: bearer(tok) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { availability: unknown; metadata: Record<string, unknown> };
  };
  const stored = (id: string, storeId = store.clientId) =>
    t.ctx.database.db
      .selectFrom("products")
      .select(["availability", "stock_quantity"])
      .where("store_id", "=", storeId)
      .where("product_id", "=", id)
      .executeTakeFirstOrThrow();

  test("round trip: POST stores state and quantity, GET and the list show them, omitted means unknown (null)", async () => {
    const created = await post({
      product_id: "av-1",
      image_url: red,
      metadata: { name: "Red Dress" },
      availability: { state: "low_stock", quantity: 3 },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual((await get("av-1")).availability, { state: "low_stock", quantity: 3 });
    assert.deepEqual(await stored("av-1"), { availability: "low_stock", stock_quantity: 3 });

    assert.equal((await post({ product_id: "av-2", image_url: blue, availability: { state: "in_stock" } })).statusCode, 201);
    assert.deepEqual((await get("av-2")).availability, { state: "in_stock", quantity: null }, "quantity is optional");

    assert.equal((await post({ product_id: "av-3", image_url: red, metadata: { name: "No stock info" } })).statusCode, 201);
    assert.equal((await get("av-3")).availability, null, "omitted: unknown");
    assert.deepEqual(await stored("av-3"), { availability: null, stock_quantity: null });
    assert.equal((await post({ product_id: "av-4", image_url: red, availability: null })).statusCode, 201);
    assert.equal((await get("av-4")).availability, null, "null: unknown");

    const list = await t.search.inject({ method: "GET", url: "/v1/products?limit=10", headers: bearer(token) });
    assert.equal(list.statusCode, 200, list.body);
    const byId = Object.fromEntries(
      (list.json() as { products: { product_id: string; availability: unknown }[] }).products.map((p) => [p.product_id, p.availability]),
    );
    assert.deepEqual(byId, {
      "av-1": { state: "low_stock", quantity: 3 },
      "av-2": { state: "in_stock", quantity: null },
      "av-3": null,
      "av-4": null,
    });
  });

  test("PUT: availability alone changes only it; metadata alone keeps it; null clears it; a POST replace without it resets it", async () => {
    assert.equal(
      (
        await post({
          product_id: "av-put",
          image_url: red,
          metadata: { name: "Coat", price: 120 },
          availability: { state: "in_stock", quantity: 12 },
        })
      ).statusCode,
      201,
    );
    const hits = host.hits("/red.png");
    const changed = await put("av-put", { availability: { state: "out_of_stock", quantity: 0 } });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(host.hits("/red.png"), hits, "an availability change downloads nothing");
    let p = await get("av-put");
    assert.deepEqual(p.availability, { state: "out_of_stock", quantity: 0 });
    assert.deepEqual(p.metadata, { name: "Coat", price: 120 }, "metadata untouched");

    assert.equal((await put("av-put", { metadata: { name: "Warm coat", price: 110 } })).statusCode, 200);
    p = await get("av-put");
    assert.deepEqual(p.availability, { state: "out_of_stock", quantity: 0 }, "a metadata change keeps the availability");
    assert.equal(p.metadata.name, "Warm coat");

    assert.equal((await put("av-put", { image_url: blue })).statusCode, 200);
    assert.deepEqual((await get("av-put")).availability, { state: "out_of_stock", quantity: 0 }, "a new image keeps it too");

    assert.equal((await put("av-put", { availability: null })).statusCode, 200);
    assert.equal((await get("av-put")).availability, null, "null clears it");

    assert.equal((await put("av-put", { availability: { state: "in_stock", quantity: 4 } })).statusCode, 200);
    const replaced = await post({ product_id: "av-put", image_url: red, metadata: { name: "Coat" } });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.equal((await get("av-put")).availability, null, "POST replaces the product as a whole: omitted is unknown");
  });

  test("product.updated webhooks name the availability paths that changed", async () => {
    const secret = "availability-hook-secret";
    const receiver = await startReceiver(secret);
    try {
      const hook = await t.search.inject({
        method: "POST",
        url: "/v1/search/webhooks",
        headers: bearer(token),
        payload: { url: `${receiver.url}/hook`, events: ["product.updated"], secret },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      assert.equal(
        (await post({ product_id: "av-hook", image_url: red, availability: { state: "in_stock", quantity: 9 } })).statusCode,
        201,
      );
      assert.equal((await put("av-hook", { availability: { state: "low_stock", quantity: 2 } })).statusCode, 200);
      assert.equal((await put("av-hook", { availability: { state: "low_stock", quantity: 1 } })).statusCode, 200);
      await t.workers.drain();
    } finally {
      await receiver.close();
    }
    const changes = receiver.calls
      .map((c) => c.json as { event: string; data: { product_id: string; changes: string[] } })
      .filter((b) => b.event === "product.updated" && b.data.product_id === "av-hook")
      .map((b) => b.data.changes);
    assert.deepEqual(changes.sort(), [["availability.quantity"], ["availability.state", "availability.quantity"]]);
  });

  test("validation: a bad state names the allowed values; quantity must be a whole number ≥ 0; state is required", async () => {
    const fields = (res: { statusCode: number; body: string; json(): unknown }) => {
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json() as Problem;
      assert.equal(body.error, "validation_failed");
      return body;
    };
    const bad = fields(await post({ product_id: "av-bad", image_url: red, availability: { state: "maybe" } }));
    // Only what to fix: no "availability must be null" from the other branch of the nullable object.
    assert.equal(bad.message, "Invalid request: availability.state must be one of: in_stock, low_stock, out_of_stock.");
    assert.deepEqual(bad.details.errors, [{ field: "availability.state", message: "must be one of: in_stock, low_stock, out_of_stock" }]);

    const bare = fields(await post({ product_id: "av-bad", image_url: red, availability: "in_stock" }));
    assert.equal(bare.message, "Invalid request: availability must be one of: an object, null.");

    const negative = fields(await post({ product_id: "av-bad", image_url: red, availability: { state: "in_stock", quantity: -1 } }));
    assert.ok(
      negative.details.errors.some((e) => e.field === "availability.quantity" && /must be >= 0/.test(e.message)),
      negative.message,
    );
    const fraction = fields(await post({ product_id: "av-bad", image_url: red, availability: { state: "in_stock", quantity: 2.5 } }));
    assert.ok(
      fraction.details.errors.some((e) => e.field === "availability.quantity" && /integer/.test(e.message)),
      fraction.message,
    );
    const noState = fields(await post({ product_id: "av-bad", image_url: red, availability: { quantity: 3 } }));
    assert.ok(
      noState.details.errors.some((e) => e.field === "availability.state"),
      noState.message,
    );
    const extra = fields(await post({ product_id: "av-bad", image_url: red, availability: { state: "in_stock", count: 3 } }));
    assert.ok(
      extra.details.errors.some((e) => e.field === "availability.count" && /not an accepted field/.test(e.message)),
      extra.message,
    );

    assert.equal((await post({ product_id: "av-ok", image_url: red, availability: { state: "in_stock" } })).statusCode, 201);
    const badPut = fields(await put("av-ok", { availability: { state: "sold_out" } }));
    assert.match(badPut.message, /availability\.state must be one of: in_stock, low_stock, out_of_stock/, badPut.message);
    assert.deepEqual((await get("av-ok")).availability, { state: "in_stock", quantity: null }, "a refused PUT changes nothing");

    const badBulk = fields(
      await t.search.inject({
        method: "POST",
        url: "/v1/products/bulk",
        headers: bearer(token),
        payload: {
          products: [
            { product_id: "bulk-ok", image_url: red, availability: { state: "in_stock" } },
            { product_id: "bulk-bad", image_url: red, availability: { state: "available" } },
          ],
        },
      }),
    );
    assert.ok(
      badBulk.details.errors.some(
        (e) => e.field === "products.1.availability.state" && /in_stock, low_stock, out_of_stock/.test(e.message),
      ),
      `the error names the item: ${badBulk.message}`,
    );
    assert.equal((await t.search.inject({ method: "GET", url: "/v1/products/bulk-ok", headers: bearer(token) })).statusCode, 404);
  });

  test("bulk JSON items carry availability through the job", async () => {
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/products/bulk",
      headers: bearer(token),
      payload: {
        products: [
          { product_id: "bulk-1", image_url: red, availability: { state: "out_of_stock", quantity: 0 } },
          { product_id: "bulk-2", image_url: blue, metadata: { name: "Blue" } },
        ],
      },
    });
    assert.equal(res.statusCode, 202, res.body);
    await t.workers.drain();
    const job = await t.search.inject({
      method: "GET",
      url: `/v1/jobs/${(res.json() as { job_id: string }).job_id}`,
      headers: bearer(token),
    });
    assert.equal((job.json() as { succeeded: number }).succeeded, 2, job.body);
    assert.deepEqual((await get("bulk-1")).availability, { state: "out_of_stock", quantity: 0 });
    assert.equal((await get("bulk-2")).availability, null);
  });

  test("isolation: another store's token neither reads nor changes this store's availability", async () => {
    assert.equal(
      (await post({ product_id: "av-mine", image_url: red, availability: { state: "low_stock", quantity: 2 } })).statusCode,
      201,
    );
    const other = await registerStore(t);
    const otherToken = await machineToken(t.search, other);

    const read = await t.search.inject({ method: "GET", url: "/v1/products/av-mine", headers: bearer(otherToken) });
    assert.equal(read.statusCode, 404, read.body);
    const write = await put("av-mine", { availability: { state: "out_of_stock", quantity: 0 } }, otherToken);
    assert.equal(write.statusCode, 404, write.body);
    const list = await t.search.inject({ method: "GET", url: "/v1/products", headers: bearer(otherToken) });
    assert.deepEqual((list.json() as { products: unknown[] }).products, []);

    // The same product id in the other store is a product of its own, with its own availability.
    assert.equal((await post({ product_id: "av-mine", image_url: blue, availability: { state: "in_stock" } }, otherToken)).statusCode, 201);
    assert.deepEqual((await get("av-mine", otherToken)).availability, { state: "in_stock", quantity: null });
    assert.deepEqual((await get("av-mine")).availability, { state: "low_stock", quantity: 2 }, "this store's value untouched");
    assert.deepEqual(await stored("av-mine"), { availability: "low_stock", stock_quantity: 2 });
    assert.deepEqual(await stored("av-mine", other.clientId), { availability: "in_stock", stock_quantity: null });
  });
});
