// The store's category vocabulary for query understanding (understand.ts), cached per store:
// reading the distinct categories of a large store and stemming them costs more than the rest of
// a search. An entry is rebuilt after a product of the store is written or deleted in this
// process (src/lexical/changes.ts), and at the latest CATEGORY_CACHE_TTL_MS after it was built
// (writes by other processes).
import type { AppContext } from "../../context/context.js";
import { textVersion } from "../../lexical/changes.js";
import type { SearchRepository } from "./repository.js";
import { categoryVocabulary, type CategoryVocabulary } from "./understand.js";

export const CATEGORY_CACHE_TTL_MS = 30_000;

interface Entry {
  version: number;
  builtAt: number;
  vocabulary: Promise<CategoryVocabulary>;
}

const caches = new WeakMap<AppContext, Map<string, Entry>>();

/** The store's category vocabulary, from the cache when it is current. */
export function storeCategories(ctx: AppContext, repo: SearchRepository, storeId: string): Promise<CategoryVocabulary> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map<string, Entry>()));
  const version = textVersion(storeId);
  const now = ctx.clock.now();
  const hit = cache.get(storeId);
  if (hit && hit.version === version && now - hit.builtAt < CATEGORY_CACHE_TTL_MS) return hit.vocabulary;
  const vocabulary = repo.categories(storeId).then(categoryVocabulary);
  const entry: Entry = { version, builtAt: now, vocabulary };
  cache.set(storeId, entry);
  // A failed read is not kept.
  vocabulary.catch(() => {
    if (cache.get(storeId) === entry) cache.delete(storeId);
  });
  return vocabulary;
}
