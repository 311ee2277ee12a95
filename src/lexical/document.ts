// The text of a product that the lexical index sees, split into weighted fields (pure; used by
// the write path, the reindex and the migration that builds the index for existing products).
//   name, brand, category, color (metadata.color_name), tags, description, other (every other
//   string or number-like string value of the metadata, nested objects and arrays included,
//   URLs excluded).

export interface LexicalDocument {
  name: string;
  brand: string;
  category: string;
  color: string;
  tags: string;
  description: string;
  other: string;
}

export const LEXICAL_FIELDS = ["name", "brand", "category", "color", "tags", "description", "other"] as const;

const KNOWN = new Set(["name", "brand", "category", "color_name", "tags", "description", "price"]);
const MAX_FIELD = 4000;

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const isUrl = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s);

function strings(value: unknown, out: string[], depth = 0): void {
  if (depth > 4) return;
  if (typeof value === "string") {
    if (!isUrl(value)) out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) strings(v, out, depth + 1);
  } else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) strings(v, out, depth + 1);
  }
}

export function lexicalDocument(metadata: Record<string, unknown>): LexicalDocument {
  const tags: string[] = [];
  strings(metadata.tags, tags);
  const other: string[] = [];
  for (const [k, v] of Object.entries(metadata)) if (!KNOWN.has(k)) strings(v, other);
  const cut = (s: string) => s.slice(0, MAX_FIELD);
  return {
    name: cut(str(metadata.name)),
    brand: cut(str(metadata.brand)),
    category: cut(str(metadata.category)),
    color: cut(str(metadata.color_name)),
    tags: cut(tags.join(" ")),
    description: cut(str(metadata.description)),
    other: cut(other.join(" ")),
  };
}

/** All the words of a document in one string (read back to count which query words a result covers). */
export const allWords = (d: LexicalDocument): string =>
  LEXICAL_FIELDS.map((f) => d[f])
    .filter(Boolean)
    .join(" ");
