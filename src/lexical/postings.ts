// Held postings of the embedded full-text index (SQLite; issue 39). A text query's lexical lookup
// on SQLite is two FTS5 statements (every group, then any phrase: repository.ts) whose rows (each
// product's name and words, scored in JS) are built anew for every query, and most queries are new:
// a shopper's query is a new combination of words the store's searches use again and again. So
// the rows each phrase of a query matches (an alternative: a word, a phrase, a prefix, exactly as
// FTS5 is asked for it) are kept per store, and a query whose phrases are all held is matched by
// set operations on them: the products holding an alternative of every group (AND), or of any
// (OR), newest first (the statements' `ORDER BY rowid DESC`), at most the statements' limit. FTS5
// combines its phrases' matches the same way, so the rows are the statements' rows. This is
// posting-list caching, which a search engine's query stream favours over result caching because
// terms repeat far more often than whole queries do (Baeza-Yates et al., "The impact of caching on
// search engines", SIGIR 2007).
//   Validity: an entry holds one version of the store's text (`product_text_versions`, bumped by
//   triggers in the transaction of every change: the version a search reads before it looks here),
//   and is emptied when the version moved.
//   Admission: a phrase's rows are read (one statement) from the second time the phrase is asked
//   in the store (doorkeeper.ts, as for the ranking cache); a phrase asked once, as most typos and
//   rare words are, costs nothing more than the statements the query runs anyway.
//   Bounds: a phrase matching more than PHRASE_POSTINGS_MAX of the store's products is common and
//   not held (its queries run the statements, whose limit bounds what they score); it is known as
//   common across versions for COMMON_TTL_MS, so that a store being written to (a new version
//   after each write) does not read its common phrases' rows again and again; each product's
//   row is held once per store however many phrases match it; the least recently searched stores
//   are dropped beyond POSTINGS_MAX_SIZE (the rows' and phrases' characters plus a fixed cost per
//   row, posting and store), and a store that alone exceeds it starts over.
import { Doorkeeper, DOORKEEPER_KEYS } from "./doorkeeper.js";

/** A product's lexical row as the full-text statements read it (`id`: the FTS5 rowid). */
export interface TextRow {
  id: number;
  product_id: string;
  name: string;
  words: string;
}

/** Most products a held phrase matches in a store; a phrase matching more is common (see the header). */
export const PHRASE_POSTINGS_MAX = 2_000;
/** The size held in all stores, in characters of the rows plus the fixed costs below (~2 bytes each). */
export const POSTINGS_MAX_SIZE = 16_000_000;
/** How long a phrase found common stays known as common (across versions). */
export const COMMON_TTL_MS = 10 * 60_000;
/** A held row's fixed cost beyond its strings, a posting's (one reference in a phrase's list), a store's. */
const ROW_COST = 48;
const POSTING_COST = 4;
const STORE_COST = 64;

interface StoreEntry {
  version: number;
  /** Each product's row once. */
  rows: Map<number, TextRow>;
  /** A phrase's rows, newest first. */
  phrases: Map<string, readonly TextRow[]>;
  /** Phrases found common (more rows than the maximum), whatever the version: when found. */
  common: Map<string, number>;
  size: number;
}

export class PostingCache {
  /** Stores, least recently searched first. */
  private readonly stores = new Map<string, StoreEntry>();
  private size = 0;
  /** Store and phrase keys asked once and not held. */
  private readonly doorkeeper: Doorkeeper;

  constructor(
    private readonly maxSize = POSTINGS_MAX_SIZE,
    readonly phraseMax = PHRASE_POSTINGS_MAX,
    doorkeeperKeys = DOORKEEPER_KEYS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.doorkeeper = new Doorkeeper(doorkeeperKeys);
  }

  /**
   * The phrases among `phrases` to read now: those neither held nor common that were asked in the
   * store before (the others are remembered as asked). Marks the store as the most recently searched.
   */
  wanted(storeId: string, version: number, phrases: readonly string[]): string[] {
    const entry = this.entry(storeId, version);
    return [...new Set(phrases)].filter(
      (phrase) => !entry.phrases.has(phrase) && !this.isCommon(entry, phrase) && this.doorkeeper.askedBefore(`${storeId}\u0000${phrase}`),
    );
  }

  /**
   * Holds the rows `phrase` matched at `version` (read with a limit above phraseMax: more than
   * phraseMax rows mark it common), unless the store's entry has moved to another version since.
   */
  put(storeId: string, version: number, phrase: string, rows: readonly TextRow[]): void {
    const entry = this.stores.get(storeId);
    if (!entry || entry.version !== version || entry.phrases.has(phrase)) return;
    if (rows.length > this.phraseMax) {
      if (!entry.common.has(phrase)) this.grow(storeId, entry, phrase.length + POSTING_COST);
      entry.common.set(phrase, this.now());
      return;
    }
    let added = phrase.length + POSTING_COST * (rows.length + 1);
    const held = rows.map((row) => {
      const known = entry.rows.get(row.id);
      if (known) return known;
      entry.rows.set(row.id, row);
      added += ROW_COST + row.product_id.length + row.name.length + row.words.length;
      return row;
    });
    entry.phrases.set(phrase, held);
    this.grow(storeId, entry, added);
  }

  /**
   * The store's rows matching `groups` (each a list of phrases, its alternatives) at `version`:
   * those holding a phrase of every group (`all`), or of any, newest (highest id) first, at most
   * `limit`; undefined when a phrase is not held or common (the statements answer).
   */
  match(storeId: string, version: number, groups: readonly (readonly string[])[], all: boolean, limit: number): TextRow[] | undefined {
    const entry = this.stores.get(storeId);
    if (!entry || entry.version !== version || groups.length === 0) return undefined;
    const lists: (readonly TextRow[])[][] = [];
    for (const group of groups) {
      const list: (readonly TextRow[])[] = [];
      for (const phrase of group) {
        const rows = entry.phrases.get(phrase);
        if (!rows) return undefined;
        list.push(rows);
      }
      lists.push(list);
    }
    let found: TextRow[];
    if (!all || lists.length === 1) {
      found = union(lists.flat());
    } else {
      // The group with the fewest postings first; the others as sets of ids to test its rows against.
      const sized = lists.map((l) => ({ l, n: l.reduce((s, rows) => s + rows.length, 0) })).sort((a, b) => a.n - b.n);
      found = union(sized[0]!.l);
      for (const { l } of sized.slice(1)) {
        if (found.length === 0) break;
        const ids = new Set<number>();
        for (const rows of l) for (const row of rows) ids.add(row.id);
        found = found.filter((row) => ids.has(row.id));
      }
    }
    found.sort((a, b) => b.id - a.id);
    if (found.length > limit) found.length = limit;
    return found;
  }

  clear(): void {
    this.stores.clear();
    this.doorkeeper.clear();
    this.size = 0;
  }

  /** Rows and phrases held in all stores (for tests and diagnostics). */
  get held(): { stores: number; rows: number; phrases: number; size: number } {
    let rows = 0;
    let phrases = 0;
    for (const e of this.stores.values()) {
      rows += e.rows.size;
      phrases += e.phrases.size;
    }
    return { stores: this.stores.size, rows, phrases, size: this.size };
  }

  /** The store's entry at `version`, emptied when the version moved; marked most recently searched. */
  private entry(storeId: string, version: number): StoreEntry {
    const entry = this.stores.get(storeId);
    if (entry) this.stores.delete(storeId);
    if (entry && entry.version === version) {
      this.stores.set(storeId, entry);
      return entry;
    }
    if (entry) this.size -= entry.size;
    // Common phrases stay known (see the header), and so does their share of the size.
    const common = entry?.common ?? new Map<string, number>();
    let size = STORE_COST;
    for (const phrase of common.keys()) size += phrase.length + POSTING_COST;
    const fresh: StoreEntry = { version, rows: new Map(), phrases: new Map(), common, size: 0 };
    this.stores.set(storeId, fresh);
    this.grow(storeId, fresh, size);
    return fresh;
  }

  /** Whether `phrase` is known as common in the store (forgotten COMMON_TTL_MS after it was found). */
  private isCommon(entry: StoreEntry, phrase: string): boolean {
    const at = entry.common.get(phrase);
    if (at === undefined) return false;
    if (this.now() - at < COMMON_TTL_MS) return true;
    entry.common.delete(phrase);
    entry.size -= phrase.length + POSTING_COST;
    this.size -= phrase.length + POSTING_COST;
    return false;
  }

  /** Adds `n` to the store's size; beyond the maximum drops the least recently searched stores, then this one (it starts over). */
  private grow(storeId: string, entry: StoreEntry, n: number): void {
    entry.size += n;
    this.size += n;
    for (const [id, other] of this.stores) {
      if (this.size <= this.maxSize) return;
      if (id === storeId) continue;
      this.stores.delete(id);
      this.size -= other.size;
    }
    if (this.size > this.maxSize) {
      this.stores.delete(storeId);
      this.size -= entry.size;
    }
  }
}

/** The distinct rows of `lists` (each product once). */
function union(lists: readonly (readonly TextRow[])[]): TextRow[] {
  if (lists.length === 1) return [...lists[0]!];
  const seen = new Set<number>();
  const out: TextRow[] = [];
  for (const rows of lists)
    for (const row of rows)
      if (!seen.has(row.id)) {
        seen.add(row.id);
        out.push(row);
      }
  return out;
}

const caches = new WeakMap<object, PostingCache>();

/** The held postings of one database handle (one per application context). */
export function postingCacheOf(db: object): PostingCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new PostingCache()));
  return cache;
}
