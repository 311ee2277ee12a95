// Retrieval over a store's published policy passages.
//
// Index: one MiniSearch index (BM25+ ranking) per store and thread language, over the passages of
// the newest version of every concept when that version is published (an unpublished newest
// version takes the concept out of answers; older published versions are not used). Policies
// whose locale has the thread's language are used; when the store has none in that language, all
// its published policies are (each analysed in its own language). Documents are analysed here
// (stop words, stemming: text.ts) and handed to MiniSearch pre-tokenised; in a language that writes
// compounds as one word (German: its pack's words.compounds) terms of four letters or more are
// matched as prefixes so that "versand" finds the compound "versandkosten".
//
// Query: the shopper's words become *groups* — one group per content word with its synonyms
// (the language pack's vocabulary.synonyms and the store's own: store-words.ts) — plus two virtual groups: `qdur` when the question
// asks for a duration ("how long", "how many days", "window", "wie lange", "Frist" …: the pack's
// questions.duration) and `qmoney` when it asks for an amount ("how much", "cost", "fee", "wie
// viel", "Gebühr" …); passages stating a duration / an amount carry the matching virtual term.
//
// German compounds: besides the prefix/suffix matching above, a question word the policies never use
// is split into modifier + head when the policies use the head ("Versandkosten" → versand + kosten,
// meeting "Lieferkosten"); a generic head ("Rückgaberegelung") leaves the modifier. An English
// closed compound no dictionary knows is read the same way ("ebike" → bike). Further virtual
// groups: `qhow` (a procedure is asked) and `qstart` ("ab wann zählt die Frist?": the event a period
// starts with). Not having something ("I lost the receipt", "ohne Quittung") is rewritten to one
// term and weighed as the question's crux (full weight, BM25 boost, never context).
//
// Evidence: a passage is evidence when its *coverage* — the IDF-weighted share of the query's
// groups it matches (text or heading; a word the store's policies never use weighs half the rarest
// word's, UNKNOWN_WORD_WEIGHT; an item the policies never name beside a policy topic they hold a
// tenth, UNKNOWN_OBJECT_WEIGHT; a name that neither they nor the language's dictionary know, in a
// question without such a topic, as much as the rarest: "do you take afterpay" asks about
// Afterpay) — is at least EVIDENCE_MIN_COVERAGE and it matches at least one real (non-virtual)
// group. Embeddings never admit a passage on their own: they only re-rank evidence.
//
// Embedding re-rank (only when ctx.model is loaded): the top RERANK_DEPTH passages by BM25 are
// scored `EMBED_BLEND_BM25 × bm25 / top bm25 + (1 − EMBED_BLEND_BM25) × max(0, cosine(query,
// passage))`, with passage vectors cached in the store's index entry.
import MiniSearch from "minisearch";
import { DamerauLevenshteinDistance } from "natural/lib/natural/distance/index.js";
import { OTHER, alternation, languagePack, languages, perRegistry, type LanguagePack } from "../language/index.js";
import { statesFree } from "./facts.js";
import { learnedAlternatives } from "./associations.js";
import { applyRewrites, asksWhoPays, countryWords, goods, markCountries } from "./lexicon.js";
import { NO_STORE_WORDS, type StoreVocabulary } from "./store-words.js";
import {
  analyze,
  hasDate,
  isStopWord,
  langOf,
  mentionsWeekday,
  normalize,
  numberWords,
  quantities,
  stem,
  stopWords,
  words,
  type Lang,
} from "./text.js";

/** Whether a word is one typo away from a stop word of 5+ letters. */
function nearStopWord(word: string, lang: Lang): boolean {
  if (word.length < 5) return false;
  for (const w of stopWords(lang))
    if (w.length >= 5 && Math.abs(w.length - word.length) <= 1 && DamerauLevenshteinDistance(word, w) <= 1) return true;
  return false;
}
import type { Passage } from "./passages.js";

export const EVIDENCE_MIN_COVERAGE = 0.5;
/** A passage of at most this many words is a terse item that leans on its heading (isTerse). */
export const TERSE_ITEM_WORDS = 12;

/** A passage of at most TERSE_ITEM_WORDS words: a terse item ("Flat rate: $12.95") that leans on its heading. */
export function isTerse(p: { text: string }): boolean {
  return p.text.split(/\s+/).length <= TERSE_ITEM_WORDS;
}
/** Weight of a match through a synonym only, in coverage, sentence scores and BM25 (term boost). */
export const SYNONYM_STRENGTH = 0.6;
/** Shortest stem whose derived words are its alternatives (shorter stems begin too many unrelated words). */
const MIN_DERIVED_STEM = 4;
export const RERANK_DEPTH = 30;
export const EMBED_BLEND_BM25 = 0.8;
const HEAD_BOOST = 0.5;
/** BM25 term boost of the condition a question hinges on ("without receipt"). */
const CRUX_BOOST = 3;

/**
 * Weight (share of the rarest word's) of a word the policies never use: it counts against the
 * evidence (a question about "gift wrapping" is not answered from "gift cards"), but one stray word
 * of a long question ("I *lost* the receipt, can I return a chair?") does not sink it.
 */
export const UNKNOWN_WORD_WEIGHT = 0.5;
/** Weight (share of the rarest word's) of an item the policies never name when the question names a policy topic. */
export const UNKNOWN_OBJECT_WEIGHT = 0.1;

export const VIRTUAL_DURATION = "qdur";
export const VIRTUAL_MONEY = "qmoney";
export const VIRTUAL_HOW = "qhow";
export const VIRTUAL_START = "qstart";

/**
 * Patterns of every language: a passage is read whatever the question's language, and the words
 * that frame a question (not its subject) are dropped whatever language they are in.
 * - startPassage: a passage names the event a period starts with; it carries `qstart` ("From when
 *   does it count?" asks for that event: the pack's questions.start).
 * - howPassage: a passage names a channel or a step; it carries `qhow` ("How do I return …?" asks
 *   for a procedure: questions.how).
 */
const shared = perRegistry(() => {
  const wordSet = (pick: (q: LanguagePack["questions"]) => readonly string[]) => new Set(languages().flatMap((p) => pick(p.questions)));
  const orders = (pick: (o: LanguagePack["vocabulary"]["orders"]) => RegExp) => alternation((p) => pick(p.vocabulary.orders));
  return {
    startPassage: new RegExp(`\\b(?:${alternation((p) => p.questions.startPassage)})\\b`),
    howPassage: new RegExp(`\\b(?:${alternation((p) => p.questions.howPassage)})\\b`),
    /** The words of a start question's frame, dropped from its groups. */
    startWords: wordSet((q) => q.startWords),
    /** Nouns of the period itself: with a start question they name the subject ("ab wann zählt die Frist?"). */
    periodNouns: wordSet((q) => q.periodNouns),
    durationWords: wordSet((q) => q.durationWords),
    moneyWords: wordSet((q) => q.moneyWords),
    listWords: wordSet((q) => q.listWords ?? []),
    /** When the shopper did something ("last month", "yesterday", "vor 2 Wochen", "letzte Woche"): circumstance, not subject. */
    timeReference: new RegExp(`\\b(?:${alternation((p) => p.questions.timeReference)})\\b`, "gu"),
    /** A stated duration that dates the shopper's purchase ("3 weeks ago", "vor 2 Monaten"). */
    ago: new RegExp(`\\b(?:${alternation((p) => p.questions.ago)})\\b`),
    /** Order numbers ("order #1234", "order number BBY01-806123", "Bestellung 4711") name no subject. */
    orderReference: new RegExp(
      `\\b(?:${orders((o) => o.words)})\\s*(?:${orders((o) => o.number)}|id)?\\s*(?:(?:${orders((o) => o.is)})\\s+)?#?\\s*[\\p{L}]*-?\\d[\\p{L}\\p{N}-]*|#\\s?\\d[\\p{L}\\p{N}-]*`,
      "gu",
    ),
    /** Not having something ("without receipt", "ohne Quittung"), as the packs' phrases rewrite it. */
    without: new RegExp(`\\b(?:${alternation((p) => p.questions.without)})\\s+(\\p{L}+)`, "gu"),
  };
});

export interface IndexedPassage extends Passage {
  lang: Lang;
  /** Analysed terms of the text, plus virtual terms. */
  terms: Set<string>;
  /** Analysed terms of the heading path. */
  headTerms: Set<string>;
  /** Words of heading and text (after rewrites) → stem, for typo correction. */
  vocabulary: Array<[string, string]>;
}

/**
 * A passage analysed once (terms, heading terms, vocabulary). An index is built from analysed
 * passages, so a store whose one policy changed re-analyses only that policy's passages
 * (index.ts keeps them per concept version); the sentence analysis of compose.ts is cached per
 * analysed passage object and so survives the rebuild too.
 */
export function analysePassage(p: Passage): IndexedPassage {
  const lang = langOf(p.locale);
  // A list item is matched with its lead-in ("Buy Now, Pay Later (if available): Afterpay").
  const body = p.labelled ?? (p.lead ? `${p.lead} ${p.text}` : p.text);
  const vocabulary: Array<[string, string]> = [];
  for (const w of words(rewrite(`${p.heading} ${body}`, lang)))
    if (w.length >= 3 && !/^\d/.test(w) && !isStopWord(w, lang)) vocabulary.push([w, stem(w, lang)]);
  // A word as the policy writes it, before a rewrite replaced it ("zurückschicken" → rückgabe), so
  // that a misspelling of it ("zurückschiken") is corrected to what it means.
  const rewritten = new Set(vocabulary.map(([w]) => w));
  for (const w of words(normalize(`${p.heading} ${body}`))) {
    if (w.length < 5 || rewritten.has(w) || /\d/.test(w) || isStopWord(w, lang)) continue;
    const meant = words(rewrite(w, lang)).find((x) => !isStopWord(x, lang));
    if (meant) vocabulary.push([w, stem(meant, lang)]);
  }
  return { ...p, lang, terms: passageTerms(body, lang), headTerms: passageTerms(p.heading, lang), vocabulary };
}

export interface QueryGroup {
  /** The shopper's word (or phrase) this group stands for. */
  surface: string;
  alts: string[];
  virtual: boolean;
  weight: number;
  /** The word occurs only in a clause that states the shopper's circumstances ("I ordered online, …"). */
  context?: boolean;
  /** The condition the question hinges on ("without receipt"): weighed as the rarest word. */
  crux?: boolean;
  /** A virtual value group the question asks for outright ("how much", "how long", "wie viel"): evidence must state the value. */
  required?: boolean;
}

/**
 * Weight (share of its IDF weight) of a word that occurs only in a declarative clause about the
 * shopper ("I ordered online", "my order number is …", "ich habe … bestellt") next to the clause that
 * asks: it still finds and ranks passages and names a scope, but it no longer decides the evidence
 * threshold on its own.
 */
export const CONTEXT_WEIGHT = 0.35;

/**
 * Words said only in clauses that state the shopper's circumstances, when another clause asks the
 * question. Clauses are split at punctuation; a clause starting with the shopper as subject
 * ("I …", "my …", "ich …") and not asking anything is context.
 */
export function contextWords(text: string, lang: Lang): Set<string> {
  const q = languagePack(lang)?.questions;
  if (!q) return new Set();
  // "a washer I ordered online": a subject pronoun after a noun starts a relative clause (the pack's clauseMarks).
  const marked = applyRewrites(normalize(text), q.clauseMarks);
  const clauses = marked
    .split(/[,;:.!?]+|\s[-–—]\s/)
    .map((c) => c.trim())
    .filter(Boolean);
  if (clauses.length < 2) return new Set();
  // A clause of circumstances: "I ordered online", or one whose subject was left out ("got one last week").
  const isContext = (c: string) => (q.contextClause.test(c) || (q.narrativeClause?.(c) ?? false)) && !q.askingClause.test(c);
  const asking = clauses.filter((c) => !isContext(c));
  if (asking.length === 0 || asking.length === clauses.length) return new Set();
  const main = new Set(asking.flatMap((c) => words(c)));
  return new Set(
    clauses
      .filter(isContext)
      .flatMap((c) => words(c))
      .filter((w) => !main.has(w)),
  );
}

/** An identifier (order number, SKU: letters and digits mixed, or 5+ digits) names no subject. */
const IDENTIFIER = /^(?=.*\d)(?=.*\p{L})[\p{L}\p{N}]+$|^\d{5,}$/u;

export interface Scored {
  passage: IndexedPassage;
  bm25: number;
  score: number;
  coverage: number;
  matched: Set<QueryGroup>;
  /** The question asks outright for a duration or an amount and the passage states none (not evidence). */
  valueMissing?: boolean;
  /** Groups a terse item matches only through another passage of its section ("Japan" for "Standard International: $19.95"). */
  viaSection?: Set<QueryGroup>;
}

// --- synonyms and question phrases --------------------------------------------------------------

/**
 * A word's stem with its synonyms (the stem first): the group of the language's synonyms that the
 * stem leads, the store's own synonyms of it, then the stems of the words derived from its root
 * that extend the stem by a suffix ("expire" → expiration, "sign" → signature; not "expend" for
 * "expensive", whose root differs, nor "member" for "membership", which says less), then the words
 * shoppers' questions were learned to stand for (associations.ts: "smash" → damag).
 */
function groupAlts(word: string, lang: Lang, store: StoreVocabulary): string[] {
  const s = stem(word, lang);
  const syn = languagePack(lang)?.vocabulary.synonyms.find((g) => g[0] === s);
  const derived =
    s.length < MIN_DERIVED_STEM
      ? []
      : (languagePack(lang)?.words.derivedWords?.(word) ?? [])
          .map((w) => stem(w, lang))
          .filter((d) => d.length > s.length && d.startsWith(s));
  return [...new Set([...(syn ?? [s]), ...store.synonymsOf(s, lang), ...derived, ...learnedAlternatives(s, lang)])];
}

/** Words that frame a question for a duration or an amount ("how long", "how fast", "cost"), not its subject. */
export const questionFrameWords = perRegistry((): ReadonlySet<string> => new Set([...shared().durationWords, ...shared().moneyWords]));

export function rewrite(text: string, lang: Lang): string {
  const t = normalize(text);
  const pack = languagePack(lang);
  if (!pack) return t;
  const { joinVerbParts, shorthand, phrases } = pack.rewrites;
  return applyRewrites(applyRewrites(joinVerbParts ? joinVerbParts(t) : t, shorthand), phrases);
}

/** Analyses a passage's text in its own language (with phrase rewrites and virtual terms). */
export function passageTerms(text: string, lang: Lang): Set<string> {
  const terms = new Set(analyze(rewrite(text, lang), lang));
  for (const q of quantities(text)) {
    if (q.kind === "duration") terms.add(VIRTUAL_DURATION);
    // A percentage (a restocking fee of 15%) is an amount too.
    if (q.kind === "money" || q.kind === "percent") terms.add(VIRTUAL_MONEY);
  }
  // "Free" (kostenlos) states an amount: zero.
  if (statesFree(normalize(text))) terms.add(VIRTUAL_MONEY);
  // A deadline ("through January 14, 2020") or a weekday ("on the following Monday") answers "when".
  if (hasDate(text) || mentionsWeekday(text)) terms.add(VIRTUAL_DURATION);
  if (shared().howPassage.test(normalize(text))) terms.add(VIRTUAL_HOW);
  if (shared().startPassage.test(normalize(text))) terms.add(VIRTUAL_START);
  return terms;
}

/** Most edits a misspelling may be from the word meant: 1, and 2 from 8 letters. */
export function typoLimit(word: string): number {
  return word.length >= 8 ? 2 : 1;
}

/**
 * The candidate within Damerau-Levenshtein distance `max` (default typoLimit) of `word`, the
 * closest first; on a tie the first found, unless `prefer(a, b)` says candidate a beats b.
 * `admit` skips candidates before the distance is computed.
 */
export function nearestWord<T>(
  word: string,
  candidates: Iterable<readonly [string, T]>,
  options: { max?: number; admit?: (candidate: string) => boolean; prefer?: (a: T, b: T) => boolean } = {},
): { word: string; value: T; d: number } | null {
  const max = options.max ?? typoLimit(word);
  let best: { word: string; value: T; d: number } | null = null;
  for (const [candidate, value] of candidates) {
    if (Math.abs(candidate.length - word.length) > max || (options.admit && !options.admit(candidate))) continue;
    const d = DamerauLevenshteinDistance(word, candidate);
    if (d > max) continue;
    if (!best || d < best.d || (d === best.d && options.prefer?.(value, best.value) === true)) best = { word: candidate, value, d };
  }
  return best;
}

/**
 * Misspelt words of a question corrected against a given vocabulary (the words a translation
 * table knows, lexicon.ts commerceVocabulary): a word of 4+ letters the language's dictionary
 * (words.isKnownWord: WordNet for English) does not know is replaced by the vocabulary word within
 * Damerau-Levenshtein distance 1 (2 for 8+ letters), the first such word on a tie ("retrun windwo"
 * → "return window"). A language without a dictionary is left as it is (nothing tells its typos
 * from rare words).
 */
export function correctWords(text: string, vocabulary: readonly string[], lang: Lang): string {
  const isKnownWord = languagePack(lang)?.words.isKnownWord;
  if (!isKnownWord) return text;
  return text.replace(/\p{L}{4,}/gu, (w) => {
    if (isKnownWord(w) || vocabulary.includes(w)) return w;
    return (
      nearestWord(
        w,
        vocabulary.map((v) => [v, v] as const),
      )?.word ?? w
    );
  });
}

/** The groups of a question (before weighting). */
export function queryGroups(
  text: string,
  lang: Lang,
  borrowed?: ReadonlySet<string>,
  store: StoreVocabulary = NO_STORE_WORDS,
): Array<Omit<QueryGroup, "weight">> {
  const { orderReference, timeReference, ago, without, startWords, periodNouns, durationWords, moneyWords, listWords } = shared();
  const rewritten = markCountries(rewrite(text, lang).replace(orderReference, " ").replace(timeReference, " "), lang);
  const groups: Array<Omit<QueryGroup, "weight">> = [];
  // What the question asks for, in its own language's question patterns (none in a language without a pack).
  const questions = languagePack(lang)?.questions;
  const asksDuration = questions !== undefined && questions.duration.test(rewritten);
  const asksMoney = questions !== undefined && !asksWhoPays(normalize(text)) && questions.money.test(rewritten);
  const outright = questions !== undefined && questions.asksValue.test(rewritten) ? { required: true } : {};
  if (asksDuration) groups.push({ surface: "duration", alts: [VIRTUAL_DURATION], virtual: true, ...outright });
  if (questions !== undefined && !asksDuration && questions.how.test(rewritten))
    groups.push({ surface: "procedure", alts: [VIRTUAL_HOW], virtual: true });
  if (asksMoney) groups.push({ surface: "amount", alts: [VIRTUAL_MONEY], virtual: true, ...outright });
  const asksList = questions?.list?.test(rewritten) === true;
  const asksStart = questions !== undefined && questions.start.test(rewritten);
  if (asksStart) groups.push({ surface: "start", alts: [VIRTUAL_START], virtual: true });
  const seen = new Set<string>();
  // A number inside a quantity the question states ("10 days after I ordered") is context, not a subject word.
  // A duration the shopper states about their own purchase ("3 weeks ago") is context too, unit included.
  const stated = new Set(
    quantities(rewritten).flatMap((q) =>
      words(q.text).filter((w) => /^\d/.test(w) || q.kind === "money" || (q.kind === "duration" && ago.test(rewritten))),
    ),
  );
  const context = contextWords(rewritten, lang);
  // Not having something ("I lost the receipt, …") is the condition the question hinges on, never mere context.
  const crux = new Set<string>();
  for (const m of rewritten.matchAll(without)) {
    for (const w of [m[0].split(/\s+/)[0]!, m[1]!]) {
      context.delete(w);
      crux.add(w);
    }
  }
  // The day an order is placed ("I ordered on Saturday", "friday night") decides when it is processed.
  for (const w of words(rewritten))
    if (mentionsWeekday(w)) {
      context.delete(w);
      crux.add(w);
    }
  for (const w of borrowed ?? []) for (const x of [normalize(w), ...words(markCountries(normalize(w), lang, ""))]) context.add(x);
  // The words that ask for the start ("ab wann zählt …") frame the question; "zählt" is no "zahlt".
  // Only the frame words go: "when does processing start?" still asks about processing.
  const unframed = asksStart
    ? rewritten.replace(
        new RegExp(questions.start.source, "gu"),
        (m) =>
          ` ${words(m)
            .filter((w) => !startWords.has(w))
            .join(" ")} `,
      )
    : rewritten;
  for (const w of words(unframed)) {
    // A bare number outside a stated quantity is a model or reference number ("Kobra 3"), no subject;
    // a number word counts something ("on one order", "two gift cards"), and names no subject either.
    if (stated.has(w) || IDENTIFIER.test(w) || /^\d+$/.test(w) || numberWords()[w] !== undefined) continue;
    if (isStopWord(w, lang)) continue;
    if (asksDuration && durationWords.has(w) && !(asksStart && periodNouns.has(w))) continue;
    if (asksMoney && moneyWords.has(w)) continue;
    if (asksList && listWords.has(w)) continue;
    const s = stem(w, lang);
    if (!s || seen.has(s)) continue;
    seen.add(s);
    groups.push({
      surface: w,
      alts: groupAlts(w, lang, store),
      virtual: false,
      ...(context.has(w) ? { context: true } : {}),
      ...(crux.has(w) ? { crux: true } : {}),
    });
  }
  return groups;
}

// --- the index ----------------------------------------------------------------------------------

/** The compound rules of a language that writes compounds as one word (its pack's words.compounds), compiled. */
interface CompoundRules {
  /** A remainder of one or two letters the stemmer left ("zahl" → "zahlt"): no compound part. */
  inflection: RegExp;
  /** A compound head that names no subject ("Rückgaberegelung", "Versandbedingungen"). */
  genericHead: RegExp;
  /** A linking element ending a compound's first part ("Rücktritt-s-frist"). */
  linking: RegExp;
  /** Stems of function words, which are no compound part ("weit" of "weitere" does not begin "weiterschenken"). */
  functionStems: Set<string>;
}

const compoundRules = perRegistry(() => {
  const out = new Map<Lang, CompoundRules>();
  for (const p of languages()) {
    const c = p.words.compounds;
    if (c)
      out.set(p.code, {
        inflection: new RegExp(`^(?:${c.inflection.source})$`),
        genericHead: new RegExp(`^(?:${c.genericHeads.source})$`),
        linking: new RegExp(`(?:${c.linking.source})$`),
        functionStems: functionStems(c.functionWords ?? [], p.questions.durationWords, p.code),
      });
  }
  return out;
});

/** Stems of a stop list's words, less those of words of time ("Jahr" of "Jahresgebühr", "Zeit" stay compound parts). */
function functionStems(functionWords: readonly string[], timeWords: readonly string[], lang: Lang): Set<string> {
  const time = new Set(timeWords.map((w) => stem(w, lang)));
  return new Set(functionWords.map((w) => stem(w, lang)).filter((s) => !time.has(s)));
}

/** The compound rules a group is matched with: its language's, for a real (non-virtual) group. */
const compoundsFor = (lang: Lang, virtual = false): CompoundRules | undefined => (virtual ? undefined : compoundRules().get(lang));

export interface VectorCache {
  get(id: string): Float32Array | undefined;
  set(id: string, v: Float32Array): void;
}

export class PassageIndex {
  private readonly search: MiniSearch<{ id: string; body: string; head: string }>;
  private readonly byId = new Map<string, IndexedPassage>();
  readonly passages: IndexedPassage[];
  /** Passage vectors for the embedding re-rank, by passage id. */
  readonly vectors = new Map<string, Float32Array>();

  /** Every word of the passages (after rewrites) → its stem, for typo correction. */
  private readonly vocabulary = new Map<string, string>();

  /** `store`: the store's own vocabulary (its synonyms, scope and product words). */
  constructor(
    passages: Array<Passage | IndexedPassage>,
    readonly store: StoreVocabulary = NO_STORE_WORDS,
  ) {
    this.passages = passages.map((p) => ("terms" in p ? p : analysePassage(p)));
    for (const p of this.passages) for (const [w, s] of p.vocabulary) this.vocabulary.set(w, s);
    this.search = new MiniSearch({
      fields: ["body", "head"],
      idField: "id",
      tokenize: (s) => s.split(" ").filter(Boolean),
      processTerm: (t) => t,
    });
    for (const p of this.passages) this.byId.set(p.id, p);
    // The passages of one section (same policy and heading) name the subject of its terse items.
    for (const p of this.passages) {
      if (p.labelled !== undefined) continue;
      const key = sectionKey(p);
      const list = this.sections.get(key) ?? [];
      list.push(p);
      this.sections.set(key, list);
    }
    // A table row or a terse list item ("Flat rate: $12.95" under "Express Shipping") does not
    // repeat its subject: its heading is indexed as its text too.
    const leansOnHeading = (p: IndexedPassage) => p.labelled !== undefined || isTerse(p);
    this.search.addAll(
      this.passages.map((p) => ({
        id: p.id,
        body: [...p.terms, ...(leansOnHeading(p) ? p.headTerms : [])].join(" "),
        head: [...p.headTerms].join(" "),
      })),
    );
  }

  get size(): number {
    return this.passages.length;
  }

  /**
   * The language to analyse a question in: the thread's when supported, else (a thread in a
   * language without analyser, answered from the fallback set) the most common passage language.
   */
  queryLang(lang: Lang): Lang {
    if (lang !== OTHER && (this.passages.length === 0 || this.passages.some((p) => p.lang === lang))) return lang;
    const counts = new Map<Lang, number>();
    for (const p of this.passages) counts.set(p.lang, (counts.get(p.lang) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? OTHER;
  }

  /**
   * Whether a term set holds `alt`; in a language of compounds (`compound`: German) also as the
   * first part of a compound (prefix, 4+ letters: versand → versandkosten) or its last part
   * (suffix, 5+ letters: versand → standardversand).
   */
  private static has(terms: Set<string>, alt: string, compound: CompoundRules | undefined): boolean {
    if (terms.has(alt)) return true;
    if (!compound || alt.length < 3) return false;
    // German compounds either way: versand → versandkosten / standardversand, and
    // rücksendeetikett → etikett (a policy word of 5+ letters ending or starting the question's).
    // One word begins the other (4+ letters) and the rest is a compound part (3+ letters) or an
    // inflection the stemmer left ("zahl" → "zahlt"; "liefert" → "liefer" of "Lieferung"), not
    // another word ("angeb" is not "angebot(ene)"). Either way round.
    // A function word (a kept stop-word list) is no compound part: "weiteren" does not begin
    // "weiterschenken"; an inflection it carries still counts. Words of time stay parts (below).
    const begins = (short: string, long: string) =>
      short.length >= 4 &&
      long.startsWith(short) &&
      (long.length - short.length > 2 ? !compound.functionStems.has(short) : compound.inflection.test(long.slice(short.length)));
    for (const t of terms) {
      // A short head ends a long compound only ("frist" → "rücktrittsfrist", "kosten" → "lieferkosten").
      if (begins(alt, t) || ((alt.length >= 5 || t.length >= alt.length + 6) && t.endsWith(alt))) return true;
      if (!t.startsWith("q") && (begins(t, alt) || (t.length >= 4 && alt.length >= t.length + 3 && alt.endsWith(t)))) return true;
    }
    return false;
  }

  /** 1 when the group's own word occurs, SYNONYM_STRENGTH when only a synonym does, else 0. */
  static strength(terms: Set<string>, group: QueryGroup, lang: Lang): number {
    const compound = compoundsFor(lang, group.virtual);
    if (PassageIndex.has(terms, group.alts[0]!, compound)) return 1;
    return group.alts.slice(1).some((a) => PassageIndex.has(terms, a, compound)) ? SYNONYM_STRENGTH : 0;
  }

  /** Whether a term set contains any alternative of a group (prefix rule of the query language). */
  static matches(terms: Set<string>, group: QueryGroup, lang: Lang): boolean {
    return group.alts.some((a) => PassageIndex.has(terms, a, compoundsFor(lang, group.virtual)));
  }

  /** Passages per section (see sectionKey), table rows left out. */
  private readonly sections = new Map<string, IndexedPassage[]>();
  private readonly dfCache = new Map<string, number>();
  private readonly compoundCache = new Map<string, string[]>();
  private allTerms: string[] | null = null;

  /**
   * In a language of compounds: the index terms a question term meets as a compound part either
   * way (see has()): "rücksendeetikett" → "etikett" of "Retouren-Etikett", "versand" →
   * "versandkosten". BM25 candidates are searched with them, so a passage that coverage would
   * accept is also found.
   */
  private compoundTerms(alt: string, compound: CompoundRules): string[] {
    let out = this.compoundCache.get(alt);
    if (!out) {
      this.allTerms ??= [...new Set(this.passages.flatMap((p) => [...p.terms, ...p.headTerms]))].filter(
        (t) => !/^q(?:dur|money|how|start)$/.test(t),
      );
      out = this.allTerms.filter((t) => t !== alt && !t.startsWith(alt) && PassageIndex.has(new Set([t]), alt, compound)).slice(0, 16);
      if (this.compoundCache.size < 20_000) this.compoundCache.set(alt, out);
    }
    return out;
  }

  private df(alt: string, compound: CompoundRules | undefined): number {
    const key = `${compound ? compound.inflection.source : ""}|${alt}`;
    let n = this.dfCache.get(key);
    if (n === undefined) {
      n = this.passages.filter((p) => PassageIndex.has(p.terms, alt, compound) || PassageIndex.has(p.headTerms, alt, compound)).length;
      if (this.dfCache.size < 20_000) this.dfCache.set(key, n);
    }
    return n;
  }

  /**
   * Typo tolerance: a word the policies never use is replaced by the policy word within
   * Damerau-Levenshtein distance 1 (2 for words of 8+ letters) that occurs most often, when there
   * is one ("retrun" → return). A correction onto a stop word drops the word ("polcy" → policy).
   */
  correct(groups: Array<Omit<QueryGroup, "weight">>, lang: Lang): Array<Omit<QueryGroup, "weight">> {
    const out: Array<Omit<QueryGroup, "weight">> = [];
    const compound = compoundsFor(lang);
    for (const g of groups) {
      // In a language of compounds (German): a compound with a generic head the policies use as a
      // word ("Rückgaberecht") also means its modifier ("Rückgabe"): the policies may state the
      // rule under the modifier alone ("Die Rückgabefrist beträgt 30 Tage").
      const modifier = compound && !g.virtual && g.alts.length === 1 ? this.genericModifier(g.surface, lang, compound) : null;
      if (modifier !== null) {
        out.push({ ...g, alts: [...new Set([...g.alts, ...groupAlts(modifier, lang, this.store)])] });
        continue;
      }
      if (
        g.virtual ||
        g.surface.length < 4 ||
        /\d/.test(g.surface) ||
        g.alts.some((a) => this.df(a, undefined) > 0) ||
        languagePack(lang)?.words.isKnownWord?.(g.surface) === true
      ) {
        out.push(g);
        continue;
      }
      // A word the policies use only as part of a compound ("zurückschiken" starts with "zurück")
      // is still a misspelling when a policy word is one edit away ("zurückschicken").
      if (compound && g.alts.some((a) => this.df(a, compound) > 0)) {
        const near = this.closest(g.surface, 1);
        out.push(near && !isStopWord(near.word, lang) ? { ...g, surface: near.word, alts: [near.stem] } : g);
        continue;
      }
      // A compound the policies never use is read as its parts when they use its head
      // ("Versandkosten" → versand + kosten, meeting "Lieferkosten" through versand ≈ liefer).
      const parts = compound ? this.decompound(g.surface, lang, compound) : null;
      if (parts) {
        out.push(...parts.map((w) => ({ ...g, surface: w, alts: groupAlts(w, lang, this.store) })));
        continue;
      }
      // A closed compound no dictionary knows ("ebike", "bikeshorts") is read as its head, a word the
      // policies use, and its modifier when they use that too — as a German compound is.
      const closed = compound ? null : this.closedCompound(g.surface, lang);
      if (closed) {
        out.push(...closed.map((w) => ({ ...g, surface: w, alts: groupAlts(w, lang, this.store) })));
        continue;
      }
      const best = this.closest(g.surface, typoLimit(g.surface));
      // A misspelt question word ("polcy", "pleas") carries no subject.
      if (!best && nearStopWord(g.surface, lang)) continue;
      if (!best) out.push(g);
      else if (!isStopWord(best.word, lang)) out.push({ ...g, surface: best.word, alts: [best.stem] });
    }
    return out;
  }

  /** A word no dictionary knows split before its longest ending that is a dictionary word the policies use (4+ letters); null when none is. */
  private closedCompound(word: string, lang: Lang): string[] | null {
    const known = languagePack(lang)?.words.isKnownWord;
    if (!known) return null;
    const w = normalize(word);
    for (let at = 1; at <= w.length - 4; at++) {
      const head = w.slice(at);
      if (!known(head) || this.df(stem(head, lang), undefined) === 0) continue;
      const modifier = w.slice(0, at);
      const used = modifier.length >= 3 && known(modifier) && groupAlts(modifier, lang, this.store).some((a) => this.df(a, undefined) > 0);
      return used ? [modifier, head] : [head];
    }
    return null;
  }

  /** The policy word within `max` edits of a word (the most frequent among the closest), or null. */
  private closest(surface: string, max: number): { word: string; stem: string } | null {
    const near = nearestWord(surface, this.vocabulary, {
      max,
      // A misspelling keeps its first or its second letter.
      admit: (word) => word[0] === surface[0] || word[1] === surface[1],
      prefer: (a, b) => this.df(a, undefined) > this.df(b, undefined),
    });
    return near && { word: near.word, stem: near.value };
  }

  /** The modifier of a compound with a generic head ("rückgaberecht" → "rückgabe") the policies use; else null. */
  private genericModifier(word: string, lang: Lang, compound: CompoundRules): string | null {
    const w = normalize(word);
    for (let at = 3; at <= w.length - 4; at++) {
      if (!compound.genericHead.test(w.slice(at))) continue;
      const modifier = this.usedModifier(w, at, lang, compound);
      if (modifier !== null) return modifier;
    }
    return null;
  }

  /** The part of `w` before `at` (without a linking element: German -s-/-es-/-n-/-en-/-e-) when the policies use it or a synonym. */
  private usedModifier(w: string, at: number, lang: Lang, compound: CompoundRules): string | null {
    for (const modifier of [w.slice(0, at), w.slice(0, at).replace(compound.linking, "")]) {
      if (modifier.length < 3) continue;
      if (groupAlts(modifier, lang, this.store).some((a) => this.df(a, compound) > 0)) return modifier;
    }
    return null;
  }

  /**
   * A compound split into modifier and head (head of 4+ letters, modifier of 3+ after a linking
   * element), when the policies use the head as a word and the modifier (or one of its synonyms);
   * the split with the longest head wins. Null when there is none.
   */
  private decompound(word: string, lang: Lang, compound: CompoundRules): string[] | null {
    const w = normalize(word);
    for (let at = 3; at <= w.length - 4; at++) {
      const head = w.slice(at);
      // A head that names no subject ("Rückgaberegelung", "Versandbedingungen") leaves the modifier.
      const generic = compound.genericHead.test(head);
      if (!generic && this.df(stem(head, lang), undefined) === 0) continue;
      const modifier = this.usedModifier(w, at, lang, compound);
      if (modifier !== null) return generic ? [modifier] : [modifier, head];
    }
    return null;
  }

  /** Whether the store's policies use the group's word or one of its synonyms (text or heading). */
  uses(group: Omit<QueryGroup, "weight">, lang: Lang): boolean {
    return group.alts.some((a) => this.df(a, compoundsFor(lang, group.virtual)) > 0);
  }

  /** IDF weights of the query's groups over this index; `crossLanguage` drops words the policies never use. */
  weigh(groups: Array<Omit<QueryGroup, "weight">>, lang: Lang, crossLanguage = false): QueryGroup[] {
    const n = Math.max(1, this.passages.length);
    const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const maxIdf = idf(0);
    const stats = groups.map((g) => {
      let best = 0;
      let seen = false;
      for (const a of g.alts) {
        const df = this.df(a, compoundsFor(lang, g.virtual));
        if (df > 0) {
          seen = true;
          best = Math.max(best, idf(df));
        }
      }
      return { g, best, seen };
    });
    // A policy topic the store's policies hold makes an unknown item ("a tent") the question's object.
    const pack = languagePack(lang);
    const topics = pack?.vocabulary.topics ?? null;
    const topical = topics !== null && stats.some((s) => s.seen && !s.g.virtual && s.g.alts.some((a) => topics.has(a)));
    const countryWord = pack && stem(pack.vocabulary.countryWord, lang);
    const countriesSpoken = stats.some((s) => s.seen && s.g.alts[0] === countryWord);
    return (
      stats
        .filter((s) => !(crossLanguage && !s.seen && !s.g.virtual))
        // Floors keep a word found in every passage from weighing nothing.
        // "How do I …" only breaks ties between passages that match the question's words.
        .map((s) => {
          // A country the policies never name is said by "country" (lexicon.ts markCountries), not by
          // its name — when the policies speak of countries at all; when they do not, its name is
          // what the question asks about ("do you ship to singapore").
          const object =
            (topical &&
              (goods().has(s.g.surface) || this.store.goods.has(s.g.surface) || pack?.words.namesGoods?.(s.g.surface) === true)) ||
            (countryWords().has(s.g.surface) && countriesSpoken);
          const weight =
            s.g.alts[0] === VIRTUAL_HOW
              ? 0.15 * maxIdf
              : s.seen
                ? Math.max(s.best, 0.15 * maxIdf)
                : object
                  ? UNKNOWN_OBJECT_WEIGHT * maxIdf
                  : !topical && pack?.words.isKnownWord?.(s.g.surface) === false
                    ? maxIdf
                    : UNKNOWN_WORD_WEIGHT * maxIdf;
          if (s.g.crux && s.seen) return { ...s.g, weight: maxIdf };
          return { ...s.g, weight: s.g.context ? CONTEXT_WEIGHT * weight : weight };
        })
    );
  }

  /** BM25 candidates with coverage, best first. */
  query(groups: QueryGroup[], lang: Lang, limit = RERANK_DEPTH): Scored[] {
    const compound = compoundsFor(lang);
    const withParts = (g: QueryGroup, a: string) => (compound && !g.virtual ? [a, ...this.compoundTerms(a, compound)] : [a]);
    const terms = [...new Set(groups.flatMap((g) => g.alts.flatMap((a) => withParts(g, a))))];
    const primary = new Set(groups.flatMap((g) => withParts(g, g.alts[0]!)));
    const crux = new Set(groups.filter((g) => g.crux).flatMap((g) => withParts(g, g.alts[0]!)));
    if (terms.length === 0 || this.passages.length === 0) return [];
    const results = this.search.search(terms.join(" "), {
      tokenize: (s) => s.split(" ").filter(Boolean),
      processTerm: (t) => t,
      prefix: (term) => compound !== undefined && term.length >= 4 && !term.startsWith("q"),
      boost: { body: 1, head: HEAD_BOOST },
      boostTerm: (term) => (crux.has(term) ? CRUX_BOOST : primary.has(term) ? 1 : SYNONYM_STRENGTH),
      combineWith: "OR",
    });
    const total = groups.reduce((s, g) => s + g.weight, 0);
    const valueGroups = groups.filter((g) => g.required);
    const states = (p: IndexedPassage) => valueGroups.some((g) => p.terms.has(g.alts[0]!) || (isTerse(p) && p.headTerms.has(g.alts[0]!)));
    const found = results.slice(0, limit).map((r) => ({ passage: this.byId.get(String(r.id))!, bm25: r.score }));
    // A terse item that names the subject but not the asked value ("Available Countries: … Japan")
    // brings the items of its section that state the value ("Standard International: $19.95 - $39.95").
    if (valueGroups.length > 0) {
      const have = new Map(found.map((f) => [f.passage.id, f]));
      for (const f of [...found]) {
        if (states(f.passage)) continue;
        for (const sibling of this.sections.get(sectionKey(f.passage)) ?? []) {
          if (!isTerseItem(sibling) || !valueGroups.some((g) => sibling.terms.has(g.alts[0]!))) continue;
          const bm25 = f.bm25 * SYNONYM_STRENGTH;
          const present = have.get(sibling.id);
          if (present) present.bm25 = Math.max(present.bm25, bm25);
          else {
            const added = { passage: sibling, bm25 };
            have.set(sibling.id, added);
            found.push(added);
          }
        }
      }
      found.sort((a, b) => b.bm25 - a.bm25);
    }
    return found.map(({ passage, bm25 }) => {
      // Only an item stating the asked value in its own text takes its subject from its section,
      // from the passages there that name a subject without a value of their own ("Available
      // countries: … Japan"), not from a sibling rule that states its own value.
      const ownValue = (x: IndexedPassage) => valueGroups.some((g) => x.terms.has(g.alts[0]!));
      const section =
        isTerseItem(passage) && ownValue(passage)
          ? (this.sections.get(sectionKey(passage)) ?? []).filter((x) => x !== passage && !ownValue(x))
          : [];
      const bySection = (g: QueryGroup) => !g.virtual && section.some((x) => PassageIndex.matches(x.terms, g, lang));
      const matched = new Set(
        groups.filter(
          (g) => PassageIndex.matches(passage.terms, g, lang) || PassageIndex.matches(passage.headTerms, g, lang) || bySection(g),
        ),
      );
      const covered = [...matched].reduce(
        (s, g) =>
          s +
          g.weight *
            Math.max(
              PassageIndex.strength(passage.terms, g, lang),
              PassageIndex.strength(passage.headTerms, g, lang),
              bySection(g) ? SYNONYM_STRENGTH : 0,
            ),
        0,
      );
      // The value must be stated by the passage itself; a heading states it for a terse item only
      // ("Flat rate: $12.95" under "Express Shipping (2-3 Business Days)"), not a title ("100% Satisfaction Guarantee") for prose.
      const valueMissing = valueGroups.length > 0 && !states(passage);
      const viaSection = new Set(
        [...matched].filter((g) => !PassageIndex.matches(passage.terms, g, lang) && !PassageIndex.matches(passage.headTerms, g, lang)),
      );
      return {
        passage,
        bm25,
        score: bm25,
        coverage: total > 0 ? covered / total : 0,
        matched,
        ...(valueMissing ? { valueMissing } : {}),
        ...(viaSection.size > 0 ? { viaSection } : {}),
      };
    });
  }
}

/** A list item of at most TERSE_ITEM_WORDS words (not a table row). */
function isTerseItem(p: IndexedPassage): boolean {
  return p.labelled === undefined && p.lead === undefined && isTerse(p);
}

/** The section of a passage: its policy and heading path. */
function sectionKey(p: IndexedPassage): string {
  return `${p.citation.concept_id}|${p.heading}`;
}

/** Cosine similarity of two L2-normalised vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) s += a[i]! * b[i]!;
  return s;
}

/** Blends BM25 with embedding similarity (see the header); returns the candidates re-sorted. */
export function blend(candidates: Scored[], queryVector: Float32Array, vectors: Map<string, Float32Array>): Scored[] {
  const top = Math.max(...candidates.map((c) => c.bm25), 1e-9);
  return candidates
    .map((c) => {
      const v = vectors.get(c.passage.id);
      const sim = v ? Math.max(0, cosine(queryVector, v)) : 0;
      return { ...c, score: EMBED_BLEND_BM25 * (c.bm25 / top) + (1 - EMBED_BLEND_BM25) * sim };
    })
    .sort((a, b) => b.score - a.score);
}

/** Normalises BM25 scores to the top one (no model: score = bm25 / top bm25). */
export function normalizeScores(candidates: Scored[]): Scored[] {
  const top = Math.max(...candidates.map((c) => c.bm25), 1e-9);
  return candidates.map((c) => ({ ...c, score: c.bm25 / top }));
}

/**
 * Evidence: coverage at least EVIDENCE_MIN_COVERAGE with a real group matched, and — when the
 * question asks for a duration or an amount — the passage states one ("How much does a membership
 * cost?" is not answered by "memberships are final sale").
 */
export const isEvidence = (c: Scored): boolean =>
  c.coverage >= EVIDENCE_MIN_COVERAGE && !c.valueMissing && [...c.matched].some((g) => !g.virtual);
