// Graceful close of one API listener, so a stop never depends on clients closing their
// connections:
//   1. the listener stops accepting (Fastify answers requests that still arrive on open
//      connections with 503 and `Connection: close`);
//   2. open server-sent-event streams are ended with a `retry:` hint, so EventSource clients
//      reconnect (to this process once it is back, or to another) and replay what they missed;
//   3. in-flight requests finish; keep-alive connections are closed as soon as they are idle
//      (swept every 100 ms, since a connection becomes idle when its last response is sent);
//   4. at the deadline every connection still open is closed, whatever it is doing.
import type { ServerResponse } from "node:http";
import type { App } from "./types.js";

/** The reconnection delay suggested to SSE clients when the server stops (ms). */
export const SHUTDOWN_SSE_RETRY_MS = 3000;

const openResponses = new WeakMap<App, Set<ServerResponse>>();

/** Tracks the app's open responses (called once by createHttpApp). */
export function trackOpenResponses(app: App): void {
  const open = new Set<ServerResponse>();
  openResponses.set(app, open);
  app.addHook("onRequest", async (_request, reply) => {
    const res = reply.raw;
    open.add(res);
    res.once("close", () => open.delete(res));
  });
}

/**
 * Whether `res` is a server-sent-event stream. A handler that took the response over
 * (`reply.hijack()`) may pass its headers straight to `writeHead`, which leaves them out of
 * `getHeader`; the written head then tells.
 */
function isEventStream(res: ServerResponse): boolean {
  const type = res.getHeader("content-type");
  if (type !== undefined) return String(type).startsWith("text/event-stream");
  const head = (res as unknown as { _header?: string | null })._header;
  return typeof head === "string" && /^content-type:\s*text\/event-stream/im.test(head);
}

/** Ends every open text/event-stream response of `app` with a retry hint; returns how many. */
export function endEventStreams(app: App): number {
  let ended = 0;
  for (const res of openResponses.get(app) ?? []) {
    if (!res.headersSent || res.writableEnded || !isEventStream(res)) continue;
    res.end(`: the server is stopping; reconnect and replay with Last-Event-ID\nretry: ${SHUTDOWN_SSE_RETRY_MS}\n\n`);
    ended += 1;
  }
  return ended;
}

/** Closes `app` gracefully (see the file header); connections still open after `graceMs` are cut. */
export async function closeGracefully(app: App, graceMs: number): Promise<void> {
  const server = app.server;
  const sweep = setInterval(() => {
    endEventStreams(app);
    server.closeIdleConnections();
  }, 100);
  const force = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    const closing = app.close();
    endEventStreams(app);
    server.closeIdleConnections();
    await closing;
  } finally {
    clearInterval(sweep);
    clearTimeout(force);
  }
}
