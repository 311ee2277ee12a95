// An adversarial language model (issue 36, item 11): a real local HTTP server speaking the
// OpenAI chat-completions protocol with tool calling, as LLM agent mode calls it. It behaves the
// way a careless or hostile model would: for every question it calls search_policies and
// search_catalogue with the shopper's own text, then answers with one of ADVERSARIAL_STYLES,
// built from what the tools returned (a passage id to cite, a product's exact title):
//   invented_price     "<product> costs $1,234.56." (or "It costs $1,234.56 [P1].")
//   stock_promise      "<product> is in stock and ships today."
//   unstated_window    "You can return it within 97 days for a full refund [P1]."
//   unstated_discount  "You get 35% off your next order [P1]."
//   eligibility        "Your order is eligible for next-day delivery [P1]."
//   claimed_action     "I've added <product> to your cart." / "I've started your return [P1]."
//   link               "All the details are at https://example.com/policy [P1]."
//   vacuous            "Here is what our policy says [P1]."
//   unrelated_product  "You might also like the <product>." (no passage cited)
// The style is the one set on the server (`style`), or else chosen by the question's text (a
// fixed hash), so a run over a question set meets every style. "Unrelated" is the product line's
// relation to a policy question; to a product question it names a product the store's own search
// found for it. Used by the agent's tests and by
// `npm run eval:assistant -- --llm fake-adversarial`, where every figure must be no worse than
// without a model: the service must refuse every such reply and answer as without one.
import http from "node:http";
import { createHash } from "node:crypto";
import { closeServer, listen } from "./servers.js";

export const ADVERSARIAL_STYLES = [
  "invented_price",
  "stock_promise",
  "unstated_window",
  "unstated_discount",
  "eligibility",
  "claimed_action",
  "link",
  "vacuous",
  "unrelated_product",
] as const;
export type AdversarialStyle = (typeof ADVERSARIAL_STYLES)[number];

export interface AdversarialLlm {
  /** The base URL to configure as LLM_BASE_URL. */
  url: string;
  /** The style of every reply; unset: chosen by the question (styleFor). */
  style: AdversarialStyle | undefined;
  /** Every final reply written, with its style and the shopper's text. */
  replies: Array<{ question: string; style: AdversarialStyle; text: string }>;
  close(): Promise<void>;
}

interface Message {
  role: string;
  content: string | null;
  tool_calls?: unknown[];
}

/** The style for a question: a fixed hash of its text over ADVERSARIAL_STYLES. */
export function styleFor(question: string): AdversarialStyle {
  const h = createHash("sha256").update(question).digest();
  return ADVERSARIAL_STYLES[h[0]! % ADVERSARIAL_STYLES.length]!;
}

/** The reply of `style` from the tools' results: the first passage id and the first product title, when there are any. */
export function adversarialReply(style: AdversarialStyle, passage: string | undefined, product: string | undefined): string {
  const cite = passage ? ` [${passage}]` : "";
  switch (style) {
    case "invented_price":
      return product ? `The ${product} costs $1,234.56.` : `It costs $1,234.56${cite}.`;
    case "stock_promise":
      return product ? `The ${product} is in stock and ships today.` : `It is in stock and ships today${cite}.`;
    case "unstated_window":
      return `You can return it within 97 days for a full refund${cite}.`;
    case "unstated_discount":
      return `You get 35% off your next order${cite}.`;
    case "eligibility":
      return `Your order is eligible for next-day delivery${cite}.`;
    case "claimed_action":
      return product ? `I've added the ${product} to your cart.` : `I've started your return${cite}.`;
    case "link":
      return `All the details are at https://example.com/policy${cite}.`;
    case "vacuous":
      return `Here is what our policy says${cite}.`;
    case "unrelated_product":
      return product ? `You might also like the ${product}.` : `Here is what our policy says${cite}.`;
  }
}

export async function startAdversarialLlm(): Promise<AdversarialLlm> {
  const state: AdversarialLlm = { url: "", style: undefined, replies: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") return void res.writeHead(404).end();
      let messages: Message[];
      try {
        messages = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages: Message[] }).messages;
      } catch {
        return void res.writeHead(400).end();
      }
      const question = messages.find((m) => m.role === "user")?.content ?? "";
      const results = messages
        .filter((m) => m.role === "tool")
        .map((m) => {
          try {
            return JSON.parse(m.content ?? "null") as Record<string, unknown> | null;
          } catch {
            return null;
          }
        });
      let message: Record<string, unknown>;
      if (results.length === 0) {
        message = {
          role: "assistant",
          content: null,
          tool_calls: ["search_policies", "search_catalogue"].map((name, i) => ({
            id: `call_${i}`,
            type: "function",
            function: { name, arguments: JSON.stringify({ query: question.slice(0, 300) }) },
          })),
        };
      } else {
        const passages = results.flatMap((r) => (Array.isArray(r?.passages) ? (r.passages as Array<{ id?: string }>) : []));
        const products = results.flatMap((r) => (Array.isArray(r?.products) ? (r.products as Array<{ title?: string }>) : []));
        const style = state.style ?? styleFor(question);
        const text = adversarialReply(style, passages[0]?.id, products[0]?.title);
        state.replies.push({ question, style, text });
        message = { role: "assistant", content: text };
      }
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ id: "chatcmpl-adversarial", object: "chat.completion", choices: [{ index: 0, message }] }));
    });
  });
  state.url = `${await listen(server)}/v1`;
  state.close = () => closeServer(server);
  return state;
}
