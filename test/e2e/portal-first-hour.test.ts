// The first hour of a self-hosted store, in a real headless Chromium (Debian `chromium`, driven
// by playwright-core), on a server run as a self-hosting operator would: BILLING_MODE=off (new
// stores start on enterprise, no prices, no checkout), no SMTP (mail written to the outbox).
// A new owner signs up in the portal, opens the verification link from the outbox file as it is
// written there, sees the client secret once, signs in, lands on an empty store with the "what
// next" checklist, installs the demo catalogue, searches in the playground (results with their
// pictures and scores, cleared on a mode change), mints a widget key and gets its snippet, then in
// the Assistant section saves settings, publishes a returns policy, mints a chat key (with the
// <commerce-ai-chat> snippet) and asks the live preview about returns. Screenshots of every new
// screen go to test-results/first-hour-*.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { freePort } from "../support/process.js";
import { describeInChromium, launchChromium, listenOnLoopback, recordConsoleErrors, screenshot, signIn } from "../support/browser.js";
import { ensurePortalBuilt } from "../../src/search/portal/build.js";

const SUITE = "the first hour of a self-hosted store in headless Chromium";
describeInChromium(SUITE, () => {
  let t: TestApp;
  let browser: Browser;
  let apiBase: string;
  let chatBase: string;
  const pageErrors: string[] = [];

  before(async () => {
    await ensurePortalBuilt();
    const [port, chatPort] = [await freePort(), await freePort()];
    apiBase = `http://127.0.0.1:${port}`;
    chatBase = `http://127.0.0.1:${chatPort}`;
    t = await createTestApp({ model: true, env: { PUBLIC_BASE_URL: apiBase, CHAT_PUBLIC_BASE_URL: chatBase, BILLING_MODE: "off" } });
    assert.equal(await listenOnLoopback(t.search, port), apiBase);
    assert.equal(await listenOnLoopback(t.assistant, chatPort), chatBase);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string) => screenshot(page, `first-hour-${name}`);
  const openSection = async (page: Page, label: string, heading: string) => {
    await page.getByRole("navigation", { name: "Store sections" }).getByRole("link", { name: label, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  };
  const noErrorNotice = async (page: Page, where: string) => {
    const notices = page.locator(".notice.error");
    assert.equal(await notices.count(), 0, `${where}: ${await notices.allTextContents()}`);
  };

  /** The newest outbox file to `to`, raw (as a person opening it would read it). */
  const rawMailTo = (to: string): string => {
    const dir = t.config.mail.outboxDir;
    for (const f of fs.readdirSync(dir).sort().reverse()) {
      const text = fs.readFileSync(path.join(dir, f), "utf8");
      if (text.includes(`To: ${to}`)) return text;
    }
    throw new Error(`no mail to ${to}`);
  };

  test(
    "sign-up → verify → sign in → checklist → demo products → playground with images → widget snippet → assistant with a live chat",
    { timeout: 300_000 },
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: apiBase });
      const page = await context.newPage();
      recordConsoleErrors(page, pageErrors, { pageErrors: true, ignore: (text) => text.startsWith("Failed to load resource") });
      const email = `first-hour-${Date.now()}@example.com`;
      const password = "First-hour-42";

      // GET / in a browser lands on the portal; the login page links to sign-up.
      await page.goto(`${apiBase}/`);
      await page.waitForURL(/\/portal\/login$/);
      await page.getByRole("link", { name: "Create a store" }).click();
      await page.getByRole("heading", { level: 1, name: "Create your store" }).waitFor();
      await page.getByLabel("Store name").fill("First Hour Shop");
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill(password);
      await shot(page, "01-sign-up");
      await page.getByRole("button", { name: "Create store" }).click();
      await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
      await shot(page, "02-check-mail");
      // A lost mail can be sent again from the same page; the newest link is the one opened below.
      await page.getByRole("button", { name: "Send the link again" }).click();
      await page.getByRole("status").filter({ hasText: "a new link (valid 48 hours) is on its way" }).waitFor();
      await shot(page, "02b-link-sent-again");

      // The outbox file holds the link whole: copied as it is, it opens the verify page.
      const mail = rawMailTo(email);
      const link = /^(http:\/\/\S+\/verify\?token=\S+)$/m.exec(mail)?.[1];
      assert.ok(link, `a whole link in the outbox file:\n${mail}`);
      assert.ok(link.startsWith(`${apiBase}/verify?token=`));
      await page.goto(link);
      await page.waitForURL(/\/portal\/verify$/, { timeout: 20_000 });
      await page.getByRole("heading", { name: "Your store is active" }).waitFor();
      const secret = page.locator(".secret-value").filter({ hasText: /^cs_/ });
      await secret.waitFor();
      await page.getByRole("button", { name: "Copy client secret" }).click();
      await page.getByRole("button", { name: "Copied" }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await secret.textContent());
      await shot(page, "03-verified");
      // The link is single-use: opened again, the page says so and points to sign-in.
      const second = await context.newPage();
      await second.goto(link);
      await second.getByRole("alert").filter({ hasText: "already been used" }).waitFor();
      await shot(second, "03b-link-used");
      await second.close();

      await page.getByRole("link", { name: "Continue to sign in" }).click();
      await signIn(page, { email: email, password: password });
      await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
      const checklist = page.getByRole("list", { name: "Getting started" });
      await checklist.waitFor();
      assert.deepEqual(
        (await checklist.getByRole("listitem").locator("strong").allTextContents()).map((s) => s.trim()),
        ["Add products", "Try a search", "Make a widget key", "Add the chat"],
      );
      await noErrorNotice(page, "empty store");
      await shot(page, "04-what-next");

      // Self-hosted: the store is on the plan without limits, and nothing is for sale.
      const store = await t.ctx.database.db
        .selectFrom("stores")
        .select(["id", "plan", "slug"])
        .where("name", "=", "First Hour Shop")
        .executeTakeFirstOrThrow();
      assert.equal(store.plan, "enterprise");

      // Demo catalogue from the checklist.
      await page.getByRole("button", { name: "Install the demo catalogue" }).click();
      await page.getByRole("status").filter({ hasText: "Installed 24 demo products" }).waitFor({ timeout: 60_000 });
      await page
        .getByRole("cell", { name: /Pink Dress/ })
        .first()
        .waitFor();

      // Playground: the active model (GET /v1/search/model) with the test-model banner.
      // A text search shows pictures, names, prices with currency and scores.
      await openSection(page, "Search playground", "Search playground");
      await page.getByTestId("active-model").waitFor();
      assert.match((await page.getByTestId("active-model").textContent()) ?? "", /Model: .+ · \d+ dimensions/);
      await page.getByRole("status").filter({ hasText: "built-in test model" }).waitFor();
      await page.getByLabel("Text query").fill("pink dress");
      const [searched] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${apiBase}/v1/search/text`),
        page.getByRole("button", { name: "Search", exact: true }).click(),
      ]);
      assert.equal(searched.status(), 200, await searched.text());
      const results = page.getByRole("list", { name: "Search results" }).getByRole("listitem");
      await results.first().waitFor();
      const firstImage = results.first().locator("img.result-image");
      await firstImage.waitFor();
      assert.match((await firstImage.getAttribute("src")) ?? "", /^blob:/);
      assert.equal(
        await firstImage.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
        true,
        "the stored image is drawn",
      );
      assert.match((await results.first().textContent()) ?? "", /score \d\.\d{3}/);
      assert.match((await results.first().textContent()) ?? "", /\$\d+\.\d{2}/, "price with its currency");
      await shot(page, "05-playground-images");
      // Another mode: the old results are gone.
      await page.getByRole("radio", { name: "Image URL" }).check();
      assert.equal(await page.getByRole("list", { name: "Search results" }).count(), 0);

      // Widget key with its snippet.
      await openSection(page, "Widget keys", "Widget keys");
      await page.getByLabel("Name").fill("shop front");
      await page.getByLabel("Allowed origins").fill("https://shop.example.com");
      await page.getByRole("button", { name: "Create widget key" }).click();
      const widgetSnippet = page.getByLabel("Widget snippet");
      await widgetSnippet.waitFor();
      assert.match(
        (await widgetSnippet.textContent()) ?? "",
        new RegExp(`<script src="${apiBase}/widget\\.js"></script>[\\s\\S]*key: "pk_live_`),
      );
      await page.getByRole("button", { name: "Copy widget snippet" }).waitFor();
      await noErrorNotice(page, "widget keys");
      await shot(page, "06-widget-snippet");

      // Assistant: settings, a published policy, a chat key with the snippet, and the live preview.
      await openSection(page, "Assistant", "Assistant");
      await page.getByLabel("Currency").fill("EUR");
      await page.getByLabel("Support e-mail").fill("help@first-hour.example");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByRole("status").filter({ hasText: "Settings saved" }).waitFor();
      await page.getByLabel("Policy title").fill("Returns policy");
      assert.equal(await page.getByLabel("Policy id").inputValue(), "returns-policy");
      await page.getByLabel("Policy text").fill("You can return any item within 30 days of delivery for a full refund. Returns are free.");
      await page.getByRole("button", { name: "Save policy" }).click();
      await page.getByRole("status").filter({ hasText: "Saved “Returns policy” as version 1 · published" }).waitFor();
      await page.getByRole("cell", { name: /Returns policy/ }).waitFor();
      // Edit: a second version.
      await page.getByRole("row").filter({ hasText: "Returns policy" }).getByRole("button", { name: "Edit" }).click();
      await page
        .getByLabel("Policy text")
        .fill("You can return any item within 30 days of delivery for a full refund. Returns are free of charge.");
      await page.getByRole("button", { name: "Save new version" }).click();
      await page.getByRole("status").filter({ hasText: "as version 2" }).waitFor();
      await page.getByRole("cell", { name: "v2" }).waitFor();
      await page.getByRole("row").filter({ hasText: "Returns policy" }).getByRole("button", { name: "Versions" }).click();
      const versions = page.getByRole("list", { name: "Versions of Returns policy" }).getByRole("listitem");
      await versions.first().waitFor();
      assert.deepEqual(
        (await versions.locator("strong").allTextContents()).map((v) => v.trim()),
        ["v2", "v1"],
      );

      await page.getByLabel("Name", { exact: true }).fill("shop front");
      await page.getByRole("button", { name: "Create chat key" }).click();
      const chatSnippet = page.getByLabel("Chat snippet");
      await chatSnippet.waitFor();
      assert.match(
        (await chatSnippet.textContent()) ?? "",
        new RegExp(
          `<script type="module" src="${chatBase}/widget/index\\.js"></script>\\s*<commerce-ai-chat store-public-key="store_pub_[^"]+" api-base-url="${chatBase}" locale="en"></commerce-ai-chat>`,
        ),
      );
      await noErrorNotice(page, "assistant");
      await shot(page, "07-assistant");

      // The preview is the real component with the new key: ask it about returns.
      await page.waitForFunction(() => customElements.get("commerce-ai-chat") !== undefined);
      const input = page.locator("commerce-ai-chat").getByLabel("Your message");
      await input.fill("What is your returns policy?");
      const [minted] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${chatBase}/v1/sessions/anonymous`),
        input.press("Enter"),
      ]);
      assert.equal(minted.status(), 200);
      const reply = page.locator("commerce-ai-chat .log .msg[data-outcome]").first();
      await reply.waitFor({ timeout: 60_000 });
      assert.equal(await reply.getAttribute("data-outcome"), "answer");
      assert.match((await reply.textContent()) ?? "", /30 days/);
      await shot(page, "08-chat-preview");

      // Billing: off on this server, so no prices and no checkout.
      await openSection(page, "Billing", "Billing");
      await page.getByRole("heading", { name: "Billing is off on this server" }).waitFor();
      await page.getByRole("heading", { name: "Current plan: enterprise" }).waitFor();
      assert.equal(await page.getByRole("button", { name: /Change to/ }).count(), 0);
      assert.doesNotMatch((await page.locator("main").textContent()) ?? "", /\$\s?\d|a month ·/);
      await shot(page, "09-billing-off");

      // Back to Get started: the steps done so far are ticked.
      await openSection(page, "Get started", "Get started");
      const steps = page.getByRole("list", { name: "Getting started" }).getByRole("listitem");
      await steps.filter({ hasText: "Add the chat (done)" }).waitFor();
      for (const i of [0, 1, 2]) assert.match((await steps.nth(i).textContent()) ?? "", /\(done\)/, `step ${i + 1} done`);
      await shot(page, "10-get-started-done");

      await context.close();
      assert.deepEqual(pageErrors, []);
    },
  );
});
