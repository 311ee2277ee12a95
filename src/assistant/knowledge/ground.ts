// The answer pipeline over one passage index, without I/O (the store cache, embeddings and the LLM
// live in ./index.ts): groups → BM25 candidates → evidence threshold → optional re-rank →
// conflicts → extractive answer.
import { conflictMarkdown, extractive, findConflicts, noEvidenceMarkdown, scoreSentences, sentencePool } from "./compose.js";
import { PassageIndex, RERANK_DEPTH, isEvidence, normalizeScores, queryGroups, type Scored } from "./retrieval.js";
import type { Lang } from "./text.js";
import type { PolicyAnswer } from "./types.js";

export type Rerank = (candidates: Scored[]) => Promise<Scored[]>;

export async function ground(index: PassageIndex, text: string, threadLang: Lang, rerank: Rerank = async (c) => normalizeScores(c)): Promise<PolicyAnswer> {
  const lang = index.queryLang(threadLang);
  const groups = index.weigh(queryGroups(text, lang), lang);
  const candidates = index.query(groups, lang, RERANK_DEPTH);
  if (!candidates.some(isEvidence)) return { kind: "no_evidence", markdown: noEvidenceMarkdown(lang) };
  const pool = sentencePool(await rerank(candidates));
  const scored = scoreSentences(pool, groups, lang);
  const conflicts = findConflicts(scored, groups, lang, text);
  if (conflicts.length > 0) {
    const citations = conflicts.flatMap((c) => c.citations).filter((c, i, all) => all.findIndex((x) => x.concept_id === c.concept_id) === i);
    return { kind: "conflict", markdown: conflictMarkdown(conflicts, lang), conflicts, citations };
  }
  return extractive(scored) ?? { kind: "no_evidence", markdown: noEvidenceMarkdown(lang) };
}

/** Whether any passage of the index is evidence for the text (the threshold of retrieval.ts). */
export function hasEvidence(index: PassageIndex, text: string, threadLang: Lang): boolean {
  const lang = index.queryLang(threadLang);
  const groups = index.weigh(queryGroups(text, lang), lang);
  return index.query(groups, lang, RERANK_DEPTH).some(isEvidence);
}
