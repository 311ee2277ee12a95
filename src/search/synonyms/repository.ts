// A store's own synonyms of text search (migration 0023). `storeId` first on every method.
import type { Executor } from "../../platform/db/types.js";
import type { SynonymEntry } from "../../lexical/synonyms/index.js";

export interface SynonymRow extends SynonymEntry {
  id: string;
  created_at: number;
}

const parse = (r: {
  id: string;
  kind: "one_way" | "multi_way";
  words: string;
  synonyms: string;
  created_at: number | string;
}): SynonymRow => ({
  id: r.id,
  kind: r.kind,
  words: typeof r.words === "string" ? (JSON.parse(r.words) as string[]) : (r.words as string[]),
  synonyms: typeof r.synonyms === "string" ? (JSON.parse(r.synonyms) as string[]) : (r.synonyms as string[]),
  created_at: Number(r.created_at),
});

const columns = (e: SynonymEntry) => ({ kind: e.kind, words: JSON.stringify(e.words), synonyms: JSON.stringify(e.synonyms) });

export class SynonymsRepository {
  constructor(private readonly db: Executor) {}

  async list(storeId: string): Promise<SynonymRow[]> {
    const rows = await this.db
      .selectFrom("search_synonyms")
      .selectAll()
      .where("store_id", "=", storeId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(parse);
  }

  async insert(storeId: string, row: SynonymRow): Promise<void> {
    await this.db
      .insertInto("search_synonyms")
      .values({ id: row.id, store_id: storeId, created_at: row.created_at, ...columns(row) })
      .execute();
  }

  /** Replaces an entry's kind and phrases; false when the store has no such entry. */
  async update(storeId: string, id: string, entry: SynonymEntry): Promise<boolean> {
    const res = await this.db
      .updateTable("search_synonyms")
      .set(columns(entry))
      .where("store_id", "=", storeId)
      .where("id", "=", id)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async delete(storeId: string, id: string): Promise<boolean> {
    const res = await this.db.deleteFrom("search_synonyms").where("store_id", "=", storeId).where("id", "=", id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
