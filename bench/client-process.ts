// An HTTP client for benchmarks that runs in a process of its own (a child started with
// `node --import tsx`, spoken to over IPC), so that a measure of the service over HTTP counts
// neither the client's work nor its CPU: the benchmark's process is then the service's, and
// process.cpuUsage() there is what the service spent. Nor does the client wait for the service's
// work after a reply (e.g. the search-history writer). It still shares the machine's cores with
// the service, as a load generator on the same box would.
//   - call(): one request over a keep-alive connection (node:http), timed in the child;
//   - cannon(): autocannon with `connections` concurrent clients, each request's body the next of
//     `bodies` (an error when they run out unless `cycle`, so that "new queries" never repeat).
//     The bodies reach the child before the volley starts; the answer carries this process's CPU
//     over the volley alone (from the child's start to its end).
import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";

export interface Answer {
  status: number;
  text: string;
  /** Round trip measured in the client process (ms). */
  ms: number;
}

/** What autocannon counted over one run. */
export interface Volley {
  /** Requests completed. */
  requests: number;
  seconds: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU of the calling process (the service's) while the volley ran: user and system, µs. */
  cpu: NodeJS.CpuUsage;
}

export interface CannonOptions {
  url: string;
  /** POST (the default) sends `bodies`; GET sends none (`bodies` empty). */
  method?: "GET" | "POST";
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  bodies: string[];
  /** Send `bodies` over and over (else running out of them is an error). */
  cycle?: boolean;
}

export interface Client {
  call(method: string, url: string, headers: Record<string, string>, body?: string): Promise<Answer>;
  cannon(options: CannonOptions): Promise<Volley>;
  close(): Promise<void>;
}

/** Set in the child's environment: this module then serves the parent instead. */
const CHILD = "SHOPSIGHT_BENCH_CLIENT";

type Request =
  | { id: number; type: "call"; method: string; url: string; headers: Record<string, string>; body?: string }
  | ({ id: number; type: "cannon" } & CannonOptions)
  | { id: number; type: "go" };
/** The child's messages: `ready` (a volley's bodies arrived), then `ok` or `error`. */
type Reply = { id: number; ready?: true; ok?: unknown; error?: string };

export function startClientProcess(): Client {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", import.meta.resolve("tsx")],
    env: { ...process.env, [CHILD]: "1" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void; cpuFrom?: NodeJS.CpuUsage }>();
  let id = 0;
  child.on("message", (m: Reply) => {
    const w = waiting.get(m.id);
    if (!w) return;
    if (m.ready) {
      // The volley starts on `go`: this process's CPU is counted from here.
      w.cpuFrom = process.cpuUsage();
      child.send({ id: m.id, type: "go" } satisfies Request);
      return;
    }
    waiting.delete(m.id);
    if (m.error !== undefined) w.reject(new Error(m.error));
    else if (w.cpuFrom) w.resolve({ ...(m.ok as object), cpu: process.cpuUsage(w.cpuFrom) } as never);
    else w.resolve(m.ok as never);
  });
  const failAll = (e: Error) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  child.on("error", failAll);
  child.on("exit", (code, signal) => failAll(new Error(`the bench client process exited (${signal ?? code})`)));
  const ask = <T>(message: Omit<Extract<Request, { type: "call" }>, "id"> | Omit<Extract<Request, { type: "cannon" }>, "id">) =>
    new Promise<T>((resolve, reject) => {
      waiting.set(++id, { resolve: resolve as (v: never) => void, reject });
      child.send({ ...message, id });
    });
  return {
    call: (method, url, headers, body) => ask<Answer>({ type: "call", method, url, headers, ...(body === undefined ? {} : { body }) }),
    cannon: (options) => ask<Volley>({ type: "cannon", ...options }),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.disconnect(); // the child's IPC channel closes, so it ends
      await exited;
    },
  };
}

/** The child: answers the parent's requests until the IPC channel closes. */
async function serve(): Promise<void> {
  const send = (m: Reply) => process.send!(m);
  const agent = new http.Agent({ keepAlive: true });
  const { default: autocannon } = await import("autocannon");
  const volleys = new Map<number, CannonOptions>();
  const call = (m: Extract<Request, { type: "call" }>) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(m.url, { method: m.method, agent, headers: m.headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(m.body);
    });
  const volley = async (o: CannonOptions): Promise<Omit<Volley, "cpu">> => {
    let next = 0;
    let ranOut = false;
    const result = await autocannon({
      url: o.url,
      method: o.method ?? "POST",
      headers: o.headers,
      connections: o.connections,
      duration: o.seconds,
      requests: [
        {
          setupRequest: (req) => {
            if (o.bodies.length === 0) return req;
            if (next >= o.bodies.length && !o.cycle) ranOut = true;
            return { ...req, body: o.bodies[next++ % o.bodies.length]! };
          },
        },
      ],
    });
    if (ranOut) throw new Error(`cannon: ${o.bodies.length} bodies were not enough for ${o.seconds} s; pass more`);
    return {
      requests: result.requests.total,
      seconds: result.duration,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    };
  };
  process.on("message", async (m: Request) => {
    try {
      if (m.type === "call") {
        const started = performance.now();
        const answer = await call(m);
        send({ id: m.id, ok: { ...answer, ms: performance.now() - started } });
      } else if (m.type === "cannon") {
        volleys.set(m.id, m);
        send({ id: m.id, ready: true });
      } else {
        const options = volleys.get(m.id)!;
        volleys.delete(m.id);
        send({ id: m.id, ok: await volley(options) });
      }
    } catch (e) {
      send({ id: m.id, error: String((e as Error)?.stack ?? e) });
    }
  });
  process.on("disconnect", () => {
    agent.destroy();
    process.exit(0);
  });
}

if (process.env[CHILD] === "1" && process.send) await serve();
