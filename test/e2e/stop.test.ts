// `npm start`, then SIGTERM to its whole process group (npm, the shell, tsx and node, as an
// orchestrator or Ctrl-C sends it) while clients hold connections open: an idle keep-alive
// connection and a slow upload that never completes. The group must be gone before the 10 s an
// orchestrator would wait, the idle connection closed by the server, the stalled request cut, and
// the log must say it shut down. (The slow request answered in full and the SSE stream ended with
// a retry hint are covered in process by test/shutdown.test.ts.)
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ROOT, freePort, waitFor200 } from "../support/process.js";

let dataDir: string;
let child: ChildProcess;
let output = "";
let port: number;
let chatPort: number;

const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-stop-"));
  port = await freePort();
  chatPort = await freePort();
  child = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    detached: true, // its own process group, like a service manager's
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATA_DIR: dataDir,
      PORT: String(port),
      CHAT_PORT: String(chatPort),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      MODEL_DISABLED: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  // A start-up wait, not a speed check: on a loaded machine `npm start` may take a while to listen.
  await waitFor200(`http://127.0.0.1:${port}/health`, 180_000);
  await waitFor200(`http://127.0.0.1:${chatPort}/health`, 10_000);
});

after(() => {
  if (child.pid && groupAlive(child.pid)) process.kill(-child.pid, "SIGKILL");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("SIGTERM to the npm start process group stops it within 10 s although clients hold connections open", async () => {
  const pid = child.pid!;
  // An idle keep-alive connection on each API.
  const agents = [port, chatPort].map(() => new http.Agent({ keepAlive: true }));
  const idle = await Promise.all(
    [port, chatPort].map(
      (p, i) =>
        new Promise<net.Socket>((resolve, reject) => {
          const req = http.get({ host: "127.0.0.1", port: p, path: "/health", agent: agents[i] }, (res) => {
            res.resume();
            res.on("end", () => resolve(req.socket as net.Socket));
          });
          req.on("error", reject);
        }),
    ),
  );
  // A keep-alive agent unrefs its idle sockets, so once the child is gone nothing would keep this
  // process's event loop waiting for their close events: ref them again.
  for (const s of idle) s.ref();
  const closed = (s: net.Socket): Promise<void> =>
    s.closed ? Promise.resolve() : new Promise<void>((resolve) => s.once("close", () => resolve()));
  const idleClosed = idle.map(closed);
  // A slow client: the request head and part of the body, the rest never sent.
  const stalled = net.connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => stalled.once("connect", () => resolve()));
  stalled.write('POST /register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"client_name":');
  stalled.on("error", () => undefined);
  // Read what the server sends: a socket nobody reads never sees the server's FIN, so it would stay
  // half-closed (CLOSE-WAIT) and never emit "close" when the server shut it before taking the request.
  stalled.resume();
  const stalledClosed = closed(stalled);

  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const sent = Date.now();
  process.kill(-pid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(groupAlive(pid), false, `the process group was still running 10 s after SIGTERM:\n${output.slice(-2000)}`);
  console.log(`process group gone ${Date.now() - sent} ms after SIGTERM`);
  // Bounded, so an event that never comes fails naming what is still open rather than hanging.
  const pending = new Map<string, Promise<void>>([
    ["the first idle connection", idleClosed[0]!],
    ["the second idle connection", idleClosed[1]!],
    ["the stalled upload", stalledClosed],
    ["npm's exit", exited],
  ]);
  for (const [name, p] of pending) void p.then(() => pending.delete(name));
  const limit = Date.now() + 10_000;
  while (pending.size > 0 && Date.now() < limit) await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual([...pending.keys()], [], "still open 10 s after the process group was gone");
  assert.match(output, /shutting down/);
  assert.doesNotMatch(output, /did not stop within/);
  for (const a of agents) a.destroy();
});
