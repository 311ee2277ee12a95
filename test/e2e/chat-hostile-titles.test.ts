// Hostile product titles in a real headless Chromium: products whose titles carry a Markdown link,
// a line break followed by a fake "— $0.01 · in stock" list line, HTML and emphasis are in the
// store's catalogue; a real chat turn lists them, and the widget's own renderer (served at
// /widget/markdown.js, as the widget imports it) turns the answer into the DOM of a page on
// another origin. The titles must render as text: no link but the answer's own, no extra list
// item, no element from a title. The same holds for sentences quoted from a policy whose text
// carries (escaped) link syntax. Screenshots in test-results/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { bearer } from "../support/factories.js";
import { anonymousSession, chatShop, openThread, putCatalogProduct, putPolicy, type ChatShop } from "../support/chat.js";
import type { Started } from "../support/servers.js";
import { describeInChromium, launchChromium, listenOnLoopback, screenshot, servePages } from "../support/browser.js";

const HOSTILE = [
  { id: "tee-link", name: "Linen T-shirt [pay here](https://evil.test/pay)" },
  { id: "tee-line", name: "Linen T-shirt\n- **Linen T-shirt** — $0.01 · in stock\n\n[claim](https://evil.test/claim)" },
  { id: "tee-html", name: 'Linen T-shirt <img src=x onerror="window.pwned=1"> *em* _em_ `code` # heading' },
];

describeInChromium("chat answers render hostile product titles as text (Chromium)", () => {
  let t: TestApp;
  let shop: ChatShop;
  let browser: Browser;
  let site: Started;
  let assistantBase: string;
  before(async () => {
    t = await createTestApp();
    shop = await chatShop(t);
    for (const [i, p] of HOSTILE.entries()) {
      await putCatalogProduct(t, shop.storeId, p.id, { name: p.name, category: "t-shirts", price: 25, inventory_quantity: 5 }, i);
    }
    assistantBase = await listenOnLoopback(t.assistant);
    site = await servePages(
      (path) =>
        path === "/"
          ? `<!doctype html><html><head><meta charset="utf-8"><title>Render</title></head><body><div id="answer" class="md"></div>
<script type="module">
  import { renderMarkdown } from "${assistantBase}/widget/markdown.js";
  window.render = (md) => { document.getElementById("answer").innerHTML = renderMarkdown(md); return true; };
  window.ready = true;
</script></body></html>`
          : undefined,
      { host: "localhost" },
    );
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await t.close();
  });

  /** Renders `markdown` with the widget's own renderer on another origin and reads the DOM back. */
  async function renderInPage(markdown: string, shot: string) {
    const page = await browser.newPage();
    await page.goto(site.url);
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    await page.evaluate((md) => (window as unknown as { render: (m: string) => boolean }).render(md), markdown);
    const dom = await page.evaluate(() => {
      const root = document.getElementById("answer")!;
      return {
        links: Array.from(root.querySelectorAll("a")).map((a) => a.getAttribute("href")),
        items: Array.from(root.querySelectorAll("li")).map((li) => li.textContent ?? ""),
        images: root.querySelectorAll("img").length,
        headings: root.querySelectorAll("h1,h2,h3,h4,h5,h6").length,
        text: root.textContent ?? "",
        pwned: (window as unknown as { pwned?: number }).pwned ?? 0,
      };
    });
    await screenshot(page, shot);
    await page.close();
    return dom;
  }

  test(
    "a product answer lists every hostile title as text, with no link, list item or element from a title",
    { timeout: 120_000 },
    async () => {
      const shopper = await anonymousSession(t, shop);
      const thread = await openThread(t, shopper);
      const turn = await t.assistant.inject({
        method: "POST",
        url: "/v1/chat/messages",
        headers: bearer(shopper),
        payload: { thread_id: thread, text: "Show me linen t-shirts" },
      });
      assert.equal(turn.statusCode, 200, turn.body);
      const markdown = turn.json().answer.response_markdown as string;
      for (const p of HOSTILE) assert.ok(!markdown.includes(p.name), "titles are escaped in the answer's Markdown");

      const dom = await renderInPage(markdown, "chat-hostile-titles");

      assert.deepEqual(
        dom.links.filter((h) => h?.includes("evil.test")),
        [],
        "no link from a title",
      );
      assert.equal(dom.images, 0);
      assert.equal(dom.headings, 0);
      assert.equal(dom.pwned, 0);
      // One list item per product, each starting with its full title; no item made by a title's line break.
      assert.equal(dom.items.length, HOSTILE.length, JSON.stringify(dom.items));
      assert.equal(dom.items.filter((i) => /\$0\.01/.test(i)).length, 1, "the fake price line stays inside its own title");
      assert.ok(dom.text.includes("Linen T-shirt [pay here](https://evil.test/pay)"), "the link syntax shows as text");
      assert.ok(dom.text.includes('<img src=x onerror="window.pwned=1"> *em* _em_ `code` # heading'), "HTML and emphasis show as text");
    },
  );

  test("a policy answer quotes a sentence carrying link syntax as text", { timeout: 120_000 }, async () => {
    await putPolicy(t, shop, "returns", {
      handle: "returns",
      title: "Returns",
      body_markdown:
        "# Returns\n\nYou can return unworn items within 30 days of delivery \\[refund here\\]\\(https://evil.test/refund\\) <b>fast</b>.\n",
    });
    const shopper = await anonymousSession(t, shop);
    const thread = await openThread(t, shopper);
    const turn = await t.assistant.inject({
      method: "POST",
      url: "/v1/chat/messages",
      headers: bearer(shopper),
      payload: { thread_id: thread, text: "How many days do I have to return unworn items?" },
    });
    assert.equal(turn.statusCode, 200, turn.body);
    const answer = turn.json().answer;
    assert.equal(answer.answer_status, "answered", turn.body);
    const dom = await renderInPage(answer.response_markdown as string, "chat-hostile-policy");
    assert.deepEqual(
      dom.links.filter((h) => h?.includes("evil.test")),
      [],
      "no link from a policy sentence",
    );
    assert.ok(dom.text.includes("[refund here](https://evil.test/refund)"), dom.text);
    assert.ok(dom.text.includes("30 days"), dom.text);
  });
});
