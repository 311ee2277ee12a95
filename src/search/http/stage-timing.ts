// A search's server time around the search service, by stage (shopsight_search_stage_duration_seconds,
// src/platform/metrics.ts): `auth` (the authentication hooks: the shared authenticator, wrapped
// where src/search/app.ts registers it, and the widget gate), `http` (the rest of the way from
// the request's start to its handler: routing, the other onRequest hooks, body parsing,
// validation, the permission check) and `serialise` (the reply's JSON). A search route calls
// searchArrived() first thing in its handler and compiles its response serialisers with
// timedSerializer(); nothing is allocated per request beyond the observations.
import type { FastifyReply, FastifyRequest, FastifySerializerCompiler } from "fastify";
import type { App } from "../../platform/http/app.js";
import type { Metrics } from "../../platform/metrics.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Milliseconds this request spent in authentication hooks (timedAuthentication, the widget gate). */
    authMs: number;
  }
}

type StageMetrics = Pick<Metrics, "observeSearchStage">;

/** `authenticate` (an onRequest hook) timed into the request's `authMs`; declares `authMs` on `app`'s requests. */
export function timedAuthentication(
  app: App,
  authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  app.decorateRequest("authMs", 0);
  return async (request, reply) => {
    const started = performance.now();
    await authenticate(request, reply);
    request.authMs += performance.now() - started;
  };
}

/** At a search handler's start: records the request's `auth` and `http` time so far. */
export function searchArrived(metrics: StageMetrics, request: FastifyRequest, reply: { elapsedTime: number }): void {
  const auth = request.authMs;
  metrics.observeSearchStage("auth", auth / 1000);
  // elapsedTime: since Fastify took the request from the router (0 when it does not track it).
  metrics.observeSearchStage("http", Math.max(0, reply.elapsedTime - auth) / 1000);
}

/**
 * A route's `serializerCompiler`: the serialisers the app compiles from the route's response
 * schemas (the ones Fastify would use), the 200 answer's timed as `serialise`.
 */
export function timedSerializer(app: App, metrics: StageMetrics): FastifySerializerCompiler<unknown> {
  return (route) => {
    // Set up by the time a route's schemas compile (routes with response schemas came before).
    const compile = app.serializerCompiler;
    if (!compile) throw new Error("timedSerializer: the app has no serializer compiler yet");
    const serialize = compile(route);
    if (String(route.httpStatus) !== "200") return serialize;
    return (answer: unknown) => {
      const started = performance.now();
      const json = serialize(answer);
      metrics.observeSearchStage("serialise", (performance.now() - started) / 1000);
      return json;
    };
  };
}
