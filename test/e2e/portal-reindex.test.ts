// The playground's reindex notice in a real headless Chromium (issue 38: a reindex takes effect in
// the running server): the store's products were embedded by another model, the page says so and
// offers "Re-embed now"; the click queues the job (POST /v1/products/reindex), the page shows its
// progress and, once the worker ran it, the notice is gone. Screenshots: test-results/portal-reindex-*.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { registerStore, type RegisteredStore } from "../support/factories.js";
import { startImageHost, type ImageHost } from "../support/servers.js";
import { freePort } from "../support/process.js";
import {
  describeInChromium,
  launchChromium,
  listenOnLoopback,
  recordConsoleErrors,
  screenshot,
  seedSolidProducts,
  signIn,
} from "../support/browser.js";
import { ensurePortalBuilt } from "../../src/search/portal/build.js";

describeInChromium("portal: products of another model are re-embedded from the playground", () => {
  let t: TestApp;
  let images: ImageHost;
  let browser: Browser;
  let apiBase: string;
  let store: RegisteredStore;

  before(async () => {
    await ensurePortalBuilt();
    const port = await freePort();
    apiBase = `http://127.0.0.1:${port}`;
    t = await createTestApp({ model: true, env: { PUBLIC_BASE_URL: apiBase } });
    assert.equal(await listenOnLoopback(t.search, port), apiBase);
    images = await startImageHost();
    store = await registerStore(t, { name: "Reindex Shop" });
    await seedSolidProducts(t, images, store.clientId, [
      { id: "blue-jeans", hex: "#1030c0", metadata: { name: "Blue Jeans" } },
      { id: "green-dress", hex: "#10a030", metadata: { name: "Green Dress" } },
    ]);
    // As if an earlier CLIP_MODEL had embedded them.
    await t.ctx.database.db.updateTable("products").set({ model: "0000000000000000/64" }).where("store_id", "=", store.clientId).execute();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await images?.close();
    await t?.close();
  });

  test(
    "the notice names the stale products, the button starts the job, progress shows, then the notice goes",
    { timeout: 120_000 },
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      recordConsoleErrors(page, errors, { pageErrors: true, ignore: (text) => text.startsWith("Failed to load resource") });
      await page.goto(`${apiBase}/portal`);
      await signIn(page, store);
      await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
      await page.getByRole("navigation", { name: "Store sections" }).getByRole("link", { name: "Search playground" }).click();
      await page.getByRole("heading", { level: 1, name: "Search playground" }).waitFor();

      const needed = page.getByTestId("reindex-needed");
      await needed.waitFor();
      assert.match((await needed.textContent()) ?? "", /2 products were embedded by another model/);
      await screenshot(page, "portal-reindex-1-needed");

      const [started] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${apiBase}/v1/products/reindex` && r.request().method() === "POST"),
        needed.getByRole("button", { name: "Re-embed now" }).click(),
      ]);
      assert.equal(started.status(), 202, await started.text());
      const progress = page.getByTestId("reindex-progress");
      await progress.waitFor();
      assert.match((await progress.textContent()) ?? "", /Re-embedding products with this model: 0 of 2/);
      await screenshot(page, "portal-reindex-2-progress");

      await t.workers.drain();
      // The page reads the progress again every 2 s: the job ends and nothing is left to re-embed.
      await progress.waitFor({ state: "detached", timeout: 15_000 });
      assert.equal(await needed.count(), 0);
      await screenshot(page, "portal-reindex-3-done");
      assert.deepEqual(errors, []);
      await context.close();
    },
  );
});
