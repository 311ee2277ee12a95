// Bulk upload files: a JSON array of products (or {products: [...]}) or a CSV with a header row.
// CSV columns: product_id, image_url, availability (in_stock, low_stock, out_of_stock; "In stock"
// and "in-stock" are read as in_stock) and quantity (a whole number) into the product's
// availability, and any metadata (name, category, brand, price, color_name, tags separated by "|";
// other columns become metadata strings). Values the API refuses come back per row (rowNamedError).

import { ApiError } from "./api";
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
    let state = "";
    let quantity: number | undefined;
    header.forEach((col, i) => {
      const v = (cells[i] ?? "").trim();
      if (col === "product_id") product_id = v;
      else if (col === "image_url") image_url = v;
      else if (v === "") return;
      else if (col === "availability") state = v.toLowerCase().replace(/[\s-]+/g, "_");
      // Not a number: sent as null, which the API refuses for that row ("must be integer").
      else if (col === "quantity") quantity = Number(v);
      else if (col === "price") metadata.price = Number(v);
      else if (col === "tags")
        metadata.tags = v
          .split("|")
          .map((t) => t.trim())
          .filter(Boolean);
      else metadata[col] = v;
    });
    // A value the API does not know (or a quantity without a state) is sent as it is: the API's
    // answer names the allowed values, and rowNamedError the row.
    const availability = state || quantity !== undefined ? ({ state, quantity } as ProductInput["availability"]) : undefined;
    return {
      product_id,
      image_url,
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...(availability ? { availability } : {}),
    };
  });
}

/**
 * The bulk route's validation errors name items by index (`products.3.availability.state`); this
 * names the row and its product id instead ("row 4 (black-bag) availability.state").
 */
export function rowNamedError(error: unknown, items: readonly ProductInput[]): unknown {
  if (!(error instanceof ApiError) || error.code !== "validation_failed" || !Array.isArray(error.details.errors)) return error;
  const errors = (error.details.errors as { field?: string; message?: string }[]).map((e) => {
    const m = /^products\.(\d+)(?:\.(.*))?$/.exec(e.field ?? "");
    if (!m) return e;
    const row = Number(m[1]);
    const id = items[row]?.product_id;
    return { ...e, field: `row ${row + 1}${id ? ` (${id})` : ""}${m[2] ? ` ${m[2]}` : ""}` };
  });
  return new ApiError(error.status, error.code, error.message, { ...error.details, errors }, error.requestId, error.retryAfter);
}
