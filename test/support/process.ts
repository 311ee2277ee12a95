// Starting the real server or CLI as a child process, as a user would with npm start / npm run cli.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { verificationTokenIn } from "./factories.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server on `count` free ports and waits until `ready`; when another process took one of
 * them between freePort() and the server's listen (the server exits with EADDRINUSE), starts it
 * again on new ports, up to `attempts` times.
 */
export async function startOnFreePorts(
  count: number,
  start: (ports: number[]) => Started,
  ready: (ports: number[], started: Started) => Promise<void>,
  attempts = 3,
): Promise<{ started: Started; ports: number[] }> {
  for (let attempt = 1; ; attempt++) {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    const started = start(ports);
    try {
      await ready(ports, started);
      return { started, ports };
    } catch (err) {
      if (started.child.exitCode === null) started.child.kill("SIGKILL");
      if (attempt >= attempts || !started.output().includes("EADDRINUSE")) throw err;
    }
  }
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs `src/<entry>` with tsx and the given environment (PATH and HOME are kept). */
export function runEntry(entry: string, args: string[], env: Record<string, string>): Started {
  let out = "";
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "src", entry), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Polls `url` until it answers 200 or `timeoutMs` passes. */
export async function waitFor200(url: string, timeoutMs: number, started?: Started): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (started && started.child.exitCode !== null) throw new Error(`process exited early:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms\n${started?.output() ?? ""}`);
}

/**
 * Registers a store through a running Search API at `base` and verifies it with the link mailed to
 * DATA_DIR's outbox (MAIL_MODE's default); returns its client id and secret.
 */
export async function registerOverHttp(
  base: string,
  dataDir: string,
): Promise<{ id: string; secret: string; email: string; password: string }> {
  const email = `proc-${randomBytes(4).toString("hex")}@example.com`;
  const password = "Process-password-1";
  const reg = await fetch(`${base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: `Store ${email}`, email, password }),
  });
  if (reg.status !== 201) throw new Error(`register answered ${reg.status}: ${await reg.text()}`);
  const outbox = path.join(dataDir, "outbox");
  const mail = fs
    .readdirSync(outbox)
    .map((f) => fs.readFileSync(path.join(outbox, f), "utf8"))
    .find((m) => m.includes(`To: ${email}`));
  if (!mail) throw new Error(`no verification mail to ${email} in ${outbox}`);
  const verified = await fetch(`${base}/verify?token=${encodeURIComponent(verificationTokenIn(mail))}`);
  const body = (await verified.json()) as { client_id: string; client_secret: string };
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}: ${JSON.stringify(body)}`);
  return { id: body.client_id, secret: body.client_secret, email, password };
}

/** A machine token for a store from a running Search API's /oauth/token. */
export async function grantOverHttp(base: string, store: { id: string; secret: string }): Promise<string> {
  const grant = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: store.id, client_secret: store.secret }),
  });
  if (grant.status !== 200) throw new Error(`/oauth/token answered ${grant.status}: ${await grant.text()}`);
  return ((await grant.json()) as { access_token: string }).access_token;
}
