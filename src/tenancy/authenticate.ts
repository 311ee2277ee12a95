// Authentication and store resolution for Search API routes (spec: Authentication 1, 6, 7).
// Each route declares what it needs in `config.auth`:
//   "none"          — public;
//   "user"          — a user-login token, no store needed (per-user settings such as 2FA);
//   "user_optional" — public, but a user-login bearer, when sent, is verified and set (invite accept);
//   "store"         — any bearer (machine grant, user login or API key) resolved to one active store.
// Bearers: a signed access token (JWT) from /oauth/token or /oauth/login, or a scoped API key
// `sk_live_…` (POST /v1/security/api-keys), which acts on its own store within its scopes.
// The store's IP allow-list, when not empty, applies to machine grants and API keys: other client
// addresses get 403 ip_not_allowed. User logins are not restricted by it (see docs/api-search.md, "IP allow-list").
// The hook runs in onRequest, before body validation: authenticate → validate → authorize.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../platform/clock.js";
import type { TokenSigner } from "../platform/auth/tokens.js";
import type { RevocationStore } from "../platform/auth/revocations.js";
import { AppError } from "../platform/errors/catalogue.js";
import type { AccessClaims } from "../platform/auth/tokens.js";
import type { Role } from "../db/schema.js";
import type { App } from "../platform/http/app.js";
import { sha256 } from "../platform/ids.js";
import { planOf, type Plan } from "./plans.js";
import { ipNotAllowed, rangesAllow } from "./security/allowlist.js";
import { authCacheOf, type CacheContext } from "./auth-cache.js";
import type { UsersRepository } from "./users/repository.js";
import type { TenancyRepositories } from "./compose.js";
import { isPermission, permissionOfHandlers, ROLE_PERMISSIONS, type Grant, type Permission } from "./permissions.js";
import "./errors/codes.js"; // registers the error codes thrown here

export type AuthMode = "none" | "user" | "user_optional" | "store";

/** The prefix of scoped API keys; any bearer starting with it is looked up as a key. */
export const API_KEY_PREFIX = "sk_live_";

export type Principal =
  | { kind: "client"; storeId: string; claims: AccessClaims }
  | { kind: "user"; userId: string; isSuperAdmin: boolean; claims: AccessClaims }
  | { kind: "api_key"; keyId: string; storeId: string; name: string; scopes: ReadonlySet<Permission> };

export interface ActiveStore {
  id: string;
  slug: string;
  name: string;
  plan: Plan;
  /**
   * The caller's role in the store; "machine" for machine grants, "super_admin" for platform
   * admins, "api_key" for scoped API keys.
   */
  role: Role | "machine" | "super_admin" | "api_key";
  /** What the caller may do here: "all" (machine grants, super admins) or a set of permissions. */
  permissions: Grant;
}

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: AuthMode;
    /** Set by the route registry from the route's requirePermission preHandler. */
    permission?: Permission;
  }
  interface FastifyRequest {
    principal: Principal | null;
    store: ActiveStore | null;
  }
}

export const ACTIVE_TENANT_HEADER = "x-service-active-tenant";

/**
 * Whether a machine token was issued before the store's last client-secret rotation, which revokes
 * every machine token and refresh chain minted before it. Compared by whole seconds, the precision
 * of `iat`: a token issued in the same second as the rotation still passes (see docs/api-search.md, "Client-secret rotation revokes machine tokens").
 */
export function issuedBeforeRotation(claims: Pick<AccessClaims, "iat">, store: { secret_rotated_at: number | null }): boolean {
  return store.secret_rotated_at !== null && claims.iat < Math.floor(store.secret_rotated_at / 1000);
}

/** last_used_at of an API key is written at most this often. */
const KEY_TOUCH_INTERVAL_MS = 60_000;

export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** The permissions of a store member: the role's default group plus the member's custom groups. */
export async function memberPermissions(
  users: UsersRepository,
  storeId: string,
  userId: string,
  role: Role,
): Promise<ReadonlySet<Permission>> {
  const set = new Set<Permission>(ROLE_PERMISSIONS[role]);
  for (const p of await users.permissionsOfUser(storeId, userId)) if (isPermission(p)) set.add(p);
  return set;
}

/** What authentication needs of the context (src/context/context.ts). */
export interface AuthContext extends CacheContext {
  clock: Clock;
  signer: TokenSigner;
  revocations: RevocationStore;
}

/**
 * The onRequest hook of an API, over the composition root's repositories (src/search/compose.ts).
 */
export function createAuthenticator(
  ctx: AuthContext,
  repositories: TenancyRepositories,
): (request: FastifyRequest, reply?: FastifyReply) => Promise<void> {
  const { accounts: repo, security, users } = repositories;
  // Every read below goes through the process's authentication cache (./auth-cache.ts): a
  // credential seen recently costs no statement until something it depends on changes.
  const cache = authCacheOf(ctx);
  const K = "\u0000";

  async function apiKeyPrincipal(key: string): Promise<Principal> {
    const hash = sha256(key);
    const row = await cache.get(`key${K}${hash}`, () => security.findApiKeyByHash(hash));
    if (!row || row.revoked_at !== null) throw new AppError("unauthorized", "The API key is invalid or has been revoked.");
    const now = ctx.clock.now();
    if (row.expires_at <= now) throw new AppError("unauthorized", "The API key has expired.");
    if (row.last_used_at === null || now - row.last_used_at >= KEY_TOUCH_INTERVAL_MS) {
      row.last_used_at = now; // the cached row too: the touch is written once per interval
      await security.touchApiKey(row.store_id, row.id, now);
    }
    const scopes = new Set((JSON.parse(row.scopes) as string[]).filter(isPermission));
    return { kind: "api_key", keyId: row.id, storeId: row.store_id, name: row.name, scopes };
  }

  async function principalFor(request: FastifyRequest): Promise<Principal> {
    const token = bearerOf(request);
    if (!token) throw new AppError("unauthorized", "A bearer token is required.");
    if (token.startsWith(API_KEY_PREFIX)) return apiKeyPrincipal(token);
    const claims = await ctx.signer.verify(token);
    if (await cache.get(`jti${K}${claims.jti}`, () => ctx.revocations.isRevoked(claims.jti)))
      throw new AppError("unauthorized", "The token has been revoked.");
    if (claims.user_type === "client") return { kind: "client", storeId: claims.sub, claims };
    return { kind: "user", userId: claims.sub, isSuperAdmin: claims.is_super_admin, claims };
  }

  async function storeFor(principal: Principal, request: FastifyRequest): Promise<ActiveStore> {
    if (principal.kind === "client" || principal.kind === "api_key") {
      // Machine credentials act on their own store only; the active-tenant header is ignored.
      const store = await cache.get(`store${K}${principal.storeId}`, () => repo.findStore(principal.storeId));
      if (!store || store.status !== "active") throw new AppError("unauthorized");
      if (principal.kind === "client" && issuedBeforeRotation(principal.claims, store)) {
        throw new AppError("unauthorized", "The client secret was rotated after this token was issued; obtain a new grant.");
      }
      const ranges = await cache.get(`ranges${K}${store.id}`, () => security.allowlistRanges(store.id));
      if (!rangesAllow(ranges, request.ip)) throw ipNotAllowed(request.ip);
      const base = { id: store.id, slug: store.slug, name: store.name, plan: planOf(store.plan) };
      return principal.kind === "client"
        ? { ...base, role: "machine", permissions: "all" }
        : { ...base, role: "api_key", permissions: principal.scopes };
    }
    const header = request.headers[ACTIVE_TENANT_HEADER];
    const slug = typeof header === "string" ? header.trim() : undefined;
    const userId = principal.userId;
    const memberships = (await cache.get(`memberships${K}${userId}`, () => repo.membershipsOfUser(userId))).filter(
      (m) => m.status === "active",
    );
    const asMember = async (m: (typeof memberships)[number]): Promise<ActiveStore> => ({
      id: m.client_id,
      slug: m.slug,
      name: m.name,
      plan: planOf(m.plan),
      // A super admin acts as super admin even in a store it is a member of.
      role: principal.isSuperAdmin ? "super_admin" : m.role,
      permissions: principal.isSuperAdmin
        ? "all"
        : await cache.get(`permissions${K}${m.client_id}${K}${userId}`, () => memberPermissions(users, m.client_id, userId, m.role)),
    });
    if (slug) {
      const m = memberships.find((x) => x.slug === slug);
      if (m) return asMember(m);
      if (principal.isSuperAdmin) {
        const store = await cache.get(`slug${K}${slug}`, () => repo.findStoreBySlug(slug));
        if (store) {
          return { id: store.id, slug: store.slug, name: store.name, plan: planOf(store.plan), role: "super_admin", permissions: "all" };
        }
        throw new AppError("not_found", `No store with slug "${slug}".`);
      }
      throw new AppError("not_a_member", `You are not a member of the store "${slug}".`, { slug });
    }
    const only = memberships.length === 1 ? memberships[0] : undefined;
    if (only) return asMember(only);
    if (memberships.length === 0 && !principal.isSuperAdmin) {
      throw new AppError("not_a_member", "You are not a member of any active store.");
    }
    throw new AppError("ambiguous_active_store", undefined, {
      header: "X-Service-Active-Tenant",
      stores: memberships.map((m) => m.slug),
    });
  }

  /** The onRequest hook: sets request.principal and request.store as the route's `auth` asks. */
  return async function authenticate(request: FastifyRequest): Promise<void> {
    request.principal = null;
    request.store = null;
    const mode = request.routeOptions.config.auth ?? "none";
    if (mode === "none") return;
    if (mode === "user_optional" && bearerOf(request) === undefined) return;
    cache.sync();
    const principal = await principalFor(request);
    request.principal = principal;
    if (mode === "user" || mode === "user_optional") {
      if (principal.kind !== "user") {
        throw new AppError("forbidden", "This endpoint needs a user login, not a machine grant or API key.");
      }
      return;
    }
    request.store = await storeFor(principal, request);
    // API keys may do only what their scopes allow: a store route that declares no permission
    // (role-gated or ungated) is closed to them.
    if (principal.kind === "api_key" && !request.routeOptions.config.permission) {
      throw new AppError("forbidden", "API keys cannot use this endpoint; it needs a user login or the machine grant.");
    }
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

/** The acting user on a "store" route, or null for machine grants and API keys. */
export function actorUserIdOf(request: FastifyRequest): string | null {
  return request.principal?.kind === "user" ? request.principal.userId : null;
}

/**
 * Authorization by role: machine grants and super admins pass (spec: Authentication 7);
 * user logins need one of `roles` in the active store. API keys never pass a role check: they
 * carry scopes, not a role.
 */
export function requireRole(...roles: Role[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const store = storeOf(request);
    if (store.role === "machine" || store.role === "super_admin") return;
    if (store.role === "api_key") {
      throw new AppError("forbidden", "API keys cannot use this endpoint; it needs a user login or the machine grant.", {
        required_roles: roles,
      });
    }
    if (!roles.includes(store.role)) {
      throw new AppError("forbidden", `This needs the role ${roles.join(" or ")} in store "${store.slug}".`, {
        required_roles: roles,
      });
    }
  };
}

// --- route registry: every route of an app, for the isolation sweep and the permission matrix.
export interface RegisteredRoute {
  method: string;
  url: string;
  auth: AuthMode;
  /** The permission its requirePermission preHandler checks, if any. */
  permission: Permission | undefined;
}

const registries = new WeakMap<object, RegisteredRoute[]>();

/**
 * Records every route registered on `app` from now on (call before adding routes), and copies the
 * permission of a route's requirePermission preHandler into its `config.permission`, which the
 * authenticator needs to let API keys in (without it, keys are refused: fail closed).
 */
export function trackRoutes(app: App): void {
  const list: RegisteredRoute[] = [];
  registries.set(app, list);
  app.addHook("onRoute", (route) => {
    const permission = permissionOfHandlers(route.preHandler);
    const config = (route.config ?? {}) as { auth?: AuthMode; permission?: Permission };
    if (permission) route.config = { ...config, permission };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD" || method === "OPTIONS") continue;
      list.push({ method, url: route.url, auth: config.auth ?? "none", permission });
    }
  });
}

/** The routes recorded by trackRoutes, in registration order. */
export function routesOf(app: App): readonly RegisteredRoute[] {
  return registries.get(app) ?? [];
}
