// Permissions (spec: Authentication 7; Users and groups; Security records).
//
// One catalogue of permission names `area:action`, used in three places:
//   - user groups (`permission_names`) — a user-login token may do what its role's default group
//     plus its custom groups in the active store allow;
//   - scoped API keys (`scopes: {area: [action, …]}` — `{"products": ["read"]}` is products:read);
//   - route gating: `preHandler: requirePermission("products:read")`.
// Machine grants (client credentials) and super admins bypass every permission check (spec:
// "Tokens from the machine grant bypass all checks"). A missing permission is 403
// `missing_permission` with `details.missing_permission` naming it.
//
// Usage on a route (after authentication and schema validation):
//   app.get("/v1/products", { config: { auth: "store" }, preHandler: requirePermission("products:read"), … })
import type { FastifyRequest } from "fastify";
import { AppError } from "../platform/errors/catalogue.js";
import { bearerSecurity } from "../platform/http/schemas.js";
import type { Role } from "../db/schema.js";
import "./errors/codes.js"; // registers the error codes thrown here

/** Every permission the service knows, with the endpoints it opens. */
export const PERMISSIONS = {
  "products:read": "List and read indexed products (GET /v1/products, GET /v1/products/{product_id}).",
  "products:write":
    "Index, re-index and update products, install the demo catalogue and edit the store's search synonyms and merchandising rules (POST /v1/products, PUT/PATCH /v1/products/{product_id}, POST /v1/products/demo, POST/PUT/DELETE /v1/search/synonyms*, POST/PUT/DELETE /v1/search/rules*).",
  "products:delete": "Remove products from the index (DELETE /v1/products/{product_id}).",
  "products:bulk":
    "Start bulk imports and bulk actions, read bulk-job status (POST /v1/products/bulk, /bulk-delete with products:delete, /bulk-update with products:write, GET /v1/jobs/{job_id}).",
  "search:read":
    "Read search-derived data and settings: popular products, suggestions, the store's synonyms and merchandising rules (GET /v1/search/feedback/popular, GET /v1/search/suggestions, GET /v1/search/synonyms, GET /v1/search/rules).",
  "search:write": "Record search feedback — clicks, add-to-cart, purchases (POST /v1/search/feedback).",
  "search:execute":
    "Run searches of every mode (POST /v1/search, /v1/search/url, /text, /hybrid, /fusion, /multi-image, /crop, /filtered, /batch).",
  "webhooks:read": "List webhooks and their delivery logs (GET /v1/search/webhooks*).",
  "webhooks:write": "Register and delete webhooks (POST /v1/search/webhooks, DELETE /v1/search/webhooks/{webhook_id}).",
  "analytics:read": "Read search analytics (GET /v1/search/analytics).",
  "billing:read": "Read the plan, usage and invoices (GET /v1/billing/*).",
  "billing:write": "Change the plan through the hosted checkout (POST /v1/billing/checkout).",
  "team:read": "List members, users, groups, pending invites and the permission catalogue (GET /v1/users, /v1/user-groups*, /v1/team/*).",
  "team:write":
    "Manage members, users and groups: create users and groups, change roles and group membership, remove members (POST /v1/users, POST/DELETE /v1/user-groups*, PATCH/DELETE /v1/team/members/{user_id}). Inviting also needs the owner role.",
  "security:read":
    "Read the security overview, API keys (never their secrets) and the IP allow-list (GET /v1/security/overview, /api-keys, /ip-whitelist).",
  "security:write": "Create and revoke API keys, edit the IP allow-list (POST/DELETE /v1/security/api-keys*, /v1/security/ip-whitelist*).",
  "widget:read": "Read the store's public widget keys and their allowed origins.",
  "widget:write": "Create, change and revoke public widget keys (pk_live_…) and their allowed origins.",
  "connector:write:store": "Configure the store's storefront connector used by the shopping assistant.",
} as const satisfies Record<string, string>;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

export const isPermission = (value: string): value is Permission => Object.hasOwn(PERMISSIONS, value);

/** `area` and `action` of a permission name: "connector:write:store" → connector / write:store. */
export function splitPermission(p: Permission): { area: string; action: string } {
  const i = p.indexOf(":");
  return { area: p.slice(0, i), action: p.slice(i + 1) };
}

/**
 * Permissions an API key may never carry: with them a key could mint broader keys, lift its own
 * IP allow-list or add people to the team. Those stay with user logins and machine grants.
 * connector:write:store is here because the only routes needing it, the Assistant API's
 * /v1/admin/*, accept a dashboard session (a user login) only: a key with that scope would do
 * nothing (the portal offered it, and every call with it was refused).
 */
export const NOT_FOR_API_KEYS: ReadonlySet<Permission> = new Set<Permission>(["security:write", "team:write", "connector:write:store"]);
export const API_KEY_PERMISSIONS = PERMISSION_NAMES.filter((p) => !NOT_FOR_API_KEYS.has(p));

/** API-key scope areas and their actions, derived from the catalogue. */
export const API_KEY_SCOPE_AREAS: Record<string, string[]> = {};
for (const p of API_KEY_PERMISSIONS) {
  const { area, action } = splitPermission(p);
  (API_KEY_SCOPE_AREAS[area] ??= []).push(action);
}

export type Scopes = Record<string, string[]>;
/** Scopes as a request carries them (an area may be present and undefined). */
export type ScopesInput = Record<string, readonly string[] | undefined>;

/** `{"products": ["read","write"]}` → {products:read, products:write}; unknown pairs are refused. */
export function scopesToPermissions(scopes: ScopesInput): Permission[] {
  const out = new Set<Permission>();
  for (const [area, actions] of Object.entries(scopes)) {
    for (const action of actions ?? []) {
      const name = `${area}:${action}`;
      if (!isPermission(name) || NOT_FOR_API_KEYS.has(name)) {
        throw new AppError("validation_failed", `"${name}" is not an API-key scope.`, {
          errors: [{ field: `scopes.${area}`, message: `"${action}" is not an accepted action` }],
        });
      }
      out.add(name);
    }
  }
  return PERMISSION_NAMES.filter((p) => out.has(p));
}

/** The inverse of scopesToPermissions, in catalogue order. */
export function permissionsToScopes(permissions: Iterable<string>): Scopes {
  const wanted = new Set(permissions);
  const scopes: Scopes = {};
  for (const p of PERMISSION_NAMES) {
    if (!wanted.has(p)) continue;
    const { area, action } = splitPermission(p);
    (scopes[area] ??= []).push(action);
  }
  return scopes;
}

const READS = PERMISSION_NAMES.filter((p) => p.endsWith(":read"));
const areas = (...prefixes: string[]) => PERMISSION_NAMES.filter((p) => prefixes.some((a) => p.startsWith(`${a}:`)));

/**
 * Roles → default groups. Every member of a store is implicitly in the built-in group of its role;
 * custom groups add permissions on top (never remove them).
 *   owner, admin: everything (admins still cannot invite or manage owners: role rules).
 *   developer:    products:*, search:*, webhooks:*, widget:*, analytics:read
 *                 and every other *:read (billing, team, security) — a developer can see, not change,
 *                 the plan, the team and the security settings. The Assistant API's admin calls
 *                 (connector:write:store) stay with owners and admins, as the assistant issue asks.
 *   viewer:       every *:read plus search:execute (may try searches, change nothing).
 */
export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: PERMISSION_NAMES,
  admin: PERMISSION_NAMES,
  developer: PERMISSION_NAMES.filter((p) => areas("products", "search", "webhooks", "widget").includes(p) || READS.includes(p)),
  viewer: PERMISSION_NAMES.filter((p) => READS.includes(p) || p === "search:execute"),
};

export const ROLES: readonly Role[] = ["owner", "admin", "developer", "viewer"];

/** The built-in group of each role: fixed ids, the same in every store. */
export const BUILT_IN_GROUPS: Record<Role, { id: string; name: string; description: string }> = {
  owner: {
    id: "grp_owner",
    name: "Owners",
    description: "Default group of the owner role: every permission; may invite and manage owners.",
  },
  admin: {
    id: "grp_admin",
    name: "Admins",
    description: "Default group of the admin role: every permission; cannot invite or manage owners.",
  },
  developer: {
    id: "grp_developer",
    name: "Developers",
    description: "Default group of the developer role: products, search, webhooks and widget, plus read access everywhere.",
  },
  viewer: {
    id: "grp_viewer",
    name: "Viewers",
    description: "Default group of the viewer role: read access everywhere plus running searches.",
  },
};

export function roleOfBuiltInGroup(groupId: string): Role | undefined {
  return ROLES.find((r) => BUILT_IN_GROUPS[r].id === groupId);
}

/** What the caller holds in the active store: "all" for machine grants and super admins. */
export type Grant = "all" | ReadonlySet<Permission>;

export function holds(grant: Grant, permission: Permission): boolean {
  return grant === "all" || grant.has(permission);
}

/** The first of `wanted` the grant lacks, or undefined. */
export function firstMissing(grant: Grant, wanted: Iterable<Permission>): Permission | undefined {
  if (grant === "all") return undefined;
  for (const p of wanted) if (!grant.has(p)) return p;
  return undefined;
}

export function missingPermission(permission: Permission, viaApiKey: boolean): AppError {
  const { area, action } = splitPermission(permission);
  return viaApiKey
    ? new AppError("missing_permission", `The API key lacks the scope ${permission} ({"${area}": ["${action}"]}).`, {
        missing_permission: permission,
        missing_scope: { [area]: [action] },
      })
    : new AppError("missing_permission", `This needs the permission ${permission}.`, { missing_permission: permission });
}

/**
 * The authorization preHandler for permission-gated routes (route `config.auth` must be "store").
 * Machine grants and super admins pass; API keys need the matching scope; user logins need the
 * permission in their role's default group or one of their groups in the active store.
 */
export function requirePermission(permission: Permission): PermissionCheck {
  if (!isPermission(permission)) throw new Error(`Unknown permission ${JSON.stringify(permission)}`);
  const check = async function checkPermission(request: FastifyRequest): Promise<void> {
    const store = request.store;
    if (!store) throw new AppError("unauthorized");
    if (!holds(store.permissions, permission)) throw missingPermission(permission, store.role === "api_key");
  };
  // The route registry (authenticate.ts trackRoutes) reads this to record the route's permission;
  // API keys are refused on store routes that declare none.
  return Object.assign(check, { permission });
}

/** The preHandler returned by requirePermission, tagged with its permission. */
export type PermissionCheck = ((request: FastifyRequest) => Promise<void>) & { permission: Permission };

/** The permission a preHandler (or list of them) checks, if one of them is a requirePermission. */
export function permissionOfHandlers(handlers: unknown): Permission | undefined {
  const list = Array.isArray(handlers) ? handlers : [handlers];
  for (const h of list) {
    const p = (h as { permission?: unknown } | null | undefined)?.permission;
    if (typeof h === "function" && typeof p === "string" && isPermission(p)) return p;
  }
  return undefined;
}

/** A preHandler that refuses the request by throwing an AppError. */
export type StoreGuard = (request: FastifyRequest) => Promise<void>;

/**
 * Options of every store route: store authentication, its guard — a permission (checked by
 * requirePermission and recorded in the route table by trackRoutes) or, for the few routes gated
 * by role rather than permission, a guard such as requireRole — then any further checks `also`,
 * in order, and bearer security in the OpenAPI document.
 */
export function storeRoute<S extends object>(guard: Permission | StoreGuard, schema: S, ...also: StoreGuard[]) {
  const first = typeof guard === "string" ? requirePermission(guard) : guard;
  return {
    config: { auth: "store" as const },
    preHandler: also.length > 0 ? [first, ...also] : first,
    schema: { ...schema, security: bearerSecurity },
  };
}
