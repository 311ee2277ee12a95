// The drop-in widget in a real headless Chromium (Debian `chromium`, driven by playwright-core):
// the Search API listens on a loopback port with the tiny model and a few coloured products; a
// static "shop" on another port loads <script src="{api}/widget.js"> and mounts the widget with a
// public key minted for the shop's origin. The shopper searches by text (keyboard only), opens a
// result, adds one to the cart, searches with a photo, and on a checkout page the shop reports a
// purchase with ServiceWidget.trackPurchase; the analytics endpoint then shows the attributed
// revenue. The same page served from another origin gets 403 and the widget says search is
// unavailable. Type-ahead (a second store whose owner set its currency to EUR, on a shop page that
// names no currency): the search box is an ARIA combobox driven by the keyboard and the mouse,
// debounced (the page's clock is Playwright's), one suggestions request at a time with stale
// answers dropped, and prices in the store's currency. Screenshots go to test-results/ (gitignored).
//
// Without the browser binary the suite is skipped with the reason, except in CI (CI=true), where
// it fails. CHROMIUM_PATH overrides /usr/bin/chromium.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { bearer, loginToken, machineToken, registerStore, type RegisteredStore } from "../support/factories.js";
import { solidImage, startImageHost, type ImageHost, type Started } from "../support/servers.js";
import {
  describeInChromium,
  launchChromium,
  listenOnLoopback,
  recordConsoleErrors,
  screenshot,
  seedSolidProducts,
  servePages,
} from "../support/browser.js";
import { historyWriter } from "../../src/search/query/history-writer.js";

const CATALOGUE = [
  { id: "red-dress", hex: "#d01010", name: "Red Dress", price: 80 },
  { id: "blue-jeans", hex: "#1030c0", name: "Blue Jeans", price: 60 },
  { id: "green-dress", hex: "#10a030", name: "Green Dress", price: 95 },
  { id: "yellow-top", hex: "#e8d010", name: "Yellow Top", price: 25, currency: "GBP" },
] as const;

function shopPage(apiBase: string, key: string, body: "search" | "checkout"): string {
  const setup =
    body === "search"
      ? `var el = document.getElementById("search");
         var cart = 0;
         window.shopEvents = [];
         el.addEventListener("servicewidget:select", function (e) { window.shopEvents.push(["select", e.detail.product_id, e.detail.search_id]); });
         el.addEventListener("servicewidget:addtocart", function (e) {
           cart += e.detail.quantity;
           window.shopEvents.push(["cart", e.detail.product_id, e.detail.search_id]);
           document.getElementById("cart").textContent = "Cart: " + cart;
         });
         ServiceWidget.mount(el, { key: ${JSON.stringify(key)}, currency: "EUR", limit: 4 });`
      : `ServiceWidget.configure({ key: ${JSON.stringify(key)} });`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Test shop</title></head>
<body>
  <main>
    <h1>Test shop</h1>
    ${body === "search" ? '<div id="search"></div><p id="cart">Cart: 0</p>' : "<p>Thank you for your order.</p>"}
  </main>
  <script src="${apiBase}/widget.js"></script>
  <script>${setup}</script>
</body>
</html>`;
}

/**
 * A shop page for the type-ahead test: no currency option (the store's applies), US English, and
 * a fetch wrapper that counts the widget's suggestions requests, notes how many are in flight at
 * once, and holds each one until the test releases it while `window.holdSuggestions` is true.
 */
function typeaheadShopPage(apiBase: string, key: string): string {
  return `<!doctype html>
<html lang="en-US">
<head><meta charset="utf-8"><title>Type-ahead shop</title></head>
<body>
  <main>
    <h1>Type-ahead shop</h1>
    <div id="search"></div>
  </main>
  <script>
    window.suggestCalls = [];
    window.maxInFlight = 0;
    window.holdSuggestions = true;
    window.held = [];
    var inFlight = 0;
    var realFetch = window.fetch.bind(window);
    window.fetch = function (url, init) {
      var u = new URL(String(url), location.href);
      if (u.pathname !== "/v1/widget/search/suggestions") return realFetch(url, init);
      window.suggestCalls.push(u.searchParams.get("q"));
      inFlight += 1;
      window.maxInFlight = Math.max(window.maxInFlight, inFlight);
      var gate = window.holdSuggestions ? new Promise(function (release) { window.held.push(release); }) : Promise.resolve();
      return gate.then(function () { return realFetch(url, init); }).finally(function () { inFlight -= 1; });
    };
  </script>
  <script src="${apiBase}/widget.js"></script>
  <script>ServiceWidget.mount(document.getElementById("search"), { key: ${JSON.stringify(key)}, limit: 4 });</script>
</body>
</html>`;
}

const SUITE = "widget end to end in headless Chromium";
describeInChromium(SUITE, () => {
  let t: TestApp;
  let images: ImageHost;
  let browser: Browser;
  let store: RegisteredStore;
  let token: string;
  let apiBase: string;
  let key = "";
  let shop: Started;
  let elsewhere: Started;
  let bluePng: Buffer;
  const consoleErrors: string[] = [];

  before(async () => {
    t = await createTestApp({ model: true });
    apiBase = await listenOnLoopback(t.search);
    images = await startImageHost();
    store = await registerStore(t);
    await seedSolidProducts(
      t,
      images,
      store.clientId,
      CATALOGUE.map((p) => ({
        id: p.id,
        hex: p.hex,
        metadata: { name: p.name, price: p.price, category: "clothes", ...("currency" in p ? { currency: p.currency } : {}) },
      })),
    );
    // The photo search's picture: the jeans' colour with other noise than the indexed image.
    bluePng = await solidImage(CATALOGUE.find((p) => p.id === "blue-jeans")!.hex, { seed: 99, size: 160 });
    token = await machineToken(t.search, store);
    // The shops exist before the key: the key is minted for the shop's exact origin (its port).
    shop = await servePages((p) =>
      p === "/" ? shopPage(apiBase, key, "search") : p === "/checkout" ? shopPage(apiBase, key, "checkout") : undefined,
    );
    elsewhere = await servePages((p) => (p === "/" ? shopPage(apiBase, key, "search") : undefined));
    const minted = await fetch(`${apiBase}/v1/widget/keys`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ name: "e2e shop", allowed_origins: [shop.url] }),
    });
    assert.equal(minted.status, 201, await minted.clone().text());
    key = ((await minted.json()) as { key: string }).key;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await shop?.close();
    await elsewhere?.close();
    await images?.close();
    await t?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    recordConsoleErrors(page, consoleErrors, { pageErrors: true });
    return page;
  }

  const isWidgetCall = (suffix: string) => (r: { url(): string; request(): { method(): string } }) =>
    r.url() === `${apiBase}/v1/widget/search/${suffix}` && r.request().method() === "POST";

  test(
    "a shopper on the allowed origin searches, opens a result, adds to cart; the purchase shows as attributed revenue",
    { timeout: 120_000 },
    async () => {
      const page = await newPage();
      await page.goto(shop.url);
      await page.waitForFunction(() => typeof (window as any).ServiceWidget?.mount === "function");

      // Text search with the keyboard only: type into the labelled box, press Enter.
      const box = page.getByLabel("Search products");
      await box.focus();
      await page.keyboard.type("red dress");
      const [searchResponse] = await Promise.all([page.waitForResponse(isWidgetCall("text")), page.keyboard.press("Enter")]);
      assert.equal(searchResponse.status(), 200);
      const search = (await searchResponse.json()) as { search_id: string; results: { product_id: string }[] };
      assert.equal(search.results[0]!.product_id, "red-dress");
      await page.getByRole("status").filter({ hasText: "products found" }).waitFor();
      const results = page.getByRole("list", { name: "Results" }).getByRole("listitem");
      assert.equal(await results.count(), 4);
      assert.equal(await results.first().locator(".ssw-name").textContent(), "Red Dress");
      assert.match((await results.first().textContent()) ?? "", /€\s?80\.00|80\.00\s?€/);
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("type")), "search", "focus stays in the search box");
      await screenshot(page, "widget-1-results");

      // Open the first result with the keyboard: the click is reported with the search_id.
      const openFirst = results.first().getByRole("button", { name: "Red Dress", exact: true });
      await openFirst.focus();
      const [clickReport] = await Promise.all([page.waitForResponse(isWidgetCall("feedback")), page.keyboard.press("Enter")]);
      assert.equal(clickReport.status(), 201, await clickReport.text());
      const click = await clickReport.json();
      assert.equal(click.action, "click");
      assert.equal(click.search_id, search.search_id);
      assert.equal(click.result_rank, 1);

      // Add to cart with the mouse: reported, and the shop's page hears the DOM event.
      const [cartReport] = await Promise.all([
        page.waitForResponse(isWidgetCall("feedback")),
        page.getByRole("button", { name: "Add Red Dress to cart" }).click(),
      ]);
      assert.equal(cartReport.status(), 201, await cartReport.text());
      assert.equal((await cartReport.json()).action, "add_to_cart");
      await page.getByText("Cart: 1").waitFor();
      await page.getByRole("status").filter({ hasText: "Added Red Dress to the cart." }).waitFor();
      assert.deepEqual(await page.evaluate(() => (window as any).shopEvents), [
        ["select", "red-dress", search.search_id],
        ["cart", "red-dress", search.search_id],
      ]);
      const sid = await page.evaluate(() => localStorage.getItem("service-sid"));
      assert.ok(sid && sid.length >= 16, `session id in localStorage: ${sid}`);
      assert.equal(click.session_id, sid);

      // Search with a photo: the file input is labelled; focus moves to the results heading.
      const [photoResponse] = await Promise.all([
        page.waitForResponse(isWidgetCall("upload")),
        page.getByLabel("Search with a photo").setInputFiles({ name: "jeans.png", mimeType: "image/png", buffer: bluePng }),
      ]);
      assert.equal(photoResponse.status(), 200, await photoResponse.text());
      const photoSearch = (await photoResponse.json()) as { search_id: string; results: { product_id: string }[] };
      assert.ok(
        photoSearch.results.some((r) => r.product_id === "red-dress") && photoSearch.results.some((r) => r.product_id === "green-dress"),
      );
      await page.getByRole("status").filter({ hasText: "found for your photo" }).waitFor();
      assert.equal(await results.first().locator(".ssw-name").textContent(), "Blue Jeans");
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), "H2", "focus moves to the results heading");
      await screenshot(page, "widget-2-photo-search");

      // The order page of the same shop reports purchases. The red dress is attributed to the text
      // search the shopper opened it from (the photo search showed it again, untouched); the green
      // dress, never touched, to the last search that showed it.
      await page.goto(`${shop.url}/checkout`);
      await page.waitForFunction(() => typeof (window as any).ServiceWidget?.trackPurchase === "function");
      const purchase = await page.evaluate(() =>
        (window as any).ServiceWidget.trackPurchase("red-dress", { order_value: 80, currency: "EUR", quantity: 1 }),
      );
      assert.equal(purchase.action, "purchase");
      assert.equal(purchase.search_id, search.search_id);
      assert.equal(purchase.attributed, true);
      assert.equal(purchase.session_id, sid);
      const green = await page.evaluate(() =>
        (window as any).ServiceWidget.trackPurchase("green-dress", { order_value: 95, currency: "EUR", quantity: 1 }),
      );
      assert.equal(green.search_id, photoSearch.search_id);
      const unattributed = await page.evaluate(() =>
        (window as any).ServiceWidget.trackPurchase("never-shown", { order_value: 5, currency: "EUR" }),
      );
      assert.equal(unattributed.attributed, false);

      const res = await fetch(`${apiBase}/v1/search/analytics?days=1`, { headers: bearer(token) });
      assert.equal(res.status, 200);
      const analytics = (await res.json()) as any;
      assert.deepEqual(analytics.searches.by_source, { api: 0, portal: 0, widget: 2 });
      assert.deepEqual(analytics.revenue, [
        { currency: "EUR", total: 180, attributed: 175, unattributed: 5, from_widget: 180, purchases: 3 },
      ]);
      assert.equal(analytics.events.clicks, 1);
      assert.equal(analytics.events.add_to_carts, 1);
      assert.equal(analytics.click_through_rate, 0.5, "one of the two searches got a click");
      assert.equal(analytics.add_to_cart_rate, 0.5);
      assert.equal(analytics.conversion_rate, 1, "both searches led to a purchase");
      assert.deepEqual(consoleErrors, [], "no console errors on the allowed origin");
      await page.context().close();
    },
  );

  test("no good matches is said as such; a typo offers its correction; each price shows its currency", { timeout: 60_000 }, async () => {
    const page = await newPage();
    await page.goto(shop.url);
    await page.waitForFunction(() => typeof (window as any).ServiceWidget?.mount === "function");
    const box = page.getByLabel("Search products");
    const results = page.getByRole("list", { name: /Results|No good matches/ }).getByRole("listitem");

    // Every product costs more than 10: the understood price bound leaves nothing.
    await box.fill("dress under 10");
    const [none] = await Promise.all([page.waitForResponse(isWidgetCall("text")), box.press("Enter")]);
    assert.equal((await none.json()).count, 0);
    await page.getByRole("heading", { name: "No good matches" }).waitFor();
    await page.getByRole("status").filter({ hasText: "No good matches for “dress under 10”." }).waitFor();
    assert.equal(await results.count(), 0);
    await screenshot(page, "widget-4-no-good-matches");

    // A typo: the corrected words' product first, and the correction offered as a button.
    await box.fill("yelow top");
    const [typo] = await Promise.all([page.waitForResponse(isWidgetCall("text")), box.press("Enter")]);
    const typoBody = (await typo.json()) as { did_you_mean?: string; results: { product_id: string }[] };
    assert.equal(typoBody.did_you_mean, "yellow top");
    assert.equal(typoBody.results[0]!.product_id, "yellow-top");
    const suggestion = page.getByRole("button", { name: "yellow top", exact: true });
    await suggestion.waitFor();
    // The product's own currency (GBP) beside the page's default (EUR) for the others.
    assert.match((await results.first().textContent()) ?? "", /£\s?25\.00|25\.00\s?£/);
    await screenshot(page, "widget-5-did-you-mean");
    const [corrected] = await Promise.all([page.waitForResponse(isWidgetCall("text")), suggestion.click()]);
    assert.equal(((await corrected.json()) as { results: { product_id: string }[] }).results[0]!.product_id, "yellow-top");
    assert.equal(await box.inputValue(), "yellow top");
    await page.getByRole("status").filter({ hasText: "found for “yellow top”" }).waitFor();
    assert.equal(await page.getByRole("button", { name: "yellow top", exact: true }).count(), 0, "no correction of a correct query");
    await page.context().close();
  });

  test(
    "type-ahead: an ARIA combobox, debounced, one request at a time, stale answers dropped; prices in the store's currency",
    { timeout: 120_000 },
    async () => {
      // A second store: EUR set in its Assistant settings; "red dress" searched three times by its backend.
      const second = await registerStore(t);
      await seedSolidProducts(t, images, second.clientId, [
        { id: "red-dress", hex: "#d01010", metadata: { name: "Red Dress", price: 47.4 } },
        { id: "red-scarf", hex: "#c01818", metadata: { name: "Red Scarf", price: 19.9 } },
        { id: "red-denim", hex: "#b01020", metadata: { name: "Red Denim Jacket", price: 89 } },
        { id: "yellow-top", hex: "#e8d010", metadata: { name: "Yellow Top", price: 25, currency: "GBP" } },
      ]);
      const owner = await loginToken(t.search, second.email, second.password);
      const settings = await t.assistant.inject({
        method: "PUT",
        url: "/v1/admin/settings",
        headers: bearer(owner),
        payload: { currency: "EUR", support_contact: null },
      });
      assert.equal(settings.statusCode, 200, settings.body);
      const backend = await machineToken(t.search, second);
      for (let i = 0; i < 3; i++) {
        const res = await t.search.inject({
          method: "POST",
          url: "/v1/search/text",
          headers: bearer(backend),
          payload: { query: "red dress" },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      await historyWriter(t.ctx).flush();
      let secondKey = "";
      const secondShop = await servePages((p) => (p === "/" ? typeaheadShopPage(apiBase, secondKey) : undefined));
      try {
        const minted = await fetch(`${apiBase}/v1/widget/keys`, {
          method: "POST",
          headers: { ...bearer(backend), "content-type": "application/json" },
          body: JSON.stringify({ name: "type-ahead shop", allowed_origins: [secondShop.url] }),
        });
        assert.equal(minted.status, 201, await minted.clone().text());
        secondKey = ((await minted.json()) as { key: string }).key;

        const page = await newPage();
        await page.clock.install();
        await page.goto(secondShop.url);
        await page.waitForFunction(() => typeof (window as any).ServiceWidget?.mount === "function");
        // Time stands still from here but for runFor (an installed clock otherwise also ticks with real
        // time, and a loaded machine lets the debounce run out between two keys).
        await page.clock.pauseAt(Date.now() + 1000);
        const box = page.getByRole("combobox", { name: "Search products" });
        const listbox = page.getByRole("listbox", { name: "Suggestions", includeHidden: true });
        const calls = () => page.evaluate(() => (window as any).suggestCalls as string[]);
        const attr = (name: string) => box.getAttribute(name);
        const listboxId = await listbox.getAttribute("id");
        assert.ok(listboxId);
        assert.equal(await attr("aria-controls"), listboxId);
        assert.equal(await attr("aria-expanded"), "false");
        assert.equal(await attr("aria-autocomplete"), "list");

        // Debounced: nothing is asked while the shopper keeps typing; 150 ms after the last key, one request.
        await box.focus();
        await page.keyboard.type("re");
        await page.clock.runFor(100);
        await page.keyboard.type("d");
        await page.clock.runFor(100);
        assert.deepEqual(await calls(), [], "no request while typing");
        await page.clock.runFor(50);
        assert.deepEqual(await calls(), ["red"]);

        // The answer for "red" is still out (held) when the shopper types on: no second request...
        await page.keyboard.type(" d");
        await page.clock.runFor(200);
        assert.deepEqual(await calls(), ["red"], "never two requests at once");
        // ...until it comes back; it is then stale ("red" ≠ "red d") and dropped, and "red d" is asked.
        await page.evaluate(() => (window as any).held.shift()());
        // The next request is made once the answer for "red" was handled (and is held in turn).
        await page.waitForFunction(() => (window as any).suggestCalls.length === 2);
        assert.equal(await listbox.isHidden(), true, "the stale answer for “red” is not shown");
        assert.deepEqual(await calls(), ["red", "red d"]);
        await page.evaluate(() => {
          (window as any).holdSuggestions = false;
          (window as any).held.shift()();
        });
        await listbox.waitFor();
        const options = listbox.getByRole("option");
        // The popular search; product names only from a last word of two characters.
        assert.deepEqual(await options.allTextContents(), ["red dress"]);
        assert.equal(await attr("aria-expanded"), "true");

        // Backspace: "red " is asked: the popular search first, then product names (the Red Dress
        // product is not offered twice).
        await page.keyboard.press("Backspace");
        await page.clock.runFor(150);
        await options.nth(1).waitFor();
        assert.deepEqual(await options.allTextContents(), ["red dress", "Red Scarf", "Red Denim Jacket"]);
        assert.equal(await attr("aria-activedescendant"), null, "nothing highlighted before the arrow keys");

        // ArrowDown / ArrowUp move the highlight (wrapping); aria-activedescendant follows it.
        await page.keyboard.press("ArrowDown");
        assert.equal(await attr("aria-activedescendant"), await options.nth(0).getAttribute("id"));
        assert.equal(await options.nth(0).getAttribute("aria-selected"), "true");
        await page.keyboard.press("ArrowDown");
        assert.equal(await attr("aria-activedescendant"), await options.nth(1).getAttribute("id"));
        assert.equal(await options.nth(0).getAttribute("aria-selected"), "false");
        await page.keyboard.press("ArrowDown");
        await page.keyboard.press("ArrowDown");
        assert.equal(await attr("aria-activedescendant"), await options.nth(0).getAttribute("id"), "wraps to the first");
        await page.keyboard.press("ArrowUp");
        assert.equal(await attr("aria-activedescendant"), await options.nth(2).getAttribute("id"), "wraps to the last");
        await screenshot(page, "widget-6-typeahead");

        // Escape closes the list and keeps what was typed.
        await page.keyboard.press("Escape");
        assert.equal(await listbox.isHidden(), true);
        assert.equal(await attr("aria-expanded"), "false");
        assert.equal(await attr("aria-activedescendant"), null);
        assert.equal(await box.inputValue(), "red ");

        // Typing on: "red sc"; Enter on the highlighted suggestion searches it.
        await page.keyboard.type("sc");
        await page.clock.runFor(150);
        await listbox.waitFor();
        assert.deepEqual(await options.allTextContents(), ["Red Scarf"]);
        await page.keyboard.press("ArrowDown");
        const [picked] = await Promise.all([page.waitForResponse(isWidgetCall("text")), page.keyboard.press("Enter")]);
        assert.equal(JSON.parse(picked.request().postData() ?? "{}").query, "Red Scarf");
        const pickedBody = (await picked.json()) as { currency: string; results: { product_id: string }[] };
        assert.equal(pickedBody.currency, "EUR", "the answer carries the store's currency");
        assert.equal(pickedBody.results[0]!.product_id, "red-scarf");
        assert.equal(await box.inputValue(), "Red Scarf");
        assert.equal(await listbox.isHidden(), true, "a search closes the list");
        assert.equal(await attr("aria-expanded"), "false");
        await page.getByRole("status").filter({ hasText: "found for “Red Scarf”" }).waitFor();
        const results = page.getByRole("list", { name: "Results" }).getByRole("listitem");
        // No currency option on this page: the store's EUR, formatted for the page's en-US.
        assert.equal(await results.first().locator(".ssw-price").textContent(), "€19.90");
        await screenshot(page, "widget-7-store-currency");

        // A click elsewhere on the page closes the list; so does leaving the box with Tab.
        await box.fill("red ");
        await listbox.waitFor(); // "red " was answered before: shown at once
        await page.getByRole("heading", { name: "Type-ahead shop" }).click();
        assert.equal(await listbox.isHidden(), true, "closed by a click outside");
        await box.focus();
        await page.keyboard.press("ArrowDown");
        await listbox.waitFor();
        await page.keyboard.press("Tab");
        assert.equal(await listbox.isHidden(), true, "closed on blur");

        // A suggestion picked with the mouse searches it.
        await box.fill("re");
        await page.clock.runFor(150);
        await listbox.waitFor();
        const [clicked] = await Promise.all([
          page.waitForResponse(isWidgetCall("text")),
          listbox.getByRole("option", { name: "Red Denim Jacket" }).click(),
        ]);
        assert.equal(JSON.parse(clicked.request().postData() ?? "{}").query, "Red Denim Jacket");
        await page.getByRole("status").filter({ hasText: "found for “Red Denim Jacket”" }).waitFor();
        assert.equal(await box.inputValue(), "Red Denim Jacket");
        assert.equal(await results.first().locator(".ssw-price").textContent(), "€89.00");
        // One request per pause in typing; "red " was answered from the widget's memory the second time.
        assert.deepEqual(await calls(), ["red", "red d", "red ", "red sc", "re"]);
        assert.equal(await page.evaluate(() => (window as any).maxInFlight), 1, "never more than one request in flight");
        assert.deepEqual(consoleErrors, [], "no console errors");
        await page.context().close();
      } finally {
        await secondShop.close();
      }
    },
  );

  test("the same page on another origin gets 403 and the widget says search is unavailable", { timeout: 60_000 }, async () => {
    await historyWriter(t.ctx).flush(); // history rows are written after the reply
    const before = await t.ctx.database.db.selectFrom("search_history").select("id").where("store_id", "=", store.clientId).execute();
    const page = await newPage();
    // The browser hides a refused cross-origin answer from the page (and Playwright reports only a
    // failed request), so the status is read from Chromium's network events (DevTools protocol).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    const sent = new Map<string, string>();
    const seen: { what: string; status: number; headers: Record<string, string> }[] = [];
    let sawPost: () => void = () => {};
    const postSeen = new Promise<void>((resolve) => (sawPost = resolve));
    // DevTools may report a response's extra info before the request it answers: each is kept
    // until the other arrives.
    const answered = new Map<string, { status: number; headers: Record<string, string> }>();
    const pair = (id: string) => {
      const what = sent.get(id);
      const answer = answered.get(id);
      if (what === undefined || answer === undefined) return;
      answered.delete(id);
      seen.push({ what, ...answer });
      if (what === `POST ${apiBase}/v1/widget/search/text`) sawPost();
    };
    cdp.on("Network.requestWillBeSent", (e) => {
      sent.set(e.requestId, `${e.request.method} ${e.request.url}`);
      pair(e.requestId);
    });
    cdp.on("Network.responseReceivedExtraInfo", (e) => {
      answered.set(e.requestId, {
        status: e.statusCode,
        headers: Object.fromEntries(Object.entries(e.headers).map(([k, v]) => [k.toLowerCase(), String(v)])),
      });
      pair(e.requestId);
    });
    await page.goto(elsewhere.url);
    await page.waitForFunction(() => typeof (window as any).ServiceWidget?.mount === "function");
    await page.getByLabel("Search products").fill("red dress");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await postSeen;
    const preflight = seen.find((r) => r.what === `OPTIONS ${apiBase}/v1/widget/search/text`);
    assert.equal(preflight?.status, 204, "the preflight is answered");
    const refused = seen.find((r) => r.what === `POST ${apiBase}/v1/widget/search/text`)!;
    assert.equal(refused.status, 403);
    assert.equal(refused.headers["access-control-allow-origin"], undefined, "no CORS grant for the other origin");
    const alert = page.getByRole("alert");
    await alert.filter({ hasText: "unavailable" }).waitFor();
    assert.equal(await page.getByRole("list", { name: "Results" }).getByRole("listitem").count(), 0);
    await screenshot(page, "widget-3-other-origin");
    // In the page, the refused answer is unreadable: fetch itself fails.
    const direct = await page.evaluate(
      async ([base, k]) => {
        try {
          const r = await fetch(`${base}/v1/widget/search/text`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-service-key": k! },
            body: JSON.stringify({ query: "red" }),
          });
          return `status ${r.status}`;
        } catch (e) {
          return `failed: ${(e as Error).name}`;
        }
      },
      [apiBase, key],
    );
    assert.equal(direct, "failed: TypeError");
    await historyWriter(t.ctx).flush(); // history rows are written after the reply
    const afterRows = await t.ctx.database.db.selectFrom("search_history").select("id").where("store_id", "=", store.clientId).execute();
    assert.equal(afterRows.length, before.length, "nothing was searched for the other origin");
    await page.context().close();
  });
});
