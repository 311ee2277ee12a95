// Composition of answer objects: every field present, text built only from what the knowledge
// engine returned (policy passages), live facts (formatted by ./format.ts) and fixed sentences.
import type { Citation, Conflict } from "../knowledge/types.js";
import type { LiveFact, OrderSummary, ProductCard } from "../storefront/types.js";
import { escapeMarkdown } from "../markdown/escape.js";
import { formatLiveFact } from "./format.js";
import { T, type ChatLang } from "./i18n.js";
import { DEFAULT_LANGUAGE } from "../language/index.js";
import type { Answer, AnswerStatus, Limitation, NextAction, SupportContact } from "./schemas.js";
import { iso } from "../../platform/clock.js";

export { escapeMarkdown };

export const ANSWER_FORMAT_VERSION = 1;

export interface AnswerParts {
  answer_status: AnswerStatus;
  response_markdown: string;
  citations?: Citation[];
  products?: ProductCard[];
  clarification_question?: string | null;
  conflicts?: Conflict[];
  limitations?: Limitation[];
  next_actions?: NextAction[];
  handoff?: Answer["handoff"];
  live_facts?: LiveFact[];
  policies?: Record<string, number>;
  policy_index_built_at?: string | null;
  catalog_source?: string | null;
}

/** A complete answer object from its parts; missing parts are empty, never absent. */
export function composeAnswer(parts: AnswerParts, now: number): Answer {
  const liveFacts = parts.live_facts ?? [];
  const reads = liveFacts.map((f) => Date.parse(f.read_at)).filter((n) => Number.isFinite(n));
  return {
    answer_status: parts.answer_status,
    response_markdown: parts.response_markdown,
    citations: parts.citations ?? [],
    products: parts.products ?? [],
    clarification_question: parts.clarification_question ?? null,
    conflicts: parts.conflicts ?? [],
    limitations: parts.limitations ?? [],
    next_actions: parts.next_actions ?? [],
    handoff: parts.handoff ?? null,
    live_facts: liveFacts,
    freshness: {
      generated_at: iso(now),
      live_read_at: reads.length > 0 ? iso(Math.min(...reads)) : null,
      policy_index_built_at: parts.policy_index_built_at ?? null,
    },
    versions: {
      policies: parts.policies ?? {},
      catalog_source: parts.catalog_source ?? null,
      answer_format: ANSWER_FORMAT_VERSION,
    },
  };
}

/** The support contact as one markdown line (in the thread's language), or null when the store has none. */
export function contactLine(contact: SupportContact | null, lang: ChatLang = DEFAULT_LANGUAGE): string | null {
  if (!contact) return null;
  const words = T(lang).contact;
  const channels: string[] = [];
  if (contact.email) channels.push(`${words.email} ${contact.email}`);
  if (contact.phone) channels.push(`${words.phone} ${contact.phone}`);
  if (contact.url) channels.push(contact.url);
  if (channels.length === 0 && !contact.hours) return null;
  return words.sentence(channels, contact.hours ? ` (${contact.hours})` : "");
}

export const contactAction = (): NextAction => ({ type: "contact_support", label: "Contact the store" });

/** One line per product card: title, then price and stock only from this answer's live facts. */
export function productLines(cards: ProductCard[], facts: LiveFact[], lang: ChatLang = DEFAULT_LANGUAGE): string[] {
  return cards.map((card) => {
    const price = facts.find((f) => f.product_id === card.product_id && f.field === "price");
    const stock = facts.find((f) => f.product_id === card.product_id && f.field === "availability");
    const priceText = card.price_state === "live" && price ? formatLiveFact(price, lang) : T(lang).priceUnavailable;
    const stockText = card.availability_state === "live" && stock ? formatLiveFact(stock, lang) : T(lang).availabilityUnchecked;
    return `- **${escapeMarkdown(card.title)}** — ${priceText} · ${stockText}`;
  });
}

/** Order lines show id, status and date: no amounts (a total is not a live fact of the answer). */
export function orderLines(orders: OrderSummary[], lang: ChatLang = DEFAULT_LANGUAGE): string[] {
  return orders.map((o) => T(lang).orderLine(escapeMarkdown(o.order_id), escapeMarkdown(o.status), o.placed_at.slice(0, 10)));
}

/** Splits text into chunks whose concatenation is exactly the text (for answer.delta events). */
export function chunkText(text: string, size = 120): string[] {
  const tokens = text.match(/\s+|\S+/g) ?? [];
  const chunks: string[] = [];
  let current = "";
  for (const token of tokens) {
    if (current.length > 0 && current.length + token.length > size) {
      chunks.push(current);
      current = "";
    }
    current += token;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
