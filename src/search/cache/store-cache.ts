// Per-store values a search reads (the category vocabulary of query understanding, the lexicon of
// text search, the merchandising rules, the widget's currency and popular queries), cached per
// application context: building them costs more than the rest of a search. An entry is rebuilt
// after its change counter moves in this process (by default the store's text or synonyms,
// src/lexical/changes.ts; a caller may pass its own), and at the latest STORE_CACHE_TTL_MS after it
// was built (writes by other processes). A failed build is not kept.
import type { AppContext } from "../../context/context.js";
import { TEXT_CACHE_TTL_MS, textVersion } from "../../lexical/changes.js";

export const STORE_CACHE_TTL_MS = TEXT_CACHE_TTL_MS;

interface Entry {
  version: number;
  builtAt: number;
  value: Promise<unknown>;
}

const caches = new WeakMap<AppContext, Map<string, Entry>>();

/** The store's `kind` value, from the cache when it is current, else `build()`'s (`version`: the change counter it depends on). */
export function storeCached<T>(
  ctx: AppContext,
  kind: string,
  storeId: string,
  build: () => Promise<T>,
  version = textVersion(storeId),
): Promise<T> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map<string, Entry>()));
  const key = `${kind}\u0000${storeId}`;
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
