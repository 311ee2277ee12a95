// Content negotiation between browsers and API clients on the few Search API paths that both
// open: `GET /` and `GET /verify`. A browser navigation asks for text/html first
// (`Accept: text/html,application/xhtml+xml,…`); curl sends `*/*`, fetch and most HTTP clients send
// `*/*` or `application/json`, and those keep the JSON answer.
import type { FastifyRequest } from "fastify";

/** Media ranges of an Accept header with their q values, in header order. */
function ranges(accept: string): { type: string; q: number }[] {
  return accept
    .split(",")
    .map((part) => {
      const [type = "", ...params] = part.trim().toLowerCase().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const value = q ? Number(q.slice(2)) : 1;
      return { type: type.trim(), q: Number.isFinite(value) ? value : 0 };
    })
    .filter((r) => r.type !== "");
}

/** Whether the client prefers an HTML page to JSON (text/html named with a higher q than application/json). */
export function prefersHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (!accept) return false;
  const list = ranges(accept);
  const q = (type: string) => Math.max(0, ...list.filter((r) => r.type === type).map((r) => r.q));
  const html = q("text/html");
  return html > 0 && html > q("application/json");
}
