// The ground layer knows databases, not stores and invoices (issue 40). `npm run lint:deps` holds
// that src/platform imports nothing above it; this test holds what an import rule cannot see: no
// module of src/platform names one of the product's tables (src/db/schema.ts) in a query.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

test("no module of src/platform names a product table", () => {
  const schema = fs.readFileSync("src/db/schema.ts", "utf8");
  const body = schema.slice(schema.indexOf("export interface ProductTables {"));
  const tables = [...body.slice(0, body.indexOf("\n}")).matchAll(/^ {2}(\w+): \w+;/gm)].map((m) => m[1] ?? "");
  assert.ok(tables.includes("products") && tables.includes("stores"), "the product's tables are read from src/db/schema.ts");
  const found: string[] = [];
  for (const f of fs.readdirSync("src/platform", { recursive: true }) as string[]) {
    const file = path.join("src/platform", f);
    if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
    const text = fs.readFileSync(file, "utf8");
    for (const t of tables)
      if (text.includes(`"${t}"`) || new RegExp(`\\b(FROM|JOIN|INTO|UPDATE)\\s+${t}\\b`, "i").test(text)) found.push(`${file}: ${t}`);
  }
  assert.deepEqual(found, []);
});
