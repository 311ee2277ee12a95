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
//   at a version; a phrase asked once, as most typos and rare words are, costs nothing more than
//   the statements the query runs anyway (TinyLFU's doorkeeper, as the ranking cache's: cache.ts).
//   Bounds: a phrase matching more than PHRASE_POSTINGS_MAX of the store's products is common and
//   not held (its queries run the statements, whose limit bounds what they score); it is known as
//   common across versions for COMMON_TTL_MS, so that a store being written to (a new version
//   after each write) does not read its common phrases' rows again and again; each product's
//   row is held once per store however many phrases match it; the least recently searched stores
//   are dropped beyond POSTINGS_MAX_SIZE (the rows' and phrases' characters, the doorkeeper's
//   included, plus a fixed cost per row and per posting), and a store that alone exceeds it starts
//   over.

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
/** Distinct phrases a store's doorkeeper remembers as asked once before it is emptied. */
export const DOORKEEPER_PHRASES = 8_192;
/** A held row's fixed cost beyond its strings, and a posting's (one reference in a phrase's list). */
const ROW_COST = 48;
const POSTING_COST = 4;

interface StoreEntry {
  version: number;
  /** Each product's row once. */
  rows: Map<number, TextRow>;
  /** A phrase's rows, newest first. */
  phrases: Map<string, readonly TextRow[]>;
  /** Phrases found common (more rows than the maximum), whatever the version: when found. */
  common: Map<string, number>;
  /** Phrases asked once at this version and not held. */
  seen: Set<string>;
  /** The share of `size` that `seen` holds. */
  seenSize: number;
  size: number;
}

export class PostingCache {
  /** Stores, least recently searched first. */
  private readonly stores = new Map<string, StoreEntry>();
  private size = 0;

  constructor(
    private readonly maxSize = POSTINGS_MAX_SIZE,
    readonly phraseMax = PHRASE_POSTINGS_MAX,
    private readonly doorkeeperPhrases = DOORKEEPER_PHRASES,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * The phrases among `phrases` to read now: those not held that were asked before at this
   * version (the others are remembered as asked). Marks the store as the most recently searched.
   */
  wanted(storeId: string, version: number, phrases: readonly string[]): string[] {
    const entry = this.entry(storeId, version);
    const wanted: string[] = [];
    for (const phrase of phrases) {
      if (entry.phrases.has(phrase) || this.isCommon(entry, phrase)) continue;
      if (entry.seen.has(phrase)) {
        if (!wanted.includes(phrase)) wanted.push(phrase);
        continue;
      }
      if (entry.seen.size >= this.doorkeeperPhrases) {
        entry.seen.clear();
        this.grow(storeId, entry, -entry.seenSize);
        entry.seenSize = 0;
      }
      entry.seen.add(phrase);
      entry.seenSize += phrase.length + POSTING_COST;
      this.grow(storeId, entry, phrase.length + POSTING_COST);
    }
    return wanted;
  }

  /**
   * Holds the rows `phrase` matched at `version` (read with a limit above phraseMax: more than
   * phraseMax rows mark it common), unless the store's entry has moved to another version since.
   */
  put(storeId: string, version: number, phrase: string, rows: readonly TextRow[]): void {
    const entry = this.stores.get(storeId);
    if (!entry || entry.version !== version || entry.phrases.has(phrase)) return;
    if (entry.seen.delete(phrase)) {
      entry.seenSize -= phrase.length + POSTING_COST;
      this.grow(storeId, entry, -(phrase.length + POSTING_COST));
    }
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
    let entry = this.stores.get(storeId);
    if (entry) this.stores.delete(storeId);
    if (!entry || entry.version !== version) {
      if (entry) this.size -= entry.size;
      // Common phrases stay known (see the header), and so does their share of the size.
      const common = entry?.common ?? new Map<string, number>();
      let size = 0;
      for (const phrase of common.keys()) size += phrase.length + POSTING_COST;
      entry = { version, rows: new Map(), phrases: new Map(), common, seen: new Set(), seenSize: 0, size };
      this.size += size;
    }
    this.stores.set(storeId, entry);
    return entry;
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

  /** Adds `n` to the store's size; beyond the maximum drops the least recently searched stores, or starts this one over. */
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
      this.size -= entry.size;
      entry.size = 0;
      entry.rows.clear();
      entry.phrases.clear();
      entry.common.clear();
      entry.seen.clear();
      entry.seenSize = 0;
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
