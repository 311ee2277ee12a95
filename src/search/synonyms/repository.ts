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
}
