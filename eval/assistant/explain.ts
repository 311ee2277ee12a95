// `npm run eval:assistant -- --explain ID [--set FILE]` (issue 36): why the engine answered one
// question as it did. Prints the router's decision (the rule, and for the scored decision its
// features and scores), the question's word groups in the policies' language, the best passages
// with their scores, the best sentences with their scores and facts, the kind of value asked, the
// extractive answer's confidence and the abstention model's verdict. The grounding shown is the
// lexical pipeline over the store's policies as one index, without the embedding re-rank or the
// question's split into parts that the chat adds (the reply line above it is the chat's own). A
// question with earlier turns is read as a follow-up of the thread's context (classify.ts
// threadContext), as the chat reads it first.
import { routeText, threadContext } from "../../src/assistant/knowledge/classify.js";
import { borrowedWords, withFollowUp } from "../../src/assistant/knowledge/parts.js";
import { CONTEXT_MESSAGES } from "../../src/assistant/turns/limits.js";
import { splitPassages } from "../../src/assistant/knowledge/passages.js";
import { PassageIndex, RERANK_DEPTH, isEvidence, normalizeScores } from "../../src/assistant/knowledge/retrieval.js";
import { NO_STORE_WORDS, StoreVocabulary } from "../../src/assistant/knowledge/store-words.js";
import { prepareQuery } from "../../src/assistant/knowledge/ground.js";
import { askedKinds, extractive, scoreSentences, sentencePool } from "../../src/assistant/knowledge/compose.js";
import { ABSTENTION, confident, probabilityRight } from "../../src/assistant/knowledge/abstain.js";
import { langOf } from "../../src/assistant/knowledge/text.js";
import type { RetailerStore, RetailQuestion } from "./retailers.js";

const fixed = (x: number) => x.toFixed(2);

export function explain(q: RetailQuestion, store: RetailerStore, sentences = 6): string {
  const out: string[] = [`${q.id} [${q.category}] ${JSON.stringify(q.text)} — expected ${JSON.stringify(q.expect)}`];
  const { intent, trace } = routeText(q.text, q.locale, store.currency);
  out.push(`route: rule ${trace.rule} → ${JSON.stringify(intent)}`);
  if (trace.features) out.push(`  features ${JSON.stringify(trace.features)}`, `  scores ${JSON.stringify(trace.scores)}`);

  const index = new PassageIndex(
    store.policies.filter((p) => p.published).flatMap((p) => splitPassages({ ...p, version: 1 })),
    new StoreVocabulary(store.vocabulary ?? NO_STORE_WORDS.lists, store.name),
  );
  const previous = threadContext([...(q.before ?? [])].reverse(), CONTEXT_MESSAGES);
  if (previous !== undefined) out.push(`previous: ${JSON.stringify(previous)}`);
  const borrowed = new Set(borrowedWords(q.text, previous, langOf(q.locale)));
  const { lang, groups } = prepareQuery(index, withFollowUp(q.text, previous, langOf(q.locale)), langOf(q.locale), borrowed);
  out.push(
    `groups (${lang}): ${groups.map((g) => `${g.surface}${g.virtual ? "*" : ""}[${g.alts.slice(0, 4).join("|")}] w${fixed(g.weight)}`).join(", ")}`,
  );
  const candidates = index.query(groups, lang, RERANK_DEPTH);
  out.push("passages:");
  for (const c of candidates.slice(0, 5)) {
    out.push(
      `  ${fixed(c.score)} cov ${fixed(c.coverage)}${isEvidence(c) ? " evidence" : ""} ${c.passage.citation.concept_id}: ${JSON.stringify(c.passage.text.slice(0, 110))}`,
    );
  }
  const scored = scoreSentences(sentencePool(normalizeScores(candidates)), groups, lang, index.store);
  out.push("sentences:");
  for (const s of [...scored].sort((a, b) => b.score - a.score).slice(0, sentences)) {
    const f = s.facts;
    const facts = [
      ...f.durations.map((d) => `${d.days}d${d.start ? `@${d.start}` : ""}`),
      ...f.amounts,
      ...[...f.percents].map((p) => `${p}%`),
      ...[...f.scope].map((x) => `scope:${x}`),
    ];
    out.push(
      `  ${fixed(s.score)} match ${fixed(s.match)}${s.evidence ? "" : " (no evidence)"} ${s.citation.concept_id} [${facts.join(" ")}] ${JSON.stringify(s.text.slice(0, 110))}`,
    );
  }
  const asked = askedKinds(groups, q.text);
  out.push(`asked: ${[...asked].join(", ") || "no value"}`);
  const answer = extractive(scored, asked, q.text, langOf(q.locale), index.passages, groups);
  if (!answer) out.push("answer: none (no sentence clears the threshold) → handoff");
  else {
    const c = answer.confidence!;
    out.push(
      `answer cites ${answer.citations.map((x) => x.concept_id).join(", ")}: ${JSON.stringify(answer.markdown.slice(0, 160))}`,
      `confidence ${JSON.stringify(c)}; P(right) ${fixed(probabilityRight(c))}; bar ${ABSTENTION.minRight} → ${confident(c) ? "answer" : "abstain"} (when ASSISTANT_ABSTENTION=on)`,
    );
  }
  return out.join("\n");
}
