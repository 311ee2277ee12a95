// The typo corrector's word list (issue 36): irregular forms WordNet's lemma index lacks are real
// words too, so a question's "came" is never "corrected" into a policy's "name".
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { isEnglishWord, warmDictionary } from "./en-dictionary.js";

before(() => warmDictionary());

test("irregular verb forms and inflections are English words; misspellings are not", () => {
  for (const word of ["came", "went", "bought", "worn", "wore", "sent", "returned", "shoes"]) assert.ok(isEnglishWord(word), word);
  for (const word of ["retrun", "polcy", "bougth", "refnd"]) assert.ok(!isEnglishWord(word), word);
});
