// A reduced run of the assistant evaluation (eval/assistant): the fixture store set up through
// the real HTTP API, a cross-section of its questions asked through POST /v1/chat/messages.
import { test } from "node:test";
import assert from "node:assert/strict";
import { describeEachDialect } from "../../../test/support/harness.js";
import { pricesIn, runEval } from "../../../eval/assistant/run.js";

const REDUCED = [
  "p03",
  "p04",
  "p10",
  "p12",
  "p17",
  "p21",
  "d02",
  "c01",
  "c02",
  "n01",
  "n02",
  "r01",
  "r04",
  "a01",
  "a02",
  "o01",
  "o02",
  "x01",
];

describeEachDialect("assistant evaluation (reduced)", (dialect) => {
  test("outcomes and citations meet the thresholds and no price is invented", async () => {
    const report = await runEval({ dialect, only: REDUCED });
    const misses = report.results.filter((r) => !r.ok).map((r) => `${r.id}: ${r.outcome} [${r.cited.join(", ")}]`);
    assert.equal(report.questions, REDUCED.length);
    assert.ok(report.outcomeAccuracy >= 0.9, `outcome accuracy ${report.outcomeAccuracy}: ${misses.join("; ")}`);
    assert.ok(report.citationPrecision >= 0.85, `citation precision ${report.citationPrecision}: ${misses.join("; ")}`);
    assert.ok(report.citationRecall >= 0.85, `citation recall ${report.citationRecall}: ${misses.join("; ")}`);
    assert.equal(report.staleCitations, 0);
    assert.equal(report.prices.invented, 0);
    // Product answers did show live prices (so the check above had something to check).
    assert.ok(report.prices.live > 0);
    const conflict = report.results.find((r) => r.id === "c01")!;
    assert.equal(conflict.outcome, "handoff");
    assert.deepEqual([...conflict.cited].sort(), ["faq", "returns"]);
  });
});

test("pricesIn finds prices in en and de notation", () => {
  assert.deepEqual(
    pricesIn("costs €4.95, or 12,50 € and 50 EUR; 3 days").map((p) => p.minor),
    [495, 1250, 5000],
  );
});
