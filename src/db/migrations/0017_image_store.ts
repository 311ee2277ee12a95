// Product images out of the main database (src/shared/images/store.ts): where each image's
// bytes are. "database": in `bytes` (every existing row); "filesystem": a content-addressed file
// of the image store, `bytes` empty. A column with a default works on both dialects without a
// table rebuild (SQLite cannot drop NOT NULL from `bytes`).
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = () => ({
  async up(db: MigrationDb) {
    await db.schema
      .alterTable("product_images")
      .addColumn("stored_in", "text", (c) => c.notNull().defaultTo("database"))
      .execute();
    // adopt() looks for rows kept elsewhere than the configured store.
    await db.schema.createIndex("product_images_stored_in_idx").on("product_images").columns(["stored_in"]).execute();
  },
});

export default migration;
