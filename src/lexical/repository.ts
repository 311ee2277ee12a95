// The lexical (full-text) index of products (issue 15; tables from migration 0018), beside the
// vector index (src/vectors) as the other engine search ranks with. `storeId` first on every
// method; a store's queries only ever see its own rows.
//   A query is a list of groups (query.ts: one word or phrase of the shopper's query each, with
//     the alternatives that count as it in this store: the word, its typo corrections, synonyms).
//     Matching is AND-first: the products holding an alternative of every group; only when fewer
//     than `enough` products (after the pre-filters) do, the products holding any alternative are
//     added (OR). Every hit carries its coverage (query.ts coverageOf(): the summed weights of the
//     groups its text holds, and how many it holds), computed from the product's words, and hits
//     are ranked by coverage, then by a score: on SQLite coverageOf()'s attribute score (where the
//     words stand: in the name or elsewhere, and how much of the name the query takes), on
//     PostgreSQL ts_rank (the field weights below and word frequency). AND-first keeps the
//     engines from scoring every product that holds one common word (the cost of a query grows
//     with the number of products it matches).
//   A last word that matches nothing as typed and begins words of the store's vocabulary is
//     matched as a prefix (query.ts: a word still being typed, "chrono").
//   Bounded scoring: the engines score every product they rank, and a query whose words are
//     common in a large store (a colour, a product type, "men") matches thousands; its cost grows
//     with them. At most `lexicalLimits.scoredMax` (SCORED_MAX) matches are scored per query (or
//     the depth asked for, when larger): all of them when there are no more, otherwise the most
//     recently indexed ones on SQLite (FTS5 walks its index by rowid, newest first, without a
//     sort) and the first ones in table order on PostgreSQL (the GIN bitmap's heap order). A query
//     matching more products than that is unspecific: its words alone do not tell which of them
//     is best, the visual evidence of fused ranking does.
//   SQLite: FTS5 with porter stemming, matched in rowid order; not ranked by bm25, whose word
//     statistics FTS5 gathers by walking every row of each query word and synonym (about half the
//     statement's time at 50,000 products: docs/benchmarks.md). Text search's repository (`cached`)
//     holds the rows each phrase of a query matches, per store and version, and matches a new
//     query whose phrases are all held without a statement (postings.ts); the rows are the ones
//     the statements would return. The store's version is read again only when the database's
//     change clock moved (Database.changeClock: any write of this process but the search-history
//     rows every search appends, another connection's commit).
//   PostgreSQL: weighted tsvector (A name; B brand, category, colour; C tags, description;
//     D other metadata) matched through its GIN index by `to_tsquery('english', …)` (& for AND,
//     | for OR, <-> for phrases, :* for the prefix), ranked by ts_rank. One tokenizer: each field
//     is indexed as the query's words (words(), joined; tsText), which PostgreSQL's own parser
//     would split otherwise than the query does (migration 0033 rewrote the rows written before).
//   PostgreSQL, common lexemes: GIN walks a lexeme's posting list as far as the rarer lexemes
//     required beside it reach, so a word most of the products hold costs the every-word query
//     milliseconds while narrowing it by little (a million products whose names all hold "brand"
//     and "category" and 10,000 products per number: 12–16 ms for "wool brand-043 category-08",
//     3.3–3.7 ms without those two words). The every-word query's index condition leaves out the
//     lexemes that PostgreSQL's statistics find in at least `commonLexemeShare` of the documents
//     (pg_stats.most_common_elems, gathered by ANALYZE); the whole query is checked on the rows the
//     index condition returns, so the matches are the same.
//   Vocabulary: the words of each product's text are added to `product_terms` with its row
//     (migration 0023), the store's lexicon for typo tolerance (lexicon.ts).
// Scores are the engine's own (larger is better); callers normalise them per query.
import { sql } from "kysely";
import { isDeferred, passing, type Candidates, type DeferredCandidates } from "../vectors/candidates.js";
import type { Dialect, Executor } from "../platform/db/types.js";
import { rowCount } from "../platform/db/index.js";
import { allWords, lexicalDocument, type LexicalDocument } from "./document.js";
import { coverageOf, plainGroups, words, type Group } from "./query.js";
import { lexicalCacheOf, type LexicalCache, type LexicalHit } from "./cache.js";
import { postingCacheOf, type PostingCache, type TextRow } from "./postings.js";
import { TEXT_CACHE_TTL_MS, textVersion } from "./changes.js";

export type { LexicalHit } from "./cache.js";

const MAX_TERMS = 16;
/** Longer words are not kept in the vocabulary (ids, codes). */
const MAX_TERM_LENGTH = 40;
/** Most matches scored per lexical query (see the header). */
export const SCORED_MAX = 1000;
/**
 * Share of the lexical table's documents from which a lexeme is left out of the every-word query's
 * index condition on PostgreSQL (see the header). A lexeme in 25 % of them was worth keeping at a
 * million products: without it the scan read four times the rows and took 2.6–4.9 ms, with it
 * 3.3–3.7 ms.
 */
const COMMON_LEXEME_SHARE = 0.3;
/** The bounds of lexical queries, in one object so that an evaluation or a test can vary them. */
export const lexicalLimits = { scoredMax: SCORED_MAX, commonLexemeShare: COMMON_LEXEME_SHARE, commonLexemesTtlMs: 10 * 60_000 };
/** Most lexemes read from the statistics, the most frequent first. */
const COMMON_LEXEMES_MAX = 32;
/** The lexical table's most frequent lexemes and their shares per database handle: when read, and the read. */
const commonLexemesRead = new WeakMap<object, { at: number; lexemes: Promise<readonly { lexeme: string; share: number }[]> }>();
/** Stores whose lexical version a repository keeps with the change clock (SQLite); emptied when full. */
const VERSIONS_KEPT = 10_000;
/** Candidate sets up to this size go into the query; larger ones filter a deeper result list. */
const SQL_CANDIDATES_MAX = 2000;
const POST_FILTER_DEPTH = 2000;
/** Most products written by one statement of upsertMany on PostgreSQL. */
const UPSERT_BATCH = 5_000;
/** Products read at a time by indexAllProducts. */
const INDEX_PAGE = 5_000;

/** How many matches a query asking for `k` scores (see the header). */
const scoredLimit = (k: number) => Math.max(k, lexicalLimits.scoredMax);

/** The `k` best hits: coverage, then score, descending; ties by product_id. */
function best(hits: LexicalHit[], k: number): LexicalHit[] {
  return hits
    .sort((a, b) => b.coverage - a.coverage || b.score - a.score || (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0))
    .slice(0, k);
}

/** FTS5 query text of one alternative: a phrase, or a prefix. */
const ftsPhrase = (words: readonly string[], prefix: boolean) => `"${words.join(" ")}"${prefix ? "*" : ""}`;
/**
 * The text PostgreSQL's parser is given of a product's field: its words as the query sees them
 * (query.ts words()), joined by spaces. The parser alone keeps "10.5", "acme.com", "v1.2.3" and
 * "1/2" whole and reads "SKU-778812" as 'sku' and '-778812' (a signed number), while a query's
 * words are "10" and "5", "sku" and "778812": such products were found by no every-word query.
 * FTS5's tokenizer splits where words() does, so SQLite's fields are stored as they are.
 */
const tsText = (text: string) => words(text).join(" ");
/** tsquery text of one alternative. */
const tsPhrase = (words: readonly string[], prefix: boolean) =>
  words.length === 1 ? words[0]! + (prefix ? ":*" : "") : `(${words.join(" <-> ")})`;

/** The FTS5 phrases of each group's alternatives. */
const phrasesOf = (groups: readonly Group[]) => groups.map((g) => g.alternatives.map((a) => ftsPhrase(a.words, a.prefix === true)));

/** The engine's query text of the groups: every group (AND), or any alternative (OR). */
function matchText(groups: readonly Group[], all: boolean, dialect: Dialect): string {
  const phrase = dialect === "sqlite" ? ftsPhrase : tsPhrase;
  const [and, or] = dialect === "sqlite" ? [" AND ", " OR "] : [" & ", " | "];
  if (!all) return groups.flatMap((g) => g.alternatives.map((a) => phrase(a.words, a.prefix === true))).join(or);
  return groups.map((g) => `(${g.alternatives.map((a) => phrase(a.words, a.prefix === true)).join(or)})`).join(and);
}

export class LexicalRepository {
  private readonly cache: LexicalCache | undefined;
  private readonly postings: PostingCache | undefined;
  /** The database's change clock (Database.changeClock), when the versions read may be used again. */
  private readonly changeClock: (() => number | undefined) | undefined;
  /** SQLite: each store's lexical version as last read, and the change clock read before it. */
  private readonly versions = new Map<string, { clock: number; version: number }>();

  /**
   * `cached`: reuse rankings while the store's text is unchanged (see cache.ts), and on SQLite the
   * rows each phrase matches (postings.ts).
   */
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
    options: { cached?: boolean; changeClock?: () => number | undefined } = {},
  ) {
    this.cache = options.cached ? lexicalCacheOf(db) : undefined;
    this.postings = options.cached && dialect === "sqlite" ? postingCacheOf(db) : undefined;
    this.changeClock = options.changeClock;
  }

  with(db: Executor): LexicalRepository {
    return new LexicalRepository(db, this.dialect);
  }

  /**
   * Writes (or replaces) the product's lexical row and adds its words to the store's vocabulary
   * (`terms` false: not, for migration 0018's data step, which runs before the vocabulary exists
   * and whose rows migration 0023 reads); call inside the product's transaction.
   */
  upsert(storeId: string, productId: string, metadata: Record<string, unknown>, options: { terms?: boolean } = {}): Promise<void> {
    return this.upsertMany([{ storeId, productId, metadata }], options);
  }

  /**
   * upsert() of several products (distinct ones), one statement per UPSERT_BATCH of them on
   * PostgreSQL: a migration's rewrite of a million rows is a few hundred statements, not a million
   * round trips.
   */
  async upsertMany(
    products: readonly { storeId: string; productId: string; metadata: Record<string, unknown> }[],
    options: { terms?: boolean } = {},
  ): Promise<void> {
    if (products.length === 0) return;
    const rows = products.map((p) => {
      const d = lexicalDocument(p.metadata);
      return { ...p, d, words: allWords(d) };
    });
    if (options.terms !== false) {
      const byStore = new Map<string, string[]>();
      for (const r of rows) {
        const texts = byStore.get(r.storeId);
        if (texts) texts.push(r.words);
        else byStore.set(r.storeId, [r.words]);
      }
      for (const [storeId, texts] of [...byStore].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        await this.addTerms(storeId, texts.join(" "));
    }
    if (this.dialect === "sqlite") {
      for (const { storeId, productId, d, words } of rows)
        await sql`INSERT INTO product_text (store_id, product_id, name, brand, category, color, tags, description, other, words)
          VALUES (${storeId}, ${productId}, ${d.name}, ${d.brand}, ${d.category}, ${d.color}, ${d.tags}, ${d.description}, ${d.other}, ${words})
          ON CONFLICT (store_id, product_id) DO UPDATE SET name = excluded.name, brand = excluded.brand, category = excluded.category,
            color = excluded.color, tags = excluded.tags, description = excluded.description, other = excluded.other, words = excluded.words`.execute(
          this.db,
        );
      return;
    }
    // One tokenizer (see the header): PostgreSQL's parser reads the fields as the query's words.
    for (let i = 0; i < rows.length; i += UPSERT_BATCH) await this.upsertRows(rows.slice(i, i + UPSERT_BATCH));
  }

  /** upsertMany()'s statement on PostgreSQL. */
  private async upsertRows(rows: readonly { storeId: string; productId: string; d: LexicalDocument; words: string }[]): Promise<void> {
    const field = (f: (d: LexicalDocument) => string) => rows.map((r) => tsText(f(r.d)));
    await sql`INSERT INTO product_text (store_id, product_id, document, words)
      SELECT s, p, setweight(to_tsvector('english', a), 'A') || setweight(to_tsvector('english', b), 'B') ||
        setweight(to_tsvector('english', c), 'C') || setweight(to_tsvector('english', o), 'D'), w
      FROM unnest(${rows.map((r) => r.storeId)}::text[], ${rows.map((r) => r.productId)}::text[],
        ${field((d) => d.name)}::text[], ${field((d) => [d.brand, d.category, d.color].join(" "))}::text[],
        ${field((d) => [d.tags, d.description].join(" "))}::text[], ${field((d) => d.other)}::text[],
        ${rows.map((r) => r.words)}::text[]) AS x(s, p, a, b, c, o, w)
      ON CONFLICT (store_id, product_id) DO UPDATE SET document = excluded.document, words = excluded.words`.execute(this.db);
  }

  /**
   * The store's best `k` lexical matches of the query's groups (a text: each of its words as typed,
   * plainGroups), restricted to `candidates` when given: the products holding every group, or, when
   * fewer than `enough` (default `k`) do, those holding any alternative too, ranked by coverage
   * (see the header). `partial`: no hit holds every group. The hits may be shared with the cache:
   * callers do not modify them.
   */
  async search(
    storeId: string,
    query: string | readonly Group[],
    k: number,
    candidates?: Candidates,
    enough: number = k,
  ): Promise<{ hits: LexicalHit[]; partial: boolean }> {
    const groups = (typeof query === "string" ? plainGroups(query) : query).slice(0, MAX_TERMS);
    if (groups.length === 0 || k <= 0) return { hits: [], partial: false };
    // Few candidates restrict the query itself; many (or a filter left in the database) are checked
    // on a deeper result list instead (passing thousands of ids costs more than it saves).
    const inSql = candidates !== undefined && !isDeferred(candidates) && candidates.size <= SQL_CANDIDATES_MAX;
    const ids = inSql ? JSON.stringify([...candidates]) : null;
    const depth = candidates && !inSql ? Math.min(POST_FILTER_DEPTH, k * 10) : k;
    // A filter left in the database that remembers verdicts is checked by the lexical statement
    // itself, on the rows it returns, when keep() would check them all anyway (they are `depth` at
    // most): no round trip with their ids after it.
    const checked = candidates && isDeferred(candidates) && candidates.learn && depth >= scoredLimit(depth) ? candidates : undefined;
    const keep = async (hits: LexicalHit[]) => {
      if (!candidates || inSql) return hits;
      const passed = await passing(
        candidates,
        hits.map((h) => h.productId),
      );
      return hits.filter((h) => passed.has(h.productId)).slice(0, k);
    };
    // Rankings restricted in SQL depend on the candidates and are not cached. The others go
    // through the cache from the second time their key is asked (LexicalCache.admits()), and on
    // SQLite are matched from held postings when their phrases are held (postings.ts); the store's
    // version is read once, before the first ranking or postings that need it.
    const cache = ids === null ? this.cache : undefined;
    const maxAge = this.dialect === "sqlite" ? Infinity : TEXT_CACHE_TTL_MS;
    let version: Promise<number> | undefined;
    const versionOf = () => (version ??= this.version(storeId));
    // Once per search: both passes (AND, OR) ask the same phrases.
    const phrases = ids === null && this.postings ? phrasesOf(groups) : undefined;
    let read: Promise<number> | undefined;
    const held = phrases && { phrases, at: () => (read ??= this.readPostings(storeId, phrases, versionOf)) };
    const run = (all: boolean) => {
      const text = matchText(groups, all, this.dialect);
      const compute = () => this.match(storeId, groups, all, text, depth, ids, checked, held);
      // The key holds the alternatives' weights too: coverage depends on them.
      const key = `${storeId}\u0000${depth}\u0000${text}\u0000${groups.map((g) => g.alternatives.map((a) => a.weight).join(",")).join(";")}`;
      if (!cache?.admits(key)) return compute();
      return versionOf().then((v) => cache.through(key, v, compute, maxAge));
    };
    let hits = await keep(await run(true));
    if (hits.length < Math.min(enough, k) && groups.length > 1) {
      const seen = new Set(hits.map((h) => h.productId));
      hits = [...hits, ...(await keep(await run(false))).filter((h) => !seen.has(h.productId))];
    }
    hits = best(hits, k);
    return { hits, partial: !hits.some((h) => h.matched === groups.length) };
  }

  /**
   * SQLite: reads the postings of the query's phrases (each group's) that were asked before and are
   * not held (one statement each, postings.ts) at the store's version, and returns that version.
   */
  private async readPostings(storeId: string, phrases: readonly (readonly string[])[], versionOf: () => Promise<number>): Promise<number> {
    const postings = this.postings!;
    const version = await versionOf();
    for (const phrase of postings.wanted(storeId, version, phrases.flat()))
      postings.put(storeId, version, phrase, await this.ftsRows(storeId, phrase, postings.phraseMax + 1));
    return version;
  }

  /** SQLite: the store's rows matching the FTS5 query `text` (and `restrict`), newest first, at most `limit`. */
  private async ftsRows(storeId: string, text: string, limit: number, restrict = sql``): Promise<TextRow[]> {
    const r = await sql<TextRow>`
      SELECT d.id, d.product_id, d.name, d.words
      FROM product_fts JOIN product_text d ON d.id = product_fts.rowid
      WHERE product_fts MATCH ${text} AND d.store_id = ${storeId} ${restrict}
      ORDER BY product_fts.rowid DESC LIMIT ${rowCount(limit)}`.execute(this.db);
    return r.rows;
  }

  /**
   * The store's lexical version: SQLite's (migration 0019), PostgreSQL's in this process (cache.ts).
   * On SQLite it is read again only when the database's change clock moved since the last read:
   * every write (this process's statements, other connections' commits) moves it, so a version
   * kept with the clock read before it is the store's until then.
   */
  private async version(storeId: string): Promise<number> {
    if (this.dialect === "postgres") return textVersion(storeId);
    const clock = this.changeClock?.();
    const known = this.versions.get(storeId);
    if (clock !== undefined && known?.clock === clock) return known.version;
    const r = await sql<{ version: number }>`SELECT version FROM product_text_versions WHERE store_id = ${storeId}`.execute(this.db);
    const version = r.rows[0]?.version ?? 0;
    if (clock !== undefined) {
      if (!known && this.versions.size >= VERSIONS_KEPT) this.versions.clear();
      this.versions.set(storeId, { clock, version });
    }
    return version;
  }

  /**
   * The lexemes in at least `lexicalLimits.commonLexemeShare` of the lexical table's documents, as
   * tsquery operands: PostgreSQL's statistics of the current schema's table (none before its first
   * ANALYZE), read at most every `lexicalLimits.commonLexemesTtlMs` (they change with ANALYZE, not with each write).
   */
  private async commonLexemes(): Promise<string[]> {
    let known = commonLexemesRead.get(this.db);
    if (!known || performance.now() - known.at >= lexicalLimits.commonLexemesTtlMs) {
      const lexemes = sql<{ lexeme: string; share: number }>`
        SELECT e AS lexeme, f AS share
        FROM pg_stats, unnest(most_common_elems::text::text[], most_common_elem_freqs::text::real[]) AS x(e, f)
        WHERE schemaname = current_schema() AND tablename = 'product_text' AND attname = 'document' AND e <> ''
        ORDER BY f DESC LIMIT ${COMMON_LEXEMES_MAX}`
        .execute(this.db)
        .then((r) => r.rows);
      known = { at: performance.now(), lexemes };
      commonLexemesRead.set(this.db, known);
      lexemes.catch(() => commonLexemesRead.delete(this.db)); // read again next time
    }
    // Quoted as a tsquery operand; a lexeme holding a quote or a backslash stays in the index condition.
    return (await known.lexemes)
      .filter((l) => l.share >= lexicalLimits.commonLexemeShare && !/['\\]/.test(l.lexeme))
      .map((l) => `'${l.lexeme}'`);
  }

  /**
   * PostgreSQL's index condition for the every-word query of `groups` without the common lexemes
   * (see the header), or undefined when it would be the query itself. It must match every document
   * the query matches. Leaving a lexeme out of an AND does; out of an OR or a phrase it does not
   * (ts_rewrite joins a phrase's remaining lexemes as neighbours). So the words of the groups of
   * one alternative are AND-ed lexeme by lexeme (plainto_tsquery: the same parsing, no phrases) and
   * lose the common ones; the other groups stay whole, and so do prefixes.
   */
  private async indexCondition(groups: readonly Group[]) {
    const plain = (g: Group) => g.alternatives.length === 1 && g.alternatives[0]!.prefix !== true;
    const single = groups.filter(plain);
    if (single.length === 0) return undefined;
    const common = await this.commonLexemes();
    if (common.length === 0) return undefined;
    const rest = groups.filter((g) => !plain(g));
    const without = common.reduce(
      (q, lexeme) => sql`ts_rewrite(${q}, ${lexeme}::tsquery, ''::tsquery)`,
      sql`plainto_tsquery('english', ${single.map((g) => g.alternatives[0]!.words.join(" ")).join(" ")})`,
    );
    return rest.length === 0 ? without : sql`${without} && to_tsquery('english', ${matchText(rest, true, "postgres")})`;
  }

  /**
   * The engine's matches of `text` (the groups' match text; every group when `all`), scored, with
   * their coverage. `check` (PostgreSQL): a filter left in the database, told whether each row
   * returned passes it (a lookup by primary key per row, after the LIMIT). `held` (SQLite,
   * unrestricted queries): the groups' phrases, and the version at which their postings were read
   * (readPostings()).
   */
  private async match(
    storeId: string,
    groups: readonly Group[],
    all: boolean,
    text: string,
    k: number,
    ids: string | null,
    check?: DeferredCandidates,
    held?: { phrases: readonly (readonly string[])[]; at: () => Promise<number> },
  ): Promise<LexicalHit[]> {
    const covered = coverageOf(groups);
    if (this.dialect === "sqlite") {
      // Scored by where the words stand (coverageOf's attribute), not by bm25 (see the header).
      const restrict = ids === null ? sql`` : sql`AND d.product_id IN (SELECT value FROM json_each(${ids}))`;
      const found =
        (held && this.postings?.match(storeId, await held.at(), held.phrases, all, scoredLimit(k))) ??
        (await this.ftsRows(storeId, text, scoredLimit(k), restrict));
      return best(
        found.map((row) => {
          const c = covered(row.words, row.name);
          return { productId: row.product_id, score: c.attribute, coverage: c.weight, matched: c.matched };
        }),
        k,
      );
    }
    let rows: { product_id: string; s: number; words: string; passes?: boolean }[];
    {
      const restrict = ids === null ? sql`` : sql`AND product_id = ANY (SELECT jsonb_array_elements_text(${ids}::jsonb))`;
      const index = all ? await this.indexCondition(groups) : undefined;
      // The query itself is checked on the rows of the index condition: `IS TRUE` keeps the planner
      // from adding it to the index scan, which would walk the common lexemes again. An index
      // condition left empty (every lexeme common) is the query.
      const condition = index
        ? sql`document @@ coalesce((SELECT CASE WHEN numnode(i) > 0 THEN i END FROM (SELECT ${index} AS i) x), q) AND (document @@ q) IS TRUE`
        : sql`document @@ q`;
      const verdict = check ? sql`, EXISTS (SELECT 1 FROM (${check.subquery}) f WHERE f.product_id = h.product_id) AS passes` : sql``;
      rows = (
        await sql<{ product_id: string; s: number; words: string; passes?: boolean }>`
        SELECT h.product_id, h.s, h.words${verdict} FROM (
          SELECT product_id, ts_rank(document, q) AS s, words
          FROM product_text, to_tsquery('english', ${text}) AS q
          WHERE store_id = ${storeId} AND ${condition} ${restrict}
          LIMIT ${scoredLimit(k)}) h`.execute(this.db)
      ).rows;
    }
    check?.learn?.(new Map(rows.map((row) => [row.product_id, row.passes === true])));
    return best(
      rows.map((row) => {
        const c = covered(row.words);
        return { productId: row.product_id, score: row.s, coverage: c.weight, matched: c.matched };
      }),
      k,
    );
  }

  /**
   * SQLite: one step of merging the full-text index's segments (FTS5 'merge': about `pages` leaf
   * pages written at most, levels of two or more segments; migration 0035), and whether it merged
   * anything (FTS5's own test: the connection's total changes moved by two or more). It spans
   * every store (one index). PostgreSQL: nothing to merge (false).
   */
  async mergeSegments(pages: number): Promise<boolean> {
    if (this.dialect !== "sqlite") return false;
    const changes = async () => (await sql<{ n: number }>`SELECT total_changes() AS n`.execute(this.db)).rows[0]!.n;
    const before = await changes();
    await sql`INSERT INTO product_fts(product_fts, rank) VALUES ('merge', ${pages})`.execute(this.db);
    return (await changes()) - before >= 2;
  }

  /**
   * Up to `k` ids of the store's products whose name holds every word of `typed`, the last one as
   * a prefix (a word still being typed: "red dre" → "Red Dress"), for type-ahead. No scoring: on
   * SQLite the most recently indexed first, on PostgreSQL in the GIN bitmap's order; the caller
   * ranks the few names it gets. At most 8 words; none → none.
   */
  async nameMatches(storeId: string, typed: string, k: number): Promise<string[]> {
    const ws = words(typed).slice(0, 8);
    if (ws.length === 0 || k <= 0) return [];
    const last = ws.length - 1;
    if (this.dialect === "sqlite") {
      const text = `name : (${ws.map((w, i) => `"${w}"${i === last ? "*" : ""}`).join(" AND ")})`;
      const r = await sql<{ product_id: string }>`
        SELECT d.product_id FROM product_fts JOIN product_text d ON d.id = product_fts.rowid
        WHERE product_fts MATCH ${text} AND d.store_id = ${storeId}
        ORDER BY product_fts.rowid DESC LIMIT ${rowCount(k)}`.execute(this.db);
      return r.rows.map((row) => row.product_id);
    }
    // Weight A is the name (see upsert); a stop word drops out of the query as in text search.
    const text = ws.map((w, i) => `${w}:${i === last ? "*" : ""}A`).join(" & ");
    const r = await sql<{ product_id: string }>`
      SELECT product_id FROM product_text
      WHERE store_id = ${storeId} AND document @@ to_tsquery('english', ${text})
      LIMIT ${k}`.execute(this.db);
    return r.rows.map((row) => row.product_id);
  }

  /**
   * The phrases (word lists, as query.ts words() gives them) that the name of some product of the
   * store holds, word for word in order ("max 1" of "Nike Air Max 1"). One indexed lookup per
   * phrase: FTS5's phrase query on the name column; on PostgreSQL the name's weight-A lexemes in
   * order (`<->`) narrow through the GIN index and the product's words confirm the phrase (the
   * english configuration drops stop words such as "under" from the tsvector).
   */
  async namePhrases(storeId: string, phrases: readonly (readonly string[])[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const ws of phrases) {
      if (ws.length === 0) continue;
      let found: boolean;
      if (this.dialect === "sqlite") {
        const text = `name : ${ftsPhrase(ws, false)}`;
        const r = await sql<{ one: number }>`
          SELECT 1 AS one FROM product_fts JOIN product_text d ON d.id = product_fts.rowid
          WHERE product_fts MATCH ${text} AND d.store_id = ${storeId} LIMIT 1`.execute(this.db);
        found = r.rows.length > 0;
      } else {
        const narrow = ws.map((w) => `${w}:A`).join(" <-> ");
        // words() keeps letters and digits only: the pattern holds no metacharacter of its own.
        const pattern = `(^|[^[:alnum:]])${ws.join("[^[:alnum:]]+")}([^[:alnum:]]|$)`;
        const r = await sql<{ one: number }>`
          SELECT 1 AS one FROM product_text
          WHERE store_id = ${storeId} AND document @@ to_tsquery('english', ${narrow}) AND lower(words) ~ ${pattern} LIMIT 1`.execute(
          this.db,
        );
        found = r.rows.length > 0;
      }
      if (found) held.add(ws.join(" "));
    }
    return held;
  }

  /** Every word of the store's product text (the lexicon's vocabulary). */
  async terms(storeId: string): Promise<string[]> {
    const r = await sql<{ term: string }>`SELECT term FROM product_terms WHERE store_id = ${storeId}`.execute(this.db);
    return r.rows.map((row) => row.term);
  }

  /** Adds the words of a product's text to the store's vocabulary (sorted: concurrent writers lock in one order). */
  async addTerms(storeId: string, text: string): Promise<void> {
    const terms = [...new Set(words(text))].filter((t) => t.length <= MAX_TERM_LENGTH).sort();
    if (terms.length === 0) return;
    if (this.dialect === "sqlite") {
      await sql`INSERT OR IGNORE INTO product_terms (store_id, term) SELECT ${storeId}, value FROM json_each(${JSON.stringify(terms)})`.execute(
        this.db,
      );
      return;
    }
    await sql`INSERT INTO product_terms (store_id, term) SELECT ${storeId}, unnest(${terms}::text[]) ON CONFLICT DO NOTHING`.execute(
      this.db,
    );
  }
}

/**
 * Writes the lexical rows of every product in the database, or of the stores `storeIds` names
 * (the data step of migrations 0018 and 0033, handed to the migrations by the composition root as
 * DataHooks.indexProductText; migrate-data's copy), a page of products at a time so that a large
 * catalogue is never held in memory, each page written by `concurrency` statements at once
 * (upsertMany; default 1: a migration's transaction has one connection; bench:scale fills a
 * million products with 8). `pageSize`: products read at a time. Returns how many were written.
 */
export async function indexAllProducts(
  db: Executor,
  dialect: Dialect,
  concurrency = 1,
  pageSize = INDEX_PAGE,
  options: { terms?: boolean; storeIds?: readonly string[] } = {},
): Promise<number> {
  const lexical = new LexicalRepository(db, dialect);
  const { storeIds = [], ...upsert } = options;
  let after = { store_id: "", product_id: "" };
  let written = 0;
  for (;;) {
    const page = await db
      .selectFrom("products")
      .select(["store_id", "product_id", "metadata"])
      .$if(storeIds.length > 0, (q) => q.where("store_id", "in", storeIds))
      // A row comparison, which both engines read as a range of the primary key (the same test
      // written with OR is a filter: a million products took 0.5 s a page by the end).
      .where((e) => e(e.refTuple("store_id", "product_id"), ">", e.tuple(after.store_id, after.product_id)))
      .orderBy("store_id")
      .orderBy("product_id")
      .limit(pageSize)
      .execute();
    if (page.length === 0) return written;
    after = page.at(-1)!;
    written += page.length;
    const products = page.map((r) => ({
      storeId: r.store_id,
      productId: r.product_id,
      metadata: (typeof r.metadata === "string" ? JSON.parse(r.metadata) : r.metadata) as Record<string, unknown>,
    }));
    // The page in `concurrency` statements at once.
    const size = Math.ceil(products.length / Math.max(1, concurrency));
    const parts = Array.from({ length: Math.ceil(products.length / size) }, (_, i) => products.slice(i * size, (i + 1) * size));
    await Promise.all(parts.map((part) => lexical.upsertMany(part, upsert)));
  }
}

/**
 * Writes the vocabulary of every store's lexical rows (migration 0023, handed in by the composition
 * root as DataHooks.indexProductTerms), a page of rows at a time.
 */
export async function indexAllTerms(db: Executor, dialect: Dialect, pageSize = INDEX_PAGE): Promise<void> {
  const lexical = new LexicalRepository(db, dialect);
  let after = { store_id: "", product_id: "" };
  for (;;) {
    const page = (
      await sql<{ store_id: string; product_id: string; words: string }>`
      SELECT store_id, product_id, words FROM product_text
      WHERE (store_id, product_id) > (${after.store_id}, ${after.product_id})
      ORDER BY store_id, product_id LIMIT ${rowCount(pageSize)}`.execute(db)
    ).rows;
    if (page.length === 0) return;
    after = page.at(-1)!;
    for (const r of page) await lexical.addTerms(r.store_id, r.words);
  }
}
