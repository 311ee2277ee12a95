// The evaluation store of `npm run eval:assistant`: policies (two of which — `returns` and `faq` —
// disagree on the return window), a catalogue with prices and stock, store settings, and the
// questions with their expected outcome and expected cited concept ids. The data is
// northwind.json (checked against schemas.ts when read); this module reads it.
//
// Conventions of `expect`:
//   outcome   — the message response's `outcome`;
//   cites     — concept ids that must be cited (exactly these) for policy answers and conflicts;
//               [] for outcomes that cite nothing;
//   products  — for product requests, at least one product card is expected (true) or none (false).
import { fileURLToPath } from "node:url";
import { check, readJson } from "./load.js";
import { NorthwindFile, type FixturePolicy, type FixtureProduct, type FixtureQuestion } from "./schemas.js";

export type { FixturePolicy, FixtureProduct, FixtureQuestion, Outcome } from "./schemas.js";

const file = fileURLToPath(new URL("./northwind.json", import.meta.url));
const northwind = readJson(file, NorthwindFile);

export const settings = northwind.settings;
export const policies: FixturePolicy[] = northwind.policies;
export const products: FixtureProduct[] = northwind.products;
export const questions: FixtureQuestion[] = northwind.sections.flatMap((s) => s.questions);

const concepts = new Set(policies.map((p) => p.concept_id));
const ids = new Set<string>();
northwind.sections.forEach((s, i) =>
  s.questions.forEach((q, j) => {
    const field = `/sections/${i}/questions/${j}`;
    check(!ids.has(q.id), file, `${field}/id`, `${JSON.stringify(q.id)} is the id of another question`);
    ids.add(q.id);
    q.expect.cites.forEach((c, k) => check(concepts.has(c), file, `${field}/expect/cites/${k}`, `${JSON.stringify(c)} is no policy`));
  }),
);
