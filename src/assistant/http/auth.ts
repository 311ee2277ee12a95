// Authentication of Assistant API routes.
//   - Shopper calls: `Authorization: Bearer ast_…`, an opaque session token minted by
//     POST /v1/sessions/anonymous, looked up by SHA-256 in assistant_sessions (expired or revoked
//     → 401 UNAUTHENTICATED). Opaque and table-backed so that revocation takes effect at once and
//     the Search API never accepts one (it is not a JWT nor an `sk_live_` key).
//   - Admin calls (/v1/admin/*): a dashboard session, i.e. a Search API user-login token (same
//     signing key), resolved to its active store exactly as the Search API does
//     (X-Service-Active-Tenant when the user belongs to several stores), then a permission check.
//     Machine grants, API keys and shopper sessions are refused there.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { sha256 } from "../../platform/ids.js";
import { bearerOf, createAuthenticator } from "../../tenancy/authenticate.js";
import type { TenancyRepositories } from "../../tenancy/compose.js";
import { requirePermission, type Permission, type PermissionCheck } from "../../tenancy/permissions.js";
import type { App } from "../../platform/http/app.js";
import type { AssistantSessionsTable } from "../../db/schema.js";

export const SESSION_TOKEN_PREFIX = "ast_";

export interface ShopperSession {
  id: string;
  storeId: string;
  role: string;
  locale: string | null;
  expiresAt: number;
  /** The store's customer id for exchanged (signed-in, role "customer") sessions; null for anonymous ones. */
  customerId: string | null;
}

declare module "fastify" {
  interface FastifyRequest {
    shopper: ShopperSession | null;
  }
}

/** Decorations the assistant app needs once (the Search authenticator sets principal/store). */
export function decorateAssistantRequests(app: App): void {
  if (!app.hasRequestDecorator("shopper")) app.decorateRequest("shopper", null);
  if (!app.hasRequestDecorator("principal")) app.decorateRequest("principal", null);
  if (!app.hasRequestDecorator("store")) app.decorateRequest("store", null);
}

/** What the session guard reads of a session (src/assistant/sessions/repository.ts implements it). */
export interface SessionLookup {
  findByTokenHash(
    tokenHash: string,
  ): Promise<Omit<AssistantSessionsTable, "token_hash" | "public_key_id" | "created_at" | "revoke_reason"> | undefined>;
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The guards of the Assistant API's routes, built once (src/assistant/compose.ts). */
export interface AssistantGuards {
  /** onRequest hook for shopper routes: sets request.shopper or throws 401. */
  session: Hook;
  /** onRequest + preHandler pair for admin routes needing `permission`. */
  dashboard(permission: Permission): { onRequest: Hook; preHandler: PermissionCheck };
}

export function createGuards(ctx: AppContext, sessions: SessionLookup, tenancy: TenancyRepositories): AssistantGuards {
  const authenticate = createAuthenticator(ctx, tenancy);
  return { session: sessionGuard(ctx, sessions), dashboard: (permission) => dashboardGuard(authenticate, permission) };
}

function sessionGuard(ctx: AppContext, sessions: SessionLookup): Hook {
  return async function requireSession(request: FastifyRequest): Promise<void> {
    const token = bearerOf(request);
    if (!token || !token.startsWith(SESSION_TOKEN_PREFIX))
      throw new AppError("unauthorized", "A session token (Bearer ast_…) is required.");
    const row = await sessions.findByTokenHash(sha256(token));
    if (!row) throw new AppError("unauthorized", "The session token is invalid.");
    if (row.revoked_at !== null) throw new AppError("unauthorized", "The session has been revoked.");
    if (row.expires_at <= ctx.clock.now()) throw new AppError("unauthorized", "The session has expired.");
    request.shopper = {
      id: row.id,
      storeId: row.store_id,
      role: row.role,
      locale: row.locale,
      expiresAt: row.expires_at,
      customerId: row.customer_id,
    };
  };
}

export function shopperOf(request: FastifyRequest): ShopperSession {
  if (!request.shopper) throw new AppError("unauthorized");
  return request.shopper;
}

/**
 * onRequest + preHandler pair for admin routes: the route must declare `config: { auth: "store" }`
 * so the Search authenticator resolves the store.
 */
function dashboardGuard(
  authenticate: ReturnType<typeof createAuthenticator>,
  permission: Permission,
): { onRequest: Hook; preHandler: PermissionCheck } {
  const check = requirePermission(permission);
  return {
    onRequest: async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const token = bearerOf(request);
      if (token?.startsWith(SESSION_TOKEN_PREFIX))
        throw new AppError("unauthorized", "Admin calls need a dashboard session, not a shopper session.");
      await authenticate(request, reply);
      if (request.principal?.kind !== "user") {
        throw new AppError("forbidden", "Admin calls need a dashboard session (a user login), not a machine grant or API key.");
      }
    },
    preHandler: check,
  };
}
