// SQLite: the full-text index merges its segments two at a time when asked (FTS5 'usermerge' = 2,
// a setting kept in the index itself; default 4). FTS5 writes a new segment per transaction and
// merges four of a level into the next as it goes, so an index written product by product holds
// a dozen or more small segments, and every query word is looked up in each of them. The lexical
// merger (src/lexical/merger.ts) asks FTS5 to merge ('merge', N) once writes pause; with 2, it
// leaves at most one segment per level (measured at 300 products written one per transaction:
// an every-word query 32 → 8 µs, any-word 192 → 166 µs; docs/benchmarks.md, "Issue 39: every
// query new to every cache"). PostgreSQL: nothing to do (GIN).
import { sql } from "kysely";
import type { MigrationDb, MigrationFactory } from "./types.js";

const migration: MigrationFactory = (types) => ({
  async up(db: MigrationDb) {
    if (types.dialect !== "sqlite") return;
    await sql`INSERT INTO product_fts(product_fts, rank) VALUES ('usermerge', 2)`.execute(db);
  },
});

export default migration;
