// The store's vocabulary for the assistant's policy answers (GET/PUT /v1/admin/settings/vocabulary)
// on the portal's Assistant page, in a real headless Chromium (Debian `chromium`, driven by
// playwright-core): a store owner signs in, opens the Assistant section, sees the empty vocabulary,
// meets a one-word synonym group named before anything is sent, saves a synonym group, scope words
// (one in capitals, saved in lower case) and a product word, sees them again after a reload and
// through the API, then submits a scope word that is nothing but a stop word: the API's refusal is
// shown with the field it names, the form keeps what was typed, and nothing changed on the server.
// A second store's owner still sees an empty vocabulary. Screenshots go to test-results/vocabulary-*.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createTestApp, type TestApp } from "../support/harness.js";
import { bearer, loginToken, registerStore, type RegisteredStore } from "../support/factories.js";
import { freePort } from "../support/process.js";
import { describeInChromium, launchChromium, listenOnLoopback, recordConsoleErrors, screenshot, signIn } from "../support/browser.js";
import { ensurePortalBuilt } from "../../src/search/portal/build.js";

interface VocabularyView {
  synonyms: string[][];
  scope_words: string[];
  product_words: string[];
  updated_at: string | null;
  correlation_id: string;
}

describeInChromium("the assistant's vocabulary in the portal, in headless Chromium", () => {
  let t: TestApp;
  let browser: Browser;
  let apiBase: string;
  let store: RegisteredStore;
  let other: RegisteredStore;
  const pageErrors: string[] = [];

  before(async () => {
    await ensurePortalBuilt();
    const [port, chatPort] = [await freePort(), await freePort()];
    apiBase = `http://127.0.0.1:${port}`;
    const chatBase = `http://127.0.0.1:${chatPort}`;
    t = await createTestApp({ model: true, env: { PUBLIC_BASE_URL: apiBase, CHAT_PUBLIC_BASE_URL: chatBase, BILLING_MODE: "off" } });
    assert.equal(await listenOnLoopback(t.search, port), apiBase);
    assert.equal(await listenOnLoopback(t.assistant, chatPort), chatBase);
    store = await registerStore(t, { name: "Vocabulary Beds" });
    other = await registerStore(t, { name: "Other Beds" });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string) => screenshot(page, `vocabulary-${name}`);
  /** The store's vocabulary as its owner reads it from the Assistant API. */
  const vocabularyOf = async (s: RegisteredStore): Promise<VocabularyView> => {
    const res = await t.assistant.inject({
      method: "GET",
      url: "/v1/admin/settings/vocabulary",
      headers: { ...bearer(await loginToken(t.search, s.email, s.password)), "x-service-active-tenant": s.slug },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as VocabularyView;
  };
  const listsOf = ({ synonyms, scope_words, product_words }: VocabularyView) => ({ synonyms, scope_words, product_words });

  test(
    "save the vocabulary, see it after a reload, keep the form on a refusal; another store is untouched",
    { timeout: 180_000 },
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      recordConsoleErrors(page, pageErrors, { pageErrors: true, ignore: (text) => text.startsWith("Failed to load resource") });

      await page.goto(`${apiBase}/portal/login`);
      await signIn(page, store);
      await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
      await page.getByRole("navigation", { name: "Store sections" }).getByRole("link", { name: "Assistant", exact: true }).click();
      await page.getByRole("heading", { level: 1, name: "Assistant" }).waitFor();
      await page.getByRole("heading", { level: 2, name: "Vocabulary" }).waitFor();

      // Never saved: the form shows once the (empty) vocabulary is loaded.
      const synonyms = page.getByLabel("Synonym groups");
      const scope = page.getByLabel("Scope words");
      const product = page.getByLabel("Product words");
      await synonyms.waitFor();
      assert.equal(await synonyms.inputValue(), "");
      assert.equal(await scope.inputValue(), "");
      assert.equal(await product.inputValue(), "");
      await page.getByText("Not saved yet").waitFor();
      assert.equal(await page.locator(".notice.error").count(), 0, String(await page.locator(".notice.error").allTextContents()));

      // A synonym group of one word is named before anything is sent.
      await synonyms.fill("member");
      await page.getByRole("button", { name: "Save vocabulary" }).click();
      await page
        .getByRole("alert")
        .filter({ hasText: /synonyms\[0\].*needs at least 2 words/ })
        .waitFor();
      assert.equal((await vocabularyOf(store)).updated_at, null, "nothing was sent");

      await synonyms.fill("Member, Elite");
      await scope.fill("ELITE, alaska");
      await product.fill("mattress");
      await shot(page, "01-filled");
      await page.getByRole("button", { name: "Save vocabulary" }).click();
      await page.getByRole("status").filter({ hasText: "Vocabulary saved" }).waitFor();
      assert.equal(await page.locator(".notice.error").count(), 0, "the earlier mistake's notice is gone");
      // The form shows what was saved: lower-cased.
      assert.equal(await synonyms.inputValue(), "member, elite");
      assert.equal(await scope.inputValue(), "elite, alaska");
      assert.equal(await product.inputValue(), "mattress");
      await page.getByText(/Last saved/).waitFor();
      await shot(page, "02-saved");

      // Reloaded, the page shows the saved vocabulary.
      await page.reload();
      await page.getByRole("heading", { level: 1, name: "Assistant" }).waitFor();
      await synonyms.waitFor();
      assert.equal(await synonyms.inputValue(), "member, elite");
      assert.equal(await scope.inputValue(), "elite, alaska");
      assert.equal(await product.inputValue(), "mattress");

      const saved = await vocabularyOf(store);
      assert.deepEqual(listsOf(saved), { synonyms: [["member", "elite"]], scope_words: ["elite", "alaska"], product_words: ["mattress"] });
      assert.ok(saved.updated_at, "saved: it has a time");

      // A scope word that is nothing but a stop word ("in", in English and German alike) is refused
      // by the API, which names it; the form keeps what was typed and the server keeps the old list.
      await scope.fill("elite, in");
      await page.getByRole("button", { name: "Save vocabulary" }).click();
      const refusal = page.getByRole("alert").filter({ hasText: /scope_words\[1\].*only stop words or punctuation/ });
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? "", /Some fields need fixing/);
      assert.equal(await page.getByRole("status").filter({ hasText: "Vocabulary saved" }).count(), 0);
      assert.equal(await scope.inputValue(), "elite, in");
      assert.equal(await synonyms.inputValue(), "member, elite");
      await shot(page, "03-refused");
      const after400 = await vocabularyOf(store);
      assert.deepEqual(listsOf(after400), listsOf(saved));
      assert.equal(after400.updated_at, saved.updated_at, "nothing changed on the server");

      // Another store's owner sees nothing of it.
      const others = await vocabularyOf(other);
      assert.deepEqual(listsOf(others), { synonyms: [], scope_words: [], product_words: [] });
      assert.equal(others.updated_at, null);

      assert.deepEqual(pageErrors, []);
      await context.close();
    },
  );
});
