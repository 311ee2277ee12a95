// Assistant test data, built through the public APIs: a store with a public key, policies,
// settings, shopper sessions (anonymous and exchanged), threads; catalogue products written
// straight into the Search API's table; plus an SSE reader over the widget's own parser.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import type { TestApp } from "./harness.js";
import { bearer, freshIp, loginToken, registerStore, type RegisteredStore } from "./factories.js";
import { createSseParser } from "../../web/chat/sse.js";
import { LexicalRepository } from "../../src/lexical/repository.js";
import { noteTextChange } from "../../src/lexical/changes.js";

export interface ChatShop {
  store: RegisteredStore;
  /** The store's id (client_id). */
  storeId: string;
  owner: string;
  publicKey: string;
}

/** A verified store (enterprise plan unless asked), its owner's dashboard session and a store public key. */
export async function chatShop(
  t: TestApp,
  plan: "free" | "basic" | "premium" | "enterprise" = "enterprise",
  name?: string,
): Promise<ChatShop> {
  const store = await registerStore(t, { plan, ...(name !== undefined ? { name } : {}) });
  const owner = await loginToken(t.search, store.email, store.password);
  const res = await t.assistant.inject({
    method: "POST",
    url: "/v1/admin/public-keys",
    headers: bearer(owner),
    payload: { name: "widget" },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { store, storeId: store.clientId, owner, publicKey: (res.json() as { key: string }).key };
}

/** An anonymous shopper session of the shop (locale "en"). */
export async function anonymousSession(t: TestApp, shop: ChatShop): Promise<string> {
  const res = await t.assistant.inject({
    method: "POST",
    url: "/v1/sessions/anonymous",
    remoteAddress: freshIp(),
    payload: { store_public_key: shop.publicKey, locale: "en" },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { session_token: string }).session_token;
}

const exchangeSecrets = new WeakMap<ChatShop, string>();

/** A signed-in customer session: the store's exchange secret signs an assertion for `customerId`. */
export async function customerSession(t: TestApp, shop: ChatShop, customerId: string): Promise<string> {
  let secret = exchangeSecrets.get(shop);
  if (!secret) {
    const res = await t.assistant.inject({
      method: "POST",
      url: "/v1/admin/exchange-secret",
      headers: bearer(shop.owner),
      payload: { reason: "chat tests" },
    });
    assert.equal(res.statusCode, 201, res.body);
    secret = (res.json() as { secret: string }).secret;
    exchangeSecrets.set(shop, secret);
  }
  const now = Math.floor(t.ctx.clock.now() / 1000);
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(shop.storeId)
    .setAudience("shopsight-assistant")
    .setSubject(customerId)
    .setJti(randomBytes(8).toString("hex"))
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .sign(new TextEncoder().encode(secret));
  const res = await t.assistant.inject({ method: "POST", url: "/v1/sessions/exchange", remoteAddress: freshIp(), payload: { assertion } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { session_token: string }).session_token;
}

export async function openThread(t: TestApp, token: string): Promise<string> {
  const res = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: bearer(token), payload: { locale: "en" } });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { thread_id: string }).thread_id;
}

/** One message in a new anonymous session and thread of the shop: the body of its 200 reply. */
export async function askInNewThread<T>(t: TestApp, shop: ChatShop, text: string): Promise<T> {
  const token = await anonymousSession(t, shop);
  const res = await t.assistant.inject({
    method: "POST",
    url: "/v1/chat/messages",
    headers: bearer(token),
    payload: { thread_id: await openThread(t, token), text },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as T;
}

export interface PolicyInput {
  handle: string;
  title: string;
  body_markdown: string;
  locale?: string;
  published?: boolean;
}

export async function putPolicy(t: TestApp, shop: ChatShop, conceptId: string, p: PolicyInput): Promise<void> {
  const res = await t.assistant.inject({
    method: "PUT",
    url: `/v1/admin/policies/${conceptId}`,
    headers: bearer(shop.owner),
    payload: { locale: "en", published: true, ...p },
  });
  assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
}

/**
 * A new shop whose published policies disagree on one subject: the return page says 30 days, its
 * FAQ 100 (a conflict every route of a policy question must report).
 */
export async function conflictingReturnsShop(t: TestApp): Promise<ChatShop> {
  const shop = await chatShop(t);
  await putSettings(t, shop, { currency: "EUR", support_contact: { email: "help@conflicting.example" } });
  await putPolicy(t, shop, "returns", { handle: "returns", title: "Returns", body_markdown: "# Returns\n\nThe return period is 30 days." });
  await putPolicy(t, shop, "faq", {
    handle: "faq",
    title: "FAQ",
    body_markdown: "# FAQ\n\n**How long can I return items?** You can return items within 100 days.",
  });
  return shop;
}

export async function putSettings(
  t: TestApp,
  shop: ChatShop,
  settings: { currency: string; support_contact: Record<string, string> | null },
): Promise<void> {
  const res = await t.assistant.inject({ method: "PUT", url: "/v1/admin/settings", headers: bearer(shop.owner), payload: settings });
  assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
}

/**
 * Puts a product straight into the store's Search API catalogue table (no image download, no
 * model), as indexing would have stored it: the columns the catalogue reads plus metadata, and its
 * words in the lexical index (text search reads them).
 */
export async function putCatalogProduct(
  t: TestApp,
  storeId: string,
  productId: string,
  metadata: Record<string, unknown>,
  at = 0,
): Promise<void> {
  const now = Date.parse("2026-01-01T00:00:00Z") + at;
  const str = (k: string) => (typeof metadata[k] === "string" ? (metadata[k] as string) : null);
  const row = {
    store_id: storeId,
    product_id: productId,
    vector_id: `vec-${productId}`,
    image_url: `https://img.example/${productId}.png`,
    image_sha256: "0".repeat(64),
    name: str("name"),
    category: str("category"),
    brand: str("brand"),
    price: typeof metadata.price === "number" ? metadata.price : null,
    color_name: str("color_name"),
    metadata: JSON.stringify(metadata),
    dominant_colors: "[]",
    model: "test",
    created_at: now,
    updated_at: now,
  };
  await t.ctx.database.db
    .insertInto("products")
    .values(row)
    .onConflict((oc) => oc.columns(["store_id", "product_id"]).doUpdateSet({ ...row }))
    .execute();
  await new LexicalRepository(t.ctx.database.db, t.ctx.database.dialect).upsert(storeId, productId, metadata);
  noteTextChange(storeId);
}

export interface SseEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/**
 * Parses a whole text/event-stream body with the chat widget's parser (web/chat/sse.js): comment
 * and retry lines skipped, an unterminated last event discarded. Every event of the chat stream
 * carries a numeric id and JSON data.
 */
export function parseSse(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  const parser = createSseParser((e) =>
    out.push({ id: Number(e.id), event: e.event, data: JSON.parse(e.data) as Record<string, unknown> }),
  );
  parser.push(body);
  parser.end();
  return out;
}
