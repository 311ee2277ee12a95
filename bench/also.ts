// `npm run bench:also [-- --dim 512] [--k 10] [--rounds 800]`
//
// The embedded index's two ways to answer a text search's vector stage when it has lexical hits
// (VectorSearchOptions.also): the k nearest apart from the hits and the hits' own similarities,
// as two searches of a group (a scan of every row at k + hits, then the hits' rows gathered and
// scanned) or as one scan ranking every row (VectorGroup.nearestAndAsked, taken when k + hits
// are at least ONE_SCAN_SHARE of the group). Groups of 300 to 5,000 random unit vectors, 10 to
// 150 products asked, each way timed over `--rounds` calls after a warm-up, warm and with the
// caches cold (32 MB read between calls, as the model's inference leaves them between searches
// under load). Prints µs per call and which way the share rule takes.
import { parseArgs } from "node:util";
import { resolveOptions } from "../src/vectors/index.js";
import { normalized } from "../src/vectors/math.js";
import { VectorGroup } from "../src/vectors/memory.js";
import { prng } from "../src/vectors/synthetic.js";
import { wholeFlag } from "./flags.js";

const { values: args } = parseArgs({
  options: { dim: { type: "string", default: "512" }, k: { type: "string", default: "10" }, rounds: { type: "string", default: "800" } },
});
const DIM = wholeFlag("dim", args.dim, 1);
const K = wholeFlag("k", args.k, 1);
const ROUNDS = wholeFlag("rounds", args.rounds, 1);

const trash = new Float64Array(4 << 20);
/** Reads 32 MB, so that the group's rows come from memory on the next call. */
const evict = () => {
  let s = 0;
  for (let i = 0; i < trash.length; i += 8) s += trash[i]!;
  return s;
};
/** µs per call of `fn`, after a warm-up, optionally with the caches emptied before each. */
const time = (fn: () => unknown, cold: boolean) => {
  for (let i = 0; i < 200; i++) fn();
  let ns = 0n;
  for (let i = 0; i < ROUNDS; i++) {
    if (cold) evict();
    const started = process.hrtime.bigint();
    fn();
    ns += process.hrtime.bigint() - started;
  }
  return Number(ns) / ROUNDS / 1000;
};

const random = prng(7);
const unit = () => normalized(Float32Array.from({ length: DIM }, () => random() - 0.5));
// The embedded index's defaults, with exact scans only (no HNSW index is built: its storage
// kind, `quantization`, is left out), as below the brute-force threshold.
const { quantization: _storage, ...defaults } = resolveOptions({ bruteForceThreshold: 10_000 }, "sqlite");
console.log(`The nearest apart and the hits' similarities: ${DIM} dimensions, k = ${K}, ${ROUNDS} calls each\n`);
console.log("| rows | hits asked | share | two searches, warm / cold (µs) | one scan, warm / cold (µs) | the rule takes |");
console.log("|---|---|---|---|---|---|");
for (const n of [300, 1_000, 3_000, 5_000]) {
  const group = new VectorGroup(DIM, defaults);
  for (let r = 0; r < n; r++) group.upsert(`p${r}`, `v${r}`, unit());
  const query = unit();
  for (const hits of [10, 30, 75, 150]) {
    const asked = new Set(Array.from({ length: hits }, (_, i) => `p${(i * 7919) % n}`));
    const two = () => [group.search(query, K, undefined, asked), group.search(query, asked.size, asked)];
    const one = () => group.nearestAndAsked(query, K, asked, 0);
    const f = (x: number) => x.toFixed(1);
    const taken = group.nearestAndAsked(query, K, asked) ? "one scan" : "two searches";
    console.log(
      `| ${n} | ${hits} | ${((K + hits) / n).toFixed(3)} | ${f(time(two, false))} / ${f(time(two, true))} | ${f(time(one, false))} / ${f(time(one, true))} | ${taken} |`,
    );
  }
  group.close();
}
