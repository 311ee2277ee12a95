// Store members (memberships joined with users), custom user groups, their permissions and
// members. `storeId` is the first argument of every method.
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { Role, UserGroupsTable } from "../../db/schema.js";

export type GroupRow = Selectable<UserGroupsTable>;

export interface MemberRow {
  user_id: string;
  email: string;
  full_name: string;
  role: Role;
  totp_enabled: number;
  joined_at: number;
  last_used_at: number | null;
}

export class UsersRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): UsersRepository {
    return new UsersRepository(db);
  }

  // --- members
  listMembers(storeId: string): Promise<MemberRow[]> {
    return this.memberQuery(storeId).orderBy("m.created_at").orderBy("u.email").execute();
  }

  findMember(storeId: string, userId: string): Promise<MemberRow | undefined> {
    return this.memberQuery(storeId).where("m.user_id", "=", userId).executeTakeFirst();
  }

  private memberQuery(storeId: string) {
    return this.db
      .selectFrom("memberships as m")
      .innerJoin("users as u", "u.id", "m.user_id")
      .select(["u.id as user_id", "u.email", "u.full_name", "m.role", "u.totp_enabled", "m.created_at as joined_at", "m.last_used_at"])
      .where("m.store_id", "=", storeId);
  }

  async countOwners(storeId: string): Promise<number> {
    const row = await this.db
      .selectFrom("memberships")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId)
      .where("role", "=", "owner")
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async setRole(storeId: string, userId: string, role: Role): Promise<void> {
    await this.db.updateTable("memberships").set({ role }).where("store_id", "=", storeId).where("user_id", "=", userId).execute();
  }

  async removeMember(storeId: string, userId: string): Promise<boolean> {
    await this.db.deleteFrom("user_group_members").where("store_id", "=", storeId).where("user_id", "=", userId).execute();
    const result = await this.db.deleteFrom("memberships").where("store_id", "=", storeId).where("user_id", "=", userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  // --- groups
  async createGroup(storeId: string, group: Omit<GroupRow, "store_id">, permissions: readonly string[]): Promise<void> {
    await this.db
      .insertInto("user_groups")
      .values({ ...group, store_id: storeId })
      .execute();
    if (permissions.length > 0) {
      await this.db
        .insertInto("user_group_permissions")
        .values(permissions.map((permission) => ({ group_id: group.id, store_id: storeId, permission })))
        .execute();
    }
  }

  listGroups(storeId: string): Promise<GroupRow[]> {
    return this.db.selectFrom("user_groups").selectAll().where("store_id", "=", storeId).orderBy("created_at").orderBy("id").execute();
  }

  findGroups(storeId: string, groupIds: readonly string[]): Promise<GroupRow[]> {
    if (groupIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom("user_groups")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("id", "in", [...groupIds])
      .execute();
  }

  async deleteGroup(storeId: string, groupId: string): Promise<boolean> {
    const result = await this.db.deleteFrom("user_groups").where("store_id", "=", storeId).where("id", "=", groupId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** group id → permission names, for the store's groups. */
  async groupPermissions(storeId: string): Promise<Map<string, string[]>> {
    const rows = await this.db
      .selectFrom("user_group_permissions")
      .select(["group_id", "permission"])
      .where("store_id", "=", storeId)
      .execute();
    const out = new Map<string, string[]>();
    for (const r of rows) {
      const list = out.get(r.group_id) ?? [];
      list.push(r.permission);
      out.set(r.group_id, list);
    }
    return out;
  }

  /** group id → number of members, for the store's groups. */
  async groupMemberCounts(storeId: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom("user_group_members")
      .select((eb) => ["group_id", eb.fn.countAll<number>().as("n")])
      .where("store_id", "=", storeId)
      .groupBy("group_id")
      .execute();
    return new Map(rows.map((r) => [r.group_id, r.n]));
  }

  /** user id → custom group ids, for the store's members. */
  async memberGroups(storeId: string): Promise<Map<string, string[]>> {
    const rows = await this.db
      .selectFrom("user_group_members")
      .select(["user_id", "group_id"])
      .where("store_id", "=", storeId)
      .orderBy("created_at")
      .orderBy("group_id")
      .execute();
    const out = new Map<string, string[]>();
    for (const r of rows) {
      const list = out.get(r.user_id) ?? [];
      list.push(r.group_id);
      out.set(r.user_id, list);
    }
    return out;
  }

  async setMemberGroups(storeId: string, userId: string, groupIds: readonly string[], now: number): Promise<void> {
    await this.db.deleteFrom("user_group_members").where("store_id", "=", storeId).where("user_id", "=", userId).execute();
    if (groupIds.length > 0) {
      await this.db
        .insertInto("user_group_members")
        .values(groupIds.map((group_id) => ({ group_id, store_id: storeId, user_id: userId, created_at: now })))
        .execute();
    }
  }

  /** Permission names granted to the user by their custom groups in the store. */
  async permissionsOfUser(storeId: string, userId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom("user_group_members as gm")
      .innerJoin("user_group_permissions as gp", "gp.group_id", "gm.group_id")
      .select("gp.permission")
      .distinct()
      .where("gm.store_id", "=", storeId)
      .where("gp.store_id", "=", storeId)
      .where("gm.user_id", "=", userId)
      .execute();
    return rows.map((r) => r.permission);
  }
}
