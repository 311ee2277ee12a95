// Support for the end-to-end suites in a real headless Chromium (Debian `chromium`, driven by
// playwright-core): the suite guard (skipped with the reason without the browser binary, failing
// in CI), the browser launch, apps listening on loopback, static "shop" pages on another origin,
// console-error collection, seeded products with real embeddings, and screenshots under
// test-results/ (gitignored). CHROMIUM_PATH overrides /usr/bin/chromium.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import type { App } from "../../src/platform/http/app.js";
import type { Metadata } from "../../src/search/products/service.js";
import type { TestApp } from "./harness.js";
import { closeServer, listen, solidImage, type ImageHost, type Started } from "./servers.js";
import { testEnv } from "./env.js";

export const CHROMIUM = testEnv.chromiumPath;
export const SHOTS = path.resolve("test-results");

/** Declares a browser suite; without the Chromium binary it is skipped with the reason (fails in CI). */
export function describeInChromium(name: string, fn: () => void): void {
  if (fs.existsSync(CHROMIUM)) {
    describe(name, fn);
  } else if (testEnv.ci) {
    test(name, () => {
      throw new Error(`CI run without a Chromium binary at ${CHROMIUM}: install Debian's chromium (.ci/run does) or set CHROMIUM_PATH`);
    });
  } else {
    describe(name, { skip: `no Chromium at ${CHROMIUM} (install Debian's chromium or set CHROMIUM_PATH)` }, () => {});
  }
}

/** Headless Chromium; also makes the screenshot folder. */
export async function launchChromium(): Promise<Browser> {
  fs.mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

/** A full-page screenshot at test-results/<name>.png. */
/** Fills the portal's sign-in form on `page` (already showing it) and submits it. */
export async function signIn(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.getByLabel("E-mail").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export const screenshot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

/** Makes `app` listen on loopback (a free port unless given); resolves with its base URL. */
export async function listenOnLoopback(app: App, port = 0): Promise<string> {
  await app.listen({ port, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/**
 * A static site on loopback: `page(path, query)` is the HTML of a path, or undefined for 404.
 * `host: "localhost"` names it by another host than the APIs' 127.0.0.1 (another origin whatever the port).
 */
export async function servePages(
  page: (path: string, query: URLSearchParams) => string | undefined,
  options: { host?: "127.0.0.1" | "localhost" } = {},
): Promise<Started> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    const html = page(url.pathname, url.searchParams);
    if (html === undefined) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  });
  const url = await listen(server, options.host);
  return { url, close: () => closeServer(server) };
}

/**
 * Collects the page's console errors into `into`; with `pageErrors`, uncaught script errors too.
 * `ignore` drops lines expected on purpose (e.g. Chromium's "Failed to load resource" for refused calls).
 */
export function recordConsoleErrors(
  page: Page,
  into: string[],
  options: { ignore?: (text: string) => boolean; pageErrors?: boolean } = {},
): void {
  page.on("console", (m) => {
    if (m.type() === "error" && !options.ignore?.(m.text())) into.push(m.text());
  });
  if (options.pageErrors) page.on("pageerror", (e) => into.push(String(e)));
}

export interface SolidProduct {
  id: string;
  hex: string;
  metadata: Metadata;
}

/**
 * Indexes each product with a noisy solid-colour image (seed = position + 1, 160 px) hosted on
 * `images` at /<id>.png and embedded by the app's model, as POST /v1/products would store it.
 */
export async function seedSolidProducts(t: TestApp, images: ImageHost, storeId: string, products: readonly SolidProduct[]): Promise<void> {
  const service = t.services.products;
  for (const [i, p] of products.entries()) {
    const png = await solidImage(p.hex, { seed: i + 1, size: 160 });
    const image = await t.ctx.images.fromBytes(png);
    const [vector] = await t.ctx.images.embed([image.decoded]);
    await service.write(storeId, {
      productId: p.id,
      imageUrl: images.put(`/${p.id}.png`, png),
      metadata: p.metadata,
      embedded: { image, vector: vector! },
    });
  }
}
