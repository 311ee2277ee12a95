// The four tools the model may call in agent mode, and what one turn has seen through them.
//
//   search_policies {query}            → the knowledge engine's grounded answer for the query:
//                                        its passages, numbered P1, P2 … for the whole turn
//                                        (a conflict between policies ends the agent: the
//                                        extractive path hands off with both statements);
//   search_catalogue {query}           → catalogue search (live price and stock per the spec's
//                                        rules, at most MAX_PRODUCT_CARDS products);
//   read_product {product_id}          → a fresh live read of a product this turn has already
//                                        seen (the catalogue is searched again by its title and
//                                        the card with that id taken);
//   propose_cart_action {product_id, quantity}
//                                      → ends the turn with `confirmation_required`: the intent
//                                        goes through the chat's consent gate (TurnTools.propose)
//                                        and the preview text is the service's own.
// Every tool reads the session's own store only (t.handle.session.storeId); a product id the
// model did not get from a tool of this turn is refused, so no id — another store's included —
// is ever looked up. Bad calls (arguments that are not a JSON object, missing or over-long
// values, an unknown tool) are answered with {"error": …} so the model can correct itself
// within the round limit; they never throw.
import type { Citation } from "../knowledge/types.js";
import { formatLiveFact } from "../answers/format.js";
import { MAX_PRODUCT_CARDS } from "../turns/limits.js";
import { EVENT, type TurnTools } from "../turns/tools.js";
import type { CatalogSearchResult, LiveFact, ProductCard } from "../storefront/types.js";
import type { Seen } from "./check.js";

export const MAX_QUERY_CHARS = 300;
export const MAX_QUANTITY = 99;

const stringParam = (description: string) => ({ type: "string", description, maxLength: MAX_QUERY_CHARS });

/** The `tools` of every chat-completions request (OpenAI function-tool format). */
export const TOOL_DEFINITIONS = [
  {
    type: "function",
    function: {
      name: "search_policies",
      description:
        "Search the store's published policies (shipping, returns, payment, warranty …). Returns passages with ids P1, P2 … to cite.",
      parameters: {
        type: "object",
        properties: { query: stringParam("A self-contained question or keywords") },
        required: ["query"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search_catalogue",
      description: "Search the store's catalogue. Returns products with their live price and stock.",
      parameters: {
        type: "object",
        properties: { query: stringParam("What the shopper is looking for") },
        required: ["query"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "read_product",
      description: "Read one product's live price and stock again. Only ids returned by search_catalogue in this conversation.",
      parameters: {
        type: "object",
        properties: { product_id: stringParam("The product_id from search_catalogue") },
        required: ["product_id"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "propose_cart_action",
      description: "Propose adding a product to the shopper's cart. The shopper must confirm it; nothing is added before. Ends the turn.",
      parameters: {
        type: "object",
        properties: {
          product_id: stringParam("The product_id from search_catalogue"),
          quantity: { type: "integer", minimum: 1, maximum: MAX_QUANTITY },
        },
        required: ["product_id", "quantity"],
        additionalProperties: false,
      },
    },
  },
] as const;

export type ToolName = (typeof TOOL_DEFINITIONS)[number]["function"]["name"];

export interface ToolOutcome {
  /** The tool message's content (JSON). */
  content: string;
  /** Whether the call was well-formed and ran. */
  ok: boolean;
  /** Set by a valid propose_cart_action: the turn ends with this proposal. */
  proposal?: { product: ProductCard; quantity: number };
}

const error = (message: string): ToolOutcome => ({ ok: false, content: JSON.stringify({ error: message }) });

/** The arguments as an object: JSON text (the protocol) or an object (some servers); else null. */
function parseArguments(raw: unknown): Record<string, unknown> | null {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw.trim() === "" ? "{}" : raw);
    } catch {
      return null;
    }
  }
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function text(args: Record<string, unknown>, key: string): string | null {
  const v = args[key];
  return typeof v === "string" && v.trim().length > 0 && v.length <= MAX_QUERY_CHARS ? v.trim() : null;
}

/** One turn's tool runner and everything its tools returned. */
/** A tool call as the model sent it: untrusted JSON whose fields may be missing or of another type. */
export type ReceivedToolCall = { id?: unknown; function?: { name?: unknown; arguments?: unknown } | null } | null | undefined;

export class AgentTools implements Seen {
  readonly passages = new Map<string, { citation: Citation; text: string }>();
  readonly products = new Map<string, ProductCard>();
  readonly facts = new Map<string, LiveFact[]>();
  /** concept_id → version of every policy index consulted. */
  readonly policies: Record<string, number> = {};
  indexBuiltAt: string | null = null;
  catalogSource: string | null = null;
  /** Set when a search_policies call found two policies that disagree. */
  conflict = false;
  private readonly passageIds = new Map<string, string>();

  constructor(private readonly t: TurnTools) {}

  async run(call: ReceivedToolCall): Promise<ToolOutcome> {
    const name = typeof call?.function?.name === "string" ? call.function.name : "";
    const args = parseArguments(call?.function?.arguments);
    if (!TOOL_DEFINITIONS.some((d) => d.function.name === name)) {
      return error(`Unknown tool "${name.slice(0, 64)}". Tools: ${TOOL_DEFINITIONS.map((d) => d.function.name).join(", ")}.`);
    }
    if (!args) return error("The arguments are not a JSON object; send them as a JSON object.");
    switch (name as ToolName) {
      case "search_policies":
        return this.searchPolicies(args);
      case "search_catalogue":
        return this.searchCatalogue(args);
      case "read_product":
        return this.readProduct(args);
      case "propose_cart_action":
        return this.proposeCartAction(args);
    }
  }

  private async searchPolicies(args: Record<string, unknown>): Promise<ToolOutcome> {
    const query = text(args, "query");
    if (!query) return error(`"query" must be a non-empty string of at most ${MAX_QUERY_CHARS} characters.`);
    const { session, thread } = this.t.handle;
    const { result, versions } = await this.t.knowledge.answer(session.storeId, query, thread.locale);
    Object.assign(this.policies, versions.policies);
    this.indexBuiltAt = versions.index_built_at;
    await this.t.emit(EVENT.retrievalCompleted, {
      result: result.kind,
      citations: result.kind === "no_evidence" ? [] : result.citations,
      policies: versions.policies,
      index_built_at: versions.index_built_at,
    });
    if (result.kind === "conflict") {
      this.conflict = true;
      return {
        ok: true,
        content: JSON.stringify({ result: "conflict", note: "Two published policies disagree; the store's team answers this." }),
      };
    }
    if (result.kind === "no_evidence") {
      return { ok: true, content: JSON.stringify({ result: "no_evidence", note: "No published policy covers this." }) };
    }
    const passages = result.passages.map((p) => {
      const key = `${p.citation.concept_id}:${p.citation.concept_version}:${p.text}`;
      let id = this.passageIds.get(key);
      if (!id) {
        id = `P${this.passageIds.size + 1}`;
        this.passageIds.set(key, id);
        this.passages.set(id, { citation: p.citation, text: p.text });
      }
      return { id, policy: p.citation.title, text: p.text };
    });
    return { ok: true, content: JSON.stringify({ result: "passages", passages }) };
  }

  private async search(query: string): Promise<CatalogSearchResult> {
    const found = await this.t.gateway.search(this.t.handle.session.storeId, { q: query, limit: MAX_PRODUCT_CARDS });
    await this.t.emit(EVENT.productsRead, {
      count: found.products.length,
      source: found.source,
      live_facts: found.live_facts.length,
      warnings: found.warnings,
    });
    this.catalogSource = found.source;
    return found;
  }

  /** Keeps the latest read of a product and describes it to the model (price and stock only from live facts). */
  private remember(card: ProductCard, found: CatalogSearchResult): Record<string, unknown> {
    const facts = found.live_facts.filter((f) => f.product_id === card.product_id);
    this.products.set(card.product_id, card);
    this.facts.set(card.product_id, facts);
    const price = facts.find((f) => f.field === "price");
    const stock = facts.find((f) => f.field === "availability");
    return {
      product_id: card.product_id,
      title: card.title,
      price: card.price_state === "live" && price ? formatLiveFact(price, this.t.lang) : null,
      stock: card.availability_state === "live" && stock ? formatLiveFact(stock, this.t.lang) : null,
    };
  }

  private async searchCatalogue(args: Record<string, unknown>): Promise<ToolOutcome> {
    const query = text(args, "query");
    if (!query) return error(`"query" must be a non-empty string of at most ${MAX_QUERY_CHARS} characters.`);
    const found = await this.search(query);
    const products = found.products.map((card) => this.remember(card, found));
    return { ok: true, content: JSON.stringify({ products, note: "price or stock null: not read live, do not state it" }) };
  }

  private seenProduct(args: Record<string, unknown>): ProductCard | string {
    const id = text(args, "product_id");
    if (!id) return `"product_id" must be a product_id returned by search_catalogue.`;
    return (
      this.products.get(id) ??
      `Unknown product_id "${id.slice(0, 64)}": use a product_id returned by search_catalogue in this conversation.`
    );
  }

  private async readProduct(args: Record<string, unknown>): Promise<ToolOutcome> {
    const seen = this.seenProduct(args);
    if (typeof seen === "string") return error(seen);
    const found = await this.search(seen.title);
    const fresh = found.products.find((p) => p.product_id === seen.product_id);
    if (!fresh) return error(`The product "${seen.product_id}" was not found in a fresh read of the catalogue.`);
    return { ok: true, content: JSON.stringify({ product: this.remember(fresh, found) }) };
  }

  private proposeCartAction(args: Record<string, unknown>): ToolOutcome {
    const seen = this.seenProduct(args);
    if (typeof seen === "string") return error(seen);
    const raw = args.quantity;
    const quantity = typeof raw === "string" && /^\d{1,3}$/.test(raw.trim()) ? Number(raw) : raw; // "2" from models that quote numbers
    if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
      return error(`"quantity" must be an integer from 1 to ${MAX_QUANTITY}.`);
    }
    return { ok: true, content: JSON.stringify({ result: "proposed" }), proposal: { product: seen, quantity } };
  }
}
