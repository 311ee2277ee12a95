// Browser scripts served by the APIs (the search widget at /widget.js, the chat component's
// modules under /widget/): read once at start, cached by browsers for 5 minutes and revalidated
// with a strong ETag.
import crypto from "node:crypto";
import fs from "node:fs";
import type { FastifyReply, FastifyRequest } from "fastify";

export interface Script {
  body: string;
  etag: string;
}

export function loadScript(file: string): Script {
  const body = fs.readFileSync(file, "utf8");
  return { body, etag: `"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
}

/** If-None-Match: one or more (possibly weak) tags, or `*`. */
function matches(header: string | string[] | undefined, etag: string): boolean {
  const value = Array.isArray(header) ? header.join(",") : header;
  if (!value) return false;
  return value.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === etag;
  });
}

/** Sends the script (or 304 when the browser's copy is current), loadable from any origin. */
export function sendScript(request: FastifyRequest, reply: FastifyReply, script: Script): FastifyReply {
  reply
    .header("cache-control", "public, max-age=300")
    .header("etag", script.etag)
    .header("x-content-type-options", "nosniff")
    .header("cross-origin-resource-policy", "cross-origin");
  if (matches(request.headers["if-none-match"], script.etag)) return reply.status(304).send();
  return reply.type("text/javascript; charset=utf-8").send(script.body);
}
