// Stores, users, memberships and verification tokens. Store-owned rows are always addressed
// by `storeId` first; users are global (one person may belong to several stores), so user
// methods take the user id or e-mail first.
import type { Executor } from "../../platform/db/index.js";
import type { Role, StoresTable, UsersTable } from "../../db/schema.js";
import type { Selectable } from "kysely";

export type StoreRow = Selectable<StoresTable>;
export type UserRow = Selectable<UsersTable>;

/** A membership joined with its store, as read (times in epoch ms); not an API shape. */
export interface MembershipRow {
  client_id: string;
  slug: string;
  name: string;
  role: Role;
  plan: string;
  status: StoreRow["status"];
  last_used_at: number | null;
}

export class AccountsRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): AccountsRepository {
    return new AccountsRepository(db);
  }

  // --- stores
  async createStore(storeId: string, s: Omit<StoreRow, "id">): Promise<void> {
    await this.db
      .insertInto("stores")
      .values({ id: storeId, ...s })
      .execute();
  }

  findStore(storeId: string): Promise<StoreRow | undefined> {
    return this.db.selectFrom("stores").selectAll().where("id", "=", storeId).executeTakeFirst();
  }

  findStoreBySlug(slug: string): Promise<StoreRow | undefined> {
    return this.db.selectFrom("stores").selectAll().where("slug", "=", slug).executeTakeFirst();
  }

  async slugExists(slug: string): Promise<boolean> {
    return (await this.findStoreBySlug(slug)) !== undefined;
  }

  async activateStore(storeId: string, secretHash: string, now: number): Promise<void> {
    await this.db
      .updateTable("stores")
      .set({ status: "active", client_secret_hash: secretHash, secret_rotated_at: now, updated_at: now })
      .where("id", "=", storeId)
      .execute();
  }

  async setClientSecret(storeId: string, secretHash: string, now: number): Promise<void> {
    await this.db
      .updateTable("stores")
      .set({ client_secret_hash: secretHash, secret_rotated_at: now, updated_at: now })
      .where("id", "=", storeId)
      .execute();
  }

  // --- verification tokens
  async createVerificationToken(storeId: string, tokenHash: string, expiresAt: number, now: number): Promise<void> {
    await this.db
      .insertInto("verification_tokens")
      .values({ store_id: storeId, token_hash: tokenHash, expires_at: expiresAt, used_at: null, created_at: now })
      .execute();
  }

  /** Marks the token used if it is unused and unexpired; returns its store id, or undefined. */
  async consumeVerificationToken(tokenHash: string, now: number): Promise<string | undefined> {
    const row = await this.db
      .updateTable("verification_tokens")
      .set({ used_at: now })
      .where("token_hash", "=", tokenHash)
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .returning("store_id")
      .executeTakeFirst();
    return row?.store_id;
  }

  // --- users
  async createUser(userId: string, u: Omit<UserRow, "id" | "totp_secret" | "totp_enabled" | "totp_last_step">): Promise<void> {
    await this.db
      .insertInto("users")
      .values({ id: userId, ...u, totp_secret: null, totp_last_step: null })
      .execute();
  }

  findUser(userId: string): Promise<UserRow | undefined> {
    return this.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
  }

  findUserByEmail(email: string): Promise<UserRow | undefined> {
    return this.db.selectFrom("users").selectAll().where("email", "=", email.toLowerCase()).executeTakeFirst();
  }

  /** Stores the (sealed) TOTP secret; a new pending secret (or none) starts without a used step. */
  async setTotp(userId: string, sealedSecret: string | null, enabled: boolean): Promise<void> {
    await this.db
      .updateTable("users")
      .set({ totp_secret: sealedSecret, totp_enabled: enabled ? 1 : 0, ...(enabled ? {} : { totp_last_step: null }) })
      .where("id", "=", userId)
      .execute();
  }

  /**
   * Records `step` as the user's last verified TOTP time-step when it is later than the one
   * stored; false when it is not (a replayed or older code). One conditional UPDATE, so two
   * concurrent logins with one code cannot both win.
   */
  async claimTotpStep(userId: string, step: number): Promise<boolean> {
    const res = await this.db
      .updateTable("users")
      .set({ totp_last_step: step })
      .where("id", "=", userId)
      .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  // --- memberships
  async addMembership(storeId: string, userId: string, role: Role, now: number): Promise<void> {
    await this.db
      .insertInto("memberships")
      .values({ store_id: storeId, user_id: userId, role, last_used_at: null, created_at: now })
      .execute();
  }

  /** The user's memberships in stores, active and inactive, oldest first. */
  membershipsOfUser(userId: string): Promise<MembershipRow[]> {
    return this.db
      .selectFrom("memberships as m")
      .innerJoin("stores as s", "s.id", "m.store_id")
      .select(["s.id as client_id", "s.slug", "s.name", "m.role", "s.plan", "s.status", "m.last_used_at"])
      .where("m.user_id", "=", userId)
      .orderBy("m.created_at")
      .orderBy("s.slug")
      .execute();
  }

  async touchMembership(storeId: string, userId: string, now: number): Promise<void> {
    await this.db
      .updateTable("memberships")
      .set({ last_used_at: now })
      .where("store_id", "=", storeId)
      .where("user_id", "=", userId)
      .execute();
  }

  // --- auth events (failed logins, rotations) for the security overview
  async recordAuthEvent(
    storeId: string | null,
    e: { id: string; user_id: string | null; kind: string; identity: string | null; ip: string | null; created_at: number },
  ): Promise<void> {
    await this.db
      .insertInto("auth_events")
      .values({ store_id: storeId, ...e })
      .execute();
  }
}
