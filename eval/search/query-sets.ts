// The shopper-written query sets of eval/search/queries (JSON lines; format: shopper.ts), read by
// eval:search-shopper and eval:text-queries. Only the folder's own files: the sets in `unrun/`
// stay unread until their blind run names them.
import fs from "node:fs";
import path from "node:path";

export interface ShopperQuery {
  id: string;
  class: string;
  query: string;
  relevant?: Record<string, string[]> | null;
  product_id?: string;
}

/** The query sets in `dir` (its `.jsonl` files), or the `files` named. */
export function readQuerySets(dir: string, files?: readonly string[]): { file: string; queries: ShopperQuery[] }[] {
  const chosen =
    files ??
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => path.join(dir, f));
  return chosen.map((file) => ({
    file,
    queries: fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as ShopperQuery),
  }));
}
