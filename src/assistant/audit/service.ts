// Every admin call of the Assistant API (/v1/admin/*) is recorded once its response is sent:
// who (the dashboard user), what (an operation name such as connection.create), when, on what
// (the target id) and with what outcome (success/failure, status, error code), plus the `reason`
// the caller gave. Request bodies are never recorded: secrets (private tokens) cannot reach the
// trail. Calls refused before a store was resolved (no or bad credentials) have no store and are
// left to the request log.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId } from "../../platform/ids.js";
import type { AuditRepository, AuditRow } from "./repository.js";
import { iso } from "../../platform/clock.js";
import type { AuditEventView } from "./schemas.js";

export interface AuditEntry {
  storeId: string;
  actorUserId: string | null;
  operation: string;
  method: string;
  route: string;
  targetId: string | null;
  reason: string | null;
  statusCode: number;
  errorCode: string | null;
  correlationId: string;
}

/** Operation names of the admin routes; other routes get `<resource>.<verb>`. */
const OPERATIONS: Record<string, string> = {
  "POST /v1/admin/public-keys": "public_key.create",
  "GET /v1/admin/public-keys": "public_key.list",
  "DELETE /v1/admin/public-keys/:id": "public_key.revoke",
  "PUT /v1/admin/policies/:concept_id": "policy.put",
  "GET /v1/admin/policies": "policy.list",
  "POST /v1/admin/connections/storefront": "connection.create",
  "POST /v1/admin/connections/storefront/token": "connection.credential",
  "GET /v1/admin/connections": "connection.list",
  "DELETE /v1/admin/connections/:id": "connection.delete",
  "GET /v1/admin/settings": "settings.read",
  "PUT /v1/admin/settings": "settings.put",
  "GET /v1/admin/settings/vocabulary": "vocabulary.read",
  "PUT /v1/admin/settings/vocabulary": "vocabulary.put",
  "POST /v1/admin/exchange-secret": "exchange_secret.rotate",
  "GET /v1/admin/exchange-secret": "exchange_secret.read",
  "GET /v1/admin/audit": "audit.read",
};
const VERBS: Record<string, string> = { GET: "read", POST: "create", PUT: "put", PATCH: "update", DELETE: "delete" };

export function operationOf(method: string, route: string): string {
  const known = OPERATIONS[`${method} ${route}`];
  if (known) return known;
  const resource = route
    .replace(/^\/v1\/admin\//, "")
    .split("/")
    .filter((s) => s && !s.startsWith(":"))
    .join("_")
    .replace(/-/g, "_");
  return `${resource || "admin"}.${VERBS[method] ?? method.toLowerCase()}`;
}

const encodeCursor = (r: AuditRow): string => Buffer.from(`${r.created_at}:${r.id}`).toString("base64url");
function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const [at, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split(":");
  const createdAt = Number(at);
  if (!Number.isSafeInteger(createdAt) || rest.length === 0) {
    throw new AppError("validation_failed", "cursor is not a cursor of this list.", {
      errors: [{ field: "querystring.cursor", message: "is invalid" }],
    });
  }
  return { createdAt, id: rest.join(":") };
}

export class AuditService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: AuditRepository,
  ) {}

  async record(e: AuditEntry): Promise<void> {
    await this.repo.insert(e.storeId, {
      id: prefixedId("aud"),
      actor_user_id: e.actorUserId,
      operation: e.operation,
      method: e.method,
      route: e.route,
      target_id: e.targetId,
      reason: e.reason === null ? null : e.reason.slice(0, 500),
      outcome: e.statusCode < 400 ? "success" : "failure",
      status_code: e.statusCode,
      error_code: e.errorCode,
      correlation_id: e.correlationId,
      created_at: this.ctx.clock.now(),
    });
  }

  async list(
    storeId: string,
    limit: number,
    cursor?: string,
    operation?: string,
  ): Promise<{ events: AuditEventView[]; next_cursor: string | null }> {
    const rows = await this.repo.list(storeId, limit + 1, cursor ? decodeCursor(cursor) : undefined, operation);
    const page = rows.slice(0, limit);
    return {
      events: page.map((r) => ({
        id: r.id,
        operation: r.operation,
        actor_user_id: r.actor_user_id,
        method: r.method,
        route: r.route,
        target_id: r.target_id,
        reason: r.reason,
        outcome: r.outcome === "success" ? "success" : "failure",
        status_code: r.status_code,
        error_code: r.error_code,
        correlation_id: r.correlation_id,
        created_at: iso(r.created_at),
      })),
      next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null,
    };
  }
}
