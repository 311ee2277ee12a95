// The store portal in a real headless Chromium (Debian `chromium`, driven by playwright-core),
// using only the public Search API. The Search API listens on a loopback port with the tiny model;
// images come from a local image host (the harness allows private outbound addresses). The store
// owner belongs to two stores and has turned two-factor authentication on through the API. In the
// browser the owner signs in (password, then the TOTP code the login asks for), chooses the store,
// sees a failed add explained in plain words, adds a product by URL, bulk-uploads a CSV and watches
// the job finish, runs a text search in the playground and sees the result with its score, opens
// analytics (charts), mints a widget key for an origin, sees every other screen, and changes plan
// through the TEST MODE checkout. A super admin overrides a store's plan on /admin. Screenshots of
// each screen go to test-results/ (gitignored).
//
// The portal build (web/portal/dist) is made by `npm install`; the Search API rebuilds it when it
// is missing or stale, which this suite relies on as well (ensurePortalBuilt in `before`).
//
// Without the browser binary the suite is skipped with the reason, except in CI (CI=true), where
// it fails. CHROMIUM_PATH overrides /usr/bin/chromium.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { authenticator } from "otplib";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { bearer, freshIp, loginToken, machineToken, registerStore, type RegisteredStore } from "../support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../support/servers.js";
import { freePort } from "../support/process.js";
import { addMember, joinByInvite } from "../support/members.js";
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

const SEEDED = [
  { id: "blue-jeans", hex: "#1030c0", name: "Blue Jeans", price: 60 },
  { id: "green-dress", hex: "#10a030", name: "Green Dress", price: 95 },
] as const;

const SUITE = "store portal end to end in headless Chromium";
describeInChromium(SUITE, () => {
  let t: TestApp;
  let images: ImageHost;
  let browser: Browser;
  let apiBase: string;
  let store: RegisteredStore;
  let other: RegisteredStore;
  let totpSecret: string;
  let redUrl: string;
  const csvUrls: Record<string, string> = {};
  const pageErrors: string[] = [];

  before(async () => {
    await ensurePortalBuilt();
    // The checkout link is built from PUBLIC_BASE_URL: the API's real address here.
    const port = await freePort();
    apiBase = `http://127.0.0.1:${port}`;
    t = await createTestApp({ model: true, env: { PUBLIC_BASE_URL: apiBase } });
    assert.equal(await listenOnLoopback(t.search, port), apiBase);
    images = await startImageHost();
    store = await registerStore(t, { name: "Portal Fashion" });
    other = await registerStore(t, { name: "Second Shop" });

    await seedSolidProducts(
      t,
      images,
      store.clientId,
      SEEDED.map((p) => ({ id: p.id, hex: p.hex, metadata: { name: p.name, price: p.price, category: "clothes" } })),
    );
    redUrl = images.put("/red-dress.png", await solidImage("#d01010", { seed: 7, size: 160 }));
    csvUrls.yellow = images.put("/yellow-top.png", await solidImage("#e8d010", { seed: 8, size: 160 }));
    csvUrls.black = images.put("/black-bag.png", await solidImage("#101010", { seed: 9, size: 160 }));

    // The owner of the first store is invited into the second one: two stores, so login asks to choose.
    await joinByInvite(t, other, store, "viewer");
    const owner = await loginToken(t.search, store.email, store.password);

    // Two-factor authentication on, through the API.
    const setup = await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(owner) });
    assert.equal(setup.statusCode, 200, setup.body);
    totpSecret = setup.json().secret;
    const enable = await t.search.inject({
      method: "POST",
      url: "/v1/security/2fa/enable",
      headers: bearer(owner),
      payload: { totp_code: authenticator.generate(totpSecret) },
    });
    assert.equal(enable.statusCode, 200, enable.body);

    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await images?.close();
    await t?.close();
  });

  async function newContext(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // Refused API calls are logged by the browser as "Failed to load resource"; anything else
    // (CSP violations, script errors) is a failure.
    recordConsoleErrors(page, pageErrors, { pageErrors: true, ignore: (text) => text.startsWith("Failed to load resource") });
    return { context, page };
  }
  const shot = (page: Page, name: string) => screenshot(page, `portal-${name}`);
  const noErrorNotice = async (page: Page, where: string) => {
    const notices = page.locator(".notice.error");
    assert.equal(await notices.count(), 0, `${where}: ${await notices.allTextContents()}`);
  };
  const openSection = async (page: Page, label: string, heading: string) => {
    await page.getByRole("navigation", { name: "Store sections" }).getByRole("link", { name: label }).click();
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
    await page.waitForLoadState("networkidle");
  };

  test(
    "a store owner signs in with 2FA, chooses the store, adds products, searches, and visits every screen",
    { timeout: 240_000 },
    async () => {
      const { context, page } = await newContext();
      await page.goto(`${apiBase}/portal`);
      await page.waitForURL(/\/portal\/login$/);
      await page.getByRole("heading", { name: "Sign in to your store" }).waitFor();
      await shot(page, "01-login");

      // Password first; the API answers requires_2fa and the page asks for the code.
      await page.getByLabel("E-mail").fill(store.email);
      await page.getByLabel("Password").fill(store.password);
      const [first] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/oauth/login")),
        page.getByRole("button", { name: "Sign in" }).click(),
      ]);
      assert.equal(first.status(), 401);
      assert.equal((await first.json()).error, "requires_2fa");
      const codeBox = page.getByLabel("Authentication code");
      await codeBox.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("name")), "totp_code", "focus moves to the code");
      await shot(page, "02-two-factor");
      // A wrong code is explained in words.
      // A code verifies once (the one that enabled 2FA may be of this time-step): sign in with the
      // next step's code, which the one step of allowed drift accepts.
      const loginCode = authenticator.clone({ epoch: Date.now() + 30_000 }).generate(totpSecret);
      await codeBox.fill(loginCode === "000000" ? "111111" : "000000");
      await page.getByRole("button", { name: "Verify and sign in" }).click();
      await page.getByRole("alert").filter({ hasText: "That code didn't work" }).waitFor();
      await codeBox.fill(loginCode);
      await page.getByRole("button", { name: "Verify and sign in" }).click();

      // Two stores: the login's redirect is the store choice.
      await page.waitForURL(/\/portal\/select-store$/);
      await page.getByRole("link", { name: /Second Shop/ }).waitFor();
      await shot(page, "03-select-store");
      assert.equal(await page.evaluate(() => Object.keys(localStorage).length), 0, "nothing in localStorage");
      await page.getByRole("link", { name: /Portal Fashion/ }).click();
      await page.waitForURL(new RegExp(`/${store.slug}/portal$`));
      await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
      await page.getByRole("cell", { name: /Blue Jeans/ }).waitFor();

      // An image that cannot be downloaded: the error is explained in words, the API's message as detail.
      await page.getByLabel("Product id").fill("broken");
      await page.getByLabel("Image URL").fill("http://127.0.0.1:9/none.png");
      await page.getByRole("button", { name: "Add product" }).click();
      const failure = page.getByRole("alert").filter({ hasText: "We couldn't download the image" });
      await failure.waitFor();
      assert.match((await failure.textContent()) ?? "", /Details from the service: .+/);

      // Add a product by URL.
      await page.getByLabel("Product id").fill("red-dress");
      await page.getByLabel("Image URL").fill(redUrl);
      await page.getByLabel("Name", { exact: true }).fill("Red Dress");
      await page.getByLabel("Category", { exact: true }).first().fill("clothes");
      await page.getByLabel("Price").fill("80");
      const [added] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${apiBase}/v1/products` && r.request().method() === "POST"),
        page.getByRole("button", { name: "Add product" }).click(),
      ]);
      assert.equal(added.status(), 201, await added.text());
      await page.getByRole("status").filter({ hasText: "Indexed red-dress" }).waitFor();
      await page.getByRole("cell", { name: /Red Dress/ }).waitFor();
      assert.equal(await page.locator(".notice.error").count(), 0, "the earlier error is gone");

      // Bulk upload a CSV; the page polls the job until it completes (the test drives the job worker).
      const csv = `product_id,image_url,name,category,price,tags\nyellow-top,${csvUrls.yellow},Yellow Top,clothes,25,summer|top\nblack-bag,${csvUrls.black},"Black Bag, leather",bags,120,\n`;
      await page
        .getByLabel("Products file (CSV or JSON)")
        .setInputFiles({ name: "products.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
      await page.getByText("2 products ready.").waitFor();
      const [bulk] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${apiBase}/v1/products/bulk`),
        page.getByRole("button", { name: "Start upload" }).click(),
      ]);
      assert.equal(bulk.status(), 202, await bulk.text());
      await t.workers.drain();
      await page.getByText(/completed — 2 of 2 done \(2 indexed, 0 failed\)/).waitFor({ timeout: 20_000 });
      await page.getByRole("cell", { name: /Black Bag, leather/ }).waitFor();
      await shot(page, "04-products");
      const stored = await t.ctx.database.db
        .selectFrom("products")
        .select("product_id")
        .where("store_id", "=", store.clientId)
        .orderBy("product_id")
        .execute();
      assert.deepEqual(
        stored.map((p) => p.product_id),
        ["black-bag", "blue-jeans", "green-dress", "red-dress", "yellow-top"],
      );

      // Search playground: a text search shows the new product first, with its score.
      await openSection(page, "Search playground", "Search playground");
      await page.getByLabel("Text query").fill("red dress");
      const [searched] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${apiBase}/v1/search/text`),
        page.getByRole("button", { name: "Search", exact: true }).click(),
      ]);
      assert.equal(searched.status(), 200, await searched.text());
      const body = (await searched.json()) as { results: { product_id: string; similarity_score: number }[] };
      assert.equal(body.results[0]!.product_id, "red-dress");
      const top = page.getByRole("list", { name: "Search results" }).getByRole("listitem").first();
      await top.waitFor();
      assert.equal(await top.getAttribute("data-product-id"), "red-dress");
      assert.match((await top.textContent()) ?? "", /Red Dress/);
      assert.match(
        (await top.textContent()) ?? "",
        new RegExp(`score ${body.results[0]!.similarity_score.toFixed(3).replace(".", "\\.")}`),
      );
      await shot(page, "05-playground");

      // Analytics: the playground's search is counted; the three charts are drawn.
      await openSection(page, "Analytics", "Analytics");
      await page
        .locator(".kpi")
        .filter({ hasText: "Searches" })
        .locator(".kpi-value")
        .filter({ hasText: /^[1-9]/ })
        .waitFor();
      assert.equal(await page.locator("figure.chart svg[role=img]").count(), 2, "searches over time and funnel (no revenue yet)");
      assert.match((await page.locator("figure.chart svg").first().getAttribute("aria-label")) ?? "", /Searches per day: 1 searches/);
      await noErrorNotice(page, "analytics");
      await shot(page, "06-analytics");

      // API keys.
      await openSection(page, "API keys", "API keys");
      await page.getByLabel("Name").fill("backend");
      await page.getByRole("button", { name: "Create key" }).click();
      await page
        .locator(".secret-value")
        .filter({ hasText: /^sk_live_/ })
        .waitFor();
      await page.getByRole("cell", { name: "backend" }).waitFor();
      await noErrorNotice(page, "api keys");
      await shot(page, "07-api-keys");

      // Widget keys with an allowed origin.
      await openSection(page, "Widget keys", "Widget keys");
      await page.getByLabel("Name").fill("shop front");
      await page.getByLabel("Allowed origins").fill("https://shop.example.com");
      await page.getByRole("button", { name: "Create widget key" }).click();
      await page
        .locator(".secret-value")
        .filter({ hasText: /^pk_live_/ })
        .waitFor();
      await page.getByRole("cell", { name: "https://shop.example.com" }).waitFor();
      await noErrorNotice(page, "widget keys");
      await shot(page, "08-widget-keys");

      // Webhooks with the delivery log (empty: nothing was indexed since the webhook was added).
      await openSection(page, "Webhooks", "Webhooks");
      await page.getByLabel("Endpoint URL").fill("https://hooks.example.com/shopsight");
      await page.getByRole("button", { name: "Add webhook" }).click();
      await page.getByText("https://hooks.example.com/shopsight").waitFor();
      await page.getByRole("button", { name: "Delivery log" }).click();
      await page.getByText("No deliveries yet.").waitFor();
      await noErrorNotice(page, "webhooks");
      await shot(page, "09-webhooks");

      // Synonyms: a group of one word is refused in words; a multi-way group is added, listed and used by text search.
      await openSection(page, "Synonyms", "Synonyms");
      await page.getByText("No synonyms of your own yet.").waitFor();
      await page.getByRole("textbox", { name: /^Words/ }).fill("frock");
      await page.getByRole("button", { name: "Add synonyms" }).click();
      await page
        .getByRole("alert")
        .filter({ hasText: /at least two different phrases/ })
        .waitFor();
      await page.getByRole("textbox", { name: /^Words/ }).fill("Frock, dress");
      await page.getByRole("button", { name: "Add synonyms" }).click();
      await page.getByRole("status").filter({ hasText: "Added: frock, dress" }).waitFor();
      await page.getByRole("table", { name: "Synonyms" }).getByRole("cell", { name: "frock, dress" }).waitFor();
      await noErrorNotice(page, "synonyms");
      await shot(page, "09b-synonyms");
      const frock = await t.search.inject({
        method: "POST",
        url: "/v1/search/text",
        headers: bearer(await machineToken(t.search, store)),
        payload: { query: "frock", semantic_weight: 0 },
      });
      assert.equal(frock.statusCode, 200, frock.body);
      assert.deepEqual(
        frock
          .json()
          .results.map((r: { product_id: string }) => r.product_id)
          .sort(),
        ["green-dress", "red-dress"],
        "the portal's entry is in force",
      );
      // The one-way form asks for what the words also find.
      await page.getByLabel(/One-way/).check();
      await page.getByRole("textbox", { name: /^Also find/ }).waitFor();
      await shot(page, "09c-synonyms-one-way");

      // Team and invites.
      await openSection(page, "Team", "Team");
      await page.getByRole("cell", { name: store.email }).waitFor();
      await page.getByLabel("E-mail").fill("new.colleague@example.com");
      await page.getByRole("button", { name: "Send invite" }).click();
      await page.getByRole("status").filter({ hasText: "new.colleague@example.com" }).waitFor();
      await page.getByRole("cell", { name: "new.colleague@example.com" }).waitFor();
      await noErrorNotice(page, "team");
      await shot(page, "10-team");
      // Removing a member says, before the owner confirms, that the API key they created is revoked.
      const leaver = await addMember(t, await machineToken(t.search, store), "admin", { emailPrefix: "leaver" });
      const leaverKey = await t.search.inject({
        method: "POST",
        url: "/v1/security/api-keys",
        headers: bearer(leaver.token),
        payload: { name: "leaver's sync", scopes: { products: ["read"] } },
      });
      assert.equal(leaverKey.statusCode, 201, leaverKey.body);
      await page.reload();
      const leaverRow = page.getByRole("row").filter({ has: page.getByRole("cell", { name: leaver.email }) });
      let asked = "";
      page.once("dialog", (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await leaverRow.getByRole("button", { name: "Remove" }).click();
      await page.getByRole("cell", { name: leaver.email }).waitFor({ state: "detached" });
      assert.match(asked, /The active API key they created is revoked at once: calls using it get 401\./);
      const afterRemoval = await t.search.inject({ method: "GET", url: "/v1/products", headers: bearer(leaverKey.json().key as string) });
      assert.equal(afterRemoval.statusCode, 401, "the removed member's key is revoked");
      await noErrorNotice(page, "team after removal");

      // Two-factor authentication: on (it was enabled through the API).
      await openSection(page, "Two-factor authentication", "Two-factor authentication");
      await page.getByRole("heading", { name: "Two-factor authentication is on" }).waitFor();
      await noErrorNotice(page, "security");
      await shot(page, "11-two-factor-on");

      // Billing: change plan through the local TEST MODE checkout opened in a new tab.
      await openSection(page, "Billing", "Billing");
      await page.getByRole("heading", { name: "Current plan: enterprise" }).waitFor();
      await shot(page, "12-billing");
      const [checkout] = await Promise.all([context.waitForEvent("page"), page.getByRole("button", { name: "Change to premium" }).click()]);
      await checkout.waitForLoadState();
      await checkout.getByText("TEST MODE").first().waitFor();
      await checkout.getByRole("button", { name: "Complete purchase" }).click();
      await checkout.getByRole("heading", { name: "Purchase complete" }).waitFor();
      await checkout.close();
      await page.getByRole("button", { name: "Refresh now" }).click();
      await page.getByRole("heading", { name: "Current plan: premium" }).waitFor();
      await page.getByRole("cell", { name: "premium" }).waitFor();
      await shot(page, "13-billing-after-checkout");

      // A sub-route opened directly (history fallback) keeps the session of the tab.
      await page.goto(`${apiBase}/${store.slug}/portal/analytics`);
      await page.getByRole("heading", { level: 1, name: "Analytics" }).waitFor();
      await context.close();
      assert.deepEqual(pageErrors, []);
    },
  );

  test("a new user sets up 2FA in the portal with the QR code", { timeout: 120_000 }, async () => {
    const fresh = await registerStore(t, { name: "QR Store" });
    const { context, page } = await newContext();
    await page.goto(`${apiBase}/${fresh.slug}/portal/security`);
    await page.waitForURL(/\/portal\/login\?next=/);
    await signIn(page, fresh);
    // Back to the page asked for, after sign-in.
    await page.getByRole("heading", { level: 1, name: "Two-factor authentication" }).waitFor();
    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const qr = page.getByRole("img", { name: "QR code for your authenticator app" });
    await qr.waitFor();
    assert.equal((await qr.locator("svg path").count()) > 0, true, "the QR code is drawn");
    const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
    await shot(page, "14-two-factor-setup");
    await page.getByLabel("Code from the app").fill(authenticator.generate(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("heading", { name: "Two-factor authentication is on" }).waitFor();
    const user = await t.ctx.database.db
      .selectFrom("users")
      .select("totp_enabled")
      .where("email", "=", fresh.email)
      .executeTakeFirstOrThrow();
    assert.equal(Number(user.totp_enabled), 1);
    // The next login needs the code.
    const login = await t.search.inject({
      method: "POST",
      url: "/oauth/login",
      remoteAddress: freshIp(),
      payload: { email: fresh.email, password: fresh.password },
    });
    assert.equal(login.json().error, "requires_2fa");
    await context.close();
    assert.deepEqual(pageErrors, []);
  });

  test(
    "a portal opened at another origin than PUBLIC_BASE_URL says so on the Assistant page and pre-fills nothing",
    { timeout: 120_000 },
    async () => {
      const fresh = await registerStore(t, { name: "Elsewhere Store" });
      const { context, page } = await newContext();
      const elsewhere = apiBase.replace("127.0.0.1", "localhost"); // same server, another origin
      await page.goto(`${elsewhere}/${fresh.slug}/portal/assistant`);
      await page.waitForURL(/\/portal\/login\?next=/);
      await signIn(page, fresh);
      await page.getByRole("heading", { level: 1, name: "Assistant" }).waitFor();
      const alert = page.getByRole("alert").filter({ hasText: "PUBLIC_BASE_URL" }).first();
      await alert.waitFor();
      const text = (await alert.textContent()) ?? "";
      assert.match(text, new RegExp(`This portal is open at ${elsewhere.replace(/[.:/]/g, "\\$&")}`));
      assert.match(text, new RegExp(`Open the portal at ${apiBase.replace(/[.:/]/g, "\\$&")}`));
      assert.doesNotMatch(text, /can't be reached/);
      assert.equal(await page.getByLabel("Currency").count(), 0, "no settings form with values that were not loaded");
      await shot(page, "16-portal-other-origin");
      await context.close();
    },
  );

  test("a super admin lists the stores on /admin and overrides a plan", { timeout: 120_000 }, async () => {
    const email = `root-${Date.now()}@example.com`;
    await t.services.accounts.createSuperAdmin(email, "Root-password-1");
    const { context, page } = await newContext();
    await page.goto(`${apiBase}/portal/login`);
    await signIn(page, { email: email, password: "Root-password-1" });
    await page.waitForURL(/\/admin$/);
    await page.getByRole("heading", { level: 1, name: "Stores" }).waitFor();
    const row = page.getByRole("row").filter({ hasText: other.slug });
    await row.waitFor();
    assert.match((await row.textContent()) ?? "", new RegExp(other.email.replace(/[.+]/g, "\\$&")));
    await shot(page, "15-admin");
    await row.getByLabel(`Plan of ${other.slug}`).selectOption("basic");
    await row.getByRole("button", { name: "Set plan" }).click();
    await page.getByRole("status").filter({ hasText: "Second Shop moved from enterprise to basic." }).waitFor();
    const plan = await t.ctx.database.db.selectFrom("stores").select("plan").where("id", "=", other.clientId).executeTakeFirstOrThrow();
    assert.equal(plan.plan, "basic");
    await context.close();
    assert.deepEqual(pageErrors, []);
  });
});
