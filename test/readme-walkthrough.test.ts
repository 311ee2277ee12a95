// The README's curl walkthrough ("Ten-minute walkthrough" → "With curl"), run as written against
// a fresh `src/main.ts` (self-hosted: BILLING_MODE=off, the tiny test model), so the README stays
// true: sign-up, the verification link from the outbox, login, demo products, a first search, a
// widget key, a published policy, a chat key and a shopper's question answered from the policy.
// Only the addresses and the outbox folder are replaced by this server's.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, runEntry, waitFor200, type Started } from "./support/process.js";
import { testModelDir } from "./support/harness.js";

const README = fs.readFileSync(path.resolve("README.md"), "utf8");

/** The sh block between the walkthrough-curl markers. */
function walkthroughScript(): string {
  const block = /<!-- walkthrough-curl:start -->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough-curl:end -->/.exec(README);
  assert.ok(block, "README has the curl walkthrough block");
  return block[1]!;
}

let dataDir: string;
let server: Started;
let base: string;
let chat: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-readme-"));
  const [port, chatPort] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  chat = `http://127.0.0.1:${chatPort}`;
  server = runEntry("main.ts", [], {
    DATA_DIR: dataDir,
    PORT: String(port),
    CHAT_PORT: String(chatPort),
    HOST: "127.0.0.1",
    PUBLIC_BASE_URL: base,
    CHAT_PUBLIC_BASE_URL: chat,
    LOG_LEVEL: "warn",
    BILLING_MODE: "off",
    CLIP_MODEL: await testModelDir(),
  });
  await waitFor200(`${base}/health`, 60_000, server);
  await waitFor200(`${chat}/health`, 10_000, server);
});

after(() => {
  if (server.child.exitCode === null) server.child.kill("SIGKILL");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("the README's curl walkthrough runs as written: sign-up to search, widget key and a chat answer", { timeout: 180_000 }, async () => {
  const script = walkthroughScript()
    .replace("BASE=http://localhost:8080", `BASE=${base}`)
    .replace("CHAT=http://localhost:8081", `CHAT=${chat}`)
    .replace("OUTBOX=./data/outbox", `OUTBOX=${path.join(dataDir, "outbox")}`);
  assert.notEqual(script, walkthroughScript(), "the addresses were replaced");
  const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 0, `walkthrough failed:\n${out}\n${err}\nserver:\n${server.output()}`);
  assert.match(out, /"status":"inactive"/, "registered");
  assert.match(out, /"client_secret":"cs_/, "verified with the link from the outbox");
  assert.match(out, /^24$/m, "demo catalogue installed");
  assert.match(out, /"results":\[\{"product_id":"demo-/, "search answered");
  assert.match(out, /^pk_live_\S+$/m, "widget key");
  assert.match(out, /^1$/m, "policy version 1");
  assert.match(out, /30 days/, "the chat answers from the published policy");
});
