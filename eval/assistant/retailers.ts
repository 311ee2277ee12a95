// The second evaluation fixture of `npm run eval:assistant` (`--fixture retailers`): material the
// engine's authors did not write. Twelve stores (Bike-Discount added with the dev extension), each
// one retailer of a different kind, publish policies taken from that retailer's public pages (or, where marked, from a news or reference
// page quoting the retailer's published terms; the URL of every source is listed with its store).
// Facts (numbers, dates, channels, exclusions) are kept exactly as the source states them; text is
// trimmed to the policy sentences and laid out as markdown headings, lists and tables the way a
// store would paste them. The catalogue of each store (names, prices, stock) is the fixture's own:
// products are not policy facts.
//
// Real conflicts and overlapping scoped policies (the point of several questions):
//   1. Zalando: the current return page says 30 days (for purchases from 7 January 2025); the
//      stale FAQ still says 100 days — a real change that left an old page behind.
//   2. Zalando: invoice payment term 14 days (FAQ, 2020) vs 30 days (payment page, 2025).
//   3. Best Buy: holiday window (purchases 1 Nov–31 Dec → through 14 Jan) overlaps the standard
//      15-day window; cell phones and major appliances are excluded from the holiday window.
//   4. Best Buy: membership tiers (Elite 30 days, Elite Plus 45 days) vs standard 15 days; major
//      appliances have no member extension.
//   5. Apple: holiday window (received 15 Nov–25 Dec 2019 → through 8 Jan 2020) vs standard 14 days.
//   6. REI: members one year, non-members 90 days, outdoor electronics 90 days for everybody, used
//      gear bought online 30 days and used gear bought in store final sale.
//   7. IKEA: "Receipt is required for returns" next to "Returns without Receipt … No problem".
//   8. Bike-Discount: return costs borne by the shop above a 50 € value, by the shopper below it
//      (3,95 € label), 30 € for freight pick-up, and by the shopper from countries not listed.
//
// Questions are written the way shoppers write (typos, shorthand, indirect wording, multi-part,
// follow-ups in the same thread, German, questions the policies do not answer, injection
// attempts). Each names the store it is asked in, its category and what a correct reply holds:
//   outcome   — expected `outcome` (an array: any of these is right);
//   cites     — concept ids that must be cited (required citations);
//   alsoOk    — concept ids that may be cited as well without counting as wrong;
//   facts     — key facts: every entry must occur in response_markdown (case-insensitive); an entry
//               "a|b" is satisfied by either alternative;
//   forbid    — strings that must NOT occur in response_markdown (e.g. an injected claim);
//   conflicts — true when the reply must report a conflict (answer.conflicts non-empty), false
//               when it must not;
//   products  — product ids that must be among the answer's product cards (first card for carts);
//   quantity  — for cart actions, the quantity the confirmation must carry;
//   before    — earlier shopper turns in the same thread (follow-ups).
//
// The data (no code): one file per store in retailers/stores/ (NN-<key>.json; NN is the order the
// stores are set up in) and the questions in retailers/questions/ (one file per round, asked in
// file order, grouped in sections that say what each group is for). Every file is checked against
// schemas.ts when it is read; a malformed one stops the run naming the file and the field.
//
// Split: dev / test by a fixed rule — the first byte of sha256(question id) is even → dev; the
// dev extension written after the test half was measured (ids "dv-…") is dev (see splitOf).

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { check, readJson } from "./load.js";
import { QuestionsFile, RetailerStore, RetailSetFile, type RetailQuestion } from "./schemas.js";

export type { Category, RetailerStore, RetailQuestion } from "./schemas.js";

const dir = fileURLToPath(new URL("./retailers/", import.meta.url));
const jsonFiles = (sub: string) =>
  fs
    .readdirSync(path.join(dir, sub))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => path.join(dir, sub, f));

/**
 * Checks across files: store keys unique and equal to the file name's (after `NN-`), question ids
 * unique, each question's store known, its cited concepts among the store's policies and its
 * products in the store's catalogue.
 */
function crossCheck(
  stores: Array<{ file: string; store: RetailerStore }>,
  questions: Array<{ file: string; field: string; q: RetailQuestion }>,
) {
  const byKey = new Map<string, RetailerStore>();
  for (const { file, store } of stores) {
    check(!byKey.has(store.key), file, "/key", `${JSON.stringify(store.key)} is the key of another store`);
    byKey.set(store.key, store);
  }
  const ids = new Set<string>();
  for (const { file, field, q } of questions) {
    check(!ids.has(q.id), file, `${field}/id`, `${JSON.stringify(q.id)} is the id of another question`);
    ids.add(q.id);
    const store = byKey.get(q.store);
    check(store !== undefined, file, `${field}/store`, `${JSON.stringify(q.store)} is no store's key`);
    const concepts = new Set(store!.policies.map((p) => p.concept_id));
    for (const key of ["cites", "alsoOk"] as const)
      (q.expect[key] ?? []).forEach((c, i) =>
        check(concepts.has(c), file, `${field}/expect/${key}/${i}`, `${JSON.stringify(c)} is no policy of ${q.store}`),
      );
    const products = new Set(store!.products.map((p) => p.product_id));
    (q.expect.products ?? []).forEach((p, i) =>
      check(products.has(p), file, `${field}/expect/products/${i}`, `${JSON.stringify(p)} is not in ${q.store}'s catalogue`),
    );
  }
}

function load(): { stores: RetailerStore[]; questions: RetailQuestion[] } {
  const stores = jsonFiles("stores").map((file) => {
    const store = readJson(file, RetailerStore);
    check(
      path.basename(file, ".json").replace(/^\d+-/, "") === store.key,
      file,
      "/key",
      `${JSON.stringify(store.key)} differs from the file name`,
    );
    return { file, store };
  });
  const questions = jsonFiles("questions").flatMap((file) =>
    readJson(file, QuestionsFile).sections.flatMap((s, i) =>
      s.questions.map((q, j) => ({ file, field: `/sections/${i}/questions/${j}`, q })),
    ),
  );
  crossCheck(stores, questions);
  return { stores: stores.map((s) => s.store), questions: questions.map((x) => x.q) };
}

const fixture = load();
export const stores: RetailerStore[] = fixture.stores;
export const questions: RetailQuestion[] = fixture.questions;

/** A helper-written set (blind/*.json, `--set FILE`), checked like the fixture's own files. */
export function readRetailSet(file: string): { stores: RetailerStore[]; questions: RetailQuestion[] } {
  const set = readJson(file, RetailSetFile);
  crossCheck(
    set.stores.map((store) => ({ file, store })),
    set.questions.map((q, i) => ({ file, field: `/questions/${i}`, q })),
  );
  return { stores: set.stores, questions: set.questions };
}

/**
 * Fixed split rule: the questions of the dev extension (ids "dv-…", written after the test half
 * was measured, to tune on) are dev; every other question: the first byte of sha256(id) is even →
 * dev, else test. (The extension rule moves no earlier question: no earlier id starts with "dv-".)
 */
export function splitOf(id: string): "dev" | "test" {
  if (id.startsWith("dv-")) return "dev";
  return createHash("sha256").update(id).digest()[0]! % 2 === 0 ? "dev" : "test";
}
