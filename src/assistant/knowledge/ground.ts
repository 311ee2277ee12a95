// The answer pipeline over one passage index, without I/O (the store cache, embeddings and the LLM
// live in ./index.ts): groups → BM25 candidates → evidence threshold → optional re-rank →
// conflicts → extractive answer.
import { conflictMarkdown, extractive, findConflicts, noEvidenceMarkdown, scoreSentences, sentencePool } from "./compose.js";
import { CROSS, applyRewrites, crossKey } from "./lexicon.js";
import { PassageIndex, RERANK_DEPTH, isEvidence, normalizeScores, queryGroups, rewrite, type QueryGroup, type Scored } from "./retrieval.js";
import type { Lang } from "./text.js";
import type { PolicyAnswer } from "./types.js";

export type Rerank = (candidates: Scored[]) => Promise<Scored[]>;

/**
 * The question's groups in the language of the policies: a question asked in another language
 * than the policies' is translated word by word through the commerce lexicon first (words it
 * cannot translate are kept only when the policies use them); unknown words are typo-corrected
 * against the policies' vocabulary.
 */
export function prepareQuery(index: PassageIndex, text: string, threadLang: Lang): { lang: Lang; groups: QueryGroup[] } {
  const lang = index.queryLang(threadLang);
  const key = crossKey(threadLang, lang);
  const query = key ? applyRewrites(rewrite(text, threadLang), CROSS[key]) : text;
  return { lang, groups: index.weigh(index.correct(queryGroups(query, lang), lang), lang, key !== null) };
}

export async function ground(index: PassageIndex, text: string, threadLang: Lang, rerank: Rerank = async (c) => normalizeScores(c)): Promise<PolicyAnswer> {
  const { lang, groups } = prepareQuery(index, text, threadLang);
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
  const { lang, groups } = prepareQuery(index, text, threadLang);
  return index.query(groups, lang, RERANK_DEPTH).some(isEvidence);
}
