// The contract between the chat (src/assistant/chat) and the grounding engine
// (src/assistant/knowledge): routing of a shopper's text and grounded policy answers.
import type { Lang } from "./text.js";

/** A citation of the spec: points at a published concept version whose passage was used. */
export interface Citation {
  handle: string;
  concept_id: string;
  concept_version: number;
  title: string;
}

/** What the shopper's text asks for, decided before any answer is composed. */
export type Intent =
  | { kind: "policy"; query: string }
  | {
      kind: "product";
      /** The shopper's words for the store's own search (colour and product-type words kept). */
      query: string;
      /** Structured bounds the store's search takes as filters: sizes and price bounds (minor units). */
      filters: { size?: string[]; price_max_minor?: number; price_min_minor?: number };
      /**
       * What the router recognised as describing a product (colours, product-type nouns): evidence
       * for routing only, never a filter — the store's search reads them in `query` against its
       * own categories and colours (issue 36: no fixed category names).
       */
      features: { color?: string[]; category?: string[] };
    }
  | { kind: "handoff"; query: string }
  | { kind: "order"; query: string; order_id?: string }
  | { kind: "return"; query: string; order_id?: string }
  | { kind: "action"; name: "add_to_cart"; product_ref: string; quantity: number }
  | { kind: "ambiguous"; question: string }
  /** Thanks or a goodbye and nothing else: nothing is asked or unclear, so the reply is an answer. */
  | { kind: "courtesy"; reply: string };

/** What the scored router (classify.ts routeFeatures) reads in a text. */
export interface RouteFeatures {
  returnOwn: boolean;
  /** Besides a return request, a clause asks about the conditions (a policy question, not the start of a return). */
  asksConditions: boolean;
  orderStatus: boolean;
  myOrder: boolean;
  orderId: boolean;
  returnWord: boolean;
  policyTopics: number;
  conditional: boolean;
  moneyMention: boolean;
  request: boolean;
  productFeature: boolean;
  questionForm: boolean;
  contentWords: number;
}

export interface RouteScores {
  return: number;
  order: number;
  product: number;
  policy: number;
}

/** How the router decided (classify.ts routeText; knowledge/index.ts reroutes): the turn's intent.classified event. */
export interface RouteTrace {
  /** The rule of classify.ts's header that decided: vague, courtesy, person, cart, scored or fallback. */
  rule: string;
  /** The scored decision's features and scores (rules 3–7). */
  features?: RouteFeatures;
  scores?: RouteScores;
  /** Why the engine then changed the intent to a policy question (follow_up, evidence, feature_less_product, soft_order, classifier), or to a handoff (soft_order_handoff). */
  rerouted?: string;
  /** The trained product-or-policy decision of a product request (route-model.ts): its inputs and the probability of a policy question. */
  model?: { inputs: number[]; policy: number };
}

/** An intent with the trace of its routing. */
export type RoutedIntent = Intent & { trace?: RouteTrace };

export interface Conflict {
  point: string;
  citations: Citation[];
  statements: string[];
}

export type PolicyAnswer =
  | {
      kind: "answer";
      markdown: string;
      citations: Citation[];
      passages: Array<{ citation: Citation; text: string }>;
      phrased_by: "extractive" | "llm";
      /** The value asked for (a duration, deadline or amount) as the best quoted sentence states it. */
      direct?: string;
      /** Parts of a multi-part question that no policy answers. */
      unanswered?: string[];
      /** How sure the extractive answer is (compose.ts extractive(); abstention, ground.ts). */
      confidence?: AnswerConfidence;
    }
  | { kind: "conflict"; markdown: string; conflicts: Conflict[]; citations: Citation[] }
  | {
      kind: "no_evidence";
      markdown: string;
      /** An extractive answer was found but withheld: its probability of being right fell below the bar (abstain.ts). */
      abstained?: { confidence: AnswerConfidence; probability_right: number };
    };

/** Features of an extractive answer's best sentence: what calibrated abstention reads (ground.ts). */
export interface AnswerConfidence {
  /** The best sentence's own match of the question (text share + heading bonus), 0–1+. */
  match: number;
  /** Its score: the match weighted by its passage's relevance. */
  score: number;
  /** Its rank score minus the best of a sentence of another passage (its own rank score when there is none). */
  margin: number;
  /** The question asks for a value (a duration, an amount): whether the best sentence states one; null when none is asked. */
  typed: boolean | null;
  /** Share of the question's (non-virtual) word groups the best sentence's own text matches. */
  coverage: number;
}

export interface KnowledgeVersions {
  /** concept_id → version used by this answer's index. */
  policies: Record<string, number>;
  index_built_at: string;
}

/** A grounded reply (see Knowledge.ground); `lang` is the language the question was read in. */
export interface Grounded {
  result: PolicyAnswer;
  versions: KnowledgeVersions;
  lang: Lang;
}

export interface Knowledge {
  /**
   * `previous`: reads the shopper's previous question in the thread, asked only when the text may
   * be an elliptical follow-up ("and during the holidays?" after a policy question is one too).
   */
  classify(
    storeId: string,
    text: string,
    locale: string,
    options?: { previous?: () => Promise<string | undefined> },
  ): Promise<RoutedIntent>;
  /** `previous`: the shopper's previous question in the thread (an elliptical follow-up is read with it). */
  answer(
    storeId: string,
    text: string,
    locale: string,
    options?: { previous?: string },
  ): Promise<{ result: PolicyAnswer; versions: KnowledgeVersions }>;
  /**
   * answer() before LLM phrasing: grounding, the conflict check and framing in the thread's
   * language. A caller that needs to know whether the policies conflict before it decides how to
   * reply grounds once and hands the result to phrase() when it answers.
   */
  ground(storeId: string, text: string, locale: string, options?: { previous?: string }): Promise<Grounded>;
  /** A grounded answer phrased by the LLM when one is configured and its phrasing checks out; else as grounded. */
  phrase(text: string, grounded: Grounded): Promise<{ result: PolicyAnswer; versions: KnowledgeVersions }>;
}

/** Thrown when an optional model dependency (embeddings, LLM) is configured but down. */
export class KnowledgeUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KnowledgeUnavailable";
  }
}
