// Team invites. `storeId` first everywhere except `findByTokenHash`, which runs when an invitee
// presents a token and the store is not known yet (the token identifies the invite).
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { TeamInvitesTable } from "../../db/schema.js";

export type InviteRow = Selectable<TeamInvitesTable>;

export class TeamRepository {
  constructor(private readonly db: Executor) {}

  with(db: Executor): TeamRepository {
    return new TeamRepository(db);
  }

  async createInvite(storeId: string, row: Omit<InviteRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("team_invites")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  findInvite(storeId: string, inviteId: string): Promise<InviteRow | undefined> {
    return this.db.selectFrom("team_invites").selectAll().where("store_id", "=", storeId).where("id", "=", inviteId).executeTakeFirst();
  }

  findByTokenHash(tokenHash: string): Promise<InviteRow | undefined> {
    return this.db.selectFrom("team_invites").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  }

  /** Pending (not accepted, not cancelled, unexpired) invites of the store, newest first. */
  listPending(storeId: string, now: number): Promise<InviteRow[]> {
    return this.db
      .selectFrom("team_invites")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("accepted_at", "is", null)
      .where("cancelled_at", "is", null)
      .where("expires_at", ">", now)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .execute();
  }

  findPendingForEmail(storeId: string, email: string, now: number): Promise<InviteRow | undefined> {
    return this.db
      .selectFrom("team_invites")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("email", "=", email)
      .where("accepted_at", "is", null)
      .where("cancelled_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
  }

  /** Cancels a pending invite; returns whether it was pending. */
  async cancel(storeId: string, inviteId: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable("team_invites")
      .set({ cancelled_at: now })
      .where("store_id", "=", storeId)
      .where("id", "=", inviteId)
      .where("accepted_at", "is", null)
      .where("cancelled_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Marks a pending invite accepted (single use: only one caller can win); returns whether it did. */
  async markAccepted(storeId: string, inviteId: string, userId: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable("team_invites")
      .set({ accepted_at: now, accepted_by: userId })
      .where("store_id", "=", storeId)
      .where("id", "=", inviteId)
      .where("accepted_at", "is", null)
      .where("cancelled_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
