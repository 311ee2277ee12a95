// Which filters a PostgreSQL filter index may serve (filterScopes): the fields pinned to a few
// values, and whether that pin is the whole filter — only then may a search read the values'
// copies through inverted lists without applying the rest of the filter (vectors/postgres.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { filterScopes } from "./filters.js";

test("a category, or a brand or category metadata filter with eq or in on strings, is a scope; whole when nothing else filters", () => {
  assert.deepEqual(filterScopes({ category: "Dresses" }), [{ field: "category", values: ["Dresses"], whole: true }]);
  assert.deepEqual(filterScopes({ metadata_filters: [{ field: "brand", operator: "in", value: ["Acme", "Zed"] }] }), [
    { field: "brand", values: ["Acme", "Zed"], whole: true },
  ]);
  // A price, a colour or another metadata filter beside it: a scope, not the whole filter.
  for (const extra of [{ price_max: 30 }, { price_min: 5 }, { color: "red" }]) {
    assert.deepEqual(filterScopes({ category: "Dresses", ...extra }), [{ field: "category", values: ["Dresses"], whole: false }]);
  }
  assert.deepEqual(
    filterScopes({
      metadata_filters: [
        { field: "category", operator: "eq", value: "Dresses" },
        { field: "brand", operator: "eq", value: "Acme" },
      ],
    }),
    [
      { field: "category", values: ["Dresses"], whole: false },
      { field: "brand", values: ["Acme"], whole: false },
    ],
  );
  // Not a pin to values: other operators, other fields, numbers.
  assert.deepEqual(filterScopes({ metadata_filters: [{ field: "brand", operator: "ne", value: "Acme" }] }), []);
  assert.deepEqual(filterScopes({ metadata_filters: [{ field: "fabric", operator: "eq", value: "Silk" }] }), []);
  assert.deepEqual(filterScopes({ metadata_filters: [{ field: "category", operator: "in", value: ["Dresses", 3] }] }), []);
  assert.deepEqual(filterScopes({ price_max: 30 }), []);
});
