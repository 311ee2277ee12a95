// Shopper sessions and chat threads. storeId is the first argument of every store-scoped query.
import type { Selectable } from "kysely";
import type { Executor } from "../../platform/db/index.js";
import type { AssistantSessionsTable, AssistantThreadsTable } from "../../db/schema.js";

export type SessionRow = Selectable<AssistantSessionsTable>;
export type ThreadRow = Selectable<AssistantThreadsTable>;

export class SessionsRepository {
  /** `db` may be an open transaction (the exchange inserts its session inside one). */
  constructor(private readonly db: Executor) {}

  /** The same queries inside a transaction. */
  with(db: Executor): SessionsRepository {
    return new SessionsRepository(db);
  }

  /** Token lookup happens before the store is known: the hash is unique across stores. */
  findByTokenHash(tokenHash: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom("assistant_sessions").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  }

  async insertSession(storeId: string, row: Omit<SessionRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_sessions")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  async revokeSession(storeId: string, sessionId: string, at: number, reason: string): Promise<void> {
    await this.db
      .updateTable("assistant_sessions")
      .set({ revoked_at: at, revoke_reason: reason })
      .where("store_id", "=", storeId)
      .where("id", "=", sessionId)
      .where("revoked_at", "is", null)
      .execute();
  }

  async insertThread(storeId: string, row: Omit<ThreadRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_threads")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  findThread(storeId: string, sessionId: string, threadId: string): Promise<ThreadRow | undefined> {
    return this.db
      .selectFrom("assistant_threads")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("session_id", "=", sessionId)
      .where("id", "=", threadId)
      .executeTakeFirst();
  }
}
