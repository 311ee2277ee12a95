// Users, members and groups of a store (spec: Users and groups; Authentication 7).
//   - A member's role puts it in the role's built-in group (grp_owner, grp_admin, grp_developer,
//     grp_viewer: see auth/permissions.ts ROLE_PERMISSIONS); custom groups add permissions.
//   - `group_ids` may name at most one built-in group, which sets the role (default viewer), and
//     any number of the store's custom groups.
//   - Nobody grants more than they hold: the permissions a caller hands out (via groups, roles
//     or group definitions) must all be its own. Members manage only members and roles at or
//     below their own rank (owner > admin > developer > viewer); a store keeps at least one owner.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { prefixedId, uuid } from "../../platform/ids.js";
import { hashPassword, passwordProblem } from "../../platform/auth/passwords.js";
import type { Role } from "../../db/schema.js";
import { AccountsRepository } from "../../tenancy/stores/repository.js";
import type { ActiveStore } from "../../tenancy/authenticate.js";
import {
  BUILT_IN_GROUPS,
  firstMissing,
  isPermission,
  missingPermission,
  NOT_FOR_API_KEYS,
  PERMISSION_NAMES,
  PERMISSIONS,
  ROLE_PERMISSIONS,
  ROLES,
  roleOfBuiltInGroup,
  splitPermission,
  type Grant,
  type Permission,
} from "../../tenancy/permissions.js";
import { UsersRepository, type GroupRow, type MemberRow } from "../../tenancy/users/repository.js";
import type { SecurityRepository } from "../../tenancy/security/repository.js";
import { iso } from "../../platform/clock.js";
import "../errors/codes.js"; // registers the error codes thrown here

/** Who is acting: its role in the store (or machine / super admin) and what it holds. */
export interface Actor {
  userId: string | null;
  role: ActiveStore["role"];
  grant: Grant;
}

export interface CreateUserInput {
  email: string;
  password: string;
  full_name: string;
  group_ids?: readonly string[] | undefined;
}

export interface UpdateMemberInput {
  role?: Role | undefined;
  group_ids?: readonly string[] | undefined;
}

export interface CreateGroupInput {
  name: string;
  permission_names: readonly string[];
  description?: string | undefined;
}

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

/**
 * A member manages only members and roles at or below its own rank (owner > admin > developer >
 * viewer): admins cannot make, change or remove owners, a developer given team:write cannot
 * touch admins. Machine grants and super admins are not ranked.
 */
function checkRank(actor: Actor, ...roles: Role[]): void {
  if (actor.role === "machine" || actor.role === "super_admin" || actor.role === "api_key") return;
  const mine = actor.role;
  const above = roles.find((r) => RANK[r] > RANK[mine]);
  if (above) {
    throw new AppError(
      "forbidden",
      above === "owner" ? "Only an owner may make, change or remove owners." : `A ${mine} cannot manage the role ${above}.`,
      {
        role: above,
      },
    );
  }
}

function memberView(m: MemberRow, customGroups: readonly string[]) {
  return {
    id: m.user_id,
    email: m.email,
    full_name: m.full_name,
    role: m.role,
    group_ids: [BUILT_IN_GROUPS[m.role].id, ...customGroups],
    two_factor_enabled: m.totp_enabled === 1,
    joined_at: iso(m.joined_at),
    last_used_at: iso(m.last_used_at),
  };
}

export class UsersService {
  private readonly repo: UsersRepository;
  private readonly accounts: AccountsRepository;
  private readonly security: SecurityRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: UsersRepository; accounts: AccountsRepository; security: SecurityRepository },
  ) {
    this.repo = deps.repo;
    this.accounts = deps.accounts;
    this.security = deps.security;
  }

  // --- members
  async listMembers(storeId: string) {
    const [members, groups] = await Promise.all([this.repo.listMembers(storeId), this.repo.memberGroups(storeId)]);
    return members.map((m) => memberView(m, groups.get(m.user_id) ?? []));
  }

  async member(storeId: string, userId: string) {
    const m = await this.repo.findMember(storeId, userId);
    if (!m) throw new AppError("not_found", `No member ${userId} in this store.`);
    return memberView(m, (await this.repo.memberGroups(storeId)).get(userId) ?? []);
  }

  /** POST /v1/users: a new global user who joins the active store at once. */
  async createUser(storeId: string, actor: Actor, input: CreateUserInput) {
    const problem = passwordProblem(input.password);
    if (problem) throw new AppError("validation_failed", problem, { errors: [{ field: "password", message: problem }] });
    const email = input.email.trim().toLowerCase();
    const { role, custom } = await this.resolveGroups(storeId, input.group_ids ?? [], undefined);
    checkRank(actor, role);
    await this.checkGrantable(storeId, actor, role, custom, undefined);
    if (await this.accounts.findUserByEmail(email)) {
      throw new AppError("conflict", "A user with this e-mail address already exists; invite them with POST /v1/team/invite.", {
        email,
      });
    }
    const passwordHash = await hashPassword(input.password);
    const now = this.ctx.clock.now();
    const userId = uuid();
    await this.ctx.database.transaction(async (tx) => {
      await this.accounts.with(tx).createUser(userId, {
        email,
        password_hash: passwordHash,
        full_name: input.full_name.trim(),
        is_super_admin: 0,
        created_at: now,
      });
      await this.accounts.with(tx).addMembership(storeId, userId, role, now);
      await this.repo.with(tx).setMemberGroups(storeId, userId, custom, now);
    });
    return this.member(storeId, userId);
  }

  /** PATCH /v1/team/members/{user_id}: change the role and/or the custom groups. */
  async updateMember(storeId: string, actor: Actor, userId: string, input: UpdateMemberInput) {
    const target = await this.repo.findMember(storeId, userId);
    if (!target) throw new AppError("not_found", `No member ${userId} in this store.`);
    if (input.role === undefined && input.group_ids === undefined) {
      throw new AppError("validation_failed", "Send role, group_ids or both.", {
        errors: [{ field: "role", message: "role or group_ids is required" }],
      });
    }
    const resolved = input.group_ids === undefined ? undefined : await this.resolveGroups(storeId, input.group_ids, input.role);
    const role = input.role ?? resolved?.builtInRole ?? target.role;
    const currentGroups = (await this.repo.memberGroups(storeId)).get(userId) ?? [];
    const custom = resolved?.custom ?? currentGroups;
    checkRank(actor, target.role, role);
    await this.checkGrantable(storeId, actor, role, custom, { role: target.role, groups: currentGroups });
    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      if (role !== target.role) {
        await repo.setRole(storeId, userId, role);
        if (target.role === "owner" && (await repo.countOwners(storeId)) === 0) throw new AppError("last_owner");
      }
      if (resolved) await repo.setMemberGroups(storeId, userId, custom, this.ctx.clock.now());
    });
    return this.member(storeId, userId);
  }

  /** DELETE /v1/team/members/{user_id}: the user leaves the store (the global account stays). */
  async removeMember(storeId: string, actor: Actor, userId: string) {
    const target = await this.repo.findMember(storeId, userId);
    if (!target) throw new AppError("not_found", `No member ${userId} in this store.`);
    checkRank(actor, target.role);
    // The API keys the member created go with them (revoked, not reassigned): a key is a credential
    // its creator may have copied, and after the removal nobody in the store answers for it.
    const revokedKeys = await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      await repo.removeMember(storeId, userId);
      if (target.role === "owner" && (await repo.countOwners(storeId)) === 0) throw new AppError("last_owner");
      return this.security.with(tx).revokeApiKeysCreatedBy(storeId, userId, this.ctx.clock.now());
    });
    return { removed: true as const, id: userId, revoked_api_keys: revokedKeys };
  }

  // --- groups
  async listGroups(storeId: string) {
    const [groups, permissions, counts, members] = await Promise.all([
      this.repo.listGroups(storeId),
      this.repo.groupPermissions(storeId),
      this.repo.groupMemberCounts(storeId),
      this.repo.listMembers(storeId),
    ]);
    const builtIn = ROLES.map((role) => ({
      id: BUILT_IN_GROUPS[role].id,
      name: BUILT_IN_GROUPS[role].name,
      description: BUILT_IN_GROUPS[role].description,
      permission_names: [...ROLE_PERMISSIONS[role]] as string[],
      built_in: true,
      role: role,
      member_count: members.filter((m) => m.role === role).length,
      created_at: null as string | null,
    }));
    return [...builtIn, ...groups.map((g) => this.groupView(g, permissions.get(g.id) ?? [], counts.get(g.id) ?? 0))];
  }

  async createGroup(storeId: string, actor: Actor, input: CreateGroupInput) {
    const name = input.name.trim();
    const nameKey = name.toLowerCase();
    if (ROLES.some((r) => BUILT_IN_GROUPS[r].name.toLowerCase() === nameKey || BUILT_IN_GROUPS[r].id === nameKey)) {
      throw new AppError("conflict", `"${name}" is the name of a built-in group.`);
    }
    const unknown = input.permission_names.find((p) => !isPermission(p));
    if (unknown) {
      throw new AppError("validation_failed", `Unknown permission "${unknown}".`, {
        errors: [{ field: "permission_names", message: `"${unknown}" is not a permission` }],
      });
    }
    const permissions = PERMISSION_NAMES.filter((p) => input.permission_names.includes(p));
    const missing = firstMissing(actor.grant, permissions);
    if (missing) throw missingPermission(missing, false);
    const row = {
      id: prefixedId("grp"),
      name,
      name_key: nameKey,
      description: (input.description ?? "").trim(),
      created_at: this.ctx.clock.now(),
    };
    if ((await this.repo.listGroups(storeId)).some((g) => g.name_key === nameKey)) {
      throw new AppError("conflict", `A group named "${name}" already exists.`);
    }
    await this.ctx.database.transaction((tx) => this.repo.with(tx).createGroup(storeId, row, permissions));
    return this.groupView({ ...row, store_id: storeId }, permissions, 0);
  }

  async deleteGroup(storeId: string, groupId: string) {
    if (roleOfBuiltInGroup(groupId)) throw new AppError("conflict", "Built-in groups cannot be deleted.");
    if (!(await this.repo.deleteGroup(storeId, groupId))) throw new AppError("not_found", `No group ${groupId} in this store.`);
    return { deleted: true as const, id: groupId };
  }

  /** The permission catalogue with, for each name, the roles whose default group holds it. */
  permissions() {
    return PERMISSION_NAMES.map((name) => ({
      name,
      ...splitPermission(name),
      description: PERMISSIONS[name],
      api_key_scope: !NOT_FOR_API_KEYS.has(name),
      roles: ROLES.filter((r) => ROLE_PERMISSIONS[r].includes(name)),
    }));
  }

  private groupView(g: GroupRow, permissions: readonly string[], memberCount: number) {
    return {
      id: g.id,
      name: g.name,
      description: g.description,
      permission_names: PERMISSION_NAMES.filter((p) => permissions.includes(p)) as string[],
      built_in: false,
      role: null as Role | null,
      member_count: memberCount,
      created_at: iso(g.created_at) as string | null,
    };
  }

  /**
   * Splits group ids into the role they imply (at most one built-in group; default viewer, or
   * `explicitRole` when given) and the custom groups, which must all belong to the store.
   */
  private async resolveGroups(storeId: string, groupIds: readonly string[], explicitRole: Role | undefined) {
    const unique = [...new Set(groupIds)];
    const builtIn = unique.map(roleOfBuiltInGroup).filter((r): r is Role => r !== undefined);
    if (builtIn.length > 1) {
      throw new AppError("validation_failed", "group_ids may name at most one built-in (role) group.", {
        errors: [{ field: "group_ids", message: "names several built-in groups" }],
      });
    }
    if (explicitRole && builtIn[0] && builtIn[0] !== explicitRole) {
      throw new AppError("validation_failed", `role ${explicitRole} contradicts the built-in group ${BUILT_IN_GROUPS[builtIn[0]].id}.`, {
        errors: [{ field: "group_ids", message: "contradicts role" }],
      });
    }
    const custom = unique.filter((id) => roleOfBuiltInGroup(id) === undefined);
    const found = await this.repo.findGroups(storeId, custom);
    const missing = custom.find((id) => !found.some((g) => g.id === id));
    if (missing) throw new AppError("not_found", `No group ${missing} in this store.`, { group_id: missing });
    return { role: explicitRole ?? builtIn[0] ?? "viewer", builtInRole: builtIn[0], custom };
  }

  /**
   * The permissions the change would newly give the member must all be held by the actor
   * (nobody hands out more than they hold).
   */
  private async checkGrantable(
    storeId: string,
    actor: Actor,
    role: Role,
    customGroups: readonly string[],
    before: { role: Role; groups: readonly string[] } | undefined,
  ) {
    if (actor.grant === "all") return;
    const permissions = await this.repo.groupPermissions(storeId);
    const grantsOf = (r: Role, groups: readonly string[]) => {
      const set = new Set<string>(ROLE_PERMISSIONS[r]);
      for (const g of groups) for (const p of permissions.get(g) ?? []) set.add(p);
      return set;
    };
    const after = grantsOf(role, customGroups);
    const had = before ? grantsOf(before.role, before.groups) : new Set<string>();
    const added = [...after].filter((p): p is Permission => isPermission(p) && !had.has(p));
    const missing = firstMissing(actor.grant, added);
    if (missing) throw missingPermission(missing, false);
  }
}
