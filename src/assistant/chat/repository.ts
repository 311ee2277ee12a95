// Chat turns, the per-thread event log and action intents. storeId is the first argument of
// every method; everything else is scoped by it.
import type { Kysely, Selectable } from "kysely";
import type { AssistantEventsTable, AssistantIntentsTable, AssistantTurnsTable, Schema } from "../../platform/db/schema.js";

export type TurnRow = Selectable<AssistantTurnsTable>;
export type EventRow = Selectable<AssistantEventsTable>;
export type IntentRow = Selectable<AssistantIntentsTable>;

function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

/** Attempts before giving up on a sequence collision (only concurrent writers to one thread collide). */
const SEQUENCE_ATTEMPTS = 20;

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
  async insertTurn(
    storeId: string,
    row: { id: string; thread_id: string; session_id: string; user_text: string; created_at: number },
  ): Promise<TurnRow> {
    for (let attempt = 0; ; attempt++) {
      const last = await this.db
        .selectFrom("assistant_turns")
        .select((eb) => eb.fn.max("number").as("n"))
        .where("store_id", "=", storeId)
        .where("thread_id", "=", row.thread_id)
        .executeTakeFirst();
      const full: TurnRow = {
        ...row,
        store_id: storeId,
        number: Number(last?.n ?? 0) + 1,
        status: "running",
        outcome: null,
        answer: null,
        completed_at: null,
      };
      try {
        await this.db.insertInto("assistant_turns").values(full).execute();
        return full;
      } catch (e) {
        if (!isUniqueViolation(e) || attempt >= SEQUENCE_ATTEMPTS) throw e;
      }
    }
  }

  async completeTurn(storeId: string, turnId: string, outcome: string, answerJson: string, at: number): Promise<void> {
    await this.db
      .updateTable("assistant_turns")
      .set({ status: "completed", outcome, answer: answerJson, completed_at: at })
      .where("store_id", "=", storeId)
      .where("id", "=", turnId)
      .execute();
  }

  async failTurn(storeId: string, turnId: string, at: number): Promise<void> {
    await this.db
      .updateTable("assistant_turns")
      .set({ status: "failed", completed_at: at })
      .where("store_id", "=", storeId)
      .where("id", "=", turnId)
      .execute();
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

  /**
   * Appends an event with the thread's next sequence number. The number is max+1 under the
   * (thread_id, seq) primary key: a concurrent writer that took the same number makes this
   * insert fail and retry with the next one, so numbers become visible in increasing order.
   */
  async appendEvent(
    storeId: string,
    event: { thread_id: string; turn_id: string | null; name: string; data: string; created_at: number },
  ): Promise<EventRow> {
    for (let attempt = 0; ; attempt++) {
      const last = await this.db
        .selectFrom("assistant_events")
        .select((eb) => eb.fn.max("seq").as("n"))
        .where("thread_id", "=", event.thread_id)
        .executeTakeFirst();
      const row: EventRow = { ...event, store_id: storeId, seq: Number(last?.n ?? 0) + 1 };
      try {
        await this.db.insertInto("assistant_events").values(row).execute();
        return row;
      } catch (e) {
        if (!isUniqueViolation(e) || attempt >= SEQUENCE_ATTEMPTS) throw e;
      }
    }
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
    await this.db.insertInto("assistant_intents").values({ ...row, store_id: storeId }).execute();
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
  async transitionPending(storeId: string, intentId: string, to: "consumed" | "cancelled", at: number, unexpiredAt?: number): Promise<boolean> {
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
