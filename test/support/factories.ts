// Test data built through the public API, as a user would: register, open the e-mailed link,
// obtain tokens.
import fs from "node:fs";
import path from "node:path";
import assert from "node:assert/strict";
import type { App } from "../../src/platform/http/app.js";
import type { TestApp } from "./harness.js";

let counter = 0;

export interface RegisteredStore {
  clientId: string;
  clientSecret: string;
  slug: string;
  email: string;
  password: string;
}

/** The mail's text: quoted-printable decoded when the message says so (outbox files are 8bit). */
const decodeQuotedPrintable = (text: string): string =>
  /^Content-Transfer-Encoding: quoted-printable$/im.test(text)
    ? text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    : text;

/** The newest .eml file sent to `to`, as text (quoted-printable decoded). */
export function lastMailTo(t: TestApp, to: string): string {
  const dir = t.config.mail.outboxDir;
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  for (const f of files.reverse()) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    if (new RegExp(`^To: ${to.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "mi").test(text)) return decodeQuotedPrintable(text);
  }
  throw new Error(`no mail to ${to}`);
}

/** The verification token in the newest .eml of `outboxDir` (or in `text`). */
export function verificationTokenIn(mail: string): string {
  const text = decodeQuotedPrintable(mail);
  const match = /\/verify\?token=([A-Za-z0-9_%-]+)/.exec(text);
  assert.ok(match, "verification link in mail");
  return decodeURIComponent(match[1]!);
}

/** The verification token of the newest mail to `email`. */
export function verificationTokenFor(t: TestApp, email: string): string {
  const text = lastMailTo(t, email);
  const match = /\/verify\?token=([A-Za-z0-9_%-]+)/.exec(text);
  assert.ok(match, "verification link in mail");
  return decodeURIComponent(match[1]!);
}

/**
 * Registers and verifies a store through the API. Its plan is set to `plan` (default
 * "enterprise", so functional tests are not cut short by the free plan's 10 requests a minute;
 * tests of plan limits ask for "free").
 */
export async function registerStore(
  t: TestApp,
  overrides: {
    name?: string;
    email?: string;
    password?: string;
    verify?: boolean;
    plan?: "free" | "basic" | "premium" | "enterprise";
  } = {},
): Promise<RegisteredStore> {
  counter += 1;
  const name = overrides.name ?? `Store ${counter} ${Math.random().toString(36).slice(2, 6)}`;
  const email = overrides.email ?? `owner${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = overrides.password ?? "Correct-horse-42";
  // A fresh client address per store: sign-ups are throttled per address (10 an hour).
  const res = await t.search.inject({
    method: "POST",
    url: "/register",
    remoteAddress: freshIp(),
    payload: { client_name: name, email, password },
  });
  assert.equal(res.statusCode, 201, res.body);
  const { client_id, slug } = res.json() as { client_id: string; slug: string };
  if (overrides.verify === false) return { clientId: client_id, clientSecret: "", slug, email, password };
  const verify = await t.search.inject({ method: "GET", url: `/verify?token=${encodeURIComponent(verificationTokenFor(t, email))}` });
  assert.equal(verify.statusCode, 200, verify.body);
  await t.ctx.database.db
    .updateTable("stores")
    .set({ plan: overrides.plan ?? "enterprise" })
    .where("id", "=", client_id)
    .execute();
  return { clientId: client_id, clientSecret: (verify.json() as { client_secret: string }).client_secret, slug, email, password };
}

export async function machineToken(app: App, store: RegisteredStore, remoteAddress = "127.0.0.1"): Promise<string> {
  const res = await app.inject({
    method: "POST",
    url: "/oauth/token",
    remoteAddress,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: store.clientId,
      client_secret: store.clientSecret,
    }).toString(),
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { access_token: string }).access_token;
}

let ipCounter = 0;
/** A fresh loopback-range address, so per-IP throttles of one test don't leak into another. */
export const freshIp = (): string => {
  ipCounter += 1;
  return `127.0.${(ipCounter >> 8) & 255}.${ipCounter & 255 || 1}`;
};

export async function loginToken(app: App, email: string, password: string, totp_code?: string): Promise<string> {
  const res = await app.inject({
    method: "POST",
    url: "/oauth/login",
    remoteAddress: freshIp(),
    payload: { email, password, ...(totp_code ? { totp_code } : {}) },
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { access_token: string }).access_token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
