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
});
