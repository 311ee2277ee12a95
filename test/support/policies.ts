// Policy sources for the knowledge engine's pure tests (no database): one published version 1 in
// English unless `extra` says otherwise, its handle and title the concept id.
import { fileURLToPath } from "node:url";
import type { PolicySource } from "../../src/assistant/knowledge/passages.js";
import { readRetailSet } from "../../eval/assistant/retailers.js";

export const policySource = (concept_id: string, body_markdown: string, extra: Partial<PolicySource> = {}): PolicySource => ({
  concept_id,
  version: 1,
  handle: concept_id,
  title: concept_id,
  locale: "en",
  body_markdown,
  ...extra,
});

/** A real retailer's published policy from a dev blind set (eval/assistant/blind/set-N.json), in its own language. */
export function blindPolicy(set: number, conceptId: string): PolicySource {
  const p = readRetailSet(fileURLToPath(new URL(`../../eval/assistant/blind/set-${set}.json`, import.meta.url)))
    .stores.flatMap((s) => s.policies)
    .find((x) => x.concept_id === conceptId)!;
  return policySource(p.concept_id, p.body_markdown, { locale: p.locale });
}
