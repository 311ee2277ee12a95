// The private token never reaches a log line: the real server (npm start's entry) runs with
// LOG_LEVEL=trace, every line it writes is captured, and the token is looked for in all of them.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, runEntry, waitFor200, type Started } from "../../../test/support/process.js";
import { fakeProduct, startStorefront, type StorefrontServer } from "../../../test/support/storefront-server.js";

const TOKEN = "shpat_log_secrecy_token_5e1f2a";
const WRONG = "shpat_log_secrecy_wrong_77d0c1";

let server: Started;
let shop: StorefrontServer;
let dataDir: string;
let api: string;
let chat: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-secrecy-"));
  shop = await startStorefront({ token: TOKEN });
  shop.products = [fakeProduct(1, "Lamp", "10.00")];
  const port = await freePort();
  const chatPort = await freePort();
  server = runEntry("main.ts", [], {
    DATA_DIR: dataDir,
    PORT: String(port),
    CHAT_PORT: String(chatPort),
    HOST: "127.0.0.1",
    LOG_LEVEL: "trace",
    MODEL_DISABLED: "true",
    OUTBOUND_ALLOW_PRIVATE: "true",
  });
  api = `http://127.0.0.1:${port}`;
  chat = `http://127.0.0.1:${chatPort}`;
  await waitFor200(`${api}/health`, 60_000, server);
  await waitFor200(`${chat}/health`, 10_000, server);
});

after(async () => {
  server.child.kill("SIGTERM");
  await server.exited;
  await shop.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function json(url: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

test("the private token appears in no response and no log line, at trace level, on success and failure", async () => {
  const email = `secrecy-${Date.now()}@example.com`;
  const password = "Correct-horse-42";
  const reg = await json(`${api}/register`, { body: { client_name: "Secrecy store", email, password } });
  assert.equal(reg.status, 201, reg.text);
  const outbox = path.join(dataDir, "outbox");
  const mail = fs
    .readdirSync(outbox)
    .map((f) => fs.readFileSync(path.join(outbox, f), "utf8"))
    .join("\n")
    .replace(/=\r?\n/g, "")
    .replace(/=3D/g, "=");
  const verifyToken = decodeURIComponent(/\/verify\?token=([A-Za-z0-9_%-]+)/.exec(mail)![1]!);
  assert.equal((await json(`${api}/verify?token=${encodeURIComponent(verifyToken)}`)).status, 200);
  const login = await json(`${api}/oauth/login`, { body: { email, password } });
  assert.equal(login.status, 200, login.text);
  const owner = login.body.access_token as string;

  const responses: string[] = [];
  const wrong = await json(`${chat}/v1/admin/connections/storefront`, {
    token: owner,
    body: { store_url: shop.url, private_token: WRONG, reason: "try wrong" },
  });
  assert.equal(wrong.status, 422, wrong.text);
  responses.push(wrong.text);
  const bad = await json(`${chat}/v1/admin/connections/storefront`, {
    token: owner,
    body: { store_url: shop.url, private_token: TOKEN, reason: "x", extra: true },
  });
  assert.equal(bad.status, 400);
  responses.push(bad.text);
  const ok = await json(`${chat}/v1/admin/connections/storefront`, {
    token: owner,
    body: { store_url: shop.url, private_token: TOKEN, reason: "go" },
  });
  assert.equal(ok.status, 201, ok.text);
  responses.push(ok.text);
  const sw = await json(`${chat}/v1/admin/connections/storefront/token`, {
    token: owner,
    body: { connection_id: ok.body.connection_id, private_token: TOKEN, reason: "again" },
  });
  assert.equal(sw.status, 200, sw.text);
  responses.push(sw.text);
  responses.push((await json(`${chat}/v1/admin/connections`, { token: owner })).text);
  responses.push((await json(`${chat}/v1/admin/audit?limit=200`, { token: owner })).text);
  shop.down = true;
  const down = await json(`${chat}/v1/admin/connections/storefront/token`, {
    token: owner,
    body: { connection_id: ok.body.connection_id, private_token: TOKEN, reason: "down" },
  });
  assert.equal(down.status, 422);
  responses.push(down.text);

  for (const text of responses) {
    assert.ok(!text.includes(TOKEN) && !text.includes(WRONG), text);
  }
  // Stop the process so every log line is flushed before looking.
  server.child.kill("SIGTERM");
  await server.exited;
  const logs = server.output();
  assert.match(logs, /\/v1\/admin\/connections\/storefront/, "the request log was captured");
  assert.ok(logs.split("\n").length > 10);
  assert.ok(!logs.includes(TOKEN), "the token is in a log line");
  assert.ok(!logs.includes(WRONG), "the rejected token is in a log line");
});
