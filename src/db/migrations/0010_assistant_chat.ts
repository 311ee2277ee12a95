// Assistant chat (issue 9): turns (the user's message and the assistant's answer, i.e. the
// transcript), the thread's ordered event log (per-thread sequence, replayable from any process)
// and action intents awaiting the shopper's consent.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    await db.schema
      .createTable("assistant_turns")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("thread_id", "text", (c) => c.notNull().references("assistant_threads.id").onDelete("cascade"))
      .addColumn("session_id", "text", (c) => c.notNull().references("assistant_sessions.id").onDelete("cascade"))
      // 1, 2, 3 … within the thread (unique: concurrent inserts retry with the next number).
      .addColumn("number", "integer", (c) => c.notNull())
      .addColumn("user_text", "text", (c) => c.notNull())
      // running | completed | failed
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("outcome", "text")
      .addColumn("answer", types.json)
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("completed_at", "bigint")
      .addUniqueConstraint("assistant_turns_thread_number_uq", ["thread_id", "number"])
      .execute();
    await db.schema
      .createIndex("assistant_turns_store_thread_idx")
      .on("assistant_turns")
      .columns(["store_id", "thread_id", "number"])
      .execute();

    await db.schema
      .createTable("assistant_events")
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("thread_id", "text", (c) => c.notNull().references("assistant_threads.id").onDelete("cascade"))
      // Monotonically increasing per thread, gap-free in commit order (primary key; a collision retries).
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("turn_id", "text")
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn("data", types.json, (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("assistant_events_pk", ["thread_id", "seq"])
      .execute();
    await db.schema
      .createIndex("assistant_events_store_thread_idx")
      .on("assistant_events")
      .columns(["store_id", "thread_id", "seq"])
      .execute();

    await db.schema
      .createTable("assistant_intents")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("store_id", "text", (c) => c.notNull().references("stores.id").onDelete("cascade"))
      .addColumn("session_id", "text", (c) => c.notNull().references("assistant_sessions.id").onDelete("cascade"))
      .addColumn("thread_id", "text", (c) => c.notNull().references("assistant_threads.id").onDelete("cascade"))
      .addColumn("turn_id", "text", (c) => c.notNull())
      .addColumn("action", "text", (c) => c.notNull())
      .addColumn("arguments", types.json, (c) => c.notNull())
      // pending | consumed | cancelled | failed
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("result", types.json)
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("resolved_at", "bigint")
      .execute();
    await db.schema
      .createIndex("assistant_intents_thread_idx")
      .on("assistant_intents")
      .columns(["store_id", "session_id", "thread_id"])
      .execute();
  },
});

export default migration;
