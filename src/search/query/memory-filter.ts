// Search pre-filters evaluated in memory, for the embedded vector index (which keeps each
// product's filterable fields beside its vectors): the same meaning as the SQL of filters.ts,
// compiled once per search into a test over a product's attributes; the index turns it into a
// bitmap over its rows (cached per filter until the store changes). PostgreSQL keeps filtering in
// SQL (`filterCandidates` is absent there), and so does any adapter that has not loaded yet.
//
// Case folding is JavaScript's toLowerCase (full Unicode); SQLite's lower() folds ASCII only, so
// the two differ only for non-ASCII letters, where this is the behaviour the spec asks for
// ("ignoring case").
import type { AppContext } from "../../context/context.js";
import type { AttributeFilter, ProductAttributes } from "../../vectors/attributes.js";
import type { Candidates } from "../../vectors/candidates.js";
import { colorMatches, parseColorFilter, type MetadataFilter, type Scalar, type SearchFilters } from "./filters.js";
import type { SearchRepository } from "./repository.js";

type Json = unknown;

/** Parsed JSON fields per attributes object (attributes are replaced, never mutated). */
const parsedMetadata = new WeakMap<ProductAttributes, Json>();
const parsedColors = new WeakMap<ProductAttributes, { hex: string; share: number }[]>();

function metadataOf(a: ProductAttributes): Json {
  let m = parsedMetadata.get(a);
  if (m === undefined) {
    m = JSON.parse(a.metadata) as Json;
    parsedMetadata.set(a, m);
  }
  return m;
}

const loweredCategory = new WeakMap<ProductAttributes, string>();

/** The product's category, lowercased once per attributes object (bitmap builds compare many). */
function categoryOf(a: ProductAttributes): string {
  let c = loweredCategory.get(a);
  if (c === undefined) {
    c = lower(a.category ?? "");
    loweredCategory.set(a, c);
  }
  return c;
}

/** The product's dominant colours, parsed once per attributes object. */
export function dominantColorsOf(a: ProductAttributes): { hex: string; share: number }[] {
  let c = parsedColors.get(a);
  if (c === undefined) {
    c = JSON.parse(a.dominantColors) as { hex: string; share: number }[];
    parsedColors.set(a, c);
  }
  return c;
}

/** The value at a dotted path (undefined when absent), as json_extract / `#>` reach it. */
function at(metadata: Json, path: readonly string[]): Json {
  let v: Json = metadata;
  for (const key of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, Json>)[key];
  }
  return v;
}

const lower = (s: string) => s.toLowerCase();

function equals(v: Json, value: Scalar): boolean {
  if (typeof value === "boolean") return v === value;
  if (typeof value === "number") return typeof v === "number" && v === value;
  return typeof v === "string" && lower(v) === lower(value);
}

function compile(m: MetadataFilter): (metadata: Json) => boolean {
  const path = m.field.split(".");
  const list = Array.isArray(m.value) ? m.value : [m.value];
  const folded = list.map((x) => (typeof x === "string" ? lower(x) : x));
  const anyOf = (v: Json) => folded.some((x) => equals(v, x));
  switch (m.operator) {
    case "eq":
      return (md) => equals(at(md, path), folded[0]!);
    case "ne":
      return (md) => {
        const v = at(md, path);
        return v === undefined || !equals(v, folded[0]!);
      };
    case "in":
      return (md) => anyOf(at(md, path));
    case "nin":
      return (md) => {
        const v = at(md, path);
        return v === undefined || !anyOf(v);
      };
    case "gt":
    case "gte":
    case "lt":
    case "lte": {
      const x = m.value as number;
      const cmp = { gt: (v: number) => v > x, gte: (v: number) => v >= x, lt: (v: number) => v < x, lte: (v: number) => v <= x }[
        m.operator
      ];
      return (md) => {
        const v = at(md, path);
        return typeof v === "number" && cmp(v);
      };
    }
    case "contains": {
      const needle = lower(String(m.value));
      return (md) => {
        const v = at(md, path);
        if (Array.isArray(v)) return v.some((e) => typeof e === "string" && lower(e) === needle);
        return typeof v === "string" && lower(v).includes(needle);
      };
    }
  }
}

/** Compiles validated filters into a test over product attributes (same meaning as the SQL). */
export function attributeFilter(f: SearchFilters): AttributeFilter {
  const tests: ((a: ProductAttributes) => boolean)[] = [];
  if (f.category !== undefined) {
    const category = lower(f.category);
    tests.push((a) => a.category !== null && categoryOf(a) === category);
  }
  if (f.price_min !== undefined) {
    const min = f.price_min;
    tests.push((a) => a.price !== null && a.price >= min);
  }
  if (f.price_max !== undefined) {
    const max = f.price_max;
    tests.push((a) => a.price !== null && a.price <= max);
  }
  for (const m of f.metadata_filters ?? []) {
    const test = compile(m);
    tests.push((a) => test(metadataOf(a)));
  }
  if (f.color !== undefined) {
    const color = parseColorFilter(f.color);
    tests.push((a) => colorMatches(color, a.colorName, dominantColorsOf(a)));
  }
  const key = JSON.stringify([f.category ?? null, f.price_min ?? null, f.price_max ?? null, f.color ?? null, f.metadata_filters ?? []]);
  return { key, test: (a) => tests.every((t) => t(a)) };
}

/**
 * The products of the store passing the filters: in memory when the vector index keeps the
 * fields (embedded), else by SQL.
 */
export async function filterCandidates(ctx: AppContext, repo: SearchRepository, storeId: string, f: SearchFilters): Promise<Candidates> {
  return ctx.vectors.filterCandidates?.(storeId, attributeFilter(f)) ?? repo.candidates(storeId, f);
}
