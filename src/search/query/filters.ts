// Search pre-filters (spec: Search request parameters; issue: metadata_filters operators).
//   category      — equal to metadata.category, ignoring case;
//   price_min/max — metadata.price within the bounds (products without a price are excluded);
//   color         — a colour name or a hex code, see `colorMatches`;
//   metadata_filters — [{field, operator, value}] on any metadata key (dotted paths reach nested
//                   objects): eq, ne, in, nin (strings compare ignoring case), gt, gte, lt, lte
//                   (numbers), contains (an element of an array, or a substring of a string,
//                   ignoring case). `ne` and `nin` also match products without the field.
// Everything but colour compiles to SQL for the dialect in use; colour is checked in code
// against each candidate's dominant colours. String comparisons of the metadata fields the
// products table keeps in columns (STRING_COLUMNS) read those columns, so indexes can serve them.
import { FIELD_PATTERN } from "../products/schemas.js";
import { sql, type RawBuilder, type SqlBool } from "kysely";
import type { Dialect } from "../../platform/db/index.js";
import type { VectorScope } from "../../vectors/candidates.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { ciede2000, colorNameToLab, hexToLab, normalizeColorName, type Lab } from "../../embeddings/colors.js";

export const OPERATORS = ["eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains"] as const;
export type Operator = (typeof OPERATORS)[number];
export type Scalar = string | number | boolean;

export interface MetadataFilter {
  field: string;
  operator: Operator;
  value: Scalar | Scalar[];
}

export interface SearchFilters {
  category?: string | undefined;
  price_min?: number | undefined;
  price_max?: number | undefined;
  color?: string | undefined;
  metadata_filters?: MetadataFilter[] | undefined;
}

/** Largest CIEDE2000 distance at which a dominant colour matches a colour filter. */
export const COLOR_MATCH_DELTA_E = 15;
/** Dominant colours covering less of the product than this are ignored by colour filters. */
export const COLOR_MIN_SHARE = 0.15;

const FIELD = new RegExp(FIELD_PATTERN);

export const hasFilters = (f: SearchFilters): boolean =>
  f.category !== undefined ||
  f.price_min !== undefined ||
  f.price_max !== undefined ||
  f.color !== undefined ||
  (f.metadata_filters?.length ?? 0) > 0;

function bad(field: string, message: string): AppError {
  return new AppError("validation_failed", `Invalid filter: ${field} ${message}.`, { errors: [{ field, message }] });
}

/** Checks operator/value combinations that the JSON schema cannot express. */
export function validateFilters(f: SearchFilters): void {
  if (f.price_min !== undefined && f.price_max !== undefined && f.price_min > f.price_max) {
    throw bad("price_min", "must not exceed price_max");
  }
  if (f.color !== undefined) parseColorFilter(f.color);
  for (const [i, m] of (f.metadata_filters ?? []).entries()) {
    const where = `metadata_filters.${i}`;
    if (!FIELD.test(m.field)) throw bad(`${where}.field`, "must be a metadata key (letters, digits, _; dotted for nested keys)");
    const isList = Array.isArray(m.value);
    if ((m.operator === "in" || m.operator === "nin") !== isList) {
      throw bad(`${where}.value`, isList ? `is a list; use in or nin` : `must be a list for ${m.operator}`);
    }
    if (isList && ((m.value as Scalar[]).length === 0 || (m.value as Scalar[]).length > 100)) {
      throw bad(`${where}.value`, "must hold 1 to 100 values");
    }
    if (["gt", "gte", "lt", "lte"].includes(m.operator) && typeof m.value !== "number") {
      throw bad(`${where}.value`, `must be a number for ${m.operator}`);
    }
    if (m.operator === "contains" && typeof m.value !== "string" && typeof m.value !== "number") {
      throw bad(`${where}.value`, "must be a string or number for contains");
    }
  }
}

// --- SQL ---------------------------------------------------------------------------------------

type Cond = RawBuilder<SqlBool>;

/** Builds the dialect's expressions over `products.metadata` for one path. */
function accessors(dialect: Dialect, field: string) {
  const parts = field.split(".");
  if (dialect === "sqlite") {
    const path = `$.${field}`;
    return {
      type: sql`json_type(metadata, ${path})`,
      text: sql`json_extract(metadata, ${path})`,
      isNumber: sql`json_type(metadata, ${path}) IN ('integer', 'real')`,
      isString: sql`json_type(metadata, ${path}) = 'text'`,
      isArray: sql`json_type(metadata, ${path}) = 'array'`,
      isTrue: sql`json_type(metadata, ${path}) = 'true'`,
      isFalse: sql`json_type(metadata, ${path}) = 'false'`,
      exists: sql`json_type(metadata, ${path}) IS NOT NULL`,
      number: sql`json_extract(metadata, ${path})`,
      arrayHas: (v: string) =>
        sql`EXISTS (SELECT 1 FROM json_each(metadata, ${path}) e WHERE e.type = 'text' AND lower(e.value) = lower(${v}))`,
    };
  }
  const path = sql.val(parts);
  return {
    type: sql`jsonb_typeof(metadata #> ${path})`,
    text: sql`(metadata #>> ${path})`,
    isNumber: sql`jsonb_typeof(metadata #> ${path}) = 'number'`,
    isString: sql`jsonb_typeof(metadata #> ${path}) = 'string'`,
    isArray: sql`jsonb_typeof(metadata #> ${path}) = 'array'`,
    isTrue: sql`(metadata #> ${path}) = 'true'::jsonb`,
    isFalse: sql`(metadata #> ${path}) = 'false'::jsonb`,
    exists: sql`(metadata #> ${path}) IS NOT NULL`,
    number: sql`(CASE WHEN jsonb_typeof(metadata #> ${path}) = 'number' THEN (metadata #>> ${path})::double precision END)`,
    arrayHas: (v: string) =>
      sql`EXISTS (SELECT 1 FROM jsonb_array_elements(metadata #> ${path}) e WHERE jsonb_typeof(e) = 'string' AND lower(e #>> '{}') = lower(${v}))`,
  };
}

/**
 * Metadata fields the products table copies into a column of the same name when their value is a
 * string (ProductsService), so that a string comparison reads the column — indexed ignoring case
 * for category and brand — instead of every product's JSON. NULL where the metadata value is not
 * a string, where the JSON comparison is false: callers that negate wrap it in coalesce.
 */
const STRING_COLUMNS = new Set(["name", "category", "brand", "color_name"]);

function equals(dialect: Dialect, field: string, value: Scalar): Cond {
  const a = accessors(dialect, field);
  if (typeof value === "boolean") return (value ? a.isTrue : a.isFalse) as Cond;
  if (typeof value === "number") return sql<SqlBool>`(${a.isNumber} AND ${a.number} = ${value})`;
  if (STRING_COLUMNS.has(field)) return sql<SqlBool>`lower(${sql.ref(field)}) = lower(${value})`;
  return sql<SqlBool>`(${a.isString} AND lower(${a.text}) = lower(${value}))`;
}

function compile(dialect: Dialect, m: MetadataFilter): Cond {
  const a = accessors(dialect, m.field);
  const list = Array.isArray(m.value) ? m.value : [m.value];
  const anyOf = () =>
    sql<SqlBool>`(${sql.join(
      list.map((v) => equals(dialect, m.field, v)),
      sql` OR `,
    )})`;
  switch (m.operator) {
    case "eq":
      return equals(dialect, m.field, m.value as Scalar);
    case "ne":
      return sql<SqlBool>`(NOT ${a.exists} OR NOT coalesce(${equals(dialect, m.field, m.value as Scalar)}, false))`;
    case "in":
      return anyOf();
    case "nin":
      return sql<SqlBool>`(NOT ${a.exists} OR NOT coalesce(${anyOf()}, false))`;
    case "gt":
      return sql<SqlBool>`(${a.isNumber} AND ${a.number} > ${m.value})`;
    case "gte":
      return sql<SqlBool>`(${a.isNumber} AND ${a.number} >= ${m.value})`;
    case "lt":
      return sql<SqlBool>`(${a.isNumber} AND ${a.number} < ${m.value})`;
    case "lte":
      return sql<SqlBool>`(${a.isNumber} AND ${a.number} <= ${m.value})`;
    case "contains": {
      const v = String(m.value);
      const substring =
        dialect === "sqlite"
          ? sql<SqlBool>`(${a.isString} AND instr(lower(${a.text}), lower(${v})) > 0)`
          : sql<SqlBool>`(${a.isString} AND strpos(lower(${a.text}), lower(${v})) > 0)`;
      return sql<SqlBool>`((${a.isArray} AND ${a.arrayHas(v)}) OR ${substring})`;
    }
  }
}

/**
 * The fields the filters pin to a few values (category, or a brand or category metadata filter
 * with eq or in on strings): the scopes a vector filter index may serve (vectors/filter-indexes.ts).
 */
export function filterScopes(f: SearchFilters): VectorScope[] {
  const scopes: VectorScope[] = [];
  const conditions =
    [f.category, f.price_min, f.price_max, f.color].filter((v) => v !== undefined).length + (f.metadata_filters?.length ?? 0);
  const whole = conditions === 1;
  if (f.category !== undefined) scopes.push({ field: "category", values: [f.category], whole });
  for (const m of f.metadata_filters ?? []) {
    if (m.field !== "category" && m.field !== "brand") continue;
    const values = m.operator === "eq" ? [m.value] : m.operator === "in" && Array.isArray(m.value) ? m.value : [];
    if (values.length > 0 && values.every((v) => typeof v === "string")) scopes.push({ field: m.field, values, whole });
  }
  return scopes;
}

/** SQL conditions (to AND together) for every filter except colour. */
export function sqlConditions(dialect: Dialect, f: SearchFilters): Cond[] {
  const conds: Cond[] = [];
  if (f.category !== undefined) conds.push(sql<SqlBool>`lower(category) = lower(${f.category})`);
  if (f.price_min !== undefined) conds.push(sql<SqlBool>`price >= ${f.price_min}`);
  if (f.price_max !== undefined) conds.push(sql<SqlBool>`price <= ${f.price_max}`);
  for (const m of f.metadata_filters ?? []) conds.push(compile(dialect, m));
  return conds;
}

// --- colour ------------------------------------------------------------------------------------

export interface ColorFilter {
  /** Reference colour to compare dominant colours with (null: name match only). */
  lab: Lab | null;
  /** Normalised colour name to compare metadata.color_name with (null for hex filters). */
  name: string | null;
}

const HEX = /^#?[0-9a-fA-F]{6}$/;

export function parseColorFilter(value: string): ColorFilter {
  if (HEX.test(value)) return { lab: hexToLab(value.startsWith("#") ? value : `#${value}`), name: null };
  const name = normalizeColorName(value) ?? value.trim().toLowerCase();
  if (!name) throw bad("color", "must be a colour name or a #rrggbb hex code");
  return { lab: colorNameToLab(value), name };
}

/** The closest ΔE00 between `lab` and the product's dominant colours of share ≥ COLOR_MIN_SHARE. */
export function closestDeltaE(lab: Lab, dominant: readonly { hex: string; share: number }[]): number {
  let best = Infinity;
  for (const d of dominant) {
    if (d.share < COLOR_MIN_SHARE) continue;
    const l = hexToLab(d.hex);
    if (l) best = Math.min(best, ciede2000(lab, l));
  }
  return best;
}

/**
 * A product matches a colour filter when its metadata color_name names that colour, or when one
 * of its dominant colours (covering ≥ 15 % of it) is within ΔE00 15 of the colour.
 */
/** A product row's dominant colours (stored as JSON in `products.dominant_colors`). */
export function dominantOf(row: { dominant_colors: string }): { hex: string; share: number }[] {
  return JSON.parse(row.dominant_colors) as { hex: string; share: number }[];
}

export function colorMatches(filter: ColorFilter, colorName: string | null, dominant: readonly { hex: string; share: number }[]): boolean {
  if (filter.name !== null && colorName !== null) {
    const own = normalizeColorName(colorName) ?? colorName.trim().toLowerCase();
    if (own === filter.name) return true;
  }
  return filter.lab !== null && closestDeltaE(filter.lab, dominant) <= COLOR_MATCH_DELTA_E;
}

/** Colour closeness in [0, 1]: 1 at ΔE00 0, falling linearly to 0 at ΔE00 50. */
export function colorScore(labs: readonly Lab[], dominant: readonly { hex: string; share: number }[]): number {
  if (labs.length === 0) return 0;
  let sum = 0;
  for (const lab of labs) sum += Math.max(0, 1 - Math.min(50, closestDeltaE(lab, dominant)) / 50);
  return sum / labs.length;
}
