// `npm run eval:search [-- --dataset DIR] [--model DIR] [--metadata full|name|sparse] [--concurrency 4] [--max-names N]
//                       [--lexical-scored-max N]`
//
// Relevance of text search through the real Search API (issue 15), on material nobody here wrote:
// the test split of ../shared/datasets/fashion-products (test = int(sha1(id), 16) % 5 == 0, the
// rule of the model's split.json) with ../shared/models/fashion-clip-small (CLIP_MODEL=<folder>),
// which was trained on the train split only.
//
// 1. Starts the service embedded (SQLite, a temporary DATA_DIR) on loopback, and a static file
//    server for the images (OUTBOUND_ALLOW_PRIVATE), and indexes every test product through
//    POST /v1/products with the metadata a store would send: name, category (articleType),
//    color_name (baseColour) and the other attributes (gender, master/sub category, season,
//    usage); `--metadata name` sends the name only; `--metadata sparse` sends the name without its
//    colour and article-type words (and no other field), so that the colour+type and type-only
//    queries must be answered by the images (visual evidence) while brand, gender and style words
//    still match lexically. `--lexical-scored-max N` lowers the number of matches the lexical index
//    scores per query (src/lexical/repository.ts, SCORED_MAX = 1,000; the test split is smaller
//    than that) to see what bounded scoring costs in relevance on a store N is small against.
// 2. Query sets (as in the model's eval.json): colour+type "{baseColour} {articleType}" (pairs with
//    ≥ 5 test products; relevant = same colour and type), type-only "{articleType}" (≥ 5;
//    relevant = same type), each product's own name (relevant = that product), image→image by
//    URL (relevant = same type; the query product itself left out).
// 3. Text query sets are split by a fixed rule: dev = int(sha1(query), 16) % 2 == 0, test = the rest.
//    semantic_weight (0.02 … 0.9) and the fusion method (blend, rrf) are chosen on dev by the mean
//    nDCG@10 over the three text sets; the table reports the test half for visual-only
//    (semantic_weight 1), lexical-only (0), fused (the chosen default) and fused with query
//    understanding (boost), next to the model's offline figures (eval.json, all queries), and
//    visual-only over all queries, which must match the offline figures (the service loses nothing).
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { lexicalLimits } from "../../src/lexical/repository.js";
import { readDataset, type DatasetProduct } from "./dataset.js";
import { pool, sha1mod, startHarness, testSplit, type Metadata } from "./harness.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const { values: args } = parseArgs({
  options: {
    dataset: { type: "string", default: path.resolve(here, "../../../shared/datasets/fashion-products") },
    model: { type: "string", default: path.resolve(here, "../../../shared/models/fashion-clip-small") },
    metadata: { type: "string", default: "full" },
    concurrency: { type: "string", default: "4" },
    "max-names": { type: "string", default: "0" },
    "dev-names": { type: "string", default: "300" },
    "lexical-scored-max": { type: "string" },
  },
});
if (!["full", "name", "sparse"].includes(args.metadata!)) throw new Error("--metadata is full, name or sparse");
if (args["lexical-scored-max"] !== undefined) lexicalLimits.scoredMax = Number(args["lexical-scored-max"]);
const CONCURRENCY = Number(args.concurrency);

type Product = DatasetProduct;

interface Query {
  text: string;
  relevant: Set<string>;
  /** Left out of the ranking (image→image: the query product). */
  exclude?: string;
}

function metrics(ranked: string[], q: Query) {
  const top = ranked.filter((id) => id !== q.exclude).slice(0, 10);
  const hits = top.map((id) => (q.relevant.has(id) ? 1 : 0));
  const nHits = hits.reduce<number>((a, b) => a + b, 0);
  const dcg = hits.reduce<number>((a, h, i) => a + h / Math.log2(i + 2), 0);
  let idcg = 0;
  for (let i = 0; i < Math.min(10, q.relevant.size); i++) idcg += 1 / Math.log2(i + 2);
  return { p: nHits / 10, ndcg: idcg > 0 ? dcg / idcg : 0, r: q.relevant.size > 0 ? nHits / q.relevant.size : 0 };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
type Scores = { p: number; ndcg: number; r: number; n: number };
const summarise = (ms: { p: number; ndcg: number; r: number }[]): Scores => ({
  p: mean(ms.map((m) => m.p)),
  ndcg: mean(ms.map((m) => m.ndcg)),
  r: mean(ms.map((m) => m.r)),
  n: ms.length,
});

async function main() {
  const started = performance.now();
  const all = readDataset(path.join(args.dataset!, "products.jsonl"));
  const offline = JSON.parse(fs.readFileSync(path.join(args.model!, "eval.json"), "utf8")).model;
  console.log(
    `eval:search — ${testSplit(all).length} test products of ${all.length}; model ${args.model}; metadata: ${args.metadata}; lexical scoring at most ${lexicalLimits.scoredMax} matches per query`,
  );

  const h = await startHarness({
    dataset: args.dataset!,
    model: args.model!,
    metadata: args.metadata as Metadata,
    concurrency: CONCURRENCY,
  });
  const { test, imageBase, call } = h;
  try {
    // --- query sets -------------------------------------------------------------------------
    const group = (key: (p: Product) => string) => {
      const m = new Map<string, Set<string>>();
      for (const p of test) {
        const k = key(p);
        if (!m.has(k)) m.set(k, new Set());
        m.get(k)!.add(p.id);
      }
      return m;
    };
    const colourType: Query[] = [...group((p) => `${p.baseColour} ${p.articleType}`.toLowerCase())]
      .filter(([, ids]) => ids.size >= 5)
      .map(([text, relevant]) => ({ text, relevant }));
    const byType = group((p) => p.articleType);
    const typeOnly: Query[] = [...byType].filter(([, ids]) => ids.size >= 5).map(([t, relevant]) => ({ text: t.toLowerCase(), relevant }));
    let names: Query[] = test.map((p) => ({ text: p.name, relevant: new Set([p.id]) }));
    if (Number(args["max-names"]) > 0) names = names.slice(0, Number(args["max-names"]));
    const imageQueries = test.map((p) => ({ text: `${imageBase}/${p.id}.jpg`, relevant: byType.get(p.articleType)!, exclude: p.id }));
    const isDev = (q: Query) => sha1mod(q.text, 2) === 0;
    const sets = { "colour+type": colourType, "type only": typeOnly, "name → product": names } as const;

    type Setting = { semantic_weight: number; fusion_method?: string; understand?: string };
    const runText = async (qs: Query[], s: Setting) =>
      summarise(
        await pool(qs, CONCURRENCY, async (q) => {
          const res = await (await call("/v1/search/text", { query: q.text, limit: 10, ...s })).json();
          return metrics(
            res.results.map((r: { product_id: string }) => r.product_id),
            q,
          );
        }),
      );

    // --- tuning on dev ----------------------------------------------------------------------
    const devNames = names.filter(isDev).slice(0, Number(args["dev-names"]));
    const dev = { "colour+type": colourType.filter(isDev), "type only": typeOnly.filter(isDev), "name → product": devNames };
    const grid: Setting[] = [];
    for (const method of ["blend", "rrf"])
      for (const w of [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9]) grid.push({ semantic_weight: w, fusion_method: method });
    console.log(
      `\n== Tuning on dev (${dev["colour+type"].length} colour+type, ${dev["type only"].length} type, ${devNames.length} name queries): mean nDCG@10 over the three sets`,
    );
    let best: { s: Setting; score: number } | undefined;
    const devRows: string[] = [];
    for (const s of grid) {
      const per = await Promise.all(Object.values(dev).map((qs) => runText(qs, s)));
      const score = mean(per.map((x) => x.ndcg));
      devRows.push(
        `${s.fusion_method!.padEnd(6)} w=${s.semantic_weight.toFixed(2)}  ${per.map((x) => x.ndcg.toFixed(3)).join("  ")}  mean ${score.toFixed(4)}`,
      );
      if (!best || score > best.score + 1e-9) best = { s, score };
    }
    console.log("method  weight   nDCG colour+type / type / name");
    for (const r of devRows) console.log(r);
    console.log(`chosen on dev: fusion_method=${best!.s.fusion_method} semantic_weight=${best!.s.semantic_weight}`);

    // --- test half ----------------------------------------------------------------------------
    const modes: [string, Setting][] = [
      ["visual only (w=1)", { semantic_weight: 1 }],
      ["lexical only (w=0)", { semantic_weight: 0 }],
      [`fused (${best!.s.fusion_method}, w=${best!.s.semantic_weight})`, best!.s],
      ["fused + understand", { ...best!.s, understand: "boost" }],
      ["server default", {} as Setting],
    ];
    const offlineOf: Record<string, string> = {
      "colour+type": `P@10 ${offline.colour_type_queries["P@10"].toFixed(3)}`,
      "type only": `P@10 ${offline.article_type_queries["P@10"].toFixed(3)}`,
      "name → product": `R@10 ${offline.name_to_image["R@10"].toFixed(3)}`,
    };
    console.log(`\n== Test half of the text queries (P@10 / nDCG@10 / R@10)`);
    console.log(
      `${"query set".padEnd(16)} ${"n".padStart(5)}  ${modes.map(([m]) => m.padEnd(26)).join("")}${"ideal ranking".padEnd(26)}offline (eval.json, all queries)`,
    );
    for (const [name, qs] of Object.entries(sets)) {
      const testQs = qs.filter((q) => !isDev(q));
      const cells = [];
      for (const [, s] of modes) {
        const r = await runText(testQs, s);
        cells.push(`${r.p.toFixed(3)} ${r.ndcg.toFixed(3)} ${r.r.toFixed(3)}`.padEnd(26));
      }
      // The ceiling: every relevant product first (P@10 is below 1 where fewer than 10 are relevant).
      const ideal = summarise(testQs.map((q) => metrics([...q.relevant], q)));
      cells.push(`${ideal.p.toFixed(3)} ${ideal.ndcg.toFixed(3)} ${ideal.r.toFixed(3)}`.padEnd(26));
      console.log(`${name.padEnd(16)} ${String(testQs.length).padStart(5)}  ${cells.join("")}${offlineOf[name]}`);
    }

    console.log(`\n== Visual only over ALL queries, against the offline figures (the service must lose nothing)`);
    for (const [name, qs] of Object.entries(sets)) {
      const r = await runText(qs, { semantic_weight: 1 });
      console.log(
        `${name.padEnd(16)} ${String(qs.length).padStart(5)}  P@10 ${r.p.toFixed(3)}  nDCG@10 ${r.ndcg.toFixed(3)}  R@10 ${r.r.toFixed(3)}   offline ${offlineOf[name]}`,
      );
    }
    const img = summarise(
      await pool(imageQueries, CONCURRENCY, async (q) => {
        const res = await (await call("/v1/search/url", { image_url: q.text, limit: 11 })).json();
        return metrics(
          res.results.map((r: { product_id: string }) => r.product_id),
          q,
        );
      }),
    );
    console.log(
      `${"image → image".padEnd(16)} ${String(imageQueries.length).padStart(5)}  P@10 ${img.p.toFixed(3)}  nDCG@10 ${img.ndcg.toFixed(3)}  R@10 ${img.r.toFixed(3)}   offline P@10 ${offline.image_to_image["P@10_same_articleType"].toFixed(3)}`,
    );

    // --- a look at actual results -------------------------------------------------------------
    console.log(`\n== Sample results (top 5 names)`);
    for (const q of ["red dress", "blue jeans", "watch"]) {
      for (const [m, s] of [
        ["visual", { semantic_weight: 1 }],
        ["fused", best!.s],
      ] as const) {
        const res = await (await call("/v1/search/text", { query: q, limit: 5, ...s })).json();
        const rows = res.results.map(
          (r: { metadata: { name: string }; similarity_score: number }) => `${r.metadata.name} (${r.similarity_score.toFixed(3)})`,
        );
        console.log(`${q.padEnd(10)} ${m.padEnd(7)} ${rows.join(" | ")}`);
      }
    }
    console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await h.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
