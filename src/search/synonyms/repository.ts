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

  async count(storeId: string): Promise<number> {
    const r = await this.db
      .selectFrom("search_synonyms")
      .select((e) => e.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async insert(storeId: string, row: SynonymRow): Promise<void> {
    await this.db
      .insertInto("search_synonyms")
      .values({
        id: row.id,
        store_id: storeId,
        kind: row.kind,
        words: JSON.stringify(row.words),
        synonyms: JSON.stringify(row.synonyms),
        created_at: row.created_at,
      })
      .execute();
  }

  async delete(storeId: string, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom("search_synonyms").where("store_id", "=", storeId).where("id", "=", id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
