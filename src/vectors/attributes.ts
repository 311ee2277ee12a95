// Filterable product fields kept beside the vectors by the embedded index, so that a search
// filter becomes a bitmap over a group's rows in memory instead of a SQL query per search.
//
// The index stores the fields as the products table holds them (category, price, colour name,
// dominant colours and metadata as JSON text); what a filter means is decided by the caller,
// which hands the index an AttributeFilter (a cache key and a row test; the search resource
// compiles its filters into one, see src/search/query/memory-filter.ts). Bitmaps are cached per
// group and filter key until a row or an attribute of the group changes.

/** The filterable fields of one product, as stored in `products`. */
export interface ProductAttributes {
  category: string | null;
  price: number | null;
  colorName: string | null;
  /** JSON text: [{hex, share}] */
  dominantColors: string;
  /** JSON text: the product's metadata object. */
  metadata: string;
}

/** A filter over product attributes. Equal keys must mean equal tests. */
export interface AttributeFilter {
  key: string;
  test(attributes: ProductAttributes): boolean;
}

/** The rows of one group passing a filter. */
export interface RowBitmap {
  /** 1 for a passing row (indexed by the group's row number at `version`). */
  bits: Uint8Array;
  count: number;
}

/** A vector group as seen by a filter set: its rows and a version that changes with them. */
export interface FilterableGroup {
  readonly version: number;
  rowOf(productId: string): number | undefined;
  productAt(row: number): string;
  readonly size: number;
  bitmap(filter: AttributeFilter): RowBitmap;
}

/**
 * The products of a store passing a filter, as a read-only set of product ids backed by one
 * bitmap per vector group (groups of one store hold disjoint products). A group whose rows
 * changed since its bitmap was made gets a fresh one on the next use.
 */
export class FilteredProducts implements ReadonlySet<string> {
  private readonly parts: { group: FilterableGroup; version: number; bitmap: RowBitmap }[];

  constructor(
    readonly filter: AttributeFilter,
    groups: readonly FilterableGroup[],
  ) {
    this.parts = groups.map((group) => ({ group, version: group.version, bitmap: group.bitmap(filter) }));
  }

  /** The current bitmap of `group` (undefined when the group is not part of this store). */
  bitmapOf(group: FilterableGroup): RowBitmap | undefined {
    const part = this.parts.find((p) => p.group === group);
    if (!part) return undefined;
    if (part.version !== group.version) {
      part.bitmap = group.bitmap(this.filter);
      part.version = group.version;
    }
    return part.bitmap;
  }

  get size(): number {
    let n = 0;
    for (const part of this.parts) n += this.bitmapOf(part.group)!.count;
    return n;
  }

  has(productId: string): boolean {
    for (const part of this.parts) {
      const row = part.group.rowOf(productId);
      if (row !== undefined) return this.bitmapOf(part.group)!.bits[row] === 1;
    }
    return false;
  }

  *values(): SetIterator<string> {
    for (const part of this.parts) {
      const { bits } = this.bitmapOf(part.group)!;
      for (let row = 0; row < bits.length; row++) if (bits[row] === 1) yield part.group.productAt(row);
    }
  }

  keys(): SetIterator<string> {
    return this.values();
  }

  *entries(): SetIterator<[string, string]> {
    for (const v of this.values()) yield [v, v];
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.values();
  }

  forEach(fn: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const v of this.values()) fn.call(thisArg, v, v, this);
  }
}
