// The lexical (full-text) index of products (issue 15; tables from migration 0018), beside the
// vector index (src/vectors) as the other engine search ranks with. `storeId` first on every
// method; a store's queries only ever see its own rows.
//   Matching is AND-first: a product must hold every word of the query. Only when fewer than
//     `enough` products (after the pre-filters) hold them all is the last word matched as a prefix
//     too (when it has at least PREFIX_MIN letters: a word still being typed, "chrono"), and only
//     when that is still not enough does the query fall back to any word (OR, with the prefix),
//     ranked the same way: products holding more of the words usually come first, not always
//     (bm25 and ts_rank weigh rare words and short fields; on SQLite a shirt holding the rarer
//     word "acme" outranked a longer dress listing holding "blue" and "acme"). AND-first keeps
//     the lexical evidence specific and keeps the engines from scoring every product that holds
//     one common word (the cost of a query grows with the number of products it matches); the
//     late prefix spares the usual query of whole words the prefix's cost (FTS5 merges the lists
//     of every word the prefix starts, once to match and once more for bm25's word statistics).
//   Bounded scoring: the engines score every product they rank, and a query whose words are
//     common in a large store (a colour, a product type, "men") matches thousands; its cost grows
//     with them. At most `lexicalLimits.scoredMax` (SCORED_MAX) matches are scored per query (or
//     the depth asked for, when larger): all of them when there are no more, otherwise the most
//     recently indexed ones on SQLite (FTS5 walks its index by rowid, newest first, without a
//     sort) and the first ones in table order on PostgreSQL (the GIN bitmap's heap order). A query
//     matching more products than that is unspecific: its words alone do not tell which of them
//     is best, the visual evidence of fused ranking does. Results are then ranked by score in
//     the process (score descending, product_id ascending: the order the SQL used to give).
//   SQLite: FTS5 with porter stemming, ranked by bm25 with per-column weights (BM25_WEIGHTS).
//   PostgreSQL: weighted tsvector (A name; B brand, category, colour; C tags, description;
//     D other metadata) matched through its GIN index by `to_tsquery('english', …)` (& for AND,
//     | for OR, :* for the prefix), ranked by ts_rank.
//   Typo tolerance, used only when the exact query finds nothing: trigram matching (SQLite FTS5
//     trigram tokenizer, ranked by bm25 over the query's trigrams; PostgreSQL pg_trgm
//     word_similarity when the extension is installed).
// Scores are the engine's own (larger is better); callers normalise them per query.
import { sql } from "kysely";
import { isDeferred, passing, type Candidates } from "../vectors/candidates.js";
import type { Dialect, Executor } from "../platform/db/types.js";
import { allWords, lexicalDocument, LEXICAL_FIELDS } from "./document.js";
import { lexicalCacheOf, type LexicalCache, type LexicalHit } from "./cache.js";

export type { LexicalHit } from "./cache.js";

/** bm25 weights of the FTS5 columns, in LEXICAL_FIELDS order. */
export const BM25_WEIGHTS: Record<(typeof LEXICAL_FIELDS)[number], number> = {
  name: 10,
  brand: 6,
  category: 6,
  color: 5,
  tags: 4,
  description: 2,
  other: 1,
};

const MAX_TERMS = 16;
/** Most matches scored per lexical query (see the header); one object so an evaluation can vary it. */
export const SCORED_MAX = 1000;
export const lexicalLimits = { scoredMax: SCORED_MAX };
/** The last word of a query is matched as a prefix too when it has this many letters. */
const PREFIX_MIN = 2;
/** Candidate sets up to this size go into the query; larger ones filter a deeper result list. */
const SQL_CANDIDATES_MAX = 2000;
const POST_FILTER_DEPTH = 2000;
/** Products read at a time by indexAllProducts. */
const INDEX_PAGE = 5_000;

/** The words of a query as the index sees them: lower-case letters and digits. */
export function queryTerms(text: string): string[] {
  return [...new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => t.length > 0))].slice(0, MAX_TERMS);
}

/** How many matches a query asking for `k` scores (see the header). */
const scoredLimit = (k: number) => Math.max(k, lexicalLimits.scoredMax);

/** The `k` best hits, score descending, ties by product_id. */
function best(hits: LexicalHit[], k: number): LexicalHit[] {
  return hits.sort((a, b) => b.score - a.score || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0)).slice(0, k);
}

function trigrams(terms: string[]): string[] {
  const out = new Set<string>();
  for (const t of terms) for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
  return [...out];
}

export class LexicalRepository {
  private trgm: Promise<boolean> | undefined;
  private readonly cache: LexicalCache | undefined;

  /** `cached`: reuse rankings while the store's text is unchanged (SQLite only; see cache.ts). */
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    options: { cached?: boolean } = {},
  ) {
    this.cache = options.cached && dialect === "sqlite" ? lexicalCacheOf(db) : undefined;
  }

  with(db: Executor): LexicalRepository {
    return new LexicalRepository(db, this.dialect);
  }

  /** Writes (or replaces) the product's lexical row; call inside the product's transaction. */
  async upsert(storeId: string, productId: string, metadata: Record<string, unknown>): Promise<void> {
    const d = lexicalDocument(metadata);
    const words = allWords(d);
    if (this.dialect === "sqlite") {
      await sql`INSERT INTO product_text (store_id, product_id, name, brand, category, color, tags, description, other, words)
        VALUES (${storeId}, ${productId}, ${d.name}, ${d.brand}, ${d.category}, ${d.color}, ${d.tags}, ${d.description}, ${d.other}, ${words})
        ON CONFLICT (store_id, product_id) DO UPDATE SET name = excluded.name, brand = excluded.brand, category = excluded.category,
          color = excluded.color, tags = excluded.tags, description = excluded.description, other = excluded.other, words = excluded.words`.execute(
        this.db,
      );
      return;
    }
    await sql`INSERT INTO product_text (store_id, product_id, document, words) VALUES (${storeId}, ${productId},
        setweight(to_tsvector('english', ${d.name}), 'A') ||
        setweight(to_tsvector('english', ${[d.brand, d.category, d.color].join(" ")}), 'B') ||
        setweight(to_tsvector('english', ${[d.tags, d.description].join(" ")}), 'C') ||
        setweight(to_tsvector('english', ${d.other}), 'D'), ${words})
      ON CONFLICT (store_id, product_id) DO UPDATE SET document = excluded.document, words = excluded.words`.execute(this.db);
  }

  /**
   * The store's best `k` lexical matches of `text`, restricted to `candidates` when given: the
   * products holding every word, or, when fewer than `enough` (default `k`) do, those holding any
   * word. With nothing found, falls back to trigram matching; `fuzzy` tells which answered, and
   * `partial` that no hit holds every word (the any-word or the trigram pass answered).
   * The hits may be shared with the cache: callers do not modify them.
   */
  async search(
    storeId: string,
    text: string,
    k: number,
    candidates?: Candidates,
    enough: number = k,
  ): Promise<{ hits: LexicalHit[]; fuzzy: boolean; partial: boolean }> {
    const terms = queryTerms(text);
    if (terms.length === 0 || k <= 0) return { hits: [], fuzzy: false, partial: false };
    // Few candidates restrict the query itself; many (or a filter left in the database) are checked
    // on a deeper result list instead (passing thousands of ids costs more than it saves).
    const inSql = candidates !== undefined && !isDeferred(candidates) && candidates.size <= SQL_CANDIDATES_MAX;
    const ids = inSql ? JSON.stringify([...candidates]) : null;
    const depth = candidates && !inSql ? Math.min(POST_FILTER_DEPTH, k * 10) : k;
    const keep = async (hits: LexicalHit[]) => {
      if (!candidates || inSql) return hits;
      const passed = await passing(
        candidates,
        hits.map((h) => h.productId),
      );
      return hits.filter((h) => passed.has(h.productId)).slice(0, k);
    };
    // Rankings restricted in SQL depend on the candidates and are not cached.
    const version = this.cache && ids === null ? await this.version(storeId) : undefined;
    const ranked = (kind: "and" | "and*" | "or" | "or*" | "trigram", compute: () => Promise<LexicalHit[]>) =>
      version === undefined
        ? compute()
        : this.cache!.through(`${storeId}\u0000${kind}\u0000${depth}\u0000${terms.join(" ")}`, version, compute);
    const run = (all: boolean, prefix: boolean) =>
      ranked(`${all ? "and" : "or"}${prefix ? "*" : ""}`, () =>
        this.dialect === "sqlite"
          ? this.fts(storeId, terms, all, prefix, depth, ids)
          : this.tsquery(storeId, terms, all, prefix, depth, ids),
      );
    const wanted = Math.min(enough, k);
    const prefix = LexicalRepository.prefixed(terms, terms.length - 1);
    // The words as given first; the last one as a prefix too only when they are not enough.
    let exact = await keep(await run(true, false));
    if (exact.length < wanted && prefix) exact = await keep(await run(true, true));
    const partial = exact.length === 0;
    if (exact.length < wanted && terms.length > 1)
      exact = await this.withAll(storeId, terms, exact, await keep(await run(false, prefix)), k);
    if (exact.length > 0) return { hits: exact, fuzzy: false, partial };
    return { hits: await keep(await ranked("trigram", () => this.trigram(storeId, terms, depth, ids))), fuzzy: true, partial: true };
  }

  /** The store's lexical version (SQLite; migration 0019). */
  private async version(storeId: string): Promise<number> {
    const r = await sql<{ version: number }>`SELECT version FROM product_text_versions WHERE store_id = ${storeId}`.execute(this.db);
    return r.rows[0]?.version ?? 0;
  }

  /** Whether the last word of the query is also matched as a prefix. */
  private static prefixed(terms: string[], i: number): boolean {
    return i === terms.length - 1 && terms[i]!.length >= PREFIX_MIN;
  }

  private async fts(storeId: string, terms: string[], all: boolean, prefix: boolean, k: number, ids: string | null): Promise<LexicalHit[]> {
    const match = terms.map((t, i) => `"${t}"${prefix && LexicalRepository.prefixed(terms, i) ? "*" : ""}`).join(all ? " AND " : " OR ");
    const weights = sql.raw(LEXICAL_FIELDS.map((f) => BM25_WEIGHTS[f]).join(", "));
    const restrict = ids === null ? sql`` : sql`AND d.product_id IN (SELECT value FROM json_each(${ids}))`;
    const r = await sql<{ product_id: string; s: number }>`
      SELECT d.product_id, bm25(product_fts, ${weights}) AS s
      FROM product_fts JOIN product_text d ON d.id = product_fts.rowid
      WHERE product_fts MATCH ${match} AND d.store_id = ${storeId} ${restrict}
      ORDER BY product_fts.rowid DESC LIMIT ${scoredLimit(k)}`.execute(this.db);
    return best(
      r.rows.map((row) => ({ productId: row.product_id, score: -row.s })),
      k,
    );
  }

  /**
   * The OR-ed query's hits, with the products holding every word (`all`) among them even where
   * bounded scoring left them out; their score under the OR-ed query is the same bm25 on SQLite
   * (the same phrases) and is looked up by id on PostgreSQL (ts_rank differs between & and |).
   */
  private async withAll(storeId: string, terms: string[], all: LexicalHit[], any: LexicalHit[], k: number): Promise<LexicalHit[]> {
    const seen = new Set(any.map((h) => h.productId));
    const missing = all.filter((h) => !seen.has(h.productId));
    if (missing.length === 0) return any;
    if (this.dialect === "sqlite") return best([...any, ...missing], k);
    const query = LexicalRepository.tsQueryText(terms, false, true);
    const r = await sql<{ product_id: string; s: number }>`
      SELECT product_id, ts_rank(document, to_tsquery('english', ${query})) AS s
      FROM product_text WHERE store_id = ${storeId} AND product_id = ANY (${missing.map((h) => h.productId)}::text[])`.execute(this.db);
    return best([...any, ...r.rows.map((row) => ({ productId: row.product_id, score: row.s }))], k);
  }

  private static tsQueryText(terms: string[], all: boolean, prefix: boolean): string {
    return terms.map((t, i) => (prefix && LexicalRepository.prefixed(terms, i) ? `${t}:*` : t)).join(all ? " & " : " | ");
  }

  private async tsquery(
    storeId: string,
    terms: string[],
    all: boolean,
    prefix: boolean,
    k: number,
    ids: string | null,
  ): Promise<LexicalHit[]> {
    const query = LexicalRepository.tsQueryText(terms, all, prefix);
    const restrict = ids === null ? sql`` : sql`AND product_id = ANY (SELECT jsonb_array_elements_text(${ids}::jsonb))`;
    const r = await sql<{ product_id: string; s: number }>`
      SELECT product_id, ts_rank(document, q) AS s
      FROM product_text, to_tsquery('english', ${query}) AS q
      WHERE store_id = ${storeId} AND document @@ q ${restrict}
      LIMIT ${scoredLimit(k)}`.execute(this.db);
    return best(
      r.rows.map((row) => ({ productId: row.product_id, score: row.s })),
      k,
    );
  }

  private async trigram(storeId: string, terms: string[], k: number, ids: string | null): Promise<LexicalHit[]> {
    const grams = trigrams(terms.filter((t) => t.length >= 3));
    if (grams.length === 0) return [];
    if (this.dialect === "sqlite") {
      const restrict = ids === null ? sql`` : sql`AND d.product_id IN (SELECT value FROM json_each(${ids}))`;
      const r = await sql<{ product_id: string; s: number }>`
        SELECT d.product_id, bm25(product_trgm) AS s
        FROM product_trgm JOIN product_text d ON d.id = product_trgm.rowid
        WHERE product_trgm MATCH ${grams.map((g) => `"${g}"`).join(" OR ")} AND d.store_id = ${storeId} ${restrict}
        ORDER BY s, d.product_id LIMIT ${k}`.execute(this.db);
      return r.rows.map((row) => ({ productId: row.product_id, score: -row.s }));
    }
    if (!(await this.hasTrigram())) return [];
    const text = terms.join(" ");
    const restrict = ids === null ? sql`` : sql`AND product_id = ANY (SELECT jsonb_array_elements_text(${ids}::jsonb))`;
    const r = await sql<{ product_id: string; s: number }>`
      SELECT product_id, public.word_similarity(${text}, words) AS s
      FROM product_text
      WHERE store_id = ${storeId} AND ${text} OPERATOR(public.<%) words ${restrict}
      ORDER BY s DESC, product_id LIMIT ${k}`.execute(this.db);
    return r.rows.map((row) => ({ productId: row.product_id, score: row.s }));
  }

  private hasTrigram(): Promise<boolean> {
    this.trgm ??= sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`
      .execute(this.db)
      .then((r) => (r.rows[0]?.n ?? 0) > 0);
    return this.trgm;
  }
}

/**
 * Writes the lexical rows of every product in the database (the data step of migration 0018,
 * handed to the migrations by the composition root as DataHooks.indexProductText), a page of
 * products at a time so that a large catalogue is never held in memory. `concurrency` upserts run
 * at once (default 1: a migration's transaction has one connection; bench:scale fills a million
 * products with 8). `pageSize`: products read at a time.
 */
export async function indexAllProducts(db: Executor, dialect: Dialect, concurrency = 1, pageSize = INDEX_PAGE): Promise<void> {
  const lexical = new LexicalRepository(db, dialect);
  let after = { store_id: "", product_id: "" };
  for (;;) {
    const page = await db
      .selectFrom("products")
      .select(["store_id", "product_id", "metadata"])
      .where((e) =>
        e.or([e("store_id", ">", after.store_id), e.and([e("store_id", "=", after.store_id), e("product_id", ">", after.product_id)])]),
      )
      .orderBy("store_id")
      .orderBy("product_id")
      .limit(pageSize)
      .execute();
    if (page.length === 0) return;
    after = page.at(-1)!;
    let next = 0;
    const worker = async () => {
      while (next < page.length) {
        const r = page[next++]!;
        await lexical.upsert(
          r.store_id,
          r.product_id,
          (typeof r.metadata === "string" ? JSON.parse(r.metadata) : r.metadata) as Record<string, unknown>,
        );
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  }
}
