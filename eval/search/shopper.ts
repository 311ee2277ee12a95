// `npm run eval:search-shopper [-- --queries FILE[,FILE…]] [--dataset DIR] [--model DIR] [--metadata full|name|sparse]
//                               [--settings JSON[;JSON…]] [--concurrency 4] [--calibrate] [--explain CLASS]
//                               [--visual-min-score BAR]`
//
// Text search on queries written the way shoppers type (issue 35), by helpers who saw neither the
// code nor the other query sets, over the test split of ../shared/datasets/fashion-products with
// ../shared/models/fashion-clip-small (harness.ts). A query set is JSON lines:
//   {"id", "class", "query", "relevant": {field: [accepted values…]}}   — relevant: every test
//       product whose field values are all accepted (fields of products.jsonl; `brand` = a
//       case-insensitive prefix of the name);
//   {"class": "full_name", "query", "product_id"}                       — that product;
//   {"class": "no_match", "query", "relevant": null}                    — nothing is relevant.
// Classes: gender_colour_type, gender_type, brand_type, colour_synonym, typo, plural, occasion,
// full_name, no_match (eval/search/queries/README.md says which sets exist and which were run
// blind). Reported per class and mode (visual only: semantic_weight 1; lexical only: 0; the
// server default; each `--settings` object sent with the query; and a plain BM25 — MiniSearch's
// BM25+ over the same product text, every word OR-ed, no fuzzy or prefix matching):
//   P@10 (relevant in the first ten / 10; full_name: R@10, the product in the first ten), and the
//       last column "attainable": the most P@10 allows, min(10, relevant products) / 10 per query;
//   zero — share of queries with relevant products that returned nothing;
//   no_match — mean results returned and share answered with nothing (padding).
import path from "node:path";
import { parseArgs } from "node:util";
import MiniSearch from "minisearch";
import type { DatasetProduct } from "./dataset.js";
import { pool, productMetadata, startHarness, type Metadata } from "./harness.js";
import { readQuerySets, type ShopperQuery } from "./query-sets.js";

const here = path.dirname(new URL(import.meta.url).pathname);
const { values: args } = parseArgs({
  options: {
    queries: { type: "string" },
    dataset: { type: "string", default: path.resolve(here, "../../../shared/datasets/fashion-products") },
    model: { type: "string", default: path.resolve(here, "../../../shared/models/fashion-clip-small") },
    metadata: { type: "string", default: "full" },
    settings: { type: "string" },
    concurrency: { type: "string", default: "4" },
    calibrate: { type: "boolean", default: false },
    explain: { type: "string" },
    "visual-min-score": { type: "string" },
  },
});

const CLASSES = ["gender_colour_type", "gender_type", "brand_type", "colour_synonym", "typo", "plural", "occasion", "full_name"];

function relevantOf(q: ShopperQuery, test: DatasetProduct[]): Set<string> {
  if (q.product_id) return new Set([q.product_id]);
  if (!q.relevant) return new Set();
  const rules = Object.entries(q.relevant);
  return new Set(
    test
      .filter((p) =>
        rules.every(([field, accepted]) =>
          field === "brand"
            ? accepted.some((b) => p.name.toLowerCase().startsWith(b.toLowerCase()))
            : accepted.includes(String((p as unknown as Record<string, unknown>)[field] ?? "")),
        ),
      )
      .map((p) => p.id),
  );
}

interface Outcome {
  cls: string;
  hits: number;
  returned: number;
  relevant: number;
}

/** P@10 (full_name: R@10) per class and over all judged queries. */
function perClass(outcomes: Outcome[], score: (o: Outcome) => number): Map<string, string> {
  const rows = new Map<string, string>();
  const judged = outcomes.filter((o) => o.cls !== "no_match");
  for (const cls of [...CLASSES, "all"]) {
    const os = cls === "all" ? judged : judged.filter((o) => o.cls === cls);
    if (os.length > 0) rows.set(cls, (os.reduce((a, o) => a + score(o), 0) / os.length).toFixed(3));
  }
  return rows;
}

/**
 * The most a ranking could score: P@10 divides by 10 however few products are relevant, so a query
 * with 4 relevant products scores at most 0.4 (full_name: 1). Printed beside the modes so a class's
 * figure reads against what its queries allow.
 */
function attainable(outcomes: Outcome[]): Map<string, string> {
  return perClass(outcomes, (o) => (o.cls === "full_name" ? 1 : Math.min(10, o.relevant) / 10));
}

function summarise(outcomes: Outcome[]) {
  const rows = perClass(outcomes, (o) => (o.cls === "full_name" ? (o.hits > 0 ? 1 : 0) : o.hits / 10));
  const judged = outcomes.filter((o) => o.cls !== "no_match");
  const zero = judged.filter((o) => o.returned === 0).length / Math.max(1, judged.length);
  rows.set("zero-result rate", `${(zero * 100).toFixed(1)} %`);
  const none = outcomes.filter((o) => o.cls === "no_match");
  if (none.length > 0) {
    rows.set("no_match: mean results", (none.reduce((a, o) => a + o.returned, 0) / none.length).toFixed(1));
    rows.set("no_match: answered empty", `${((none.filter((o) => o.returned === 0).length / none.length) * 100).toFixed(0)} %`);
  }
  return rows;
}

/**
 * `--calibrate`: the relevance bar of the model (SEARCH_VISUAL_MIN_SCORE / visual_min_score). For
 * each bar, over the visual-only first ten of every query: the share of no_match queries it
 * answers with nothing, and the share of relevant and of irrelevant visual results it keeps.
 */
async function calibrate(queries: ShopperQuery[], h: Awaited<ReturnType<typeof startHarness>>) {
  const seen = await pool(queries, Number(args.concurrency), async (q) => {
    const res = (await (await h.call("/v1/search/text", { query: q.query, limit: 10, semantic_weight: 1 })).json()) as {
      results: { product_id: string; similarity_score: number }[];
    };
    const relevant = relevantOf(q, h.test);
    return { q, results: res.results.map((r) => ({ score: r.similarity_score, relevant: relevant.has(r.product_id) })) };
  });
  const none = seen.filter((s) => s.q.class === "no_match");
  const judged = seen.filter((s) => s.q.class !== "no_match" && s.q.class !== "full_name").flatMap((s) => s.results);
  const rel = judged.filter((r) => r.relevant);
  const irr = judged.filter((r) => !r.relevant);
  console.log("bar    no_match empty   relevant kept   irrelevant kept");
  for (let bar = 0.5; bar <= 0.9001; bar += 0.02) {
    const empty = none.filter((s) => s.results.every((r) => r.score < bar)).length / Math.max(1, none.length);
    const kept = (xs: { score: number }[]) => xs.filter((r) => r.score >= bar).length / Math.max(1, xs.length);
    console.log(
      `${bar.toFixed(2)}   ${(empty * 100).toFixed(0).padStart(5)} %        ${(kept(rel) * 100).toFixed(0).padStart(4)} %          ${(kept(irr) * 100).toFixed(0).padStart(4)} %`,
    );
  }
}

async function main() {
  const sets = readQuerySets(path.join(here, "queries"), args.queries?.split(","));
  const h = await startHarness({
    dataset: args.dataset!,
    model: args.model!,
    metadata: args.metadata as Metadata,
    concurrency: Number(args.concurrency),
    // Calibration reads the raw visual similarities: no bar. --visual-min-score tries another bar.
    ...(args.calibrate
      ? { env: { SEARCH_VISUAL_MIN_SCORE: "0" } }
      : args["visual-min-score"]
        ? { env: { SEARCH_VISUAL_MIN_SCORE: args["visual-min-score"] } }
        : {}),
  });
  try {
    // A plain BM25 over the same text the service indexes.
    const bm25 = new MiniSearch<{ id: string; text: string }>({ fields: ["text"], storeFields: [] });
    bm25.addAll(
      h.test.map((p) => ({
        id: p.id,
        text: Object.values(productMetadata(p, args.metadata as Metadata))
          .map(String)
          .join(" "),
      })),
    );
    const modes: [string, ((q: string) => Promise<string[]>) | null][] = [
      ["visual only", null],
      ["lexical only", null],
      ["default", null],
    ];
    const settings = args.settings ? args.settings.split(";").map((s) => JSON.parse(s) as Record<string, unknown>) : [];
    const searchWith = (extra: Record<string, unknown>) => async (q: string) => {
      const res = (await (await h.call("/v1/search/text", { query: q, limit: 10, ...extra })).json()) as {
        results: { product_id: string }[];
      };
      return res.results.map((r) => r.product_id);
    };
    modes[0]![1] = searchWith({ semantic_weight: 1 });
    modes[1]![1] = searchWith({ semantic_weight: 0 });
    modes[2]![1] = searchWith({});
    for (const s of settings) modes.push([JSON.stringify(s), searchWith(s)]);
    modes.push([
      "plain BM25",
      (q) =>
        Promise.resolve(
          bm25
            .search(q)
            .slice(0, 10)
            .map((r) => String(r.id)),
        ),
    ]);

    if (args.explain) {
      // --explain CLASS: each query of the class with its default P@10 and the first three results' names.
      const names = new Map(h.test.map((p) => [p.id, p.name]));
      for (const set of sets) {
        for (const q of set.queries.filter((x) => x.class === args.explain)) {
          const relevant = relevantOf(q, h.test);
          const ranked = await modes[2]![1]!(q.query);
          const hits = ranked.filter((id) => relevant.has(id)).length;
          // hits / results returned, and the most the query allows (relevant products, at most 10).
          console.log(
            `${hits}/${ranked.length} (of ${Math.min(10, relevant.size)})  ${q.query}  →  ${ranked
              .slice(0, 3)
              .map((id) => names.get(id))
              .join(" | ")}`,
          );
        }
      }
      return;
    }
    if (args.calibrate) {
      await calibrate(
        sets.flatMap((s) => s.queries),
        h,
      );
      return;
    }
    for (const set of sets) {
      const judged = set.queries.map((q) => ({ q, relevant: relevantOf(q, h.test) }));
      const counts = CLASSES.map((c) => `${c} ${judged.filter((j) => j.q.class === c).length}`).join(", ");
      console.log(
        `\n== ${path.basename(set.file)}: ${set.queries.length} queries (${counts}, no_match ${judged.filter((j) => j.q.class === "no_match").length})`,
      );
      const table: [string, Map<string, string>][] = [];
      for (const [name, run] of modes) {
        const outcomes = await pool(judged, Number(args.concurrency), async ({ q, relevant }) => {
          const ranked = await run!(q.query);
          return { cls: q.class, hits: ranked.filter((id) => relevant.has(id)).length, returned: ranked.length, relevant: relevant.size };
        });
        table.push([name, summarise(outcomes)]);
      }
      table.push([
        "attainable",
        attainable(judged.map(({ q, relevant }) => ({ cls: q.class, hits: 0, returned: 0, relevant: relevant.size }))),
      ]);
      const rowNames = [...table[0]![1].keys()];
      console.log(`${"class (P@10; full_name R@10)".padEnd(28)}${table.map(([n]) => n.slice(0, 22).padEnd(24)).join("")}`);
      for (const r of rowNames) console.log(`${r.padEnd(28)}${table.map(([, t]) => (t.get(r) ?? "").padEnd(24)).join("")}`);
    }
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
