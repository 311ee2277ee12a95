// `npm start` as a user runs it: both APIs come up on their ports, answer /health, /openapi.json
// and /docs, take a registration over real HTTP, and stop cleanly on SIGTERM. The CLI creates a
// super admin who is redirected to /admin.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runEntry, startOnFreePorts, waitFor200, type Started } from "../support/process.js";

let dataDir: string;
let server: Started;
let port: number;
let chatPort: number;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-e2e-"));
  const run = await startOnFreePorts(
    2,
    ([p, chat]) =>
      runEntry("main.ts", [], {
        DATA_DIR: dataDir,
        PORT: String(p),
        CHAT_PORT: String(chat),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        MODEL_DISABLED: "true",
      }),
    async ([p, chat], started) => {
      await waitFor200(`http://127.0.0.1:${p}/health`, 30_000, started);
      await waitFor200(`http://127.0.0.1:${chat}/health`, 10_000, started);
    },
  );
  server = run.started;
  [port, chatPort] = run.ports as [number, number];
});

after(() => {
  if (server.child.exitCode === null) server.child.kill("SIGKILL");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("both APIs answer /health, /openapi.json and /docs", async () => {
  for (const p of [port, chatPort]) {
    const health = await fetch(`http://127.0.0.1:${p}/health`);
    assert.deepEqual(await health.json(), { status: "ok" });
    const openapi = await (await fetch(`http://127.0.0.1:${p}/openapi.json`)).json();
    assert.equal(openapi.openapi, "3.1.0");
    const docs = await fetch(`http://127.0.0.1:${p}/docs/`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger/i);
  }
  const searchDoc = await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json();
  for (const route of ["/register", "/verify", "/oauth/token", "/oauth/login", "/oauth/refresh", "/v1/security/2fa/setup"]) {
    assert.ok(searchDoc.paths[route], `OpenAPI documents ${route}`);
  }
});

test("start-up prints where to go; GET / sends browsers to the portal and gives JSON clients a list of links", async () => {
  const out = server.output();
  assert.match(out, new RegExp(`Portal +http://localhost:${port}/portal`));
  assert.match(out, new RegExp(`API docs +http://localhost:${port}/docs`));
  assert.match(out, new RegExp(`Search API +http://localhost:${port}\\b`));
  assert.match(out, new RegExp(`Assistant API +http://localhost:${chatPort}\\b`));
  const browser = await fetch(`http://127.0.0.1:${port}/`, {
    redirect: "manual",
    headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
  });
  assert.equal(browser.status, 302);
  assert.equal(browser.headers.get("location"), "/portal");
  const json = await fetch(`http://127.0.0.1:${port}/`);
  assert.equal(json.status, 200);
  const links = await json.json();
  assert.equal(links.portal, `http://localhost:${port}/portal`);
  assert.equal(links.assistant_api, `http://localhost:${chatPort}`);
});

test("registration over real HTTP writes the verification mail to DATA_DIR/outbox", async () => {
  const res = await fetch(`http://127.0.0.1:${port}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "E2E Shop", email: "e2e@example.com", password: "E2e-password-1" }),
  });
  assert.equal(res.status, 201);
  const files = fs.readdirSync(path.join(dataDir, "outbox"));
  assert.equal(files.length, 1);
  const mail = fs.readFileSync(path.join(dataDir, "outbox", files[0]!), "utf8");
  assert.match(mail, /To: e2e@example\.com/);
  // The link in the file is whole (8bit, not quoted-printable) and activates the store as it is.
  assert.match(mail, /^Content-Transfer-Encoding: 8bit$/m);
  const link = /^(http:\/\/\S+\/verify\?token=\S+)$/m.exec(mail)?.[1];
  assert.ok(link, mail);
  // In development (no NODE_ENV here) the link is printed to the log as well.
  assert.ok(server.output().includes(`link: ${link}`), server.output());
  const verified = await fetch(link.replace(`localhost:${port}`, `127.0.0.1:${port}`));
  assert.equal(verified.status, 200);
  assert.equal((await verified.json()).status, "active");
});

test("the CLI creates a super admin who logs in with redirect /admin", async () => {
  const cli = runEntry("cli.ts", ["admin", "create", "--email", "root@example.com", "--password", "Root-password-1"], {
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
  });
  assert.equal(await cli.exited, 0, cli.output());
  const created = JSON.parse(cli.output().trim().split("\n").pop()!);
  assert.equal(created.is_super_admin, true);
  const login = await fetch(`http://127.0.0.1:${port}/oauth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "root@example.com", password: "Root-password-1" }),
  });
  assert.equal(login.status, 200);
  assert.equal((await login.json()).redirect, "/admin");
  const usage = runEntry("cli.ts", ["admin", "create"], { DATA_DIR: dataDir });
  assert.equal(await usage.exited, 2);
});

test("the CLI sets a store's plan (self-hosting) without loading the model", async () => {
  const set = runEntry("cli.ts", ["plan", "set", "--store", "e2e-shop", "--plan", "enterprise"], {
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
  });
  assert.equal(await set.exited, 0, set.output());
  const line = JSON.parse(set.output().trim().split("\n").pop()!);
  assert.deepEqual([line.previous, line.current, line.changed], ["free", "enterprise", true]);
  assert.doesNotMatch(set.output(), /model/i, "no model was loaded");
  const bad = runEntry("cli.ts", ["plan", "set", "--store", "e2e-shop", "--plan", "gold"], { DATA_DIR: dataDir });
  assert.equal(await bad.exited, 2);
  assert.match(bad.output(), /free, basic, premium, enterprise/);
});

test("SIGTERM stops the server cleanly", async () => {
  server.child.kill("SIGTERM");
  assert.equal(await server.exited, 0, server.output());
});

test("a bad variable stops start-up with a message naming it", async () => {
  const bad = runEntry("main.ts", [], { DATA_DIR: dataDir, PORT: "not-a-port" });
  assert.equal(await bad.exited, 1);
  assert.match(bad.output(), /PORT/);
});
