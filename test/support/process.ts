// Starting the real server or CLI as a child process, as a user would with npm start / npm run cli.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
