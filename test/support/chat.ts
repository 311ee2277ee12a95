// Assistant chat test data, built through the public APIs: a store with a public key, policies,
// products, shopper sessions (anonymous and exchanged), threads; plus an SSE parser.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import type { TestApp } from "./harness.js";
import { bearer, freshIp, loginToken, registerStore, type RegisteredStore } from "./factories.js";

export interface ChatShop {
  store: RegisteredStore;
  /** The store's id (client_id). */
  id: string;
  owner: string;
  publicKey: string;
}

export async function chatShop(t: TestApp, plan: "free" | "basic" | "premium" | "enterprise" = "enterprise"): Promise<ChatShop> {
  const store = await registerStore(t, { plan });
  const owner = await loginToken(t.search, store.email, store.password);
  const res = await t.assistant.inject({ method: "POST", url: "/v1/admin/public-keys", headers: bearer(owner), payload: { name: "widget" } });
  assert.equal(res.statusCode, 201, res.body);
  return { store, id: store.clientId, owner, publicKey: (res.json() as { key: string }).key };
}

export async function anonymousSession(t: TestApp, shop: ChatShop): Promise<string> {
  const res = await t.assistant.inject({ method: "POST", url: "/v1/sessions/anonymous", remoteAddress: freshIp(), payload: { store_public_key: shop.publicKey, locale: "en" } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { session_token: string }).session_token;
}

const exchangeSecrets = new WeakMap<ChatShop, string>();

/** A signed-in customer session: the store's exchange secret signs an assertion for `customerId`. */
export async function customerSession(t: TestApp, shop: ChatShop, customerId: string): Promise<string> {
  let secret = exchangeSecrets.get(shop);
  if (!secret) {
    const res = await t.assistant.inject({ method: "POST", url: "/v1/admin/exchange-secret", headers: bearer(shop.owner), payload: { reason: "chat tests" } });
    assert.equal(res.statusCode, 201, res.body);
    secret = (res.json() as { secret: string }).secret;
    exchangeSecrets.set(shop, secret);
  }
  const now = Math.floor(t.ctx.clock.now() / 1000);
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(shop.id)
    .setAudience("shopsight-assistant")
    .setSubject(customerId)
    .setJti(randomBytes(8).toString("hex"))
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .sign(new TextEncoder().encode(secret));
  const res = await t.assistant.inject({ method: "POST", url: "/v1/sessions/exchange", payload: { assertion } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { session_token: string }).session_token;
}

export async function openThread(t: TestApp, token: string): Promise<string> {
  const res = await t.assistant.inject({ method: "POST", url: "/v1/chat/sessions", headers: bearer(token), payload: { locale: "en" } });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { thread_id: string }).thread_id;
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

export async function putSettings(t: TestApp, shop: ChatShop, settings: { currency: string; support_contact: Record<string, string> | null }): Promise<void> {
  const res = await t.assistant.inject({ method: "PUT", url: "/v1/admin/settings", headers: bearer(shop.owner), payload: settings });
  assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
}

export interface SseEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** Parses a text/event-stream body into its events (comment and retry lines skipped). */
export function parseSse(body: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of body.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l.length > 0 && !l.startsWith(":"));
    const field = (name: string) => lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, ""));
    const ids = field("id");
    const events = field("event");
    const data = field("data");
    if (events.length === 0) continue;
    out.push({ id: Number(ids[0]), event: events[0]!, data: JSON.parse(data.join("\n")) as Record<string, unknown> });
  }
  return out;
}
