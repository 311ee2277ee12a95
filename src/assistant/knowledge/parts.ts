// Multi-part questions and follow-ups, before retrieval.
//
// splitParts(): "How long do I have to return a phone, and is there a restocking fee on
// appliances?" → two questions. A text is split at question marks and at ", and" / " and" / "und"
// when a question word starts the next part; a part that is only a pronoun question ("how long
// does it take?") borrows the content words of the part before it. At most MAX_PARTS parts.
//
// withFollowUp(): an elliptical turn ("and for Elite members?", "what if it was delivered on
// Dec 18?", "und nach Österreich?") is read together with the shopper's previous question in
// the thread: the current words first, then the previous question's words it lacks.
// The words of each (question words, pronouns, follow-up openings) are the language packs'
// (src/assistant/language/: questions); a follow-up is recognised in any language.
import { alternation, packOrDefault, perRegistry, type LanguagePack } from "../language/index.js";
import { questionFrameWords, rewrite } from "./retrieval.js";
import { isStopWord, normalize, words, type Lang } from "./text.js";

export const MAX_PARTS = 3;

const patterns = perRegistry(() => {
  const alt = (pick: (q: LanguagePack["questions"]) => RegExp) => alternation((p) => pick(p.questions));
  const about = (pick: (a: LanguagePack["questions"]["aboutThat"]) => RegExp) => alt((q) => pick(q.aboutThat));
  return {
    pronounPart: new RegExp(`\\b(?:${alt((q) => q.pronouns)})\\b`),
    followUp: new RegExp(`^(?:${alt((q) => q.followUp)})\\b`),
    /**
     * "Does that include …?", "Gilt das auch für …?": a question about the previous one's subject;
     * so is doubting the previous answer ("are you sure? …", "Bist du sicher?", "really?").
     */
    asksAboutThat: new RegExp(
      `^(?:(?:${about((a) => a.connectives)})\\s+)?(?:(?:${about((a) => a.verbs)})\\s+(?:${about((a) => a.demonstratives)})\\b|(?:${about((a) => a.doubts)})\\b)`,
    ),
    pointsBack: new RegExp(`\\b(?:${alt((q) => q.pointsBack)})\\b`),
    partJoiners: alt((q) => q.partJoiners),
  };
});

function content(text: string, lang: Lang): string[] {
  return words(text).filter((w) => !isStopWord(w, lang));
}

/** A part of a question with the words it borrowed from the part before it (weighed as context). */
export interface Part {
  text: string;
  borrowed: string[];
}

export function splitParts(text: string, lang: Lang): string[] {
  return questionParts(text, lang).map((p) => (p.borrowed.length > 0 ? `${p.text} ${p.borrowed.join(" ")}` : p.text));
}

/**
 * The parts of a question; the words a pronoun part borrows are kept apart, so that retrieval
 * weighs them as context ("can I pay with amex and is it secure?": "secure" decides the second
 * part, "amex" only helps).
 */
export function questionParts(text: string, lang: Lang): Part[] {
  // Parts start with a question word of the question's language (the default language's for one without a pack).
  const questionWord = packOrDefault(lang).questions.questionWord;
  const { pronounPart, partJoiners } = patterns();
  const pieces = normalize(text)
    .split(/\?+\s*/)
    .flatMap((p) => p.split(new RegExp(`,?\\s+(?:${partJoiners})\\s+(?=${questionWord.source.slice(1)})`)))
    .map((p) => p.trim())
    // A part that is only a question about "it" ("… and how much is it?") stays: it borrows its subject below.
    .filter((p, i) => content(p, lang).length > 0 || (i > 0 && pronounPart.test(p) && questionWord.test(p)));
  if (pieces.length < 2) return [{ text, borrowed: [] }];
  const parts: Part[] = [];
  for (const p of pieces.slice(0, MAX_PARTS)) {
    const prev = parts[parts.length - 1];
    if (prev && pronounPart.test(p) && content(p, lang).length <= 2) {
      // The subject is borrowed, not the previous part's question frame ("how fast …, and what does it cost?").
      const borrowed = content(rewrite(`${prev.text} ${prev.borrowed.join(" ")}`, lang), lang).filter(
        (w) => !p.includes(w) && !questionFrameWords().has(w),
      );
      parts.push({ text: p, borrowed });
    } else parts.push({ text: p, borrowed: [] });
  }
  return parts;
}

/** Whether a turn reads as a follow-up of the one before it. */
export function isFollowUp(text: string, lang: Lang): boolean {
  const t = normalize(text).trim();
  const { followUp, pronounPart, asksAboutThat } = patterns();
  return followUp.test(t) || (content(t, lang).length <= 2 && pronounPart.test(t)) || asksAboutThat.test(t);
}

/**
 * Whether a follow-up points back at the previous question's subject ("does that include cell
 * phones?", "gilt das auch für …"): its borrowed words name what is asked about, not context.
 */
export function pointsBack(text: string): boolean {
  return patterns().pointsBack.test(normalize(text));
}

/**
 * The previous question's words a follow-up lacks (none when the turn is not a follow-up, unless
 * `always`: the turn is read in the thread's context whatever its form).
 */
export function borrowedWords(text: string, previous: string | undefined, lang: Lang, always = false): string[] {
  if (!previous || (!always && !isFollowUp(text, lang))) return [];
  const own = new Set(words(text));
  return words(previous).filter((w) => !own.has(w));
}

/**
 * The question to answer for a follow-up: its own words first, then the previous question's it
 * lacks. Retrieval weighs the borrowed words as context (retrieval.ts CONTEXT_WEIGHT): "und die
 * Rücksendung?" after "Was kostet der Versand?" asks about returns, not shipping.
 */
export function withFollowUp(text: string, previous: string | undefined, lang: Lang, always = false): string {
  const borrowed = borrowedWords(text, previous, lang, always);
  if (borrowed.length === 0) return text;
  return `${text.trim().replace(/[?.!]+$/, "")} ${borrowed.join(" ")}?`;
}
