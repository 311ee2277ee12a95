// The portal build this process serves (web/portal/dist, made by ./build.ts): prepared once (a
// failed build is tried again on the next request), then read by the pages (./page.ts) and sent
// file by file for assets.
import fs from "node:fs";
import path from "node:path";
import type { FastifyReply } from "fastify";
import type { App } from "../../platform/http/app.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { ensurePortalBuilt, PORTAL_DIST } from "./build.js";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export interface PortalDist {
  /** Resolves once the build is current (builds it when missing or older than its sources). */
  prepare(): Promise<void>;
  /** The build's index.html. */
  readIndex(): Promise<string>;
  /**
   * Sends a file of the build (assets/…, favicon.svg); false when there is none. (It answers a
   * boolean, not the reply: an async function returning the thenable reply resolves to undefined.)
   */
  sendFile(rel: string, reply: FastifyReply): Promise<boolean>;
}

export function portalDist(app: App): PortalDist {
  let ready: Promise<void> | null = null;
  const prepare = (): Promise<void> =>
    (ready ??= ensurePortalBuilt((line) => app.log.info({ portal: line }, "portal build")).then(
      () => app.log.debug("portal build is current"),
      (e: unknown) => {
        ready = null;
        app.log.error({ err: e }, "the portal could not be built");
        throw new AppError("service_unavailable", "The portal could not be built; see the server log.");
      },
    ));

  async function readIndex(): Promise<string> {
    await prepare();
    return fs.promises.readFile(path.join(PORTAL_DIST, "index.html"), "utf8");
  }

  async function sendFile(rel: string, reply: FastifyReply): Promise<boolean> {
    await prepare();
    const full = path.resolve(PORTAL_DIST, rel);
    if (!full.startsWith(PORTAL_DIST + path.sep) || path.basename(full).startsWith(".")) return false;
    const type = TYPES[path.extname(full)];
    if (!type) return false;
    let body: Buffer;
    try {
      body = await fs.promises.readFile(full);
    } catch {
      return false;
    }
    void reply
      .type(type)
      .header("x-content-type-options", "nosniff")
      // Files under assets/ carry a content hash in their name.
      .header("cache-control", rel.startsWith("assets/") ? "public, max-age=31536000, immutable" : "public, max-age=300")
      .send(body);
    return true;
  }

  return { prepare, readIndex, sendFile };
}
