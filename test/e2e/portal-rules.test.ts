// The portal's Merchandising screen in a real headless Chromium (Debian `chromium`, driven by
// playwright-core): a store owner signs in, opens Merchandising from the store's navigation, sees
// a mistake in the pin field named, adds a rule (pin, hide, boost) that text search then applies,
// sees its search count, edits it (moves the pin, disables it), meets the 409 of a second rule for
// the same query, and deletes it. Screenshots go to test-results/rules-*.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../support/factories.js";
import { freePort } from "../support/process.js";
import { describeInChromium, launchChromium, listenOnLoopback, recordConsoleErrors, screenshot, signIn } from "../support/browser.js";
import { solidImage } from "../support/servers.js";
import { ensurePortalBuilt } from "../../src/search/portal/build.js";

const PRODUCTS = [
  { id: "red-dress", hex: "#c02020", meta: { name: "Red Dress", brand: "Acme", category: "Dresses" } },
  { id: "blue-dress", hex: "#2040c0", meta: { name: "Blue Dress", brand: "Zeta", category: "Dresses" } },
  { id: "silk-scarf", hex: "#d0a020", meta: { name: "Silk Scarf", brand: "Acme", category: "Accessories" } },
];

describeInChromium("the portal's merchandising rules in headless Chromium", () => {
  let t: TestApp;
  let browser: Browser;
  let apiBase: string;
  let store: RegisteredStore;
  const pageErrors: string[] = [];

  before(async () => {
    await ensurePortalBuilt();
    const port = await freePort();
    apiBase = `http://127.0.0.1:${port}`;
    t = await createTestApp({ model: true, env: { PUBLIC_BASE_URL: apiBase, BILLING_MODE: "off" } });
    assert.equal(await listenOnLoopback(t.search, port), apiBase);
    store = await registerStore(t, { name: "Rules Boutique" });
    for (const [i, p] of PRODUCTS.entries()) {
      const image = await t.ctx.images.fromBytes(await solidImage(p.hex, { seed: i + 1 }));
      const [vector] = await t.ctx.images.embed([image.decoded]);
      await t.services.products.write(store.clientId, {
        productId: p.id,
        imageUrl: `https://cdn.example.com/${p.id}.png`,
        metadata: p.meta,
        embedded: { image, vector: vector! },
      });
    }
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string) => screenshot(page, `rules-${name}`);
  const search = async (query: string) => {
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/search/text",
      headers: bearer(await machineToken(t.search, store)),
      payload: { query, semantic_weight: 0 },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { results: { product_id: string; pinned?: true }[]; applied_rules?: string[] };
  };

  test("list, add, edit, disable and delete a rule; the rule is in force in search", { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    recordConsoleErrors(page, pageErrors, { pageErrors: true, ignore: (text) => text.startsWith("Failed to load resource") });
    page.on("dialog", (d) => void d.accept());

    await page.goto(`${apiBase}/portal/login`);
    await signIn(page, store);
    await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();

    const nav = page.getByRole("navigation", { name: "Store sections" });
    await nav.getByRole("link", { name: "Merchandising", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Merchandising" }).waitFor();
    await page.getByText("No merchandising rules yet.").waitFor();

    // A pin without a position is named before anything is sent.
    await page.getByRole("textbox", { name: /^Query/ }).fill("Dress");
    await page.getByRole("textbox", { name: /^Pin/ }).fill("silk-scarf");
    await page.getByRole("button", { name: "Add rule" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /pins\.0.*needs a product id and a position/ })
      .waitFor();
    await shot(page, "01-pin-mistake");

    await page.getByRole("textbox", { name: /^Pin/ }).fill("silk-scarf:1");
    await page.getByRole("textbox", { name: /^Hide/ }).fill("blue-dress");
    await page.getByRole("textbox", { name: /^Boost/ }).fill("brand=Acme");
    await page.getByRole("textbox", { name: /^Note/ }).fill("Scarves with every dress");
    await page.getByRole("button", { name: "Add rule" }).click();
    await page.getByRole("status").filter({ hasText: "Added: the rule for “dress”" }).waitFor();
    const table = page.getByRole("table", { name: "Merchandising rules" });
    await table.getByRole("cell", { name: "silk-scarf:1" }).waitFor();
    assert.equal(await page.locator(".notice.error").count(), 0);

    const ruled = await search("dress");
    assert.deepEqual(
      ruled.results.map((r) => r.product_id),
      ["silk-scarf", "red-dress"],
      "pinned first, the blue dress hidden",
    );
    assert.equal(ruled.results[0]!.pinned, true);
    await search("DRESS");

    // The list counts the searches the rule applied to.
    await nav.getByRole("link", { name: "Synonyms", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Synonyms" }).waitFor();
    await nav.getByRole("link", { name: "Merchandising", exact: true }).click();
    const row = table.getByRole("row").filter({ hasText: "silk-scarf:1" });
    await row.getByRole("cell", { name: "2", exact: true }).waitFor();
    await page.waitForLoadState("networkidle");
    await shot(page, "02-list");

    // Edit: the form fills with the rule; the pin moves and the rule is disabled.
    await page.getByRole("button", { name: "Edit the rule for dress" }).click();
    await page.getByRole("heading", { name: "Edit the rule for “dress”" }).waitFor();
    assert.equal(await page.getByRole("textbox", { name: /^Pin/ }).inputValue(), "silk-scarf:1");
    assert.equal(await page.getByRole("textbox", { name: /^Boost/ }).inputValue(), "brand=Acme");
    await page.getByRole("textbox", { name: /^Pin/ }).fill("silk-scarf:2");
    await page.getByLabel("Enabled").uncheck();
    await shot(page, "03-edit");
    await page.getByRole("button", { name: "Save rule" }).click();
    await page.getByRole("status").filter({ hasText: "Saved: the rule for “dress”" }).waitFor();
    await table.getByRole("cell", { name: "silk-scarf:2" }).waitFor();
    await table.getByRole("cell", { name: "disabled" }).waitFor();
    assert.equal((await search("dress")).applied_rules, undefined, "disabled: not applied");

    // A second rule for the same query is refused with the API's reason.
    await page.getByRole("textbox", { name: /^Query/ }).fill("dress");
    await page.getByRole("textbox", { name: /^Hide/ }).fill("red-dress");
    await page.getByRole("button", { name: "Add rule" }).click();
    await page.getByRole("alert").filter({ hasText: "That already exists." }).waitFor();
    await page
      .getByRole("alert")
      .filter({ hasText: /already has a rule for exact "dress"/ })
      .waitFor();
    await shot(page, "04-duplicate");

    await table.getByRole("button", { name: "Delete" }).click();
    await page.getByText("No merchandising rules yet.").waitFor();
    await shot(page, "05-deleted");
    const left = await t.search.inject({ method: "GET", url: "/v1/search/rules", headers: bearer(await machineToken(t.search, store)) });
    assert.deepEqual(left.json(), []);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
