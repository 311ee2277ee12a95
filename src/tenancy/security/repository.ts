// API keys, the IP allow-list and the security overview's reads. Every store-owned row is
// addressed by `storeId` first; the one exception is `findApiKeyByHash`, which runs before the
// store is known (the key identifies the store, as a machine grant's token does).
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { ApiKeysTable, IpAllowlistTable, Role } from "../../db/schema.js";

export type ApiKeyRow = Selectable<ApiKeysTable>;
/** A key with the e-mail and name of the user who created it (null: the machine grant, or a deleted user). */
export type ApiKeyWithCreator = ApiKeyRow & { creator_email: string | null; creator_name: string | null };
export type AllowlistRow = Selectable<IpAllowlistTable>;

export interface FailedLoginRow {
  id: string;
  store_id: string | null;
  user_id: string | null;
  identity: string | null;
  ip: string | null;
  created_at: number;
}

export interface MemberTwoFactorRow {
  user_id: string;
  email: string;
  full_name: string;
  role: Role;
  totp_enabled: number;
}

export class SecurityRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): SecurityRepository {
    return new SecurityRepository(db);
  }

  // --- API keys
  async createApiKey(storeId: string, row: Omit<ApiKeyRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("api_keys")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  private keysWithCreator(storeId: string) {
    return this.db
      .selectFrom("api_keys as k")
      .leftJoin("users as u", "u.id", "k.created_by")
      .selectAll("k")
      .select(["u.email as creator_email", "u.full_name as creator_name"])
      .where("k.store_id", "=", storeId);
  }

  listApiKeys(storeId: string): Promise<ApiKeyWithCreator[]> {
    return this.keysWithCreator(storeId).orderBy("k.created_at", "desc").orderBy("k.id").execute();
  }

  /** Keys neither revoked nor expired at `now`. */
  listActiveApiKeys(storeId: string, now: number): Promise<ApiKeyWithCreator[]> {
    return this.keysWithCreator(storeId)
      .where("k.revoked_at", "is", null)
      .where("k.expires_at", ">", now)
      .orderBy("k.created_at", "desc")
      .orderBy("k.id")
      .execute();
  }

  findApiKey(storeId: string, keyId: string): Promise<ApiKeyWithCreator | undefined> {
    return this.keysWithCreator(storeId).where("k.id", "=", keyId).executeTakeFirst();
  }

  /** Revokes every unrevoked key `userId` created in the store (the member is being removed); how many. */
  async revokeApiKeysCreatedBy(storeId: string, userId: string, now: number): Promise<number> {
    const res = await this.db
      .updateTable("api_keys")
      .set({ revoked_at: now })
      .where("store_id", "=", storeId)
      .where("created_by", "=", userId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** Authentication lookup by the SHA-256 of the presented key (the store is not known yet). */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    return this.db.selectFrom("api_keys").selectAll().where("key_hash", "=", keyHash).executeTakeFirst();
  }

  /** Revokes the key if it is not revoked yet; returns whether a row changed. */
  async revokeApiKey(storeId: string, keyId: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable("api_keys")
      .set({ revoked_at: now })
      .where("store_id", "=", storeId)
      .where("id", "=", keyId)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async touchApiKey(storeId: string, keyId: string, now: number): Promise<void> {
    await this.db.updateTable("api_keys").set({ last_used_at: now }).where("store_id", "=", storeId).where("id", "=", keyId).execute();
  }

  // --- IP allow-list
  async addAllowlistEntry(storeId: string, row: Omit<AllowlistRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("ip_allowlist")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  listAllowlist(storeId: string): Promise<AllowlistRow[]> {
    return this.db.selectFrom("ip_allowlist").selectAll().where("store_id", "=", storeId).orderBy("created_at").orderBy("id").execute();
  }

  async countAllowlist(storeId: string): Promise<number> {
    const row = await this.db
      .selectFrom("ip_allowlist")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async allowlistRanges(storeId: string): Promise<string[]> {
    const rows = await this.db.selectFrom("ip_allowlist").select("cidr").where("store_id", "=", storeId).execute();
    return rows.map((r) => r.cidr);
  }

  async deleteAllowlistEntry(storeId: string, entryId: string): Promise<boolean> {
    const result = await this.db.deleteFrom("ip_allowlist").where("store_id", "=", storeId).where("id", "=", entryId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  // --- overview
  membersTwoFactor(storeId: string): Promise<MemberTwoFactorRow[]> {
    return this.db
      .selectFrom("memberships as m")
      .innerJoin("users as u", "u.id", "m.user_id")
      .select(["u.id as user_id", "u.email", "u.full_name", "m.role", "u.totp_enabled"])
      .where("m.store_id", "=", storeId)
      .orderBy("m.created_at")
      .orderBy("u.email")
      .execute();
  }

  /**
   * Failed logins concerning the store since `since`, newest first: machine grants for its
   * client_id (recorded with store_id) and user logins of its current members (recorded with
   * user_id; a user login is not tied to one store).
   */
  failedLogins(storeId: string, since: number, limit: number): Promise<FailedLoginRow[]> {
    return this.db
      .selectFrom("auth_events as e")
      .select(["e.id", "e.store_id", "e.user_id", "e.identity", "e.ip", "e.created_at"])
      .where("e.kind", "=", "login_failed")
      .where("e.created_at", ">=", since)
      .where((eb) =>
        eb.or([
          eb("e.store_id", "=", storeId),
          eb("e.user_id", "in", eb.selectFrom("memberships as m").select("m.user_id").where("m.store_id", "=", storeId)),
        ]),
      )
      .orderBy("e.created_at", "desc")
      .orderBy("e.id")
      .limit(limit)
      .execute();
  }

  async countFailedLogins(storeId: string, since: number): Promise<number> {
    const row = await this.db
      .selectFrom("auth_events as e")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("e.kind", "=", "login_failed")
      .where("e.created_at", ">=", since)
      .where((eb) =>
        eb.or([
          eb("e.store_id", "=", storeId),
          eb("e.user_id", "in", eb.selectFrom("memberships as m").select("m.user_id").where("m.store_id", "=", storeId)),
        ]),
      )
      .executeTakeFirstOrThrow();
    return row.n;
  }
}
