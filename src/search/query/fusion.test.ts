// Coverage ranking's bounds and calibration, pure (the engine around it: lexical.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { LexicalHit } from "../../lexical/repository.js";
import { byScore, coverageBounds, coversWordShare, rankByCoverage, reRankInScoreOrder } from "./fusion.js";
import { boostCeiling } from "./service.js";

const hit = (productId: string, coverage: number, score = 1): LexicalHit => ({ productId, coverage, score, matched: Math.ceil(coverage) });

test("coverageBounds: every product covering the word share scores at least `covering`, one matching no word at most `unmatched`", () => {
  // A seeded walk over queries of 1–4 groups (and up to 2 words the store lacks), hits of every
  // coverage step, similarities and semantic weights.
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let round = 0; round < 300; round++) {
    const groups = 1 + Math.floor(random() * 4);
    const words = groups + Math.floor(random() * 3);
    const share = { groups, words };
    const hits = Array.from({ length: 8 }, (_, i) => hit(`h${i}`, Math.round(random() * groups * 4) / 4, random() * 10));
    const visual = Array.from({ length: 8 }, (_, i) => ({ productId: `v${i}`, score: random() })).sort((a, b) => b.score - a.score);
    const ranked = rankByCoverage(visual, hits, { ...share, semanticWeight: random(), minVisual: 0 });
    const bounds = coverageBounds(share);
    for (const r of ranked) {
      const h = hits.find((x) => x.productId === r.productId);
      if (h && coversWordShare(h.coverage, share))
        assert.ok(r.score >= bounds.covering - 1e-12, `covering ${r.score} < ${bounds.covering}`);
      if (!h) assert.ok(r.score <= bounds.unmatched + 1e-12, `unmatched ${r.score} > ${bounds.unmatched}`);
    }
    assert.ok(bounds.unmatched < bounds.covering);
  }
});

test("boostCeiling: one step per understood colour, one for the understood categories, one for the nearest product's category", () => {
  assert.equal(boostCeiling(0.1, null, undefined), 0.1);
  assert.ok(Math.abs(boostCeiling(0, null, { colors: ["red"], categories: [] }) - 0.15) < 1e-12);
  assert.ok(Math.abs(boostCeiling(0, "Shoes", { colors: [], categories: ["Shoes", "Boots"] }) - (1 - 0.9 * 0.85)) < 1e-12);
  // A query of one word and two understood colours plus a category: a product matching no word
  // stays below every product holding the word.
  const bounds = coverageBounds({ groups: 1, words: 1 });
  assert.ok(boostCeiling(bounds.unmatched, null, { colors: ["red", "blue"], categories: ["Shoes"] }) < bounds.covering);
});

test("within a coverage the visual similarity is scaled over every product compared, the hits read by id included", () => {
  // No visual candidates (the page was full of covering hits): the hits' own similarities set the range.
  const ranked = rankByCoverage([], [hit("a", 1, 1), hit("b", 1, 1)], {
    groups: 1,
    semanticWeight: 1,
    minVisual: 0,
    visualOf: new Map([
      ["a", 0.4],
      ["b", 0.8],
    ]),
  });
  const score = new Map(ranked.map((r) => [r.productId, r.score]));
  assert.equal(score.get("b"), 21 / 21, "the most similar of those compared: within 1");
  assert.equal(score.get("a"), 20 / 21, "the least similar: within 0");
});

test("reRankInScoreOrder: the page is the one a re-ranking of every product gives, and it stops reading early", async () => {
  // A seeded walk over lists of 0–120 scores, boosts that lift a score by 0–3 steps, limits and thresholds.
  let seed = 11;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const lift = (s: number, share: number) => s + (1 - s) * share;
  let readLess = 0;
  for (let round = 0; round < 400; round++) {
    const n = Math.floor(random() * 121);
    const limit = 1 + Math.floor(random() * 20);
    const threshold = random() < 0.5 ? 0 : random() * 0.8;
    const steps = 1 + Math.floor(random() * 3);
    const share = random() * 0.3;
    const products = Array.from({ length: n }, (_, i) => ({
      productId: `p${String(i).padStart(3, "0")}`,
      score: random() < 0.2 ? 0.5 : random(), // ties among equal scores too
      boosts: Math.floor(random() * (steps + 1)),
    }));
    const boosted = (p: { score: number; boosts: number }) => {
      let s = p.score;
      for (let i = 0; i < p.boosts; i++) s = lift(s, share);
      return s;
    };
    const expected = products
      .map((p) => ({ productId: p.productId, score: boosted(p) }))
      .sort(byScore)
      .filter((s) => s.score >= threshold)
      .slice(0, limit);
    const scored = products.map((p) => ({ productId: p.productId, score: p.score }));
    const rows = new Map(products.map((p) => [p.productId, p]));
    const seen = new Set<string>();
    const read = await reRankInScoreOrder(scored, {
      limit,
      threshold,
      step: 1 + Math.floor(random() * 2 * limit), // small steps stop early more often
      ceiling: (score) => {
        let s = score;
        for (let i = 0; i < steps; i++) s = lift(s, share);
        return s;
      },
      read: async (part) => {
        for (const s of part) seen.add(s.productId);
      },
      reRank: (s) => {
        assert.ok(seen.has(s.productId), "re-ranked before its row was read");
        s.score = boosted(rows.get(s.productId)!);
      },
    });
    const page = scored
      .sort(byScore)
      .filter((s) => s.score >= threshold)
      .slice(0, limit);
    assert.deepEqual(page, expected, `round ${round}`);
    assert.equal(read, seen.size);
    if (read < n) readLess++;
  }
  assert.ok(readLess > 50, `read fewer than all on only ${readLess} of 400 lists`);
});
