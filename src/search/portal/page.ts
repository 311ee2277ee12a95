// The portal's page: every page path answers the build's index.html (the app routes on the client
// with the History API), sent with the page's security headers.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { PortalDist } from "./dist.js";

/**
 * The portal page's Content-Security-Policy: own scripts only (the chat preview's
 * <commerce-ai-chat> modules are served from the portal's own origin under /portal/chat/);
 * product images may come from anywhere; API calls go to the Search API (same origin) and to the
 * Assistant API at `chatOrigin` (the Assistant section and the chat preview).
 */
export const portalCsp = (chatOrigin: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https: http:",
    `connect-src 'self' ${chatOrigin}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

/** A handler answering the portal page, for an Assistant API at `chatOrigin`. */
export function pageSender(dist: PortalDist, chatOrigin: string) {
  const csp = portalCsp(chatOrigin);
  return async function sendIndex(_request: FastifyRequest, reply: FastifyReply) {
    const html = await dist.readIndex();
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-cache")
      .header("content-security-policy", csp)
      .header("x-frame-options", "DENY")
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "same-origin")
      .send(html);
  };
}
