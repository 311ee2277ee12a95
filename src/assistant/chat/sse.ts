// Server-sent events framing and the hijacked response that carries them. Headers already set on
// the Fastify reply (correlation id, CORS) are copied onto the raw response.
import type { FastifyReply } from "fastify";
import { holdEventStream } from "../../platform/http/shutdown.js";
import type { ChatEvent } from "./schemas.js";

/** One SSE frame: `id:` the thread sequence number, `event:` the name, `data:` the JSON data. */
export function sseFrame(event: ChatEvent): string {
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

export interface SseWriter {
  send(event: ChatEvent): void;
  end(): void;
  /** False once the client went away (the turn still completes and stays replayable). */
  readonly open: boolean;
}

/** Takes the response over from Fastify and writes the 200 text/event-stream headers. */
export function openSse(reply: FastifyReply): SseWriter {
  reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  raw.writeHead(200, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  raw.write("retry: 3000\n\n");
  holdEventStream(reply.server.server, raw); // ended with a retry hint when the server stops
  const writable = () => !raw.destroyed && !raw.writableEnded;
  return {
    send(event) {
      if (writable()) raw.write(sseFrame(event));
    },
    end() {
      if (writable()) raw.end();
    },
    get open() {
      return writable();
    },
  };
}
