// Fair job scheduling (issue 37): when each job was last claimed, so a claim can prefer the store
// served least recently (round-robin between stores, src/platform/jobs/queue.ts), and an index to
// read a store's latest claim without scanning its history.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = () => ({
  async up(db: MigrationDb) {
    await db.schema.alterTable("jobs").addColumn("claimed_at", "bigint").execute();
    await db.schema.createIndex("jobs_store_claimed_idx").on("jobs").columns(["store_id", "claimed_at"]).execute();
  },
});

export default migration;
