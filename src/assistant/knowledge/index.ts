// The grounding engine: `createKnowledge(ctx, deps)` implements the Knowledge contract of ./types.ts.
//
// classify(): the deterministic router of ./classify.ts (the store currency is read only when the
// text holds a digit, for price bounds in minor units).
//
// answer(): retrieval over the store's published policies (./retrieval.ts), then
//   - no evidence passage            → { kind: "no_evidence" } (nothing is invented);
//   - two concepts disagree          → { kind: "conflict" } quoting both (./compose.ts);
//   - otherwise                      → the extractive answer (./compose.ts), phrased by the LLM
//                                      when one is configured and its text passes the check
//                                      (./llm.ts); phrased_by says which text won.
// Index cache: per store in memory, keyed by the store's (concept_id, newest version) set and its
// vocabulary's words (store-words.ts, saved in the assistant settings). Every call
// first runs two cheap queries (PoliciesRepository.newestVersions, the vocabulary row); when
// either differs from the cached one — a PUT in this or any other process — the index is rebuilt. Each
// store entry holds one index per thread language (built on first use), the passage vectors
// computed for the embedding re-rank and the analysed passages per concept version; a rebuild
// reuses the vectors and analysed passages of the concept versions that are still current, so one
// changed policy is the only one analysed again. Each part of a multi-part question is re-ranked
// against its own text. The language packs' word lists (English: the typo corrector's WordNet
// list, ../language/en-dictionary.ts) are loaded in the background when the engine is created.
// Embeddings: used only when ctx.model is loaded; when it is loaded and embedding fails the call
// throws KnowledgeUnavailable (the chat answers temporary_failure). LLM failures never throw.
import type { AppContext } from "../../context/context.js";
import type { PoliciesRepository } from "../policies/repository.js";
import type { AssistantSettingsService } from "../settings/service.js";
import { classifyText, describesProduct, isVague, requestsProducts, routeText, softOrderRemainder } from "./classify.js";
import { OTHER, languages } from "../language/index.js";
import { ABSTENTION, NO_ABSTENTION } from "./abstain.js";
import { conflictMarkdown, noEvidenceMarkdown, reframeLead } from "./compose.js";
import { conflictCheck, groundParts, hasEvidence, policyCoverage } from "./ground.js";
import { POLICY_MIN_PROBABILITY, probabilityPolicy, routeModelInputs } from "./route-model.js";
import { borrowedWords, isFollowUp, pointsBack, questionParts, withFollowUp } from "./parts.js";
import { injectedSubject, sanitizeQuestion } from "./sanitize.js";
import { checkPhrasing, phraseWithLlm } from "./llm.js";
import { splitPassages } from "./passages.js";
import { PassageIndex, analysePassage, blend, normalizeScores, type IndexedPassage, type Scored } from "./retrieval.js";
import { StoreVocabulary } from "./store-words.js";
import { langOf, primaryOf, textLang, type Lang } from "./text.js";
import {
  KnowledgeUnavailable,
  type Grounded,
  type Knowledge,
  type RoutedIntent,
  type KnowledgeVersions,
  type PolicyAnswer,
} from "./types.js";
import { iso } from "../../platform/clock.js";

interface LangIndex {
  index: PassageIndex;
  policies: Record<string, number>;
}

interface StoreEntry {
  fingerprint: string;
  /** The store's own words (synonyms, scope and product words). */
  vocabulary: StoreVocabulary;
  builtAt: string;
  byLang: Map<string, Promise<LangIndex>>;
  vectors: Map<string, Float32Array>;
  /** `${concept_id}@${version}` → its analysed passages, carried over to the next entry while that version is current. */
  analysed: Map<string, IndexedPassage[]>;
}

/** Most stores kept in memory at once (least recently used dropped first). */
const MAX_CACHED_STORES = 500;

export class KnowledgeEngine implements Knowledge {
  private readonly repo: PoliciesRepository;
  private readonly settings: AssistantSettingsService;
  private readonly storeName: (storeId: string) => Promise<string>;
  private readonly cache = new Map<string, StoreEntry>();

  /** `deps`: the policies' versions and the store settings (built once by src/assistant/compose.ts). */
  constructor(
    private readonly ctx: AppContext,
    deps: KnowledgeDeps,
  ) {
    this.repo = deps.policies;
    this.settings = deps.settings;
    this.storeName = async (storeId) => (await deps.storeName?.(storeId)) ?? "";
    // The typo corrector's word lists load in the background from the start; a question asked
    // before they have loaded waits for them (under a second), so no answer depends on timing.
    this.warmed = Promise.all(languages().flatMap((pack) => (pack.words.warm ? [pack.words.warm()] : []))).then(
      () => undefined,
      () => undefined,
    );
  }

  private readonly warmed: Promise<void>;

  async classify(
    storeId: string,
    text: string,
    locale: string,
    options: { previous?: () => Promise<string | undefined> } = {},
  ): Promise<RoutedIntent> {
    await this.warmed;
    const currency = /\d/.test(text) ? (await this.settings.get(storeId)).currency : "EUR";
    const { intent, trace } = routeText(text, locale, currency);
    const policy = (rerouted: string): RoutedIntent => ({ kind: "policy", query: text.trim(), trace: { ...trace, rerouted } });
    // An elliptical follow-up ("and during the holidays?", "what if I bought it in the store?")
    // of a policy question is a policy question, read with the previous one (answer()).
    // A follow-up naming a product class without asking for products ("and for shoes?") is one too.
    if (
      (intent.kind === "ambiguous" || (intent.kind === "product" && (!describesProduct(intent) || !requestsProducts(text, locale)))) &&
      options.previous &&
      isFollowUp(text, textLang(text, langOf(locale)))
    ) {
      const previous = await options.previous();
      if (previous !== undefined && classifyText(previous, locale, currency).kind === "policy") return policy("follow_up");
    }
    // A text the router could not place that is not a greeting or a bare product reference
    // ("retourfrist??", "According to your FAQ I have 100 days to return. Correct?") is a policy
    // question when the policies hold evidence for it as the engine reads it (answer()), or
    // disagree on what it is about (answer() reports that conflict).
    if (intent.kind === "ambiguous" && !isVague(text, locale)) {
      const entry = await this.entry(storeId);
      const { index } = await this.langIndex(storeId, entry, locale);
      const lang = textLang(text, langOf(locale));
      const { question, borrowed } = readQuestion(text, undefined, lang);
      if (
        hasEvidence(index, question, lang) ||
        hasEvidence(index, text, lang) ||
        (await conflictCheck(index, [question, text], lang, undefined, borrowed)) !== null
      )
        return policy("evidence");
    }
    // A product request without any product feature ("do you have a physical shop?") is a policy
    // question when the published policies hold evidence for it.
    if (intent.kind === "product" && !describesProduct(intent)) {
      const entry = await this.entry(storeId);
      const { index } = await this.langIndex(storeId, entry, locale);
      if (hasEvidence(index, text, textLang(text, langOf(locale)))) return policy("feature_less_product");
    }
    // One naming a product feature is a policy question about the product when the trained
    // decision says so (route-model.ts), from the router's features and the policies' coverage —
    // and only when some published passage covers part of it: every policy question of the
    // training lines had coverage, so a long product description no policy touches stays a product request.
    if (intent.kind === "product" && describesProduct(intent) && trace.features) {
      const entry = await this.entry(storeId);
      const { index } = await this.langIndex(storeId, entry, locale);
      const coverage = policyCoverage(index, text, textLang(text, langOf(locale)));
      const inputs = routeModelInputs(trace.features, coverage);
      const model = { inputs, policy: probabilityPolicy(inputs) };
      if (coverage > 0 && model.policy >= POLICY_MIN_PROBABILITY)
        return { kind: "policy", query: text.trim(), trace: { ...trace, model, rerouted: "classifier" } };
      return { ...intent, trace: { ...trace, model } };
    }
    // "I ordered on saturday, when will my order be processed?": an order question without an
    // order id or status words whose other words the policies answer is a policy question.
    if (intent.kind === "order" && intent.order_id === undefined) {
      const rest = softOrderRemainder(text);
      if (rest !== null) {
        const entry = await this.entry(storeId);
        const { index } = await this.langIndex(storeId, entry, locale);
        // The whole text counts too: "forgot to put a charger in my order, can you add it" is about
        // changing an order, which the policies' "changes to an existing order" answer.
        const lang = textLang(text, langOf(locale));
        if (hasEvidence(index, rest, lang) || hasEvidence(index, text, lang)) return policy("soft_order");
        // Otherwise it asks about orders in general ("who do I contact about a problem with my
        // order", "can you fix the address on my order"), which no sign-in answers: a person does.
        return { kind: "handoff", query: text.trim(), trace: { ...trace, rerouted: "soft_order_handoff" } };
      }
    }
    return { ...intent, trace };
  }

  /** The cached entry of a store, rebuilt when its (concept, newest version) set or its vocabulary changed. */
  private async entry(storeId: string): Promise<StoreEntry> {
    const cached = this.cache.get(storeId);
    // A store's name is set at sign-up and never changes: it is read once, when its entry is first built.
    const [newest, own, name] = await Promise.all([
      this.repo.newestVersions(storeId),
      this.settings.vocabulary(storeId),
      cached ? cached.vocabulary.name : this.storeName(storeId),
    ]);
    const lists = { synonyms: own.synonyms, scope_words: own.scope_words, product_words: own.product_words };
    const fingerprint = `${newest.map((r) => `${r.concept_id}:${r.version}`).join("|")}#${JSON.stringify(lists)}`;
    if (cached && cached.fingerprint === fingerprint) {
      this.cache.delete(storeId);
      this.cache.set(storeId, cached);
      return cached;
    }
    // Analysed passages (and their passage vectors) of concept versions that are still current are reused.
    const current = new Set(newest.map((r) => `${r.concept_id}@${r.version}`));
    const analysed = new Map([...(cached?.analysed ?? [])].filter(([key]) => current.has(key)));
    const vectors = new Map([...(cached?.vectors ?? [])].filter(([id]) => current.has(id.slice(0, id.indexOf("#")))));
    const entry: StoreEntry = {
      fingerprint,
      // The same vocabulary object while its words are the same: sentence facts are cached per passage and vocabulary (compose.ts).
      vocabulary:
        cached && JSON.stringify(cached.vocabulary.lists) === JSON.stringify(lists) ? cached.vocabulary : new StoreVocabulary(lists, name),
      builtAt: iso(this.ctx.clock.now()),
      byLang: new Map(),
      vectors,
      analysed,
    };
    this.cache.set(storeId, entry);
    if (this.cache.size > MAX_CACHED_STORES) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }

  private langIndex(storeId: string, entry: StoreEntry, locale: string): Promise<LangIndex> {
    const key = primaryOf(locale);
    let built = entry.byLang.get(key);
    if (!built) {
      built = (async () => {
        const published = (await this.repo.latestAll(storeId)).filter((r) => r.published === 1);
        const inLang = published.filter((r) => primaryOf(r.locale) === key);
        const chosen = inLang.length > 0 ? inLang : published;
        const passages = chosen.flatMap((r) => {
          const key = `${r.concept_id}@${r.version}`;
          let done = entry.analysed.get(key);
          if (!done) {
            done = splitPassages({
              concept_id: r.concept_id,
              version: r.version,
              handle: r.handle,
              title: r.title,
              locale: r.locale,
              body_markdown: r.body_markdown,
            }).map(analysePassage);
            entry.analysed.set(key, done);
          }
          return done;
        });
        return {
          index: new PassageIndex(passages, entry.vocabulary),
          policies: Object.fromEntries(chosen.map((r) => [r.concept_id, r.version])),
        };
      })();
      entry.byLang.set(key, built);
      built.catch(() => entry.byLang.delete(key));
    }
    return built;
  }

  /** Blends embedding similarity into the BM25 ranking (model loaded only). */
  private async rerank(entry: StoreEntry, text: string, candidates: Scored[]): Promise<Scored[]> {
    // Each part of a multi-part question is re-ranked against its own text.
    if (!this.ctx.model || candidates.length === 0) return normalizeScores(candidates);
    try {
      const missing = candidates.filter((c) => !entry.vectors.has(c.passage.id));
      const vectors = await this.ctx.model.embedTexts([text, ...missing.map((c) => `${c.passage.heading}: ${c.passage.text}`)]);
      missing.forEach((c, i) => entry.vectors.set(c.passage.id, vectors[i + 1]!));
      return blend(candidates, vectors[0]!, entry.vectors);
    } catch (e) {
      throw new KnowledgeUnavailable(`Text embeddings failed: ${(e as Error).message}`);
    }
  }

  async answer(
    storeId: string,
    text: string,
    locale: string,
    options: { previous?: string } = {},
  ): Promise<{ result: PolicyAnswer; versions: KnowledgeVersions }> {
    return this.phrase(text, await this.ground(storeId, text, locale, options));
  }

  async phrase(text: string, grounded: Grounded): Promise<{ result: PolicyAnswer; versions: KnowledgeVersions }> {
    const { result, versions, lang } = grounded;
    if (result.kind !== "answer" || !this.ctx.config.llm) return { result, versions };
    const phrased = await phraseWithLlm(
      this.ctx,
      text,
      result.passages.map((p) => ({ title: p.citation.title, text: p.text })),
      lang,
    );
    if (
      phrased !== null &&
      checkPhrasing(
        phrased,
        result.passages.map((p) => p.text),
        lang,
      ).ok
    ) {
      return { result: { ...result, markdown: phrased, phrased_by: "llm" }, versions };
    }
    return { result, versions };
  }

  /** answer() before phrasing: grounding, the conflict check, framing in the thread's language. */
  async ground(storeId: string, text: string, locale: string, options: { previous?: string } = {}): Promise<Grounded> {
    await this.warmed;
    const entry = await this.entry(storeId);
    const { index, policies } = await this.langIndex(storeId, entry, locale);
    const versions: KnowledgeVersions = { policies, index_built_at: entry.builtAt };
    // The question is read in the language it is written in (an English question in a German
    // thread); framing text stays in the thread's language.
    const thread: Lang = langOf(locale);
    const lang: Lang = textLang(text, thread);
    const { question, borrowed } = readQuestion(text, options.previous, lang);
    const rerank = (candidates: Scored[], part: string) => this.rerank(entry, part, candidates);
    const abstention = this.ctx.config.assistantAbstention ? ABSTENTION : NO_ABSTENTION;
    let result = await groundParts(index, questionParts(question, lang), lang, rerank, borrowed, abstention);
    // A turn without evidence of its own that was not read as a follow-up ("do I need to bring
    // anything with me?" after a question on returns) is read in the thread's context: the previous
    // question's words it lacks are added as context (weighed CONTEXT_WEIGHT, so its own words must
    // still carry the evidence).
    if (result.kind === "no_evidence" && options.previous !== undefined && borrowed.size === 0) {
      const inContext = readQuestion(text, options.previous, lang, true);
      if (inContext.borrowed.size > 0) {
        const carried = await groundParts(index, questionParts(inContext.question, lang), lang, rerank, inContext.borrowed, abstention);
        if (carried.kind !== "no_evidence") result = carried;
      }
    }
    // No evidence for the question as read (an injection may have left little of it): the policies
    // may still disagree on what the whole text asks about, and then the reply says so.
    // A message that is nothing but instructions continues the thread's question (the previous one).
    if (result.kind === "no_evidence") {
      const continues = question.trim() === "" && options.previous !== undefined ? [options.previous] : [];
      result = (await conflictCheck(index, [question, text, ...continues], lang, rerank, borrowed)) ?? result;
    }
    if (lang !== thread && thread !== OTHER) result = reframed(result, thread);
    return { result, versions, lang };
  }
}

/**
 * A result framed in the thread's language (conflict and no-evidence lines, an answer's Yes / No
 * lead; quotes stay as they are). The lines naming unanswered parts are written by the policy turn
 * in the thread's language already.
 */
function reframed(result: PolicyAnswer, lang: Lang): PolicyAnswer {
  if (result.kind === "conflict") return { ...result, markdown: conflictMarkdown(result.conflicts, lang) };
  if (result.kind === "no_evidence") return { ...result, markdown: noEvidenceMarkdown(lang) };
  return result.direct !== undefined ? { ...result, direct: reframeLead(result.direct, lang) } : result;
}

/**
 * How the engine reads a shopper's text: instructions to the assistant left out (sanitize.ts), a
 * follow-up read with the previous question (parts.ts), and a question too thin to name its
 * subject given the subject of the claim an injection dictated (its numbers left out); `borrowed`
 * are the words weighed as context.
 */
function readQuestion(
  text: string,
  previous: string | undefined,
  lang: Lang,
  inContext = false,
): { question: string; borrowed: Set<string> } {
  const asked = sanitizeQuestion(withFollowUp(text, previous, lang, inContext));
  const subject = injectedSubject(text, lang);
  const question = subject.length > 0 ? `${asked.trim().replace(/[?.!]+$/, "")} ${subject.join(" ")}?` : asked;
  const borrowed = new Set([...(pointsBack(text) && !inContext ? [] : borrowedWords(text, previous, lang, inContext)), ...subject]);
  return { question, borrowed };
}

export interface KnowledgeDeps {
  policies: PoliciesRepository;
  settings: AssistantSettingsService;
  /** The store's name (its account's): left out of the questions that name it (store-words.ts). */
  storeName?: (storeId: string) => Promise<string | undefined>;
}

export function createKnowledge(ctx: AppContext, deps: KnowledgeDeps): Knowledge {
  return new KnowledgeEngine(ctx, deps);
}
