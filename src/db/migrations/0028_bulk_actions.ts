// Bulk actions on products (issue 38, item 5): a bulk job is an import, a delete or an update of
// a selection of products. Jobs written before this migration are imports.
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = () => ({
  async up(db: MigrationDb) {
    await db.schema
      .alterTable("bulk_jobs")
      .addColumn("action", "text", (c) => c.notNull().defaultTo("import"))
      .execute();
  },
});

export default migration;
