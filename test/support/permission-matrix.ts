// A table-driven permission matrix: for each gated route, every role, a custom group, the machine
// grant and scoped API keys are tried, and each must be allowed or refused exactly as the
// permission catalogue (src/search/auth/permissions.ts) says.
//
//   allowed  → anything but 401, 400 validation_failed, or 403 missing_permission / forbidden
//              (the request reached the handler: 2xx, 404, 409, 503 … are all fine);
//   refused  → 403 missing_permission with details.missing_permission naming the permission
//              (API keys also get details.missing_scope); owner-only routes may answer 403 forbidden.
//
// Principals per route:
//   owner, admin, developer, viewer — user logins, allowed when ROLE_PERMISSIONS[role] has it;
//   custom   — a viewer whose custom group holds exactly the permission (allowed);
//   machine  — the machine grant (allowed: it bypasses permission checks);
//   key:only — an API key with only that scope (allowed; skipped for permissions keys cannot hold);
//   key:rest — an API key with every other key scope (refused, naming the scope).
//
// Usage (extend with new gated routes; payloads must pass validation so the check is reached):
//   const s = await storeWithRoles(t);
//   await checkPermissionMatrix(t, s, [
//     { method: "GET", url: "/v1/products", permission: "products:read" },
//     { method: "POST", url: "/v1/products", permission: "products:write", payload: {...} },
//   ]);
import assert from "node:assert/strict";
import type { Role } from "../../src/db/schema.js";
import {
  API_KEY_PERMISSIONS,
  NOT_FOR_API_KEYS,
  permissionsToScopes,
  ROLE_PERMISSIONS,
  ROLES,
  type Permission,
} from "../../src/tenancy/permissions.js";
import type { TestApp } from "./harness.js";
import { bearer } from "./factories.js";
import { addMember, createApiKey, createGroup, revokeApiKey, setGroups, type StoreWithRoles } from "./members.js";

export interface GatedRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  permission: Permission;
  payload?: unknown;
  headers?: Record<string, string>;
  /** The route also needs the owner role (team invites): every other principal is refused. */
  ownerOnly?: boolean;
}

type Outcome = "allowed" | "refused";

interface Case {
  principal: string;
  token: string;
  expect: Outcome;
  viaKey: boolean;
}

export interface MatrixReport {
  /** Number of (route, principal) requests checked. */
  checked: number;
  /** Every result, for diagnostics: "principal METHOD url → status error". */
  lines: string[];
}

function judge(expect: Outcome, route: GatedRoute, viaKey: boolean, status: number, body: Record<string, any>): string | undefined {
  const error = body?.error as string | undefined;
  if (expect === "allowed") {
    if (status === 401) return `expected allowed, got 401 ${error}`;
    if (status === 400 && error === "validation_failed")
      return `payload did not validate (fix the matrix entry): ${JSON.stringify(body.details)}`;
    if (status === 403 && (error === "missing_permission" || error === "forbidden" || error === "ip_not_allowed")) {
      return `expected allowed, got 403 ${error} ${JSON.stringify(body.details)}`;
    }
    return undefined;
  }
  if (status !== 403) return `expected 403, got ${status} ${error}`;
  if (route.ownerOnly && (error === "forbidden" || error === "missing_permission")) return undefined;
  if (error !== "missing_permission") return `expected missing_permission, got ${error}`;
  if (body.details?.missing_permission !== route.permission) {
    return `expected details.missing_permission ${route.permission}, got ${body.details?.missing_permission}`;
  }
  if (viaKey) {
    const [area, ...rest] = route.permission.split(":");
    if (JSON.stringify(body.details?.missing_scope) !== JSON.stringify({ [area!]: [rest.join(":")] })) {
      return `expected details.missing_scope for ${route.permission}, got ${JSON.stringify(body.details?.missing_scope)}`;
    }
  }
  return undefined;
}

/** Runs the matrix; fails (one assertion listing every mismatch) when any case is off. */
export async function checkPermissionMatrix(t: TestApp, s: StoreWithRoles, routes: GatedRoute[]): Promise<MatrixReport> {
  const owner = s.members.owner.token;
  const custom = await addMember(t, owner, "viewer", { emailPrefix: "custom" });
  const groups = new Map<Permission, string>();
  const failures: string[] = [];
  const lines: string[] = [];
  let checked = 0;

  const byPermission = new Map<Permission, GatedRoute[]>();
  for (const r of routes) byPermission.set(r.permission, [...(byPermission.get(r.permission) ?? []), r]);

  for (const [permission, group] of byPermission) {
    if (!groups.has(permission)) groups.set(permission, await createGroup(t, owner, [permission]));
    await setGroups(t, owner, custom.id, [groups.get(permission)!]);
    const keyable = !NOT_FOR_API_KEYS.has(permission);
    const only = keyable ? await createApiKey(t, s.machine, permissionsToScopes([permission])) : undefined;
    const rest = await createApiKey(t, s.machine, permissionsToScopes(API_KEY_PERMISSIONS.filter((p) => p !== permission)));

    for (const route of group) {
      const roleCase = (role: Role): Case => ({
        principal: role,
        token: s.members[role].token,
        expect: route.ownerOnly
          ? role === "owner"
            ? "allowed"
            : "refused"
          : ROLE_PERMISSIONS[role].includes(permission)
            ? "allowed"
            : "refused",
        viaKey: false,
      });
      const cases: Case[] = [
        ...ROLES.map(roleCase),
        { principal: "custom", token: custom.token, expect: route.ownerOnly ? "refused" : "allowed", viaKey: false },
        { principal: "machine", token: s.machine, expect: route.ownerOnly ? "refused" : "allowed", viaKey: false },
        ...(only
          ? [{ principal: "key:only", token: only.key, expect: (route.ownerOnly ? "refused" : "allowed") as Outcome, viaKey: true }]
          : []),
        { principal: "key:rest", token: rest.key, expect: "refused", viaKey: true },
      ];
      for (const c of cases) {
        const res = await t.search.inject({
          method: route.method,
          url: route.url,
          headers: { ...bearer(c.token), ...route.headers },
          ...(route.payload === undefined ? {} : { payload: route.payload as object }),
        });
        checked += 1;
        let body: Record<string, any> = {};
        try {
          body = res.json();
        } catch {
          /* not JSON */
        }
        lines.push(`${c.principal} ${route.method} ${route.url} → ${res.statusCode} ${body?.error ?? ""}`);
        const problem = judge(c.expect, route, c.viaKey, res.statusCode, body);
        if (problem) failures.push(`${c.principal} ${route.method} ${route.url} [${permission}]: ${problem}`);
      }
    }
    if (only) await revokeApiKey(t, s.machine, only.id);
    await revokeApiKey(t, s.machine, rest.id);
  }
  assert.deepEqual(failures, [], `permission matrix mismatches:\n${failures.join("\n")}`);
  return { checked, lines };
}
