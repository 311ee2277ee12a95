// An HTTP client for benchmarks that runs in a thread of its own, so that a measure of the service
// over HTTP does not count the client's own work, nor the service's work done after its reply
// (e.g. the search-history writer), which an in-process client would wait for on the shared event
// loop. A real client is another process or machine; this is the next thing on one box. It still
// shares the machine's cores with the service, as a load generator on the same box would.
//   - call(): one request over a keep-alive connection (node:http), timed inside the thread;
//   - cannon(): autocannon with `connections` concurrent clients, each request's body the next of
//     `bodies` (an error when they run out unless `cycle`, so that "new queries" never repeat).
import { Worker } from "node:worker_threads";

export interface Answer {
  status: number;
  text: string;
  /** Round trip measured in the client thread (ms). */
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
}

export interface ClientThread {
  call(method: string, url: string, headers: Record<string, string>, body?: string): Promise<Answer>;
  cannon(options: {
    url: string;
    headers: Record<string, string>;
    connections: number;
    seconds: number;
    bodies: string[];
    /** Send `bodies` over and over (else running out of them is an error). */
    cycle?: boolean;
  }): Promise<Volley>;
  close(): Promise<void>;
}

const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true });
let autocannon;
parentPort.on("message", async (m) => {
  try {
    if (m.type === "call") {
      const started = performance.now();
      const answer = await new Promise((resolve, reject) => {
        const req = http.request(m.url, { method: m.method, agent, headers: m.headers }, (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(m.body);
      });
      parentPort.postMessage({ id: m.id, ok: { ...answer, ms: performance.now() - started } });
    } else {
      autocannon ??= (await import(workerData.autocannon)).default;
      let next = 0;
      let ranOut = false;
      const result = await autocannon({
        url: m.url,
        method: "POST",
        headers: m.headers,
        connections: m.connections,
        duration: m.seconds,
        requests: [{ setupRequest: (req) => {
          if (next >= m.bodies.length && !m.cycle) ranOut = true;
          return { ...req, body: m.bodies[next++ % m.bodies.length] };
        } }],
      });
      if (ranOut) throw new Error("cannon: " + m.bodies.length + " bodies were not enough for " + m.seconds + " s; pass more");
      // Inside a worker thread autocannon answers with its raw counts (it expects to be one of its own workers).
      const { totalCompletedRequests, duration, non2xx, errors, timeouts } = result;
      parentPort.postMessage({ id: m.id, ok: { requests: totalCompletedRequests, seconds: duration, non2xx, errors, timeouts } });
    }
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String(e && e.stack || e) });
  }
});
`;

export function startClientThread(): ClientThread {
  const worker = new Worker(SOURCE, { eval: true, name: "bench-client", workerData: { autocannon: import.meta.resolve("autocannon") } });
  const waiting = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
  let id = 0;
  worker.on("message", (m: { id: number; ok?: unknown; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.ok as never);
  });
  worker.on("error", (e) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  });
  const ask = <T>(message: object): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.set(++id, { resolve: resolve as (v: never) => void, reject });
      worker.postMessage({ ...message, id });
    });
  return {
    call: (method, url, headers, body) => ask<Answer>({ type: "call", method, url, headers, body }),
    cannon: (options) => ask<Volley>({ type: "cannon", ...options }),
    close: async () => {
      await worker.terminate();
    },
  };
}
