// Bulk actions in the store portal (issue 38, item 5), in a real headless Chromium: the owner
// checks rows of the catalogue, sets a category, tags and availability on them, then selects all
// on the page, unchecks one and deletes the rest, confirming each time. The page shows each job's
// progress while it runs (the test drives the job worker) and the refreshed list at the end.
// Screenshots go to test-results/portal-bulk-*.png. Skipped without Chromium (fails in CI).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { registerStore, type RegisteredStore } from "../support/factories.js";
import { startImageHost, type ImageHost } from "../support/servers.js";
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

const PRODUCTS = [
  { id: "blue-jeans", hex: "#1030c0", name: "Blue Jeans" },
  { id: "green-dress", hex: "#10a030", name: "Green Dress" },
  { id: "red-scarf", hex: "#c01010", name: "Red Scarf" },
  { id: "black-boots", hex: "#101010", name: "Black Boots" },
] as const;

describeInChromium("portal bulk actions in headless Chromium", () => {
  let t: TestApp;
  let images: ImageHost;
  let browser: Browser;
  let apiBase: string;
  let store: RegisteredStore;
  let other: RegisteredStore;
  const pageErrors: string[] = [];

  before(async () => {
    await ensurePortalBuilt();
    t = await createTestApp({ model: true });
    apiBase = await listenOnLoopback(t.search);
    images = await startImageHost();
    store = await registerStore(t, { name: "Bulk Boutique" });
    other = await registerStore(t, { name: "Neighbour Shop" });
    const metadata = (p: (typeof PRODUCTS)[number]) => ({ name: p.name, category: "clothes", tags: ["spring"] });
    await seedSolidProducts(
      t,
      images,
      store.clientId,
      PRODUCTS.map((p) => ({ id: p.id, hex: p.hex, metadata: metadata(p) })),
    );
    // Another store with a product of the same id: the portal's jobs never touch it.
    await seedSolidProducts(t, images, other.clientId, [{ id: "red-scarf", hex: "#c01010", metadata: { name: "Neighbour's scarf" } }]);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await images?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string) => screenshot(page, `portal-bulk-${name}`);
  const rowOf = (page: Page, name: string) => page.getByRole("row").filter({ hasText: name });
  const productsOf = (storeId: string) =>
    t.ctx.database.db
      .selectFrom("products")
      .select(["product_id", "metadata", "availability"])
      .where("store_id", "=", storeId)
      .orderBy("product_id")
      .execute();

  test(
    "select rows, set category, tags and availability, then delete a page's selection, watching each job",
    { timeout: 180_000 },
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
      const page = await context.newPage();
      recordConsoleErrors(page, pageErrors, { pageErrors: true, ignore: (text) => text.startsWith("Failed to load resource") });
      await page.goto(`${apiBase}/${store.slug}/portal`);
      await page.waitForURL(/\/portal\/login/);
      await signIn(page, store);
      await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
      await rowOf(page, "Black Boots").waitFor();
      const bar = page.getByRole("toolbar", { name: "Bulk actions" });
      await bar.getByText("No products selected").waitFor();
      assert.equal(await bar.getByRole("button", { name: "Delete…" }).isDisabled(), true, "nothing to act on yet");

      // Two rows checked, then the change form.
      await page.getByRole("checkbox", { name: "Select blue-jeans" }).check();
      await page.getByRole("checkbox", { name: "Select green-dress" }).check();
      await bar.getByText("2 products selected").waitFor();
      const all = bar.getByRole("checkbox", { name: "Select all on this page" });
      assert.equal(await all.evaluate((el) => (el as HTMLInputElement).indeterminate), true, "some of the page is selected");
      await bar.getByRole("button", { name: "Set category / brand / tags…" }).click();
      const form = page.getByRole("form", { name: "Change the selected products" });
      // Nothing entered: said in words, nothing sent.
      await form.getByRole("button", { name: "Apply to 2 products" }).click();
      await form.getByRole("alert").filter({ hasText: "Enter at least one change" }).waitFor();
      await form.getByLabel("New category").fill("sale");
      await form.getByLabel("Add tags").fill("promo, last chance");
      await form.getByLabel("Remove tags").fill("spring");
      await form.getByLabel("New availability").selectOption("out_of_stock");
      const questions: string[] = [];
      page.on("dialog", (dialog) => {
        questions.push(dialog.message());
        void dialog.accept();
      });
      const [updated] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${apiBase}/v1/products/bulk-update`),
        form.getByRole("button", { name: "Apply to 2 products" }).click(),
      ]);
      assert.equal(updated.status(), 202, await updated.text());
      assert.deepEqual(questions, [
        "Change 2 products: category “sale”; add tags promo, last chance; remove tags spring; availability Out of stock?",
      ]);
      assert.deepEqual(JSON.parse(updated.request().postData() ?? "{}"), {
        ids: ["blue-jeans", "green-dress"],
        set: { category: "sale", availability: { state: "out_of_stock" } },
        add_tags: ["promo", "last chance"],
        remove_tags: ["spring"],
      });
      // The job waits for the worker: its progress is on the page.
      await page.getByText(/Updating 2 products — 0 of 2 done/).waitFor();
      await shot(page, "01-update-running");
      await t.workers.drain();
      await page.getByText(/Bulk update completed — 2 of 2 done \(2 updated, 0 failed\)/).waitFor({ timeout: 20_000 });
      await rowOf(page, "Blue Jeans").filter({ hasText: "sale" }).waitFor();
      await rowOf(page, "Green Dress").filter({ hasText: "Out of stock" }).waitFor();
      await bar.getByText("No products selected").waitFor();
      await shot(page, "02-update-done");
      const afterUpdate = await productsOf(store.clientId);
      assert.deepEqual(
        afterUpdate.map((p) => [p.product_id, JSON.parse(p.metadata).category, JSON.parse(p.metadata).tags, p.availability]),
        [
          ["black-boots", "clothes", ["spring"], null],
          ["blue-jeans", "sale", ["promo", "last chance"], "out_of_stock"],
          ["green-dress", "sale", ["promo", "last chance"], "out_of_stock"],
          ["red-scarf", "clothes", ["spring"], null],
        ],
      );

      // Everything on the page but one, deleted.
      await all.check();
      await bar.getByText("4 products selected").waitFor();
      await page.getByRole("checkbox", { name: "Select black-boots" }).uncheck();
      await bar.getByText("3 products selected").waitFor();
      const [deleted] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${apiBase}/v1/products/bulk-delete`),
        bar.getByRole("button", { name: "Delete…" }).click(),
      ]);
      assert.equal(deleted.status(), 202, await deleted.text());
      assert.equal(questions[1], "Delete 3 products? Their images, vectors and search data are removed too. This cannot be undone.");
      assert.deepEqual(new Set(JSON.parse(deleted.request().postData() ?? "{}").ids), new Set(["blue-jeans", "green-dress", "red-scarf"]));
      await page.getByText(/Deleting 3 products — 0 of 3 done/).waitFor();
      await shot(page, "03-delete-running");
      await t.workers.drain();
      await page.getByText(/Bulk delete completed — 3 of 3 done \(3 deleted, 0 failed\)/).waitFor({ timeout: 20_000 });
      await page.getByRole("status").filter({ hasText: "3 products deleted." }).waitFor();
      await page.getByRole("heading", { name: "Catalogue (1)" }).waitFor();
      assert.equal(await rowOf(page, "Red Scarf").count(), 0, "the list was loaded again");
      await rowOf(page, "Black Boots").waitFor();
      await shot(page, "04-delete-done");
      assert.deepEqual(
        (await productsOf(store.clientId)).map((p) => p.product_id),
        ["black-boots"],
      );
      assert.deepEqual(
        (await productsOf(other.clientId)).map((p) => p.product_id),
        ["red-scarf"],
        "the other store's product of the same id stays",
      );
      await context.close();
      assert.deepEqual(pageErrors, []);
    },
  );
});
