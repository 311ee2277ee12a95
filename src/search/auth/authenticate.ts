// Authentication and store resolution for Search API routes (spec: Authentication 1, 6, 7).
// Each route declares what it needs in `config.auth`:
//   "none"  — public;
//   "user"  — a user-login token, no store needed (per-user settings such as 2FA);
//   "store" — any bearer (machine grant or user login) resolved to one active store.
// The hook runs in onRequest, before body validation: authenticate → validate → authorize.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../platform/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import type { AccessClaims } from "../../platform/auth/tokens.js";
import type { Role } from "../../platform/db/schema.js";
import { AccountsRepository } from "../accounts/repository.js";
import { planOf, type Plan } from "../billing/plans.js";

export type AuthMode = "none" | "user" | "store";

export type Principal =
  | { kind: "client"; storeId: string; claims: AccessClaims }
  | { kind: "user"; userId: string; isSuperAdmin: boolean; claims: AccessClaims };

export interface ActiveStore {
  id: string;
  slug: string;
  name: string;
  plan: Plan;
  /** The caller's role in the store; "machine" for machine grants, "super_admin" for platform admins. */
  role: Role | "machine" | "super_admin";
}

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    principal: Principal | null;
    store: ActiveStore | null;
  }
}

export const ACTIVE_TENANT_HEADER = "x-service-active-tenant";

export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export function createAuthenticator(ctx: AppContext) {
  const repo = new AccountsRepository(ctx.database.db);

  async function principalFor(request: FastifyRequest): Promise<Principal> {
    const token = bearerOf(request);
    if (!token) throw new AppError("unauthorized", "A bearer token is required.");
    const claims = await ctx.signer.verify(token);
    if (await ctx.revocations.isRevoked(claims.jti)) throw new AppError("unauthorized", "The token has been revoked.");
    if (claims.user_type === "client") return { kind: "client", storeId: claims.sub, claims };
    return { kind: "user", userId: claims.sub, isSuperAdmin: claims.is_super_admin === true, claims };
  }

  async function storeFor(principal: Principal, request: FastifyRequest): Promise<ActiveStore> {
    if (principal.kind === "client") {
      const store = await repo.findStore(principal.storeId);
      if (!store || store.status !== "active") throw new AppError("unauthorized");
      return { id: store.id, slug: store.slug, name: store.name, plan: planOf(store.plan), role: "machine" };
    }
    const header = request.headers[ACTIVE_TENANT_HEADER];
    const slug = typeof header === "string" ? header.trim() : undefined;
    const memberships = (await repo.membershipsOfUser(principal.userId)).filter((m) => m.status === "active");
    if (slug) {
      const m = memberships.find((x) => x.slug === slug);
      if (m) return { id: m.client_id, slug: m.slug, name: m.name, plan: planOf(m.plan), role: m.role };
      if (principal.isSuperAdmin) {
        const store = await repo.findStoreBySlug(slug);
        if (store) return { id: store.id, slug: store.slug, name: store.name, plan: planOf(store.plan), role: "super_admin" };
        throw new AppError("not_found", `No store with slug "${slug}".`);
      }
      throw new AppError("not_a_member", `You are not a member of the store "${slug}".`, { slug });
    }
    const only = memberships.length === 1 ? memberships[0] : undefined;
    if (only) return { id: only.client_id, slug: only.slug, name: only.name, plan: planOf(only.plan), role: only.role };
    if (memberships.length === 0 && !principal.isSuperAdmin) {
      throw new AppError("not_a_member", "You are not a member of any active store.");
    }
    throw new AppError("ambiguous_active_store", undefined, {
      header: "X-Service-Active-Tenant",
      stores: memberships.map((m) => m.slug),
    });
  }

  /** The onRequest hook: sets request.principal and request.store as the route's `auth` asks. */
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.principal = null;
    request.store = null;
    const mode = request.routeOptions.config?.auth ?? "none";
    if (mode === "none") return;
    const principal = await principalFor(request);
    request.principal = principal;
    if (mode === "user") {
      if (principal.kind !== "user") throw new AppError("forbidden", "This endpoint needs a user login, not a machine grant.");
      return;
    }
    request.store = await storeFor(principal, request);
  };
}

/** The resolved store of a "store" route (the hook guarantees it). */
export function storeOf(request: FastifyRequest): ActiveStore {
  if (!request.store) throw new AppError("unauthorized");
  return request.store;
}

/** The user id of a "user" route (the hook guarantees it). */
export function userIdOf(request: FastifyRequest): string {
  if (request.principal?.kind !== "user") throw new AppError("forbidden", "This endpoint needs a user login.");
  return request.principal.userId;
}

/**
 * Authorization by role: machine grants and super admins pass (spec: Authentication 7);
 * user logins need one of `roles` in the active store.
 */
export function requireRole(...roles: Role[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const store = storeOf(request);
    if (store.role === "machine" || store.role === "super_admin") return;
    if (!roles.includes(store.role)) {
      throw new AppError("forbidden", `This needs the role ${roles.join(" or ")} in store "${store.slug}".`, {
        required_roles: roles,
      });
    }
  };
}
