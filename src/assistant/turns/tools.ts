// What every intent module of a chat turn gets from the ChatService: the app context, the
// knowledge engine and storefront gateway, the turn (session, thread, text), the event emitter,
// the thread's language, the clock, consent-gated proposals and the thread's previous question.
import type { AppContext } from "../../context/context.js";
import type { Lease } from "../../platform/concurrency.js";
import type { ShopperSession } from "../http/auth.js";
import type { Grounded, Knowledge } from "../knowledge/types.js";
import type { ThreadRow } from "../sessions/repository.js";
import type { AssistantSettingsService } from "../settings/service.js";
import type { ActionName, CatalogSearchResult, StorefrontGateway } from "../storefront/types.js";
import { composeAnswer, type AnswerParts } from "../answers/compose.js";
import type { ChatLang } from "../answers/i18n.js";
import type { Answer, Limitation, NextAction, Outcome } from "../answers/schemas.js";

export interface TurnHandle {
  session: ShopperSession;
  thread: ThreadRow;
  turnId: string;
  number: number;
  text: string;
  lease: Lease;
}

export type Emit = (name: string, data: Record<string, unknown>) => Promise<void>;

export interface TurnReply {
  outcome: Outcome;
  answer: Answer;
}

export interface TurnTools {
  ctx: AppContext;
  knowledge: Knowledge;
  gateway: StorefrontGateway;
  settings: AssistantSettingsService;
  handle: TurnHandle;
  emit: Emit;
  lang: ChatLang;
  now(): number;
  propose(action: ActionName, args: Record<string, string | number>): Promise<NextAction[]>;
  /** The shopper's previous message in this thread, if any. */
  previousText(): Promise<string | undefined>;
  /** The knowledge engine's grounding of the turn's text (with the previous message for follow-ups), computed once per turn. */
  policyGrounding(): Promise<Grounded>;
  /** That grounding as the reply's answer (phrased by the LLM when one is configured), computed once per turn. */
  policyAnswer(): ReturnType<Knowledge["answer"]>;
}

/** Event names of the thread log (docs/api-assistant.md: Chat, "Streaming"). */
export const EVENT = {
  turnStarted: "turn.started",
  intentClassified: "intent.classified",
  retrievalCompleted: "retrieval.completed",
  productsRead: "products.read",
  ordersRead: "orders.read",
  actionProposed: "action.proposed",
  dependencyUnavailable: "dependency.unavailable",
  answerDelta: "answer.delta",
  messageCompleted: "message.completed",
  turnFailed: "turn.failed",
  actionConfirmed: "action.confirmed",
  actionCancelled: "action.cancelled",
} as const;

/** An `answer` with answer_status `limited`: the markdown and the limitations saying what is missing. */
export function limitedAnswer(t: TurnTools, markdown: string, limitations: Limitation[], extra: Partial<AnswerParts> = {}): TurnReply {
  return {
    outcome: "answer",
    answer: composeAnswer({ ...extra, answer_status: "limited", response_markdown: markdown, limitations }, t.now()),
  };
}

export function searchLimitations(found: CatalogSearchResult): Limitation[] {
  const out: Limitation[] = [];
  if (found.warnings.includes("price_and_availability_not_verified_live")) {
    out.push({ code: "not_verified_live", message: "Some prices or stock levels could not be read live; they are not shown." });
  }
  if (found.price_filter && found.price_filter.excluded_without_live_price > 0) {
    out.push({
      code: "excluded_without_live_price",
      message: `${found.price_filter.excluded_without_live_price} product(s) were left out because their price could not be read live.`,
    });
  }
  return out;
}
