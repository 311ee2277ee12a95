// Multipart bodies (uploaded images) for the routes that take them, and for no others.
// @fastify/multipart adds an onRequest hook (a listener on the response's `close`) and an
// onResponse hook (its temporary files' cleanup) to every request of the scope it is registered
// in, and reads any multipart body sent there. Registered once for the whole API it cost every
// request those two hooks, text search included (docs/benchmarks.md, "Issue 39: what every
// request pays"); registered in a scope of its own, it serves the upload routes only, and a
// multipart body sent to any other route is refused with 415 (the route's `consumes` names what
// it takes).
import multipart from "@fastify/multipart";
import type { App } from "../../platform/http/app.js";
import type { AppContext } from "../../context/context.js";

/** Makes `scope` (an encapsulated plugin scope) read multipart bodies: fields and files become the body, files Buffers. */
export async function acceptUploads(scope: App, ctx: Pick<AppContext, "config">): Promise<void> {
  await scope.register(multipart, {
    attachFieldsToBody: "keyValues",
    limits: { fileSize: ctx.config.outbound.maxBytes, files: 10, fields: 30, parts: 40 },
  });
}

/** Registers `routes` in a scope of their own that reads multipart bodies (acceptUploads). */
export async function withUploads(app: App, ctx: Pick<AppContext, "config">, routes: (scope: App) => Promise<void>): Promise<void> {
  await app.register(async (scope: App) => {
    await acceptUploads(scope, ctx);
    await routes(scope);
  });
}
