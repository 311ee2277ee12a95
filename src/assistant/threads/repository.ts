// Chat turns, the per-thread event log and action intents. storeId is the first argument of
// every method; everything else is scoped by it.
import type { Kysely, Selectable } from "kysely";
import { isUniqueViolation } from "../../platform/errors/map.js";
import type { AssistantEventsTable, AssistantIntentsTable, AssistantTurnsTable, Schema } from "../../db/schema.js";

export type TurnRow = Selectable<AssistantTurnsTable>;
export type EventRow = Selectable<AssistantEventsTable>;
export type IntentRow = Selectable<AssistantIntentsTable>;

/** Attempts before giving up on a sequence collision (only concurrent writers to one thread collide). */
const SEQUENCE_ATTEMPTS = 20;

/**
 * Inserts the row numbered after the current maximum (`lastNumber`). The number is max+1 under a
 * unique key: a concurrent writer that took the same number makes the insert fail and this retry
 * with the next one, so numbers become visible in increasing order.
 */
async function insertNumbered<R>(
  lastNumber: () => Promise<unknown>,
  build: (next: number) => R,
  insert: (row: R) => Promise<unknown>,
): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const row = build(Number((await lastNumber()) ?? 0) + 1);
    try {
      await insert(row);
      return row;
    } catch (e) {
      if (!isUniqueViolation(e) || attempt >= SEQUENCE_ATTEMPTS) throw e;
    }
  }
}

export class ChatRepository {
  constructor(private readonly db: Kysely<Schema>) {}

  async countTurns(storeId: string, threadId: string): Promise<number> {
    const row = await this.db
      .selectFrom("assistant_turns")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("store_id", "=", storeId)
      .where("thread_id", "=", threadId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Inserts a running turn numbered after the thread's last one. */
  insertTurn(
    storeId: string,
    row: { id: string; thread_id: string; session_id: string; user_text: string; created_at: number },
  ): Promise<TurnRow> {
    return insertNumbered(
      async () =>
        (
          await this.db
            .selectFrom("assistant_turns")
            .select((eb) => eb.fn.max("number").as("n"))
            .where("store_id", "=", storeId)
            .where("thread_id", "=", row.thread_id)
            .executeTakeFirst()
        )?.n,
      (number): TurnRow => ({ ...row, store_id: storeId, number, status: "running", outcome: null, answer: null, completed_at: null }),
      (full) => this.db.insertInto("assistant_turns").values(full).execute(),
    );
  }

  completeTurn(storeId: string, turnId: string, outcome: string, answerJson: string, at: number): Promise<void> {
    return this.endTurn(storeId, turnId, { status: "completed", outcome, answer: answerJson, completed_at: at });
  }

  failTurn(storeId: string, turnId: string, at: number): Promise<void> {
    return this.endTurn(storeId, turnId, { status: "failed", completed_at: at });
  }

  private async endTurn(
    storeId: string,
    turnId: string,
    set: Partial<Pick<TurnRow, "status" | "outcome" | "answer" | "completed_at">>,
  ): Promise<void> {
    await this.db.updateTable("assistant_turns").set(set).where("store_id", "=", storeId).where("id", "=", turnId).execute();
  }

  listTurns(storeId: string, threadId: string): Promise<TurnRow[]> {
    return this.db
      .selectFrom("assistant_turns")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("thread_id", "=", threadId)
      .orderBy("number", "asc")
      .execute();
  }

  /** The shopper's messages before turn `number` in this thread, newest first, at most `limit`. */
  async previousUserTexts(storeId: string, threadId: string, number: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("assistant_turns")
      .select("user_text")
      .where("store_id", "=", storeId)
      .where("thread_id", "=", threadId)
      .where("number", "<", number)
      .orderBy("number", "desc")
      .limit(limit)
      .execute();
    return rows.map((r) => r.user_text);
  }

  /** Appends an event with the thread's next sequence number (unique key thread_id, seq). */
  appendEvent(
    storeId: string,
    event: { thread_id: string; turn_id: string | null; name: string; data: string; created_at: number },
  ): Promise<EventRow> {
    return insertNumbered(
      async () =>
        (
          await this.db
            .selectFrom("assistant_events")
            .select((eb) => eb.fn.max("seq").as("n"))
            .where("thread_id", "=", event.thread_id)
            .executeTakeFirst()
        )?.n,
      (seq): EventRow => ({ ...event, store_id: storeId, seq }),
      (row) => this.db.insertInto("assistant_events").values(row).execute(),
    );
  }

  listEventsAfter(storeId: string, threadId: string, afterSeq: number, limit: number): Promise<EventRow[]> {
    return this.db
      .selectFrom("assistant_events")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("thread_id", "=", threadId)
      .where("seq", ">", afterSeq)
      .orderBy("seq", "asc")
      .limit(limit)
      .execute();
  }

  async insertIntent(storeId: string, row: Omit<IntentRow, "store_id">): Promise<void> {
    await this.db
      .insertInto("assistant_intents")
      .values({ ...row, store_id: storeId })
      .execute();
  }

  /** The intent only when it is bound to this session and thread. */
  findIntent(storeId: string, sessionId: string, threadId: string, intentId: string): Promise<IntentRow | undefined> {
    return this.db
      .selectFrom("assistant_intents")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("session_id", "=", sessionId)
      .where("thread_id", "=", threadId)
      .where("id", "=", intentId)
      .executeTakeFirst();
  }

  /**
   * pending → `to`, atomically: only one of several concurrent callers sees true. `unexpiredAt`
   * additionally requires expires_at > that instant (confirm).
   */
  async transitionPending(
    storeId: string,
    intentId: string,
    to: "consumed" | "cancelled",
    at: number,
    unexpiredAt?: number,
  ): Promise<boolean> {
    let q = this.db
      .updateTable("assistant_intents")
      .set({ status: to, resolved_at: at })
      .where("store_id", "=", storeId)
      .where("id", "=", intentId)
      .where("status", "=", "pending");
    if (unexpiredAt !== undefined) q = q.where("expires_at", ">", unexpiredAt);
    const result = await q.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async finishIntent(storeId: string, intentId: string, status: "consumed" | "failed", resultJson: string | null): Promise<void> {
    await this.db
      .updateTable("assistant_intents")
      .set({ status, result: resultJson })
      .where("store_id", "=", storeId)
      .where("id", "=", intentId)
      .execute();
  }
}
