// Short forms of brand names (src/lexical/acronyms.ts): pure.
import { test } from "node:test";
import assert from "node:assert/strict";
import { brandAcronyms } from "./acronyms.js";

const forms = (brands: string[], has: (w: string) => boolean = () => false, isWord?: (w: string) => boolean) =>
  Object.fromEntries(brandAcronyms(brands, { has, isWord }).map((e) => [e.words[0], e.synonyms]));

test("initials, initials of the words that are no stop words, and single letters run together", () => {
  assert.deepEqual(forms(["U.S. Polo Assn."]), {
    uspa: ["u s polo assn"],
    "us polo": ["u s polo assn"],
    "us polo assn": ["u s polo assn"],
  });
  assert.deepEqual(forms(["United Colors of Benetton"]), {
    ucob: ["united colors of benetton"],
    ucb: ["united colors of benetton"],
  });
  assert.deepEqual(forms(["H&M"]), { hm: ["h m"] });
});

test("one-word brands give none; a short form that is a word of the store or of the language, or a stop word, is not kept", () => {
  assert.deepEqual(forms(["Nike", "Puma"]), {});
  assert.deepEqual(
    forms(["Red Tape"], (w) => w === "rt"),
    {},
  );
  assert.deepEqual(
    forms(
      ["Hugo Imperial Tailors"],
      () => false,
      (w) => w === "hit",
    ),
    {},
  );
  assert.deepEqual(forms(["Online Fashion"]), {}, "'of' is a stop word");
});

test("brands sharing a short form each get it", () => {
  assert.deepEqual(forms(["Blue Sky", "Black Star"]), { bs: ["blue sky", "black star"] });
});
