// Bulk upload files: a JSON array of products (or {products: [...]}) or a CSV with a header row.
// CSV columns: product_id, image_url, and any metadata (name, category, brand, price, color_name,
// tags separated by "|"; other columns become metadata strings).

import type { Item, SearchBody } from "./api-types";

/** One product of a bulk upload, as `POST /v1/products/bulk` takes it. */
export type ProductInput = Item<SearchBody<"/v1/products/bulk">["products"]>;

/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      field = "";
      if (row.some((f) => f !== "")) rows.push(row);
      row = [];
    } else field += c;
  }
  row.push(field);
  if (row.some((f) => f !== "")) rows.push(row);
  return rows;
}

export function productsFromFile(name: string, text: string): ProductInput[] {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  if (name.toLowerCase().endsWith(".json") || trimmed.startsWith("[") || trimmed.startsWith("{")) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch (e) {
      throw new Error(`The JSON file could not be read: ${(e as Error).message}`);
    }
    const list = Array.isArray(data) ? data : (data as { products?: unknown }).products;
    if (!Array.isArray(list)) throw new Error("The JSON file must hold an array of products, or an object with a “products” array.");
    return list as ProductInput[];
  }
  const rows = parseCsv(trimmed);
  const header = rows.shift()?.map((h) => h.trim().toLowerCase());
  if (!header || !header.includes("product_id") || !header.includes("image_url")) {
    throw new Error("The CSV file needs a header row with at least the columns product_id and image_url.");
  }
  return rows.map((cells) => {
    const metadata: Record<string, unknown> = {};
    let product_id = "";
    let image_url = "";
    header.forEach((col, i) => {
      const v = (cells[i] ?? "").trim();
      if (col === "product_id") product_id = v;
      else if (col === "image_url") image_url = v;
      else if (v === "") return;
      else if (col === "price") metadata.price = Number(v);
      else if (col === "tags")
        metadata.tags = v
          .split("|")
          .map((t) => t.trim())
          .filter(Boolean);
      else metadata[col] = v;
    });
    return { product_id, image_url, ...(Object.keys(metadata).length > 0 ? { metadata } : {}) };
  });
}
