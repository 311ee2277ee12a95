// Registers the audit of every /v1/admin/* call on the Assistant API (onSend: the outcome is known,
// and the event is written before the reply leaves, so an admin who lists the trail after a call
// finds it; written after the reply, a list right after could miss it). Handlers may name the target of a create with
// `request.auditTarget = id`; path ids are taken from the route params. Only the body's `reason`
// (a string) is kept from the request; never anything else of the body.
import type { FastifyRequest } from "fastify";
import { toAppError } from "../../platform/errors/map.js";
import type { App } from "../../platform/http/app.js";
import { operationOf, type AuditService } from "./service.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Id of the resource an admin call created or acted on, for the audit trail. */
    auditTarget: string | null;
    /** Code of the error the call failed with (set by the audit onError hook). */
    auditErrorCode: string | null;
  }
}

const ADMIN_PREFIX = "/v1/admin/";
const TARGET_PARAMS = ["id", "concept_id", "order_id", "connection_id"];

function targetOf(request: FastifyRequest): string | null {
  if (request.auditTarget) return request.auditTarget;
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const k of TARGET_PARAMS) if (typeof params[k] === "string") return params[k];
  const body = request.body as Record<string, unknown> | null | undefined;
  if (body && typeof body === "object" && typeof body.connection_id === "string") return body.connection_id;
  return null;
}

function reasonOf(request: FastifyRequest): string | null {
  const body = request.body as Record<string, unknown> | null | undefined;
  return body && typeof body === "object" && typeof body.reason === "string" ? body.reason : null;
}

export function registerAdminAudit(app: App, audit: AuditService): void {
  if (!app.hasRequestDecorator("auditTarget")) app.decorateRequest("auditTarget", null);
  if (!app.hasRequestDecorator("auditErrorCode")) app.decorateRequest("auditErrorCode", null);

  app.addHook("onError", async (request, _reply, error) => {
    if (request.url.startsWith(ADMIN_PREFIX)) request.auditErrorCode = toAppError(error).assistantCode;
  });

  app.addHook("onSend", async (request, reply, payload) => {
    if (!request.url.startsWith(ADMIN_PREFIX)) return payload;
    const store = request.store;
    const route = request.routeOptions.url;
    if (!store || !route) return payload;
    const actor = request.principal?.kind === "user" ? request.principal.userId : null;
    try {
      await audit.record({
        storeId: store.id,
        actorUserId: actor,
        operation: operationOf(request.method, route),
        method: request.method,
        route,
        targetId: targetOf(request),
        reason: reasonOf(request),
        statusCode: reply.statusCode,
        errorCode: reply.statusCode >= 400 ? (request.auditErrorCode ?? "ERROR") : null,
        correlationId: request.id,
      });
    } catch (err) {
      request.log.error({ err: { message: (err as Error).message }, correlation_id: request.id }, "audit record failed");
    }
    return payload;
  });
}
