// Extractive answers and conflicts, from the evidence passages of retrieval.ts.
//
// Sentences: every sentence of every evidence passage (no gate on the passage's rank: the sentence
// that states the asked value may sit in a lower-ranked passage) is scored by the IDF-weighted
// share of the question's groups it matches in its own text (a synonym-only match counts SYNONYM_STRENGTH), plus
// HEADING_BONUS × the share matched only by its heading path (as its own text for a table row and
// for the opening sentence under a heading that asks, an FAQ entry's answer), times its passage's relevance
// (PASSAGE_WEIGHT_FLOOR + (1 − floor) × the passage's normalised score), so that "return within
// 30 days of delivery" does not answer "how long does delivery take?" next to the shipping policy,
// and times 1 − SCOPE_PENALTY (in part) for a scope the question does not name and for an opening
// condition ("If your purchase was made with …, …") that shares none of its words. A sentence must
// match at least one real group in its own text (or be the single sentence of the best passage).
// The answer is the best sentences (at least SENTENCE_MIN_RELATIVE of the best score, at most
// MAX_SENTENCES, from at most MAX_CONCEPTS concepts), quoted verbatim and grouped per concept in the
// order of first use. Citations are exactly the concept versions whose
// sentences were used.
//
// Window: the sentence before a quoted one that refers back ("This is required …") and the one after
// that qualifies it ("Otherwise …", "… except …") are quoted with it; a quoted lead-in announcing a
// list ("… any of the following:") is quoted with its items (at most MAX_LIST_ITEMS).
//
// Conflicts: two sentences of DIFFERENT concepts — one from an evidence passage (one the answer
// may use, or one covering the question as well that ranks lower), the other from any candidate
// with at least CONFLICT_MIN_COVERAGE — conflict on the asked point when
//   1. the question asks for a quantity — a duration ("how long", "how many days", "window" …) or
//      an amount ("how much", "fee" …), or it states one itself ("after 20 days?") — and both
//      sentences state quantities of that kind (durations normalised to days; amounts in one
//      currency; percentages count as amounts); a question asking for no quantity ("how do I send
//      an item back?") has no numeric point to disagree on;
//   2. they are about the same subject: a real group of the question (its own word in both, or,
//      when neither has it, one synonym in both; text or heading), and their contexts (content words of sentence
//      and heading, numbers and units left out) overlap with a Jaccard index of at least
//      CONFLICT_MIN_CONTEXT_OVERLAP — so "return within 30 days of delivery" does not conflict with
//      "delivery takes 3–5 days"; and no policy topic the question names (returns, payment …;
//      router.policyWords) weighing more than every shared word is said by one side only — so "return
//      your order within 14 days" does not conflict with "payment within five days of your order";
//   3. their value sets are disjoint (30 days vs 14 days; "3–5 days" vs "5 days" agree).
// Then the answer is a conflict quoting both statements: no side is picked. A question that asks
// for no value but whose answer would quote one ("what's your return policy?" → "30 days") is
// checked the same way against the quoted sentences (ground.ts), except procedure questions.
import {
  PassageIndex,
  isTerse,
  VIRTUAL_DURATION,
  VIRTUAL_MONEY,
  isEvidence,
  passageTerms,
  type IndexedPassage,
  type QueryGroup,
  type Scored,
} from "./retrieval.js";
import {
  DEFAULT_LANGUAGE,
  alternation,
  languages,
  packOrDefault,
  perRegistry,
  wordAlternation,
  type LanguagePack,
} from "../language/index.js";
import { applyRewrites, asksWhoPays } from "./lexicon.js";
import { countriesOf, disagreement, factsOf, isThreshold, sameScope, scopeOf, type SentenceFacts } from "./facts.js";
import type { StoreVocabulary } from "./store-words.js";
import { mentionsWeekday, analyze, datesIn, normalize, quantities, sentences, type Lang, type Quantity } from "./text.js";
import type { AnswerConfidence, Citation, Conflict, PolicyAnswer } from "./types.js";
import { escapeMarkdown } from "../markdown/escape.js";

export const MAX_CONFLICT_PASSAGES = 30;
export const CONFLICT_MIN_COVERAGE = 0.3;
export const HEADING_BONUS = 0.25;
/** Terse passages (retrieval.ts isTerse) count their heading matches at TERSE_HEADING_BONUS. */
export const TERSE_HEADING_BONUS = 0.6;
export const PASSAGE_WEIGHT_FLOOR = 0.5;
export const SENTENCE_MIN_RELATIVE = 0.6;
export const SENTENCE_MIN_SCORE = 0.34;
export const MAX_SENTENCES = 3;
export const MAX_CONCEPTS = 2;
/** A second concept is cited only when its sentence scores at least this share of the best one. */
export const SECOND_CONCEPT_MIN_RELATIVE = 0.9;
export const CONFLICT_MIN_CONTEXT_OVERLAP = 0.1;
/**
 * Score share kept by a sentence stating no value when the question asks for one and another sentence states it;
 * below SENTENCE_MIN_RELATIVE, so at an equal score it is never quoted beside the sentence that states the value.
 */
export const VALUE_MISSING_FACTOR = 0.48;
/** Largest score cut for a sentence whose scope (members, holiday, cell phones …) the question does not name. */
export const SCOPE_PENALTY = 0.4;
/** Most list items quoted after a quoted lead-in ("… any of the following:"). */
export const MAX_LIST_ITEMS = 6;

export interface ScoredSentence {
  text: string;
  /** The passage is evidence for the question (retrieval.ts isEvidence), whatever its rank: its sentences may answer. */
  evidence: boolean;
  /** The passage's next sentence (an FAQ question's answer is pulled in with it). */
  next: string | null;
  /** The passage's previous sentence (read before a sentence that refers back to it). */
  prev: string | null;
  /** The sentence after this one as quoted (after the answer of an FAQ question). */
  after: string | null;
  citation: Citation;
  passageRank: number;
  position: number;
  /** How well the sentence itself matches the question (text share + heading bonus). */
  match: number;
  /** `match` weighted by its passage's relevance: PASSAGE_WEIGHT_FLOOR + (1 − floor) × passage score. */
  score: number;
  /** Groups matched in the sentence's own text. */
  inText: Set<QueryGroup>;
  /** Lead-in of a list item or heading holding a quantity, shown before the sentence. */
  label: string | null;
  terms: Set<string>;
  headTerms: Set<string>;
  lang: Lang;
  quantities: Quantity[];
  facts: SentenceFacts;
}

/**
 * The sentences of a passage. A table row becomes one sentence per distinct value, each with the
 * row label and the column headers holding that value ("Most products — My Best Buy Elite Plus
 * Members: 45 days"), so that a question about one column is answered with that column.
 */
export function passageSentences(passage: { text: string; labelled?: string }): string[] {
  if (!passage.labelled) return sentences(passage.text);
  const at = passage.labelled.indexOf(" — ");
  if (at < 0) return [passage.labelled];
  const label = passage.labelled.slice(0, at);
  const byValue = new Map<string, string[]>();
  for (const cell of passage.labelled.slice(at + 3).split("; ")) {
    const colon = cell.lastIndexOf(": ");
    const header = colon >= 0 ? cell.slice(0, colon) : "";
    const value = colon >= 0 ? cell.slice(colon + 2) : cell;
    byValue.set(value, [...(byValue.get(value) ?? []), header].filter(Boolean));
  }
  // A value that holds in every column holds for everyone: its headers are no scope.
  const columns = passage.labelled.slice(at + 3).split("; ").length;
  return [...byValue].map(
    ([value, headers]) => `${label} — ${headers.length > 0 && headers.length < columns ? `${headers.join(", ")}: ` : ""}${value}`,
  );
}

/**
 * The patterns of every language that read a policy sentence (its language is the policy's, not
 * the question's): the packs' answers and vocabulary members.
 */
const patterns = perRegistry(() => {
  const alt = (pick: (a: LanguagePack["answers"]) => RegExp | undefined) => alternation((p) => pick(p.answers));
  // A season is its months: names and months of every language, joined by the season's key.
  const seasons = [...new Set(languages().flatMap((p) => Object.keys(p.vocabulary.seasons)))].map((key) => {
    const of = languages().flatMap((p) => p.vocabulary.seasons[key] ?? []);
    return { names: new RegExp(`^(?:${of.map((s) => s.names.source).join("|")})`), months: of.flatMap((s) => s.months) };
  });
  const months = wordAlternation((p) => [...p.dates.months, ...(p.dates.monthAbbreviations ?? [])]);
  return {
    /** Unit and currency words (and the virtual value terms): not what two sentences' contexts share. */
    unitTerms: new Set([...languages().flatMap((p) => p.answers.unitTerms), "eur", "usd", "gbp", "chf", VIRTUAL_DURATION, VIRTUAL_MONEY]),
    seasons,
    /** A date written as a deadline. */
    deadline: new RegExp(`\\b(?:${alt((a) => a.deadline)})(?:\\d|${months})`, "i"),
    until: new RegExp(`\\b(?:${alt((a) => a.until)})\\b`, "i"),
    /** A time, though no number ("on the next business day", "am nächsten Werktag"). */
    nextDay: new RegExp(`\\b(?:${alt((a) => a.nextDay)})\\b`, "i"),
    announcesList: new RegExp(`\\b(?:${alt((a) => a.announcesList)})\\b`, "i"),
    /** A sentence that leans on the one before it. */
    refersBack: new RegExp(`^(?:${alt((a) => a.refersBack)})\\b`, "i"),
    /** A sentence that continues its predecessor's case ("In this case …", "In diesem Fall …", "Dafür …"). */
    continues: new RegExp(`^(?:${alt((a) => a.continues)})\\b`, "i"),
    /** A sentence that qualifies the one before it: an exception, a condition, a limit. */
    qualifies: new RegExp(`^(?:${alt((a) => a.qualifies.start)})\\b|\\b(?:${alt((a) => a.qualifies.anywhere)})\\b`, "i"),
    conditioned: new RegExp(`\\b(?:${alt((a) => a.conditioned)})\\b`),
    /** The question asks for a phone number / for which ones (the packs' questions.phone and .list). */
    asksPhone: new RegExp(alternation((p) => p.questions.phone) || "(?!)", "i"),
    asksList: new RegExp(alternation((p) => p.questions.list) || "(?!)", "i"),
  };
});

/** The forms of answer a question asks for beyond a value: a phone number, an enumeration ("which cards …"). */
export type AnswerForm = "phone" | "list";

export function askedForms(question: string): Set<AnswerForm> {
  const q = normalize(question);
  const forms = new Set<AnswerForm>();
  if (patterns().asksPhone.test(q)) forms.add("phone");
  if (patterns().asksList.test(q)) forms.add("list");
  return forms;
}

function context(s: ScoredSentence): Set<string> {
  const out = new Set<string>();
  const { unitTerms } = patterns();
  for (const t of [...s.terms, ...s.headTerms]) if (!/^\d/.test(t) && !unitTerms.has(t)) out.add(t);
  return out;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
}

/**
 * What is shown before a sentence so that it reads on its own: a list item's lead-in ("Buy Now,
 * Pay Later (if available):" before "Afterpay"), or the last heading when it holds a quantity the
 * sentence lacks ("Standard Shipping (5-7 Business Days)").
 */
function labelOf(passage: { heading: string; lead?: string; labelled?: string }, text: string): string | null {
  if (passage.labelled) return null;
  if (passage.lead) return passage.lead.replace(/:\s*$/, "");
  const segments = passage.heading.split(" › ");
  const last = segments.length > 1 ? segments[segments.length - 1]! : "";
  const stated = (x: string) => quantities(x).filter((q) => q.kind !== "percent").length > 0;
  if (last && stated(last) && !stated(text)) return last;
  return null;
}

interface AnalysedSentence {
  text: string;
  terms: Set<string>;
  facts: SentenceFacts;
  quantities: Quantity[];
  label: string | null;
}

/**
 * Per passage (an index's passages live as long as the index) and store vocabulary (its scope
 * words are facts): its sentences analysed once.
 */
const analysedCache = new WeakMap<IndexedPassage, { store: StoreVocabulary; sentences: AnalysedSentence[] }>();

function analysedSentences(passage: IndexedPassage, store: StoreVocabulary): AnalysedSentence[] {
  const cached = analysedCache.get(passage);
  if (cached?.store === store) return cached.sentences;
  const sentences = passageSentences(passage).map((text) => {
    const terms = passageTerms(text, passage.lang);
    const facts = factsOf(text, [...terms, ...passage.headTerms], passage.lang, store);
    // A policy or section headed by a country is scoped to it.
    for (const country of countriesOf(passage.headTerms, passage.lang)) facts.scope.add(country);
    return {
      text,
      terms,
      facts,
      quantities: quantities(text),
      label: labelOf(passage, text),
    };
  });
  analysedCache.set(passage, { store, sentences });
  return sentences;
}

/** Scores the sentences of the evidence passages (best passage first). */
export function scoreSentences(pool: Scored[], groups: QueryGroup[], lang: Lang, store: StoreVocabulary): ScoredSentence[] {
  const total = groups.reduce((s, g) => s + g.weight, 0) || 1;
  // A question naming a country ("ship to Japan?", rewritten "japan country") asks in the international scope.
  const abroad = groups.some((g) => g.alts.includes("country")) ? ["international"] : [];
  // A season is its months: "over the holidays?" asks about "received between November 15 and December 25".
  const season = patterns()
    .seasons.filter((s) => groups.some((g) => g.alts.some((a) => s.names.test(a))))
    .flatMap((s) => s.months);
  const questionScope = new Set([
    ...scopeOf([...groups.flatMap((g) => g.alts), ...abroad, ...season], lang, store),
    ...countriesOf(
      groups.flatMap((g) => g.alts),
      lang,
    ),
  ]);
  const questionTerms = new Set(groups.filter((g) => !g.virtual).flatMap((g) => g.alts));
  const out: ScoredSentence[] = [];
  const evidence = pool.filter(isEvidence);
  const best = evidence[0]?.score ?? 0;
  // The question's words some retrieved passage uses (an item the policies never name is not among them).
  const used = new Set(pool.flatMap((c) => [...c.matched]));
  pool.forEach((c, passageRank) => {
    const evidenceRank = evidence.indexOf(c);
    const analysed = analysedSentences(c.passage, store);
    const parts = analysed.map((a) => a.text);
    // Relevance relative to the best evidence passage: a passage ranked above it that is no
    // evidence (it matches too little of the question) does not lower every answer sentence.
    const relevance = best > 0 ? Math.min(1, c.score / best) : c.score;
    analysed.forEach(({ text, terms: ownTerms, facts, quantities: qs, label }, position) => {
      // A sentence that refers back ("In diesem Fall berechnen wir … 30,- €") is about its predecessor's subject too.
      const allTerms =
        position > 0 && patterns().continues.test(text) ? new Set([...ownTerms, ...analysed[position - 1]!.terms]) : ownTerms;
      // "within 30 days of delivery" is not about delivery: a duration's start event is no match.
      const terms = facts.startTerms.size > 0 ? new Set([...allTerms].filter((x) => !facts.startTerms.has(x))) : allTerms;
      const inText = new Set(groups.filter((g) => PassageIndex.matches(terms, g, lang)));
      const inHead = groups.filter(
        (g) => !inText.has(g) && (PassageIndex.matches(c.passage.headTerms, g, lang) || c.viaSection?.has(g) === true),
      );
      const textShare = [...inText].reduce((s, g) => s + g.weight * PassageIndex.strength(terms, g, lang), 0) / total;
      // A table row does not repeat its subject: its heading counts as its own text; a terse list
      // item ("Delivery timeframe: 7-21 business days") leans on its heading more than prose does.
      // An FAQ answer does not repeat its question either ("Can you combine my orders?" → "We're so
      // sorry but that's not possible"): a heading that asks is the passage's own subject.
      const terse = isTerse(c.passage);
      const answers = position === 0 && asksInHeading(c.passage);
      const headShare =
        (inHead.reduce((s, g) => s + g.weight, 0) / total) *
        (c.passage.labelled || answers ? 1 / HEADING_BONUS : terse ? TERSE_HEADING_BONUS / HEADING_BONUS : 1);
      const unasked = [...facts.scope].filter((x) => !questionScope.has(x)).length;
      const scopeFactor = facts.scope.size === 0 ? 1 : 1 - SCOPE_PENALTY * (unasked / facts.scope.size);
      // An opening condition is a scope too: one sharing no word with the question is another case
      // ("If your purchase was made with the Consumer Credit Card, you have 365 days").
      const conditionFactor = facts.condition.size === 0 || [...facts.condition].some((t) => questionTerms.has(t)) ? 1 : 1 - SCOPE_PENALTY;
      const realInText = [...inText].some((g) => !g.virtual) || (answers && inHead.some((g) => !g.virtual));
      const only = evidenceRank === 0 && parts.length === 1;
      // A terse item ("Premium service: $24.95 for eligible items") may name its subject only in its
      // heading — when nothing the question asks about that the policies name is left unnamed by both ("Sie haben 14 Tage
      // Widerrufsrecht." under "… Rücksendung …" does not answer how long the *refund* takes).
      const unnamed = groups.some((g) => !g.virtual && !g.context && used.has(g) && !inText.has(g) && !inHead.includes(g));
      const headed = terse && inHead.some((g) => !g.virtual) && [...inText].some((g) => g.virtual) && !unnamed;
      if (!realInText && !(only && !(terse && unnamed)) && !headed) return;
      out.push({
        text,
        evidence: evidenceRank >= 0,
        next: parts[position + 1] ?? null,
        prev: position > 0 ? parts[position - 1]! : null,
        after: parts[position + (asksItself(text) ? 2 : 1)] ?? null,
        citation: c.passage.citation,
        passageRank,
        position,
        match: textShare + HEADING_BONUS * headShare + (only && !realInText ? HEADING_BONUS : 0),
        score:
          (textShare + HEADING_BONUS * headShare + (only && !realInText ? HEADING_BONUS : 0)) *
          (PASSAGE_WEIGHT_FLOOR + (1 - PASSAGE_WEIGHT_FLOOR) * relevance) *
          scopeFactor *
          conditionFactor,
        inText,
        terms,
        headTerms: c.passage.headTerms,
        lang: c.passage.lang,
        quantities: qs,
        facts,
        label,
      });
    });
  });
  return out;
}

/** Whether a passage answers a question its last heading asks (an FAQ entry). */
function asksInHeading(passage: { heading: string }): boolean {
  return asksItself(passage.heading.split(" › ").at(-1) ?? "");
}

/**
 * The passages sentences are taken from, best first: evidence passages may give answer sentences;
 * every candidate with at least CONFLICT_MIN_COVERAGE (at most MAX_CONFLICT_PASSAGES) is checked
 * for conflicts with them, so a contradicting statement is seen even when it matches fewer of the
 * question's words or one policy has many passages.
 */
export function sentencePool(candidates: Scored[]): Scored[] {
  return candidates
    .filter((c) => isEvidence(c) || (c.coverage >= CONFLICT_MIN_COVERAGE && [...c.matched].some((g) => !g.virtual)))
    .slice(0, MAX_CONFLICT_PASSAGES);
}

const sameCitation = (a: Citation, b: Citation) => a.concept_id === b.concept_id && a.concept_version === b.concept_version;

/** Conflicts among the scored sentences (see the header for the rules). */
/** The kinds of quantity a question asks for (or states itself: "after 20 days?"). */
export function askedKinds(groups: QueryGroup[], question: string): Set<"duration" | "money"> {
  const asked = new Set<"duration" | "money">();
  for (const g of groups) {
    if (g.alts[0] === VIRTUAL_DURATION) asked.add("duration");
    if (g.alts[0] === VIRTUAL_MONEY) asked.add("money");
  }
  for (const q of quantities(question)) asked.add(q.kind === "duration" ? "duration" : "money");
  return asked;
}

/**
 * `options.asked` replaces the kinds the question asks for; `options.quoted` (the texts an answer
 * quotes) requires one side of every conflict to be among them.
 */
export function findConflicts(
  scored: ScoredSentence[],
  groups: QueryGroup[],
  lang: Lang,
  question = "",
  options: { asked?: Set<"duration" | "money">; quoted?: string[] } = {},
): Conflict[] {
  const asked = options.asked ?? askedKinds(groups, question);
  const quoted = options.quoted;
  const isQuoted = (x: ScoredSentence) => quoted === undefined || quoted.some((q) => q.includes(x.text));
  if (asked.size === 0) return [];
  const real = groups.filter((g) => !g.virtual);
  const hasFacts = (f: SentenceFacts) => f.durations.length + f.amounts.size + f.percents.size + f.dates.size > 0;
  // A sentence that asks (an FAQ's question: "What if I want to return a gift card … to get the 3
  // year expiry?") states no rule: its values are the asker's, not the policy's.
  const candidates = scored.filter((s) => s.match >= SENTENCE_MIN_SCORE && hasFacts(s.facts) && !asksItself(s.text));
  // Whether a sentence says a word. A question that asked for no value (options.asked) names the
  // subject in the sentences themselves: a heading ("Payment methods") does not make "you pay within
  // 14 days" and "we refund the original payment method within 5 days" one subject.
  const has = (x: ScoredSentence, terms: Set<string>, alt: string) => {
    const one = { surface: alt, alts: [alt], virtual: false, weight: 0 };
    return PassageIndex.matches(terms, one, lang) || (options.asked === undefined && PassageIndex.matches(x.headTerms, one, lang));
  };
  const check: CaseCheck = { scored, real, asked, has };
  const topicWords = topicPatterns().get(packOrDefault(lang).code)!;
  const isTopic = (g: QueryGroup) => topicWords.test(g.surface);
  const conflicts: Conflict[] = [];
  const seenPairs = new Set<string>();
  for (let i = 0; i < candidates.length; i++) {
    for (let j = i + 1; j < candidates.length; j++) {
      const a = candidates[i]!;
      const b = candidates[j]!;
      if (a.citation.concept_id === b.citation.concept_id) continue;
      // One side must be evidence for the question: a passage the answer would use, or one that
      // covers the question as well but ranks lower (a statement of the asked value next to a
      // better-ranked sentence that states none).
      if (!a.evidence && !b.evidence) continue;
      if (!isQuoted(a) && !isQuoted(b)) continue;
      const pairKey = [a.citation.concept_id, b.citation.concept_id].sort().join("|");
      if (seenPairs.has(pairKey)) continue;
      // The subject is named outside the start event: "within 30 days of delivery" is not about delivery.
      const subjectTerms = (x: ScoredSentence) => new Set([...x.terms].filter((t) => !x.facts.startTerms.has(t)));
      const termsA = subjectTerms(a);
      const termsB = subjectTerms(b);
      // The question's own word names the subject in both, or in neither and one synonym in both
      // ("Rücksendung?" — "Rückgabefrist … 30 Tage" / "zurücksenden … 100 Tagen"); a sentence that
      // has only a synonym where the other has the word itself speaks of something else.
      const subject = real.filter((g) => {
        if (!a.inText.has(g) && !b.inText.has(g)) return false;
        const ownA = has(a, termsA, g.alts[0]!);
        const ownB = has(b, termsB, g.alts[0]!);
        if (ownA || ownB) return ownA && ownB;
        return g.alts.slice(1).some((alt) => has(a, termsA, alt) && has(b, termsB, alt));
      });
      if (subject.length === 0) continue;
      // The subject is what the question is chiefly about: a policy topic the question names
      // (returns, delivery, payment …; the language pack's router.policyWords) that one side says and
      // the other does not, weighing more than every shared word, makes them statements on two
      // topics ("how long do i have to return something i ordered online": "return your order within
      // the 14 day period" and "Payments may be taken … within five days after placing your order"
      // share only "order").
      const shared = Math.max(...subject.map((g) => g.weight));
      if (real.some((g) => g.weight > shared && isTopic(g) && says(a, termsA, g, has) !== says(b, termsB, g, has))) continue;
      // A word the question names that one side says and the other does not, while the other's own
      // policy gives that case a value of its own elsewhere ("Metro postcodes: $10.00" beside the
      // same page's "Regional postcodes: $14.00", for a regional postcode): the other side is
      // another case, not a disagreement.
      if (anotherCase(a, termsA, b, termsB, check) || anotherCase(b, termsB, a, termsA, check)) continue;
      // Both sides are another case: a question word neither says, which a sentence stating a value
      // of the asked kind says together with the pair's subject ("how much is same day delivery":
      // "Same day delivery — $14.95" is the case asked; two pages disagreeing on Big & Bulky
      // delivery are not).
      if (bothAnotherCase(a, termsA, b, termsB, subject, check)) continue;
      if (jaccard(context(a), context(b)) < CONFLICT_MIN_CONTEXT_OVERLAP) continue;
      // A statement limited to a scope (members, the holiday season, cell phones …) is an
      // exception to the general rule, not a disagreement with it.
      if (!sameScope(a.facts.scope, b.facts.scope)) continue;
      const kind = disagreement(a.facts, b.facts, asked);
      if (kind === null) continue;
      seenPairs.add(pairKey);
      conflicts.push({
        point: `${subject.map((g) => g.surface).join(" ")} (${kind})`,
        citations: [a.citation, b.citation],
        statements: [a.text, b.text],
      });
    }
  }
  return conflicts;
}

/** Per language: a whole word that is one of its pack's policy topics (router.policyWords), compiled once. */
const topicPatterns = perRegistry(
  () => new Map(languages().map((p) => [p.code, new RegExp(`^(?:${p.router.policyWords.source})$`)] as const)),
);

/** Whether `x` says group `g` (in its subject terms or its heading, by any synonym). */
function says(
  x: ScoredSentence,
  terms: Set<string>,
  g: QueryGroup,
  has: (x: ScoredSentence, terms: Set<string>, alt: string) => boolean,
): boolean {
  return g.alts.some((alt) => has(x, terms, alt) || has(x, x.headTerms, alt));
}

/** Whether a sentence states a value of a kind the question asks for. */
const statesAsked = (x: ScoredSentence, asked: Set<"duration" | "money">): boolean =>
  (asked.has("duration") && x.facts.durations.length > 0) || (asked.has("money") && x.facts.amounts.size > 0);

/** What findConflicts' case checks read: the scored sentences, the question's real groups, the asked kinds, its word test. */
interface CaseCheck {
  scored: ScoredSentence[];
  real: QueryGroup[];
  asked: Set<"duration" | "money">;
  has: (x: ScoredSentence, terms: Set<string>, alt: string) => boolean;
}

/**
 * Whether `b` is another case than `a` (findConflicts): a question word `a` says and `b` does not,
 * which a sentence of `b`'s own policy says together with a value of the asked kind.
 */
function anotherCase(a: ScoredSentence, termsA: Set<string>, b: ScoredSentence, termsB: Set<string>, c: CaseCheck): boolean {
  const { scored, real, asked, has } = c;
  return real.some(
    (g) =>
      !g.context &&
      says(a, termsA, g, has) &&
      !says(b, termsB, g, has) &&
      scored.some((s) => s !== b && sameCitation(s.citation, b.citation) && statesAsked(s, asked) && says(s, s.terms, g, has)),
  );
}

/**
 * Whether the question asks about a case neither `a` nor `b` is about (findConflicts): a question
 * word neither says, which another sentence says with the pair's subject and a value of the asked kind.
 */
function bothAnotherCase(
  a: ScoredSentence,
  termsA: Set<string>,
  b: ScoredSentence,
  termsB: Set<string>,
  subject: QueryGroup[],
  c: CaseCheck,
): boolean {
  const { scored, real, asked, has } = c;
  // The sentences that could state another case: the pair's subject with a value of the asked kind
  // that is neither side's ("For online … orders, … 2–5 days" repeats one side's and confirms it).
  const cases = scored.filter(
    (s) =>
      s !== a &&
      s !== b &&
      statesAsked(s, asked) &&
      subject.every((h) => says(s, s.terms, h, has)) &&
      disagreement(s.facts, a.facts, asked) !== null &&
      disagreement(s.facts, b.facts, asked) !== null,
  );
  if (cases.length === 0) return false;
  return real.some(
    (g) =>
      !g.context &&
      !subject.includes(g) &&
      !says(a, termsA, g, has) &&
      !says(b, termsB, g, has) &&
      cases.some((s) => says(s, s.terms, g, has)),
  );
}

/** Whether a sentence is itself a question (an FAQ entry's: "What if I want to return …?"). */
function asksItself(text: string): boolean {
  return text.trimEnd().endsWith("?");
}

/** A sentence that is a question (an FAQ entry) is quoted with the sentence that answers it. */
const withAnswer = (s: ScoredSentence): string => {
  const text = asksItself(s.text) && s.next ? `${s.text} ${s.next}` : s.text;
  return s.label ? `${s.label}: ${text}` : text;
};

/** The extractive answer from scored sentences; null when no sentence qualifies. */
export function extractive(
  scored: ScoredSentence[],
  asked: Set<"duration" | "money"> = new Set(),
  question = "",
  frame: Lang = DEFAULT_LANGUAGE,
  indexed: readonly IndexedPassage[] = [],
  groups: readonly QueryGroup[] = [],
): Extract<PolicyAnswer, { kind: "answer" }> | null {
  // A question asking for a value is answered by a sentence stating one when any does.
  // A date states a deadline after "through", "until", "bis" …; "purchases made after December 25"
  // only bounds where a rule applies.
  const statesValue = (s: ScoredSentence) =>
    (asked.has("duration") &&
      (s.facts.durations.length > 0 ||
        (s.facts.dates.size > 0 && patterns().deadline.test(s.text)) ||
        mentionsWeekday(s.text) ||
        patterns().nextDay.test(s.text))) ||
    (asked.has("money") && s.facts.amounts.size + s.facts.percents.size > 0);
  const forms = askedForms(question);
  // … and one asking for a phone number or for which ones, by a sentence giving them.
  const formed = (s: ScoredSentence) => (forms.has("phone") && s.facts.phone) || (forms.has("list") && s.facts.enumeration);
  const states = (s: ScoredSentence) => statesValue(s) || formed(s);
  // A sentence giving the asked form (an enumeration, a phone number) seldom repeats the question's
  // words ("which credit cards do you take" — "We accept Visa, …"): it competes at the share of its
  // score the others keep when it wins (VALUE_MISSING_FACTOR), so it is eligible from that share of the minimum.
  const eligible = scored.filter(
    (s) => s.evidence && (s.score >= SENTENCE_MIN_SCORE || (formed(s) && s.score >= VALUE_MISSING_FACTOR * SENTENCE_MIN_SCORE)),
  );
  if (eligible.length === 0) return null;
  const valued = eligible.some(states);
  const rank = (s: ScoredSentence) => (valued && !states(s) ? VALUE_MISSING_FACTOR * s.score : s.score);
  const ranked = [...eligible].sort((a, b) => rank(b) - rank(a) || a.passageRank - b.passageRank || a.position - b.position);
  const best = rank(ranked[0]!);
  const chosen: ScoredSentence[] = [];
  const concepts: Citation[] = [];
  for (const s of ranked) {
    if (chosen.length >= MAX_SENTENCES || rank(s) < SENTENCE_MIN_RELATIVE * best) break;
    // An FAQ question is quoted with its answer: the answer is not quoted again (and vice versa).
    const faqPair = (q: ScoredSentence, a: ScoredSentence) =>
      asksItself(q.text) && q.next === a.text && sameCitation(q.citation, a.citation);
    if (
      chosen.some(
        (c) =>
          c.text === s.text ||
          c.label === s.text.replace(/:\s*$/, "") ||
          s.label === c.text.replace(/:\s*$/, "") ||
          faqPair(c, s) ||
          faqPair(s, c),
      )
    )
      continue;
    if (!concepts.some((c) => sameCitation(c, s.citation))) {
      if (concepts.length >= MAX_CONCEPTS) continue;
      if (concepts.length > 0 && rank(s) < SECOND_CONCEPT_MIN_RELATIVE * best) continue;
      concepts.push(s.citation);
    }
    chosen.push(s);
  }
  // A second policy stating the same value as the answer ("14 days of the date you receive" and
  // "14 calendar days from the time you receive") is quoted and cited with it.
  const lead = chosen[0];
  if (lead && asked.size > 0 && concepts.length < MAX_CONCEPTS) {
    // … when it speaks of no narrower product class than the answer ("You can return an appliance
    // within 15 days" does not back "Most products — 15 days" for headphones).
    const same = ranked.find(
      (s) =>
        !concepts.some((c) => sameCitation(c, s.citation)) &&
        sameValue(lead.facts, s.facts, asked) &&
        [...s.facts.productClasses].every((x) => lead.facts.scope.has(x)),
    );
    if (same) {
      concepts.push(same.citation);
      chosen.push(same);
    }
  }
  // The window around each quoted sentence: the sentence before one that refers back to it ("This
  // is required for all returns …"), the sentence after one that it qualifies ("Otherwise …",
  // "… unless …", "… except …"), so an exception or condition is not cut off.
  for (const c of [...chosen]) {
    const near = (text: string, offset: number): ScoredSentence => ({
      ...c,
      text,
      label: null,
      position: c.position + offset,
      next: null,
      prev: null,
      after: null,
    });
    const has = (text: string) =>
      chosen.some((x) => x.citation.concept_id === c.citation.concept_id && (x.text === text || (x.next === text && asksItself(x.text))));
    if (c.prev && patterns().refersBack.test(c.text) && !has(c.prev)) chosen.push(near(c.prev, -1));
    const offset = asksItself(c.text) ? 2 : 1;
    if (c.after && patterns().qualifies.test(c.after) && !has(c.after)) chosen.push(near(c.after, offset));
  }
  // A quoted lead-in ("… using any of the following:") is quoted with its list items.
  for (const c of [...chosen]) {
    // Only a lead-in that announces a list ("… any of the following:"), not a list's own heading.
    if (!/:\s*$/.test(c.text) || !patterns().announcesList.test(c.text)) continue;
    const items = indexed
      .filter((p) => p.lead !== undefined && p.lead.trim().endsWith(c.text.trim()) && sameCitation(p.citation, c.citation))
      .slice(0, MAX_LIST_ITEMS);
    chosen.push(
      ...items.map((p, i) => ({
        ...c,
        text: p.text,
        label: null,
        position: c.position + 1 + i / 100,
        next: null,
        prev: null,
        after: null,
      })),
    );
  }
  // Reading order: per concept (order of first use), then passage and sentence order.
  // List items, table cells and headings read as a list; prose sentences as a paragraph.
  const asList = chosen.length > 1 && chosen.some((s) => s.label !== null || !/[.!?]["”)]?$/.test(s.text.trim()));
  const paragraphs = concepts.map((c) => {
    const texts = chosen
      .filter((s) => sameCitation(s.citation, c))
      .sort((a, b) => a.passageRank - b.passageRank || a.position - b.position)
      .map((s) => escapeMarkdown(withAnswer(s)));
    return asList ? texts.map((t) => `- ${t}`).join("\n") : texts.join(" ");
  });
  const passages = concepts.map((c) => ({
    citation: c,
    text: chosen
      .filter((s) => sameCitation(s.citation, c))
      .map(withAnswer)
      .join(" "),
  }));
  // A Yes / No lead only when no other quoted sentence says the opposite ("… over $100 … are
  // eligible for free shipping. International orders are not eligible …").
  // … and only when the sentence says every word the question asks about: "do you do a student
  // discount" is not answered Yes by "items purchased with promotional discounts".
  const saysAll = groups
    .filter((g) => !g.virtual && !g.context)
    .every((g) => ranked[0]!.inText.has(g) || PassageIndex.matches(ranked[0]!.headTerms, g, ranked[0]!.lang));
  const yesNo = question && saysAll ? polarity(question, ranked[0]!, frame) : null;
  const opposed =
    yesNo !== null &&
    chosen.some((s) => s !== ranked[0] && polarity(question, s, frame) !== null && polarity(question, s, frame) !== yesNo);
  // "Who pays …?" is not answered by an amount.
  const leadKinds = asksWhoPays(normalize(question)) ? new Set([...asked].filter((k) => k !== "money")) : asked;
  const direct = directAnswer(ranked[0]!, leadKinds) ?? (opposed ? null : yesNo);
  const top = ranked[0]!;
  const rival = ranked.find((s) => s.passageRank !== top.passageRank || !sameCitation(s.citation, top.citation));
  const real = groups.filter((g) => !g.virtual);
  const confidence: AnswerConfidence = {
    match: top.match,
    score: rank(top),
    margin: rival ? rank(top) - rank(rival) : rank(top),
    typed: asked.size === 0 && forms.size === 0 ? null : states(top),
    coverage: real.length === 0 ? 1 : real.filter((g) => top.inText.has(g)).length / real.length,
  };
  return {
    kind: "answer",
    markdown: paragraphs.join("\n\n"),
    citations: concepts,
    passages,
    phrased_by: "extractive",
    ...(direct ? { direct } : {}),
    confidence,
  };
}

/** Whether two sentences state the same value of an asked kind (a duration from the same start event, an amount, a percentage). */
function sameValue(a: SentenceFacts, b: SentenceFacts, asked: Set<"duration" | "money">): boolean {
  if (
    asked.has("duration") &&
    a.durations.some((x) => b.durations.some((y) => x.days === y.days && (x.start === y.start || x.start === null || y.start === null)))
  )
    return true;
  if (asked.has("money") && ([...a.amounts].some((x) => b.amounts.has(x)) || [...a.percents].some((x) => b.percents.has(x)))) return true;
  return false;
}

/** A value found in the normalised text, as the sentence writes it ("14 Tagen", not "14 tagen"). */
function asWritten(text: string, found: string): string {
  const at = normalize(text).indexOf(found);
  return at >= 0 && normalize(text).length === text.length ? text.slice(at, at + found.length) : found;
}

/**
 * The direct answer to a question asking for a duration, a deadline or an amount: the value as
 * the best sentence states it ("90 days", "January 14, 2020", "$12.95", "15%"), never computed.
 */
export function directAnswer(best: ScoredSentence, asked: Set<"duration" | "money">): string | null {
  const text = best.label && quantities(best.text).length === 0 ? best.label : best.text;
  if (asked.has("duration")) {
    const dates = datesIn(text);
    const d = quantities(text).find((q) => q.kind === "duration");
    if (dates.length > 0 && (!d || patterns().until.test(text)))
      return dates[dates.length - 1]!.text.replace(/^\w/, (c) => c.toUpperCase());
    if (d) return asWritten(text, d.text);
  }
  if (asked.has("money")) {
    // A threshold ("orders over $100") is a condition, not the price asked for.
    const m = quantities(text).find((q) => (q.kind === "money" || q.kind === "percent") && !isThreshold(text, q.text));
    if (m) return asWritten(text, m.text);
  }
  return null;
}

/**
 * "Yes" / "No" before the quote of a yes/no question ("Do gift cards expire?" → No: "Gift cards do
 * not expire."), only when the best sentence states it plainly: a negation without a condition, or
 * a permission or requirement (can, may, must, required …) without one. Anything conditioned, or a
 * question that is itself negated, gets no lead: the quote speaks for itself.
 */
export function polarity(question: string, best: ScoredSentence, frame: Lang): string | null {
  // The question is read in the framing language, the quote in its policy's (the default language for one without a pack).
  const quotedIn = packOrDefault(best.lang);
  const asked = packOrDefault(frame);
  // The asking clause is the last one ("I have order 55123 paid with a gift card, do gift cards expire?").
  const q =
    normalize(question)
      .trim()
      .split(/[,;:]\s*|\s[-–—]\s/)
      .filter(Boolean)
      .pop() ?? "";
  if (!asked.answers.yesNoQuestion.test(q) || asked.answers.negative.test(q)) return null;
  // An FAQ question is answered by the sentence after it; an idiom may say yes ("No problem.").
  const quoted = asksItself(best.text) && best.next ? best.next : best.text;
  const text = applyRewrites(normalize(quoted), quotedIn.rewrites.yesIdioms);
  if (patterns().conditioned.test(text)) return null;
  if (quotedIn.answers.negative.test(text)) return asked.replies.no;
  if (quotedIn.answers.positive.test(text)) return asked.replies.yes;
  return null;
}

/** What joins the leads of a multi-part answer's parts in `direct` ("Yes · 45 days"). */
export const LEAD_SEPARATOR = " · ";

/** Whether a lead is the Yes or the No lead, in any framing language; null for a quoted value. */
export function yesNoLead(lead: string): "yes" | "no" | null {
  return languages().some((p) => p.replies.yes === lead) ? "yes" : languages().some((p) => p.replies.no === lead) ? "no" : null;
}

/** Whether a text states a negation, in any language (what a "No" lead says). */
export function statesNegation(text: string): boolean {
  const t = normalize(text);
  return languages().some((p) => p.answers.negative.test(t));
}

/**
 * An answer's lead (`direct`) framed in `lang`: a Yes / No lead (of each part: "Yes · **45 days**"
 * is joined by LEAD_SEPARATOR) in that language; a quoted value stays as it is.
 */
export function reframeLead(direct: string, lang: Lang): string {
  const to = packOrDefault(lang).replies;
  return direct
    .split(LEAD_SEPARATOR)
    .map((d) => {
      const yn = yesNoLead(d);
      return yn ? to[yn] : d;
    })
    .join(LEAD_SEPARATOR);
}

/**
 * Markdown of a conflict: the statements quoted with their policy's title, each once however many
 * of the conflicts it is a side of; no side picked.
 */
export function conflictMarkdown(conflicts: Conflict[], lang: Lang): string {
  const lines = conflicts.flatMap((c) =>
    c.citations.map((cit, i) => `- **${escapeMarkdown(cit.title)}**: “${escapeMarkdown(c.statements[i] ?? "")}”`),
  );
  return [packOrDefault(lang).replies.conflict, "", ...new Set(lines)].join("\n");
}

export function noEvidenceMarkdown(lang: Lang): string {
  return packOrDefault(lang).replies.noEvidence;
}

/** Content terms used by the LLM check (words of the cited passages). */
export function citedTerms(passages: Array<{ text: string }>, lang: Lang): Set<string> {
  return new Set(passages.flatMap((p) => analyze(p.text, lang)));
}
