// The built-in vocabulary's colour and apparel entries (scripts/build-synonyms.ts): pure, reads builtin.json.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { BUILTIN_BROADER, BUILTIN_SYNONYMS } from "./index.js";
import { BASIC_COLOR_TERMS } from "../../embeddings/colors.js";

describe("built-in colour synonyms", () => {
  test("another spelling of a catalogue colour means that colour", () => {
    const cases: [string, string][] = [
      ["multicolour", "multi"],
      ["multi colour", "multi"],
      ["golden", "gold"],
      ["neon green", "fluorescent green"],
      ["offwhite", "off white"],
      ["darkgreen", "dark green"],
    ];
    for (const [alias, name] of cases) {
      assert.ok(BUILTIN_SYNONYMS.get(alias)?.includes(name), `${alias} → ${name}: ${BUILTIN_SYNONYMS.get(alias)?.join(", ")}`);
    }
  });

  test("a colour the survey names with one basic term only is of that family too; one named with several is not", () => {
    assert.ok(BUILTIN_SYNONYMS.get("charcoal")?.includes("grey"), "charcoal grey");
    assert.ok(BUILTIN_SYNONYMS.get("coral")?.includes("pink"), "coral pink");
    // "violet red", "violet blue" and "violet pink" are blends, not a filing of violet.
    assert.equal(BUILTIN_SYNONYMS.get("violet")?.includes("red") ?? false, false);
  });

  test("a basic colour term is its own family: it never finds another basic term", () => {
    for (const term of BASIC_COLOR_TERMS) {
      const others = (BUILTIN_SYNONYMS.get(term) ?? []).filter((s) => BASIC_COLOR_TERMS.includes(s));
      assert.deepEqual(others, [], term);
    }
  });
});

describe("built-in apparel words", () => {
  test("the placeholder nouns of clothing find the store's word for all of it, one way", () => {
    for (const placeholder of ["wear", "clothes", "outfit"]) {
      assert.ok(BUILTIN_SYNONYMS.get(placeholder)?.includes("apparel"), `${placeholder}: ${BUILTIN_SYNONYMS.get(placeholder)?.join(", ")}`);
    }
    assert.equal(BUILTIN_SYNONYMS.get("apparel")?.includes("wear") ?? false, false, "apparel does not find every product named wear");
  });

  test("sports, physical exercises and athletic facilities find sports; other senses and objects do not", () => {
    for (const activity of ["tennis", "football", "jogging", "workout", "gym"]) {
      assert.ok(BUILTIN_SYNONYMS.get(activity)?.includes("sports"), `${activity}: ${BUILTIN_SYNONYMS.get(activity)?.join(", ")}`);
    }
    // cricket is first an insect, conditioner is also for hair, clean is an adjective, and
    // bicycling shares its stem with the bicycle, an object.
    for (const word of ["cricket", "conditioner", "clean", "bicycling", "bicycle"]) {
      assert.equal(BUILTIN_SYNONYMS.get(word)?.includes("sports") ?? false, false, word);
    }
  });

  test("a gender word finds unisex products too, never the other gender", () => {
    for (const word of ["women", "ladies", "men", "mens"]) {
      assert.ok(BUILTIN_SYNONYMS.get(word)?.includes("unisex"), `${word}: ${BUILTIN_SYNONYMS.get(word)?.join(", ")}`);
    }
    assert.equal(BUILTIN_SYNONYMS.get("ladies")?.includes("men") ?? false, false);
    assert.equal(BUILTIN_SYNONYMS.get("unisex")?.includes("women") ?? false, false, "unisex asks for unisex products only");
    assert.ok(BUILTIN_BROADER.get("ladies")?.includes("unisex"), "unisex is the broader audience: weighed below women");
  });

  test("the occasions of a dress code find its everyday name, one way", () => {
    for (const occasion of ["office", "interview", "wedding"]) {
      assert.ok(BUILTIN_SYNONYMS.get(occasion)?.includes("formal"), `${occasion}: ${BUILTIN_SYNONYMS.get(occasion)?.join(", ")}`);
    }
    assert.equal(BUILTIN_SYNONYMS.get("formal")?.includes("office") ?? false, false, "formal does not find every product named office");
  });
});
