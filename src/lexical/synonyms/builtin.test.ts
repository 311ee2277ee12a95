// The built-in vocabulary's colour entries (scripts/build-synonyms.ts): pure, reads builtin.json.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BUILTIN_SYNONYMS } from "./index.js";

const BASIC_TERMS = ["black", "white", "red", "green", "yellow", "blue", "brown", "purple", "pink", "orange", "grey"];

describe("built-in colour synonyms", () => {
  test("another spelling of a catalogue colour means that colour", () => {
    for (const [alias, name] of <[string, string][]>[
      ["multicolour", "multi"],
      ["multi colour", "multi"],
      ["golden", "gold"],
      ["neon green", "fluorescent green"],
      ["offwhite", "off white"],
      ["darkgreen", "dark green"],
    ]) {
      assert.ok(BUILTIN_SYNONYMS.get(alias)?.includes(name), `${alias} → ${name}: ${BUILTIN_SYNONYMS.get(alias)?.join(", ")}`);
    }
  });

  test("a basic colour term is its own family: it never finds another basic term", () => {
    for (const term of BASIC_TERMS) {
      const others = (BUILTIN_SYNONYMS.get(term) ?? []).filter((s) => BASIC_TERMS.includes(s));
      assert.deepEqual(others, [], term);
    }
  });
});
