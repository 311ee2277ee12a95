// Test data for team, users, groups and API keys, built through the public API: a store with one
// signed-in member per role, custom groups and scoped API keys.
import assert from "node:assert/strict";
import type { Role } from "../../src/db/schema.js";
import type { TestApp } from "./harness.js";
import { bearer, lastMailTo, loginToken, machineToken, registerStore, type RegisteredStore } from "./factories.js";

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter += 1)}${Math.random().toString(36).slice(2, 6)}`;

export const MEMBER_PASSWORD = "Member-password-7";

export interface Member {
  id: string;
  email: string;
  password: string;
  token: string;
}

export interface StoreWithRoles {
  store: RegisteredStore;
  /** The machine grant of the store. */
  machine: string;
  /** One signed-in member per role (the owner is the registering user). */
  members: Record<Role, Member>;
}

/** Adds a user to the store via POST /v1/users (role from the built-in group) and signs it in. */
export async function addMember(
  t: TestApp,
  adminToken: string,
  role: Role,
  options: { groupIds?: string[]; emailPrefix?: string; headers?: Record<string, string> } = {},
): Promise<Member> {
  const email = `${options.emailPrefix ?? role}-${unique()}@example.com`;
  const res = await t.search.inject({
    method: "POST",
    url: "/v1/users",
    headers: { ...bearer(adminToken), ...options.headers },
    payload: { email, password: MEMBER_PASSWORD, full_name: `A ${role}`, group_ids: [`grp_${role}`, ...(options.groupIds ?? [])] },
  });
  assert.equal(res.statusCode, 201, res.body);
  const token = await loginToken(t.search, email, MEMBER_PASSWORD);
  return { id: res.json().id as string, email, password: MEMBER_PASSWORD, token };
}

export async function storeWithRoles(t: TestApp, store?: RegisteredStore): Promise<StoreWithRoles> {
  const s = store ?? (await registerStore(t));
  const ownerToken = await loginToken(t.search, s.email, s.password);
  const me = await t.search.inject({ method: "GET", url: "/v1/users", headers: bearer(ownerToken) });
  assert.equal(me.statusCode, 200, me.body);
  const ownerId = (me.json() as { id: string; email: string }[]).find((u) => u.email === s.email)!.id;
  const members: Record<Role, Member> = {
    owner: { id: ownerId, email: s.email, password: s.password, token: ownerToken },
    admin: await addMember(t, ownerToken, "admin"),
    developer: await addMember(t, ownerToken, "developer"),
    viewer: await addMember(t, ownerToken, "viewer"),
  };
  return { store: s, machine: await machineToken(t.search, s), members };
}

export interface CreatedKey {
  id: string;
  key: string;
}

/** Creates an API key with `scopes` using `token` (owner, admin or machine grant). */
export async function createApiKey(
  t: TestApp,
  token: string,
  scopes: Record<string, string[]>,
  extra: { name?: string; expires_in_days?: number } = {},
): Promise<CreatedKey> {
  const res = await t.search.inject({
    method: "POST",
    url: "/v1/security/api-keys",
    headers: bearer(token),
    payload: {
      name: extra.name ?? `key ${unique()}`,
      scopes,
      ...(extra.expires_in_days ? { expires_in_days: extra.expires_in_days } : {}),
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { id: res.json().id as string, key: res.json().key as string };
}

export async function revokeApiKey(t: TestApp, token: string, keyId: string): Promise<void> {
  const res = await t.search.inject({ method: "DELETE", url: `/v1/security/api-keys/${keyId}`, headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
}

/** Creates a custom group holding `permissions`; returns its id. */
export async function createGroup(t: TestApp, token: string, permissions: string[], name = `group ${unique()}`): Promise<string> {
  const res = await t.search.inject({
    method: "POST",
    url: "/v1/user-groups",
    headers: bearer(token),
    payload: { name, permission_names: permissions },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as string;
}

/** Replaces a member's custom groups. */
export async function setGroups(t: TestApp, token: string, userId: string, groupIds: string[]): Promise<void> {
  const res = await t.search.inject({
    method: "PATCH",
    url: `/v1/team/members/${userId}`,
    headers: bearer(token),
    payload: { group_ids: groupIds },
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** The owner of `guest` joins `host` with `role` as a user would: invited by host's owner, accepting the e-mailed link. */
export async function joinByInvite(t: TestApp, host: RegisteredStore, guest: RegisteredStore, role: Role): Promise<void> {
  const hostOwner = await loginToken(t.search, host.email, host.password);
  const invite = await t.search.inject({
    method: "POST",
    url: "/v1/team/invite",
    headers: { ...bearer(hostOwner), "x-service-active-tenant": host.slug },
    payload: { email: guest.email, role },
  });
  assert.equal(invite.statusCode, 201, invite.body);
  const token = /\/portal\/accept-invite\?token=([A-Za-z0-9_%-]+)/.exec(lastMailTo(t, guest.email))![1]!;
  const accepted = await t.search.inject({
    method: "POST",
    url: "/v1/team/invites/accept",
    headers: bearer(await loginToken(t.search, guest.email, guest.password)),
    payload: { token: decodeURIComponent(token) },
  });
  assert.ok(accepted.statusCode < 300, accepted.body);
}
