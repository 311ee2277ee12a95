// Product availability in the store portal (issue 38, item 3), in a real headless Chromium
// (Debian `chromium`, driven by playwright-core) against the Search API on loopback with the tiny
// model. The owner adds a product with an availability and a quantity through the form, uploads a
// CSV whose availability and quantity columns hold values the API refuses and sees each refused
// value named by its row and product id, uploads the corrected file, and the catalogue list shows
// each product's availability (with its quantity; "Unknown" where the file gave none).
// Screenshots go to test-results/availability-*.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../support/servers.js";
import { freePort } from "../support/process.js";
import { describeInChromium, launchChromium, listenOnLoopback, recordConsoleErrors, screenshot, signIn } from "../support/browser.js";
import { ensurePortalBuilt } from "../../src/search/portal/build.js";

const SUITE = "product availability in the store portal in headless Chromium";
describeInChromium(SUITE, () => {
  let t: TestApp;
  let images: ImageHost;
  let browser: Browser;
  let apiBase: string;
  let store: RegisteredStore;
  const urls: Record<string, string> = {};
  const pageErrors: string[] = [];

  before(async () => {
    await ensurePortalBuilt();
    const port = await freePort();
    apiBase = `http://127.0.0.1:${port}`;
    t = await createTestApp({ model: true, env: { PUBLIC_BASE_URL: apiBase } });
    assert.equal(await listenOnLoopback(t.search, port), apiBase);
    images = await startImageHost();
    for (const [name, hex] of [
      ["red", "#d01010"],
      ["yellow", "#e8d010"],
      ["black", "#101010"],
      ["white", "#f0f0f0"],
    ] as const)
      urls[name] = images.put(`/${name}.png`, await solidImage(hex, { size: 160 }));
    store = await registerStore(t, { name: "Stock Shop" });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await images?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string) => screenshot(page, `availability-${name}`);
  const rowText = async (page: Page, name: string) => (await page.getByRole("row", { name: new RegExp(name) }).textContent()) ?? "";
  const upload = async (page: Page, csv: string, count: number) => {
    await page
      .getByLabel("Products file (CSV or JSON)")
      .setInputFiles({ name: "products.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByText(`${count} products ready.`).waitFor();
    const [bulk] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${apiBase}/v1/products/bulk`),
      page.getByRole("button", { name: "Start upload" }).click(),
    ]);
    return bulk;
  };

  test(
    "the form sets availability and quantity, a CSV's refused values are named by row, the list shows each value",
    { timeout: 180_000 },
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      recordConsoleErrors(page, pageErrors, { pageErrors: true, ignore: (text) => text.startsWith("Failed to load resource") });
      await page.goto(`${apiBase}/portal/login`);
      await signIn(page, store);
      await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();

      // The form: the quantity waits for an availability, then both are sent.
      const quantity = page.getByLabel("Quantity in stock");
      assert.equal(await quantity.isDisabled(), true, "no quantity while availability is unknown");
      await page.getByLabel("Product id").fill("red-dress");
      await page.getByLabel("Image URL").fill(urls.red!);
      await page.getByLabel("Name", { exact: true }).fill("Red Dress");
      await page.getByRole("combobox", { name: /^Availability/ }).selectOption("low_stock");
      await quantity.fill("3");
      await shot(page, "01-form");
      const [added] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${apiBase}/v1/products` && r.request().method() === "POST"),
        page.getByRole("button", { name: "Add product" }).click(),
      ]);
      assert.equal(added.status(), 201, await added.text());
      assert.deepEqual(added.request().postDataJSON().availability, { state: "low_stock", quantity: 3 });
      await page.getByRole("status").filter({ hasText: "Indexed red-dress" }).waitFor();
      await page.getByRole("cell", { name: /^Red Dress/ }).waitFor();
      assert.match(await rowText(page, "Red Dress"), /Low stock\s*Quantity: 3/);

      // A CSV with an unknown availability and a quantity that is not a number: refused before any
      // job starts, each value named by its row and product id.
      const bad =
        "product_id,image_url,name,price,availability,quantity\n" +
        `yellow-top,${urls.yellow},Yellow Top,25,In stock,7\n` +
        `black-bag,${urls.black},Black Bag,120,sold out,\n` +
        `white-cap,${urls.white},White Cap,15,low_stock,many\n`;
      const refused = await upload(page, bad, 3);
      assert.equal(refused.status(), 400, await refused.text());
      const alert = page.getByRole("alert").filter({ hasText: "Some fields need fixing" });
      await alert.waitFor();
      const said = (await alert.textContent()) ?? "";
      assert.match(said, /row 2 \(black-bag\) availability\.state must be one of: in_stock, low_stock, out_of_stock/, said);
      assert.match(said, /row 3 \(white-cap\) availability\.quantity must be integer/, said);
      assert.doesNotMatch(said, /row 1 /, 'the valid row ("In stock" read as in_stock) is not named');
      await shot(page, "02-csv-rows-refused");

      // The corrected file: "In stock" and "out-of-stock" are read as the API's values; an empty
      // availability leaves the product's unknown.
      const good =
        "product_id,image_url,name,price,availability,quantity\n" +
        `yellow-top,${urls.yellow},Yellow Top,25,In stock,7\n` +
        `black-bag,${urls.black},Black Bag,120,out-of-stock,0\n` +
        `white-cap,${urls.white},White Cap,15,,\n`;
      const accepted = await upload(page, good, 3);
      assert.equal(accepted.status(), 202, await accepted.text());
      await t.workers.drain();
      await page.getByText(/completed — 3 of 3 done \(3 indexed, 0 failed\)/).waitFor({ timeout: 20_000 });
      await page.getByRole("cell", { name: /^White Cap/ }).waitFor();
      assert.match(await rowText(page, "Yellow Top"), /In stock\s*Quantity: 7/);
      assert.match(await rowText(page, "Black Bag"), /Out of stock\s*Quantity: 0/);
      assert.match(await rowText(page, "White Cap"), /Unknown/);
      await shot(page, "03-catalogue");

      // What the portal showed is what the API stored.
      const token = await machineToken(t.search, store);
      const list = await t.search.inject({ method: "GET", url: "/v1/products?limit=10", headers: bearer(token) });
      const stored = Object.fromEntries(
        (list.json() as { products: { product_id: string; availability: unknown }[] }).products.map((p) => [p.product_id, p.availability]),
      );
      assert.deepEqual(stored, {
        "red-dress": { state: "low_stock", quantity: 3 },
        "yellow-top": { state: "in_stock", quantity: 7 },
        "black-bag": { state: "out_of_stock", quantity: 0 },
        "white-cap": null,
      });
      assert.deepEqual(pageErrors, []);
      await context.close();
    },
  );
});
