// Query analysis (src/lexical/query.ts) against a store's lexicon with the English dictionary, and
// the minimum word share of coverage ranking (src/search/query/fusion.ts): pure, no database.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { analyseQuery, contentWords, coverageOf, OUTSIDE_NAME, type Group } from "./query.js";
import { StoreLexicon } from "./lexicon.js";
import { englishWords, type WordCheck } from "./dictionary.js";
import { BUILTIN_SYNONYMS } from "./synonyms/index.js";
import { coversWordShare, MIN_WORD_SHARE, rankByCoverage } from "../search/query/fusion.js";

const STORE_WORDS = ["hood", "sweatshirt", "heels", "black", "shirt", "dress"];

describe("query analysis with the English dictionary", () => {
  let dictionary: WordCheck;
  let lexicon: StoreLexicon;
  before(async () => {
    dictionary = await englishWords();
    lexicon = new StoreLexicon(STORE_WORDS, BUILTIN_SYNONYMS, dictionary);
  });

  test("completes(): a word of the store begins with the prefix, as a scan of every word finds", () => {
    const words = ["chrono", "chronograph", "chrome", "shirt", "shirts", "éclair", "zip", "a-line", "x"];
    const store = new StoreLexicon(words, BUILTIN_SYNONYMS, dictionary);
    for (const prefix of [
      "chro",
      "chron",
      "chrom",
      "chronos",
      "shi",
      "shirts",
      "shirtsx",
      "écl",
      "e",
      "zi",
      "zz",
      "a-",
      "a",
      "",
      "~",
      "0",
    ]) {
      assert.equal(
        store.completes(prefix),
        words.some((w) => w.startsWith(prefix)),
        prefix,
      );
    }
    assert.equal(new StoreLexicon([], BUILTIN_SYNONYMS, dictionary).completes("a"), false);
  });

  test("the dictionary knows real words and inflections, not misspellings", () => {
    for (const w of ["food", "heals", "dresses", "Wedding"]) assert.equal(dictionary(w), true, w);
    for (const w of ["blak", "shrit", "sandels"]) assert.equal(dictionary(w), false, w);
  });

  test("a misspelling is a typo at full weight and is corrected", () => {
    const a = analyseQuery("blak shrit", lexicon);
    assert.deepEqual(
      a.groups.map((g) => g.alternatives.find((x) => x.kind === "typo")),
      [
        { words: ["black"], weight: 0.75, kind: "typo" },
        { words: ["shirt"], weight: 0.75, kind: "typo" },
      ],
    );
    assert.equal(a.corrected, "black shirt");
  });

  test("a real word the store lacks counts half as a typo and is never corrected", () => {
    const hook = analyseQuery("dog hook", lexicon);
    assert.deepEqual(hook.unmatched, ["dog"]);
    assert.deepEqual(hook.groups[0]!.alternatives, [{ words: ["hood"], weight: 0.5, kind: "typo" }]);
    assert.equal(hook.corrected, null);
    const heals = analyseQuery("heals", lexicon);
    assert.deepEqual(heals.groups[0]!.alternatives, [{ words: ["heels"], weight: 0.5, kind: "typo" }]);
    assert.equal(heals.corrected, null);
  });

  test("a stop word forms no group even when the store's text holds it, unless the query is nothing else", () => {
    const store = new StoreLexicon([...STORE_WORDS, "for", "the", "her", "women"], BUILTIN_SYNONYMS, dictionary);
    const a = analyseQuery("a black dress for the evening", store);
    assert.deepEqual(
      a.groups.map((g) => g.text),
      ["black", "dress"],
    );
    assert.deepEqual(a.stopwords, ["a", "for", "the"]);
    // "her" is a stop word and a synonym key (a gender word), so it still forms a group.
    assert.deepEqual(
      analyseQuery("shirt for her", store).groups.map((g) => g.text),
      ["shirt", "her"],
    );
    assert.deepEqual(
      analyseQuery("for the", store).groups.map((g) => g.text),
      ["for", "the"],
    );
  });

  test("without a dictionary every unknown word may be a typo", () => {
    const bare = new StoreLexicon(STORE_WORDS, BUILTIN_SYNONYMS);
    assert.equal(analyseQuery("dog hook", bare).groups[0]!.alternatives[0]!.weight, 0.75);
    assert.equal(analyseQuery("dog hook", bare).corrected, "dog hood");
  });

  test("the unmatched words before a head noun that names one of the store's categories modify it", () => {
    const store = new StoreLexicon([...STORE_WORDS, "men", "dresses", "ringer", "trousers"], BUILTIN_SYNONYMS, dictionary, [
      "Dresses",
      "Heels",
      "Trousers",
    ]);
    const date = analyseQuery("date night dress", store);
    assert.deepEqual(date.unmatched, ["date", "night"]);
    assert.deepEqual(date.modifiers, ["date", "night"]);
    assert.equal(contentWords(date), 1, "the dress alone is the content of the query");
    // Only words before the head modify it; a word after a preposition still counts.
    assert.deepEqual(analyseQuery("party dress for yoga", store).modifiers, ["party"]);
    assert.equal(contentWords(analyseQuery("party dress for yoga", store)), 2);
    // A head that names no category of the store (an audience), or that the store holds only as a
    // synonym of another sense ("hose" trousers) or a prefix ("ring" of "ringer"), has no modifiers.
    for (const q of ["office party men", "garden hose", "engagement ring"]) assert.deepEqual(analyseQuery(q, store).modifiers, [], q);
    // A misspelt head still names its kind.
    assert.deepEqual(analyseQuery("party dres", store).modifiers, ["party"]);
  });
});

describe("colour synonyms", () => {
  test("a colour's shade counts more than its broader family", () => {
    const store = new StoreLexicon(["olive", "green", "tshirt"], BUILTIN_SYNONYMS);
    const a = analyseQuery("army green tshirt", store);
    const weights = Object.fromEntries(a.groups[0]!.alternatives.map((x) => [x.words.join(" "), x.weight]));
    assert.equal(a.groups[0]!.text, "army green");
    assert.equal(weights["olive"], 0.8, "olive is army green's shade");
    assert.equal(weights["green"], 0.7, "green is its family");
  });

  test("a store's synonyms are those its current lexicon holds: remembered per lexicon, not across them", () => {
    // The store synonyms of a phrase are remembered per lexicon; a store's lexicon is built again
    // when its text changes, so a shade its products now name counts at once.
    const before = new StoreLexicon(["green", "tshirt"], BUILTIN_SYNONYMS);
    const synonymsOf = (lexicon: StoreLexicon) =>
      analyseQuery("army green tshirt", lexicon)
        .groups[0]!.alternatives.map((x) => x.words.join(" "))
        .sort();
    assert.deepEqual(synonymsOf(before), ["green"], "no olive in the store yet");
    assert.deepEqual(synonymsOf(before), ["green"], "asked again: the same");
    const after = new StoreLexicon(["olive", "green", "tshirt"], BUILTIN_SYNONYMS);
    assert.deepEqual(synonymsOf(after), ["green", "olive"], "the new lexicon's olive counts");
    // Alternatives are the caller's to keep: changing one changes no later analysis.
    analyseQuery("army green tshirt", after).groups[0]!.alternatives[0]!.words.push("changed");
    assert.deepEqual(synonymsOf(after), ["green", "olive"]);
  });
});

describe("typo distance", () => {
  test("a typo on the first letter counts two (Meilisearch's rule)", async () => {
    const lexicon = new StoreLexicon(["hood", "light", "sandals"], new Map(), await englishWords());
    assert.deepEqual(lexicon.near("food", 1), [], "food is no typo of hood");
    assert.deepEqual(lexicon.near("night", 1), [], "night is no typo of light");
    assert.deepEqual(lexicon.near("sandels", 1), [{ word: "sandals", distance: 1 }]);
    assert.deepEqual(lexicon.near("bandals", 2), [{ word: "sandals", distance: 2 }]);
  });
});

describe("coverage ranking: minimum word share", () => {
  const hit = (productId: string, coverage: number) => ({ productId, score: coverage, coverage, matched: coverage > 0 ? 1 : 0 });

  test(`below ${MIN_WORD_SHARE} of the query's words a result needs visual evidence above the bar`, () => {
    // "dog hook": one group (hook → hood at 0.5) of two content words.
    const lexical = [hit("hoodie", 0.5), hit("hood-pictured", 0.5)];
    const visual = [{ productId: "hood-pictured", score: 0.7 }];
    const ranked = rankByCoverage(visual, lexical, { groups: 1, words: 2, semanticWeight: 0.8, minVisual: 0.64 });
    assert.deepEqual(
      ranked.map((r) => r.productId),
      ["hood-pictured"],
    );
    const alone = rankByCoverage([], lexical, { groups: 1, words: 2, semanticWeight: 0, minVisual: 1 });
    assert.deepEqual(alone, [], "lexical only: nothing stands on a quarter of the words");
  });

  test("at half the words or more the text alone is evidence", () => {
    // "dress for a wedding" in a store without the word wedding: dress is one of two content words.
    const ranked = rankByCoverage([], [hit("red-dress", 1)], { groups: 1, words: 2, semanticWeight: 0, minVisual: 1 });
    assert.deepEqual(
      ranked.map((r) => r.productId),
      ["red-dress"],
    );
  });

  test("a hit outside the visual candidates ranks by its own similarity, read by id, within its coverage", () => {
    // The search service reads every such hit's similarity (issue 39: the visual candidates may be none).
    const visual = [
      { productId: "v1", score: 0.9 },
      { productId: "v2", score: 0.7 },
    ];
    const lexical = [hit("v1", 1), hit("outside-a", 1), hit("outside-b", 0.5)];
    const o = { groups: 1, words: 1, semanticWeight: 0.8, minVisual: 0.64 };
    const ranked = rankByCoverage(visual, lexical, {
      ...o,
      visualOf: new Map([
        ["outside-a", 0.69],
        ["outside-b", 0.5],
      ]),
    });
    assert.deepEqual(
      [...ranked].sort((a, b) => b.score - a.score).map((r) => r.productId),
      ["v1", "outside-a", "outside-b", "v2"],
      "coverage first, the similarity within it; a product matching no word last",
    );
    assert.ok(coversWordShare(1, o) && coversWordShare(0.5, o) && !coversWordShare(0.4, o));
  });
});

describe("typo candidates", () => {
  test("a doubled letter typed once is one edit (restricted Damerau–Levenshtein)", () => {
    const lexicon = new StoreLexicon(["yellow", "top"], new Map());
    assert.deepEqual(lexicon.near("yelow", 1), [{ word: "yellow", distance: 1 }]);
    assert.deepEqual(lexicon.near("yellwo", 1), [{ word: "yellow", distance: 1 }], "two neighbours swapped");
  });
});

describe("coverage of a product's text", () => {
  const groups: Group[] = [
    {
      text: "black",
      alternatives: [
        { words: ["charcoal"], weight: 0.7, kind: "synonym" },
        { words: ["black"], weight: 1, kind: "exact" },
      ],
    },
    {
      text: "tshirts",
      alternatives: [
        { words: ["t", "shirt"], weight: 0.8, kind: "synonym" },
        { words: ["tee"], weight: 0.9, kind: "synonym" },
      ],
    },
    { text: "chrono", alternatives: [{ words: ["chrono"], weight: 1, kind: "exact", prefix: true }] },
  ];
  const measure = coverageOf(groups);
  /** The coverage alone (the attribute score has its own test). */
  const covered = (text: string) => {
    const { weight, matched } = measure(text);
    return { weight, matched };
  };

  test("each group counts its heaviest alternative the text holds, compared by stem", () => {
    assert.deepEqual(covered("Charcoal and Black Tees"), { weight: 1 + 0.9, matched: 2 });
    assert.deepEqual(covered("charcoal T-Shirts"), { weight: 0.7 + 0.8, matched: 2 });
  });

  test("a phrase's words must follow one another; a prefix matches the beginning of a word", () => {
    assert.deepEqual(covered("shirt with a t print"), { weight: 0, matched: 0 });
    assert.deepEqual(covered("Chronograph watch, black"), { weight: 2, matched: 2 });
  });

  test("the attribute score: a word in the name counts whole, elsewhere half, plus the share of the name the query takes", () => {
    assert.equal(measure("Black Tee Cotton Men Black Tees", "Black Tee").attribute, 1.9 + 1);
    assert.equal(measure("Cotton Top Men Black Tees", "Cotton Top").attribute, 1.9 * OUTSIDE_NAME);
    assert.equal(measure("Black Cotton Top Men Tees", "Black Cotton Top").attribute, 1 + 0.9 * OUTSIDE_NAME + 1 / 3);
    assert.equal(measure("Charcoal and Black Tees").attribute, 1.9 + 2 / 4, "without a name the whole text is the name");
    assert.equal(measure("shirt with a t print").attribute, 0);
  });

  test("the same text measured again, and a text of many words, give the same answer", () => {
    const long = `${Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ")} black t shirt`;
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(covered("Charcoal and Black Tees"), { weight: 1.9, matched: 2 });
      assert.deepEqual(covered(long), { weight: 1.8, matched: 2 });
    }
  });
});
