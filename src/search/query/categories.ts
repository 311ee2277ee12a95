// The store's category vocabulary for query understanding (understand.ts), cached per store
// (store-cache.ts): reading the distinct categories of a large store and stemming them costs more
// than the rest of a search.
import type { AppContext } from "../../context/context.js";
import type { SearchRepository } from "./repository.js";
import { storeCached } from "../cache/store-cache.js";
import { categoryVocabulary, type CategoryVocabulary } from "./understand.js";

/** The store's category vocabulary, from the cache when it is current. */
export function storeCategories(ctx: AppContext, repo: SearchRepository, storeId: string): Promise<CategoryVocabulary> {
  return storeCached(ctx, "categories", storeId, () => repo.categories(storeId).then(categoryVocabulary));
}
