// TinyLFU's doorkeeper (Einziger et al., "TinyLFU: A Highly Efficient Cache Admission Policy",
// 2017): the keys asked once, so that a cache admits an entry only from its key's second ask.
// Many distinct keys are asked only once (the long tail of a search log); keeping their entries
// costs the work of keeping them and evicts entries asked often. The keys are held as 30-bit
// FNV-1a hashes (small integers in a Set: ~1.3 MB at 65,536), and the set is emptied when full, so
// a key counts as asked again only within that many distinct keys. A hash collision admits a key
// early, which costs nothing but one kept entry. Used by the ranking cache (cache.ts) and the held
// postings (postings.ts).

/** Distinct keys remembered as asked once before the doorkeeper is emptied. */
export const DOORKEEPER_KEYS = 65_536;

/** A 30-bit FNV-1a hash of `key`'s UTF-16 code units (a small integer: no heap number per entry). */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

export class Doorkeeper {
  private readonly seen = new Set<number>();

  constructor(private readonly capacity = DOORKEEPER_KEYS) {}

  /** Whether `key` was asked before since the doorkeeper was last emptied; remembers it if not. */
  askedBefore(key: string): boolean {
    const h = keyHash(key);
    if (this.seen.has(h)) return true;
    if (this.seen.size >= this.capacity) this.seen.clear();
    this.seen.add(h);
    return false;
  }

  clear(): void {
    this.seen.clear();
  }
}
