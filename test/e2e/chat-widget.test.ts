// <commerce-ai-chat> in a real headless Chromium (Debian `chromium`, driven by playwright-core).
// The Search API and the Assistant API listen on loopback ports over one database, with the tiny
// model; the store has published policies (two of which disagree on the delivery time), products
// with prices and stock, a support contact and a public key. A static "shop" on another origin
// (`localhost` vs the APIs' `127.0.0.1`, another port) loads
// <script type="module" src="{assistant}/widget/index.js"> and places the element. The shopper,
// with the keyboard only, asks a policy question and sees citations, asks for a product and sees
// its live price, adds it to the cart and confirms, gets a handoff with the support contact;
// a reload keeps the thread; a stream cut before `message.completed` is replayed from
// Last-Event-ID; a 429 shows a retry notice with the wait; German strings with locale="de";
// reduced motion turns the busy animation off. Screenshots go to test-results/ (gitignored).
//
// Without the browser binary the suite is skipped with the reason, except in CI (CI=true), where
// it fails. CHROMIUM_PATH overrides /usr/bin/chromium.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { bearer, loginToken, registerStore, type RegisteredStore } from "../support/factories.js";
import { startImageHost, type ImageHost, type Started } from "../support/servers.js";
import {
  describeInChromium,
  launchChromium,
  listenOnLoopback,
  recordConsoleErrors,
  screenshot,
  seedSolidProducts,
  servePages,
} from "../support/browser.js";

const SUPPORT = { email: "help@shop.example", phone: "+49 30 1234567", url: "https://shop.example/help", hours: "Mon–Fri 9–17" };
const CATALOGUE = [
  { id: "red-dress", hex: "#d01010", name: "Red Dress", color: "red", category: "dress", price: 80, stock: 12 },
  { id: "blue-jeans", hex: "#1030c0", name: "Blue Jeans", color: "blue", category: "jeans", price: 60, stock: 3 },
  { id: "green-dress", hex: "#10a030", name: "Green Dress", color: "green", category: "dress", price: 95, stock: 0 },
  // No price in the catalogue: its card must say the price is unavailable, never show a number.
  { id: "black-dress", hex: "#101010", name: "Black Dress", color: "black", category: "dress", price: undefined, stock: 4 },
] as const;
const POLICIES = [
  {
    concept_id: "returns",
    handle: "returns-policy",
    title: "Returns policy",
    body_markdown:
      "# Returns\n\nYou can return any unworn item within 30 days of delivery for a full refund. Returns are free of charge. Refunds are paid to the original payment method within 5 business days after the return arrives.",
  },
  {
    concept_id: "shipping",
    handle: "shipping-policy",
    title: "Shipping policy",
    body_markdown: "# Shipping\n\nStandard delivery takes 3 business days within Germany. Shipping is free for orders over 50 EUR.",
  },
  {
    concept_id: "shipping-faq",
    handle: "shipping-faq",
    title: "Shipping FAQ",
    body_markdown: "# Shipping FAQ\n\nStandard delivery takes 7 business days within Germany. Express delivery is available at checkout.",
  },
  {
    concept_id: "payment",
    handle: "payment-methods",
    title: "Payment methods",
    body_markdown: "# Payment\n\nWe accept credit cards, PayPal and bank transfer. Payment is taken when the order ships.",
  },
] as const;

function shopPage(assistantBase: string, key: string, locale: string): string {
  return `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><title>Test shop</title>
<script type="module" src="${assistantBase}/widget/index.js"></script>
<style>body { font-family: sans-serif; margin: 1.5rem; } commerce-ai-chat { max-width: 640px; --cac-accent: #7a2e8f; }</style>
</head>
<body>
  <main>
    <h1>Test shop</h1>
    <p id="cart">Cart: 0</p>
    <commerce-ai-chat store-public-key="${key}" api-base-url="${assistantBase}" locale="${locale}"></commerce-ai-chat>
  </main>
  <script>
    window.shopEvents = [];
    document.addEventListener("commerce-ai-chat:action", function (e) {
      window.shopEvents.push(e.detail);
      document.getElementById("cart").textContent = "Cart: updated";
    });
  </script>
</body>
</html>`;
}

const SUITE = "chat widget <commerce-ai-chat> end to end in headless Chromium";
describeInChromium(SUITE, () => {
  let t: TestApp;
  let images: ImageHost;
  let browser: Browser;
  let store: RegisteredStore;
  let owner: string;
  let assistantBase: string;
  let key = "";
  let shop: Started;
  const consoleErrors: string[] = [];

  before(async () => {
    t = await createTestApp({ model: true });
    await listenOnLoopback(t.search);
    assistantBase = await listenOnLoopback(t.assistant);
    images = await startImageHost();
    store = await registerStore(t);
    owner = await loginToken(t.search, store.email, store.password);

    await seedSolidProducts(
      t,
      images,
      store.clientId,
      CATALOGUE.map((p) => ({
        id: p.id,
        hex: p.hex,
        metadata: {
          name: p.name,
          ...(p.price === undefined ? {} : { price: p.price }),
          category: p.category,
          color_name: p.color,
          stock: p.stock,
          url: `https://shop.example/products/${p.id}`,
        },
      })),
    );
    const admin = async (method: "PUT" | "POST", url: string, payload: object) => {
      const res = await fetch(`${assistantBase}${url}`, {
        method,
        headers: { ...bearer(owner), "content-type": "application/json" },
        body: JSON.stringify(payload),
      });
      assert.ok(res.status === 200 || res.status === 201, `${method} ${url}: ${res.status} ${await res.clone().text()}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    for (const p of POLICIES) {
      const { concept_id, ...fields } = p;
      await admin("PUT", `/v1/admin/policies/${concept_id}`, { ...fields, locale: "en", published: true });
    }
    await admin("PUT", "/v1/admin/settings", { currency: "EUR", support_contact: SUPPORT });
    key = String((await admin("POST", "/v1/admin/public-keys", { name: "e2e shop" })).key);

    // `localhost` for the shop, `127.0.0.1` for the APIs: another host and port, so every API call is cross-origin.
    shop = await servePages((p, q) => (p === "/" ? shopPage(assistantBase, key, q.get("locale") ?? "en") : undefined), {
      host: "localhost",
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await shop?.close();
    await images?.close();
    await t?.close();
  });

  async function newContext(options: { reducedMotion?: "reduce" | "no-preference" } = {}): Promise<BrowserContext> {
    return browser.newContext({ viewport: { width: 900, height: 1000 }, reducedMotion: options.reducedMotion ?? "reduce" });
  }

  async function openShop(context: BrowserContext, locale = "en", options: { expectHttpErrors?: boolean } = {}): Promise<Page> {
    const page = await context.newPage();
    // A page that is answered 429 on purpose logs "Failed to load resource" (Chromium's own line).
    if (!options.expectHttpErrors) recordConsoleErrors(page, consoleErrors, { pageErrors: true });
    await page.goto(`${shop.url}/?locale=${locale}`);
    await page.waitForFunction(() => customElements.get("commerce-ai-chat") !== undefined);
    return page;
  }

  const replies = (page: Page) => page.locator("commerce-ai-chat .log .msg[data-outcome]");
  const activeId = (page: Page) =>
    page.evaluate(() => {
      const root = document.querySelector("commerce-ai-chat")!.shadowRoot!;
      const active = root.activeElement as HTMLElement | null;
      return active ? active.id || active.className || active.tagName : null;
    });
  const isStream = (r: Request) => r.url() === `${assistantBase}/v1/chat/messages/stream` && r.method() === "POST";

  /** Types `text` and presses Enter (keyboard only); resolves with the new reply. */
  async function ask(page: Page, text: string) {
    const before = await replies(page).count();
    const input = page.getByLabel("Your message");
    await input.focus();
    await page.keyboard.type(text);
    const [request] = await Promise.all([page.waitForRequest(isStream), page.keyboard.press("Enter")]);
    assert.equal(request.headers()["authorization"]?.startsWith("Bearer ast_"), true);
    const reply = replies(page).nth(before);
    await reply.waitFor({ timeout: 30_000 });
    // Focus stays in the message box after sending, except that a confirmation preview takes it.
    const expected = (await reply.getAttribute("data-outcome")) === "confirmation_required" ? "preview" : "cac-input";
    assert.equal(await activeId(page), expected, "focus after the reply");
    return reply;
  }

  test(
    "a shopper asks about returns and sees citations, then a product with its live price, all with the keyboard",
    { timeout: 120_000 },
    async () => {
      const context = await newContext();
      const page = await openShop(context);

      const log = page.getByRole("log");
      assert.equal(await log.getAttribute("aria-live"), "polite");
      assert.equal(await page.getByRole("heading", { name: "Shopping assistant" }).count(), 1);

      const mint = page.waitForResponse((r) => r.url() === `${assistantBase}/v1/sessions/anonymous`);
      const policy = await ask(page, "What is your returns policy?");
      assert.equal((await mint).status(), 200);
      assert.equal(await policy.getAttribute("data-outcome"), "answer");
      assert.match((await policy.locator(".md").textContent()) ?? "", /30 days/);
      const sources = policy.getByRole("group", { name: "Sources" });
      assert.deepEqual(await sources.getByRole("listitem").allTextContents(), ["Returns policy"]);
      assert.equal(await sources.getByRole("listitem").first().getAttribute("data-concept-id"), "returns");
      await screenshot(page, "chat-1-policy-citations");

      const product = await ask(page, "Do you have a red dress?");
      assert.equal(await product.getAttribute("data-outcome"), "answer");
      const cards = product.getByRole("list", { name: "Products" }).getByRole("listitem");
      const red = cards.filter({ hasText: "Red Dress" });
      assert.equal(await red.count(), 1);
      assert.equal(await red.getAttribute("data-product-id"), "prd_red-dress");
      assert.equal(await red.locator(".price").getAttribute("data-price-state"), "live");
      assert.equal(await red.locator(".price").textContent(), "€80.00");
      assert.equal(await red.locator(".stock").textContent(), "In stock");
      await screenshot(page, "chat-2-product-live-price");

      const unpriced = await ask(page, "Do you have a black dress?");
      const black = unpriced.getByRole("list", { name: "Products" }).getByRole("listitem").filter({ hasText: "Black Dress" });
      assert.equal(await black.count(), 1);
      assert.equal(await black.locator(".price").textContent(), "Price unavailable");
      assert.notEqual(await black.locator(".price").getAttribute("data-price-state"), "live");
      assert.doesNotMatch((await black.textContent()) ?? "", /€|\d+\.\d\d/);
      assert.equal(await black.locator(".stock").textContent(), "Only a few left");
      await context.close();
    },
  );

  test("adding to the cart shows a focused preview; Confirm runs the action once and the page hears it", { timeout: 120_000 }, async () => {
    const context = await newContext();
    const page = await openShop(context);
    const reply = await ask(page, "Add the red dress to my cart");
    assert.equal(await reply.getAttribute("data-outcome"), "confirmation_required");
    const preview = reply.getByRole("group", { name: /Please confirm/ });
    await preview.waitFor();
    assert.equal(await activeId(page), "preview", "focus moves to the confirmation preview");
    assert.match((await preview.textContent()) ?? "", /Red Dress/);
    assert.match((await preview.textContent()) ?? "", /Quantity\s*1/);
    await screenshot(page, "chat-3-confirmation-preview");

    // Keyboard: Tab from the preview reaches Confirm; Enter presses it.
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.querySelector("commerce-ai-chat")!.shadowRoot!.activeElement?.textContent), "Confirm");
    const [confirm] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${assistantBase}/v1/chat/actions/confirm`),
      page.keyboard.press("Enter"),
    ]);
    assert.equal(confirm.status(), 200, await confirm.text());
    await page.locator("commerce-ai-chat .msg[data-outcome=action_completed]").waitFor();
    await page.getByText("Cart: updated").waitFor();
    const confirmed = await confirm.json();
    assert.deepEqual(confirmed.action, { name: "add_to_cart", arguments: { product_id: "prd_red-dress", quantity: 1 } });
    const events = (await page.evaluate(() => (window as any).shopEvents)) as Array<Record<string, unknown>>;
    assert.equal(events.length, 1);
    assert.equal(events[0]!.name, "add_to_cart");
    assert.deepEqual(events[0]!.arguments, { product_id: "prd_red-dress", quantity: 1 });
    assert.equal(await activeId(page), "cac-input", "focus returns to the message box");
    assert.equal(await preview.getByRole("button", { name: "Confirm" }).isDisabled(), true, "a preview is confirmed once");
    await screenshot(page, "chat-4-action-confirmed");

    // Cancel with the keyboard: Tab twice from the preview, Enter; nothing reaches the page.
    const second = await ask(page, "Add the blue jeans to my cart");
    assert.equal(await second.getAttribute("data-outcome"), "confirmation_required");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    const [cancel] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${assistantBase}/v1/chat/actions/cancel`),
      page.keyboard.press("Enter"),
    ]);
    assert.equal(cancel.status(), 200, await cancel.text());
    await page
      .locator("commerce-ai-chat .msg[data-outcome=action_cancelled]")
      .filter({ hasText: "Cancelled. Nothing was changed." })
      .waitFor();
    assert.equal(
      ((await page.evaluate(() => (window as any).shopEvents)) as unknown[]).length,
      1,
      "a cancelled action is not announced to the page",
    );
    await context.close();
  });

  test("conflicting policies hand over to a person with the store's support contact", { timeout: 120_000 }, async () => {
    const context = await newContext();
    const page = await openShop(context);
    const reply = await ask(page, "How long does standard delivery take?");
    assert.equal(await reply.getAttribute("data-outcome"), "handoff");
    const contact = reply.getByRole("group", { name: "Our support team can help you further:" });
    assert.equal(await contact.getByRole("link", { name: SUPPORT.email }).getAttribute("href"), `mailto:${SUPPORT.email}`);
    assert.equal(await contact.getByRole("link", { name: SUPPORT.phone }).getAttribute("href"), "tel:+49301234567");
    assert.equal(await contact.getByRole("link", { name: "Support page" }).getAttribute("href"), SUPPORT.url);
    assert.match((await contact.textContent()) ?? "", /Mon–Fri 9–17/);
    await screenshot(page, "chat-5-handoff");
    await context.close();
  });

  test("a reload in the same tab keeps the thread and shows its transcript", { timeout: 120_000 }, async () => {
    const context = await newContext();
    const page = await openShop(context);
    await ask(page, "What payment methods do you accept?");
    const stored = await page.evaluate(() => Object.entries(sessionStorage).find(([k]) => k.startsWith("commerce-ai-chat:")));
    assert.ok(stored, "state kept in sessionStorage");
    const state = JSON.parse(stored[1]) as { threadId: string; token: string };
    assert.match(state.threadId, /^thr_/);
    assert.match(state.token, /^ast_/);
    assert.equal(await page.evaluate(() => localStorage.length), 0, "nothing in localStorage");

    const [transcript] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${assistantBase}/v1/chat/sessions/${state.threadId}` && r.request().method() === "GET"),
      page.reload(),
    ]);
    assert.equal(transcript.status(), 200);
    const log = page.getByRole("log");
    await log.locator(".msg.user").filter({ hasText: "What payment methods do you accept?" }).waitFor();
    await log.locator(".msg.assistant").filter({ hasText: "PayPal" }).first().waitFor();
    const again = JSON.parse((await page.evaluate((k) => sessionStorage.getItem(k), stored[0]))!) as { threadId: string };
    assert.equal(again.threadId, state.threadId, "same thread after the reload");

    // The next message goes to the same thread.
    const [request] = await Promise.all([page.waitForRequest(isStream), ask(page, "Do you accept PayPal?")]);
    assert.equal(JSON.parse(request.postData() ?? "{}").thread_id, state.threadId);
    await screenshot(page, "chat-6-after-reload");
    await context.close();
  });

  test("a stream cut before message.completed is replayed from Last-Event-ID", { timeout: 120_000 }, async () => {
    const context = await newContext();
    const page = await openShop(context);
    let cutAfterId = "";
    // The page's first stream is delivered only up to (and including) its first event: the
    // connection then ends as if dropped. The server finished the turn meanwhile.
    await page.route(`${assistantBase}/v1/chat/messages/stream`, async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      const response = await route.fetch();
      const body = await response.text();
      // Everything up to the end of the first event with an id (e.g. turn.started).
      const blocks = body.split("\n\n");
      const upTo = blocks.findIndex((b) => /^id: /m.test(b));
      const firstEvent = blocks.slice(0, upTo + 1).join("\n\n") + "\n\n";
      cutAfterId = /^id: ?(.*)$/m.exec(blocks[upTo] ?? "")?.[1] ?? "";
      assert.ok(body.includes("event: message.completed"), "the server streamed a complete turn");
      assert.ok(!firstEvent.includes("message.completed"));
      await route.fulfill({ status: response.status(), headers: response.headers(), body: firstEvent });
    });
    const replayed = page.waitForRequest(
      (r) => r.url().startsWith(`${assistantBase}/v1/chat/sessions/thr_`) && r.url().endsWith("/events"),
    );
    const reply = await ask(page, "Can I return an item after 30 days?");
    const replay = await replayed;
    assert.ok(replay.url().endsWith("/events"));
    assert.ok(cutAfterId.length > 0);
    assert.equal(replay.headers()["last-event-id"], cutAfterId);
    assert.equal(await reply.getAttribute("data-outcome"), "answer");
    assert.ok((await reply.locator(".sources li").count()) > 0, "the replayed answer has its citations");
    assert.equal(await page.locator("commerce-ai-chat .msg[data-outcome]").count(), 1, "rendered once");
    await context.close();
  });

  test(
    "a 429 shows a retry notice with the wait; German strings with locale=de; reduced motion turns the animation off",
    { timeout: 120_000 },
    async () => {
      const context = await newContext({ reducedMotion: "reduce" });
      const page = await openShop(context, "de-DE", { expectHttpErrors: true });
      await page.getByRole("heading", { name: "Einkaufsassistent" }).waitFor();
      await page.route(`${assistantBase}/v1/chat/messages/stream`, async (route) => {
        if (route.request().method() !== "POST") return route.continue();
        await route.fulfill({
          status: 429,
          headers: {
            "content-type": "application/problem+json",
            "retry-after": "7",
            "access-control-allow-origin": "*",
            "access-control-expose-headers": "Retry-After, X-Correlation-Id",
          },
          body: JSON.stringify({
            type: "about:blank",
            title: "Too many",
            status: 429,
            detail: "turns per minute",
            code: "RATE_LIMITED",
            correlation_id: "x",
          }),
        });
      });
      await page.getByLabel("Ihre Nachricht").focus();
      await page.keyboard.type("Wie lange dauert der Versand?");
      await page.keyboard.press("Enter");
      const notice = page.locator("commerce-ai-chat .msg.notice");
      await notice.waitFor();
      assert.equal(
        await notice.locator("p").textContent(),
        "Gerade sind es zu viele Nachrichten. Bitte versuchen Sie es in 7 Sekunden erneut.",
      );
      assert.equal(await notice.getByRole("button", { name: "Erneut versuchen" }).count(), 1);
      await screenshot(page, "chat-7-rate-limited-de");

      const animation = (p: Page) =>
        p.evaluate(() => {
          const status = document.querySelector("commerce-ai-chat")!.shadowRoot!.querySelector(".status")!;
          status.classList.add("busy");
          const name = getComputedStyle(status, "::after").animationName;
          status.classList.remove("busy");
          return name;
        });
      assert.equal(await animation(page), "none", "no animation with prefers-reduced-motion: reduce");
      const moving = await newContext({ reducedMotion: "no-preference" });
      const other = await openShop(moving);
      assert.equal(await animation(other), "cac-pulse");
      await moving.close();
      await context.close();
    },
  );

  test("no console errors on the shop's page", () => {
    assert.deepEqual(consoleErrors, []);
  });
});
