// The answer pipeline over one passage index, without I/O (the store cache, embeddings and the LLM
// live in ./index.ts): groups → BM25 candidates → evidence threshold → optional re-rank →
// conflicts → extractive answer.
import {
  askedKinds,
  conflictMarkdown,
  extractive,
  findConflicts,
  LEAD_SEPARATOR,
  noEvidenceMarkdown,
  scoreSentences,
  sentencePool,
} from "./compose.js";
import { OTHER, languagePack } from "../language/index.js";
import { commerceVocabulary, translation } from "./lexicon.js";
import {
  PassageIndex,
  RERANK_DEPTH,
  VIRTUAL_DURATION,
  VIRTUAL_HOW,
  VIRTUAL_MONEY,
  correctWords,
  isEvidence,
  normalizeScores,
  queryGroups,
  rewrite,
  type QueryGroup,
  type Scored,
} from "./retrieval.js";
import type { Part } from "./parts.js";
import { NO_ABSTENTION, confident, probabilityRight, type AbstentionModel } from "./abstain.js";
import { isStopWord, quantities, sentences, type Lang } from "./text.js";
import type { Conflict, PolicyAnswer } from "./types.js";

/** The conflict answer: the conflicts' citations, each concept once. */
function conflictResult(conflicts: Conflict[], frame: Lang): PolicyAnswer {
  const citations = conflicts.flatMap((c) => c.citations).filter((c, i, all) => all.findIndex((x) => x.concept_id === c.concept_id) === i);
  return { kind: "conflict", markdown: conflictMarkdown(conflicts, frame), conflicts, citations };
}

/** One conflict per pair of policy versions and pair of statements. */
const conflictKey = (c: Conflict): string =>
  c.citations
    .map((x, i) => `${x.concept_id}@${x.concept_version}:${c.statements[i] ?? ""}`)
    .sort()
    .join("|");

/** Re-ranks the candidates of one question (or one part of a multi-part question: `text`). */
export type Rerank = (candidates: Scored[], text: string) => Promise<Scored[]>;

/**
 * The question's groups in the language of the policies: a question asked in another language
 * than the policies' is translated word by word through the commerce lexicon first (words it
 * cannot translate are kept only when the policies use them; a misspelt word is corrected against
 * the table's own words before: "retrun" → return); unknown words are typo-corrected against the
 * policies' vocabulary.
 */
export function prepareQuery(
  index: PassageIndex,
  text: string,
  threadLang: Lang,
  context?: ReadonlySet<string>,
): { lang: Lang; groups: QueryGroup[] } {
  const lang = index.queryLang(threadLang);
  const translate = translation(threadLang, lang);
  // The store's own name is not the question's subject (store-words.ts).
  text = index.store.withoutName(text);
  // The question's own stop words go after translation: analysed in the policies' language they
  // would be content words ("and" meets "Standardversand", "die" is an English verb).
  const query = translate
    ? translate(correctWords(rewrite(text, threadLang), commerceVocabulary(threadLang), threadLang)).replace(/\p{L}+/gu, (w) =>
        isStopWord(w, threadLang) && !isStopWord(w, lang) ? " " : w,
      )
    : text;
  const groups = queryGroups(query, lang, context, index.store);
  // What the question asks for (a duration, an amount, a procedure, a start) is read in its own
  // language too: the word-level translation may lose "when" or "period".
  if (translate)
    for (const g of queryGroups(text, threadLang, context, index.store))
      if (g.virtual && !groups.some((x) => x.alts[0] === g.alts[0])) groups.unshift(g);
  return { lang, groups: index.weigh(index.correct(groups, lang), lang, translate !== undefined) };
}

export async function ground(
  index: PassageIndex,
  text: string,
  threadLang: Lang,
  rerank: Rerank = async (c) => normalizeScores(c),
  context?: ReadonlySet<string>,
  abstention: AbstentionModel = NO_ABSTENTION,
): Promise<PolicyAnswer> {
  const { lang, groups } = prepareQuery(index, text, threadLang, context);
  // Framing text is in the thread's language; quotes stay in the policies' language.
  const frame = threadLang === OTHER ? lang : threadLang;
  const candidates = index.query(groups, lang, RERANK_DEPTH);
  if (!candidates.some(isEvidence)) return { kind: "no_evidence", markdown: noEvidenceMarkdown(frame) };
  const pool = sentencePool(await rerank(candidates, text));
  const scored = scoreSentences(pool, groups, lang, index.store);
  const conflicts = findConflicts(scored, groups, lang, text);
  if (conflicts.length > 0) return conflictResult(conflicts, frame);
  const asked = askedKinds(groups, text);
  const answer = extractive(scored, asked, text, frame, index.passages, groups);
  if (!answer) return { kind: "no_evidence", markdown: noEvidenceMarkdown(frame) };
  // A question that asks for no value ("what's your return policy?") answered with one ("… 30
  // days"): a policy stating another value for the same subject is a conflict all the same, so
  // that both values are never stated as fact in one answer.
  const quoted = answer.passages.map((p) => p.text);
  const stated = new Set<"duration" | "money">(quantities(quoted.join(" ")).map((q) => (q.kind === "duration" ? "duration" : "money")));
  const unasked = new Set([...stated].filter((k) => !asked.has(k)));
  // A question for a procedure ("how do I send an item back?") is not about the window it mentions.
  const procedure = groups.some((g) => g.alts[0] === VIRTUAL_HOW);
  if (unasked.size > 0 && !procedure) {
    const implicit = findConflicts(scored, groups, lang, text, { asked: unasked, quoted });
    if (implicit.length > 0) return conflictResult(implicit, frame);
  }
  // Calibrated abstention: an answer that is probably wrong is handed off instead.
  if (!confident(answer.confidence, abstention)) {
    return {
      kind: "no_evidence",
      markdown: noEvidenceMarkdown(frame),
      abstained: { confidence: answer.confidence!, probability_right: probabilityRight(answer.confidence!, abstention) },
    };
  }
  return answer;
}

/**
 * A question in parts (parts.ts): each part is grounded on its own; the answers are combined —
 * one conflict makes the whole reply a conflict, reporting the conflicts of every part; parts without evidence are left out when another
 * part is answered (and named by `unanswered`); citations are the union in order of use.
 */
export async function groundParts(
  index: PassageIndex,
  given: Array<string | Part>,
  threadLang: Lang,
  rerank?: Rerank,
  context?: ReadonlySet<string>,
  abstention: AbstentionModel = NO_ABSTENTION,
): Promise<PolicyAnswer> {
  // A part's borrowed words are read with it, weighed as context (as a follow-up's are).
  const asked = given.map((p) => (typeof p === "string" ? { text: p, borrowed: [] } : p));
  const parts = asked.map((p) => (p.borrowed.length > 0 ? `${p.text} ${p.borrowed.join(" ")}` : p.text));
  const contextOf = (i: number) => (asked[i]!.borrowed.length > 0 ? new Set([...(context ?? []), ...asked[i]!.borrowed]) : context);
  if (parts.length === 1) return ground(index, parts[0]!, threadLang, rerank, contextOf(0), abstention);
  const results = await Promise.all(parts.map((p, i) => ground(index, p, threadLang, rerank, contextOf(i), abstention)));
  // Every part's conflicts are reported (each pair of policies once), not only the first part's.
  const conflicts = results
    .flatMap((r) => (r.kind === "conflict" ? r.conflicts : []))
    .filter((c, i, all) => all.findIndex((x) => conflictKey(x) === conflictKey(c)) === i);
  if (conflicts.length > 0) return conflictResult(conflicts, threadLang === OTHER ? index.queryLang(threadLang) : threadLang);
  const answered = results.filter((r): r is Extract<PolicyAnswer, { kind: "answer" }> => r.kind === "answer");
  if (answered.length === 0) return results[0]!;
  const citations = answered
    .flatMap((a) => a.citations)
    .filter((c, i, all) => all.findIndex((x) => x.concept_id === c.concept_id && x.concept_version === c.concept_version) === i);
  const seen = new Set<string>();
  const markdown = answered
    .map((a) => {
      // A line or sentence an earlier part already quoted is not quoted again.
      const lines = a.markdown
        .split("\n")
        .filter((l) => l.trim() === "" || !seen.has(l.trim()))
        .map((l) =>
          l.startsWith("- ") || l.trim() === ""
            ? l
            : sentences(l)
                .filter((x) => !seen.has(x.trim()))
                .join(" "),
        )
        .filter((l, i, all) => l.trim() !== "" || (i > 0 && all[i - 1]!.trim() !== ""));
      lines.forEach((l) => {
        seen.add(l.trim());
        if (!l.startsWith("- ")) for (const x of sentences(l)) seen.add(x.trim());
      });
      return lines.join("\n").trim();
    })
    .filter(Boolean)
    .join("\n\n");
  const directs = answered.map((a) => a.direct).filter((d): d is string => Boolean(d));
  // The whole answer is as sure as its least sure part, judged as abstention judges it.
  const confidence = answered
    .map((a) => a.confidence)
    .filter((c) => c !== undefined)
    .sort((a, b) => probabilityRight(a) - probabilityRight(b))[0];
  return {
    kind: "answer",
    markdown,
    citations,
    passages: answered.flatMap((a) => a.passages),
    phrased_by: "extractive",
    ...(directs.length > 0 ? { direct: [...new Set(directs)].join(LEAD_SEPARATOR) } : {}),
    ...(confidence ? { confidence } : {}),
    ...(answered.length < results.length ? { unanswered: asked.filter((_, i) => results[i]!.kind !== "answer").map((p) => p.text) } : {}),
  };
}

/**
 * The conflict answer for a text whose reply is not decided by ground() finding evidence (a
 * question with no evidence as read, an injection that left too little of it, a route decided
 * before retrieval), or null. Each text is read without the words the store's policies never use
 * — they cannot decide whether two policies disagree — and the conflict rules of compose.ts apply
 * unchanged (the subject in both sentences, the asked kind of value, same scope, disjoint values).
 */
export async function conflictCheck(
  index: PassageIndex,
  texts: string[],
  threadLang: Lang,
  rerank: Rerank = async (c) => normalizeScores(c),
  context?: ReadonlySet<string>,
): Promise<PolicyAnswer | null> {
  for (const text of new Set(texts.map((t) => t.trim()).filter(Boolean))) {
    const prepared = prepareQuery(index, text, threadLang, context);
    const used = prepared.groups.filter((g) => g.virtual || index.uses(g, prepared.lang));
    // The question as read, then its slot alone: its policy topic and the kind of value it asks
    // ("how many days do I have to send back a book I ordered online" → return, a duration), so
    // that a shopper's object and circumstances do not hide two policies that disagree on the slot.
    const topics = languagePack(prepared.lang)?.vocabulary.topics;
    const slot = used.filter((g) => g.virtual || (topics !== undefined && g.alts.some((a) => topics.has(a))));
    const asksValue = slot.some((g) => g.alts[0] === VIRTUAL_DURATION || g.alts[0] === VIRTUAL_MONEY);
    // (A question that is its slot already is read once.)
    const readings = asksValue && slot.length < used.length ? [used, slot] : [used];
    for (const groups of readings) {
      if (!groups.some((g) => !g.virtual)) continue;
      const weighed = groups === used ? groups : index.weigh(groups, prepared.lang);
      const candidates = index.query(weighed, prepared.lang, RERANK_DEPTH);
      if (!candidates.some(isEvidence)) continue;
      const scored = scoreSentences(sentencePool(await rerank(candidates, text)), weighed, prepared.lang, index.store);
      const conflicts = findConflicts(scored, weighed, prepared.lang, text);
      if (conflicts.length > 0) return conflictResult(conflicts, threadLang === OTHER ? prepared.lang : threadLang);
    }
  }
  return null;
}

/** Whether any passage of the index is evidence for the text (the threshold of retrieval.ts). */
export function hasEvidence(index: PassageIndex, text: string, threadLang: Lang): boolean {
  const { lang, groups } = prepareQuery(index, text, threadLang);
  return index.query(groups, lang, RERANK_DEPTH).some(isEvidence);
}

/** The best coverage (retrieval.ts: the IDF-weighted share of the question's word groups) a published passage has of the text; 0 when none matches. */
export function policyCoverage(index: PassageIndex, text: string, threadLang: Lang): number {
  const { lang, groups } = prepareQuery(index, text, threadLang);
  return Math.max(0, ...index.query(groups, lang, RERANK_DEPTH).map((s) => s.coverage));
}
