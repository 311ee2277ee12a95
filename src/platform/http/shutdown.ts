// Graceful close of one API listener, so a stop never depends on clients closing their
// connections:
//   1. the listener stops accepting (Fastify answers requests that still arrive on open
//      connections with 503 and `Connection: close`);
//   2. open server-sent-event streams are ended with a `retry:` hint, so EventSource clients
//      reconnect (to this process once it is back, or to another) and replay what they missed;
//   3. in-flight requests finish; keep-alive connections are closed as soon as they are idle
//      (swept every 100 ms, since a connection becomes idle when its last response is sent);
//   4. at the deadline every connection still open is closed, whatever it is doing.
import type { Server, ServerResponse } from "node:http";
import type { App } from "./types.js";

/** The reconnection delay suggested to SSE clients when the server stops (ms). */
export const SHUTDOWN_SSE_RETRY_MS = 3000;

/** The open server-sent-event streams of each listener (holdEventStream), by its HTTP server. */
const eventStreams = new WeakMap<Server, Set<ServerResponse>>();

/**
 * Keeps `res`, a text/event-stream response of `server` whose head is written, until it closes,
 * so that a stop ends it with a retry hint (endEventStreams). Only streams are kept: a hook that
 * kept every response cost every request a promise and a `close` listener (docs/benchmarks.md,
 * "Issue 39: what every request pays").
 */
export function holdEventStream(server: Server, res: ServerResponse): void {
  const streams = eventStreams.get(server) ?? new Set<ServerResponse>();
  eventStreams.set(server, streams);
  streams.add(res);
  res.once("close", () => streams.delete(res));
}

/** Ends every open text/event-stream response of `app` (holdEventStream) with a retry hint; returns how many. */
export function endEventStreams(app: App): number {
  let ended = 0;
  for (const res of eventStreams.get(app.server) ?? []) {
    if (res.writableEnded) continue;
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
