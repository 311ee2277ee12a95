import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ManualClock } from "../platform/clock.js";
import { startMaintenance } from "./maintenance.js";
import { createTestApp, describeEachDialect, type TestApp } from "../../test/support/harness.js";

describeEachDialect("maintenance: expired revocations are pruned", (dialect) => {
  let t: TestApp;
  const clock = new ManualClock(Date.UTC(2026, 10, 21, 10));

  before(async () => {
    t = await createTestApp({ dialect, clock });
  });
  after(() => t.close());

  test("drops revocations of tokens past their expiry and keeps the others; a second run finds nothing", async () => {
    await t.ctx.revocations.revoke("jti-expired", clock.now() - 1);
    await t.ctx.revocations.revoke("jti-live", clock.now() + 60_000);
    const m = startMaintenance(t.ctx);
    try {
      assert.deepEqual(await m.runOnce(), { revoked_tokens: 1, unreferenced_images: 0, vector_filter_indexes: 0 });
      assert.equal(await t.ctx.revocations.isRevoked("jti-expired"), false);
      assert.equal(await t.ctx.revocations.isRevoked("jti-live"), true, "a live token stays revoked");
      assert.deepEqual(await m.runOnce(), { revoked_tokens: 0, unreferenced_images: 0, vector_filter_indexes: 0 });
    } finally {
      await m.stop();
    }
  });
});
