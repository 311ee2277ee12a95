// A per-store change counter of the product text, for caches derived from it (the category
// vocabulary of query understanding, the lexicon, PostgreSQL's lexical rankings). ProductsService
// bumps it after a write or delete commits, the reindexer after each batch of lexical rows (never
// before: a read racing the transaction would otherwise cache the old text under the new count).
// A cache compares the counter it was built at; writes by other processes (PostgreSQL with
// several instances) are seen once the cache's time-to-live (TEXT_CACHE_TTL_MS) has run out.
const versions = new Map<string, number>();
/** Changes of any store's text in this process. */
let changes = 0;

/** How long a cache derived from the text may serve after it was built: writes by other processes show after at most this long. */
export const TEXT_CACHE_TTL_MS = 30_000;

/** Records that the store's product text changed. */
export function noteTextChange(storeId: string): void {
  versions.set(storeId, (versions.get(storeId) ?? 0) + 1);
  changes++;
}

/** How many times any store's text changed in this process (for work that follows every store's writes). */
export function textChanges(): number {
  return changes;
}

/** The store's change counter (0 before its first change in this process). */
export function textVersion(storeId: string): number {
  return versions.get(storeId) ?? 0;
}
