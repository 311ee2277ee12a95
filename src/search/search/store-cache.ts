// Per-store values derived from a store's product text (the category vocabulary of query
// understanding, the lexicon of text search), cached per application context: building them reads
// and processes every category or word of the store, which costs more than the rest of a search.
// An entry is rebuilt after the store's text or synonyms change in this process
// (src/lexical/changes.ts), and at the latest STORE_CACHE_TTL_MS after it was built (writes by
// other processes). A failed build is not kept.
import type { AppContext } from "../../context/context.js";
import { textVersion } from "../../lexical/changes.js";

export const STORE_CACHE_TTL_MS = 30_000;

interface Entry {
  version: number;
  builtAt: number;
  value: Promise<unknown>;
}

const caches = new WeakMap<AppContext, Map<string, Entry>>();

/** The store's `kind` value, from the cache when it is current, else `build()`'s. */
export function storeCached<T>(ctx: AppContext, kind: string, storeId: string, build: () => Promise<T>): Promise<T> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map<string, Entry>()));
  const key = `${kind}\u0000${storeId}`;
  const version = textVersion(storeId);
  const now = ctx.clock.now();
  const hit = cache.get(key);
  if (hit && hit.version === version && now - hit.builtAt < STORE_CACHE_TTL_MS) return hit.value as Promise<T>;
  const value = build();
  const entry: Entry = { version, builtAt: now, value };
  cache.set(key, entry);
  value.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  return value;
}
