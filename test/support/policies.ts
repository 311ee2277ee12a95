// Policy sources for the knowledge engine's pure tests (no database): one published version 1 in
// English unless `extra` says otherwise, its handle and title the concept id.
import type { PolicySource } from "../../src/assistant/knowledge/passages.js";

export const policySource = (concept_id: string, body_markdown: string, extra: Partial<PolicySource> = {}): PolicySource => ({
  concept_id,
  version: 1,
  handle: concept_id,
  title: concept_id,
  locale: "en",
  body_markdown,
  ...extra,
});
