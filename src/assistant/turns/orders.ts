// The shopper's own orders and returns: only a signed-in (exchanged) customer session reads
// orders; a return of exactly one order is proposed for consent.
import type { Intent } from "../knowledge/types.js";
import { composeAnswer, escapeMarkdown, orderLines } from "../answers/compose.js";
import { T } from "../answers/i18n.js";
import { EVENT, limitedAnswer, type TurnReply, type TurnTools } from "./tools.js";

export async function ordersTurn(t: TurnTools, intent: Extract<Intent, { kind: "order" | "return" }>): Promise<TurnReply> {
  const { session } = t.handle;
  if (session.role !== "customer" || !session.customerId) {
    return {
      outcome: "denied",
      answer: composeAnswer(
        {
          answer_status: "denied",
          response_markdown: T(t.lang).signIn(intent.kind),
          limitations: [{ code: "sign_in_required", message: "Order and return questions need a signed-in (exchanged) session." }],
          next_actions: [{ type: "sign_in", label: "Sign in" }],
        },
        t.now(),
      ),
    };
  }
  const orders = await t.gateway.orders(session.storeId, session.customerId);
  await t.emit(EVENT.ordersRead, { count: orders.length });
  const wanted = intent.order_id ? orders.filter((o) => o.order_id.toLowerCase() === intent.order_id!.toLowerCase()) : orders;
  if (intent.order_id && wanted.length === 0) {
    return limitedAnswer(t, T(t.lang).orderNotFound(escapeMarkdown(intent.order_id)), [
      { code: "order_not_found", message: "No order with that id belongs to the signed-in customer." },
    ]);
  }
  if (wanted.length === 0) {
    return limitedAnswer(t, T(t.lang).noOrders, [{ code: "no_orders", message: "The signed-in customer has no orders in this store." }]);
  }
  if (intent.kind === "order") {
    const recent = wanted.slice(0, 5);
    return {
      outcome: "answer",
      answer: composeAnswer(
        {
          answer_status: "answered",
          response_markdown: [T(t.lang).orders(recent.length === 1), orderLines(recent, t.lang).join("\n")].join("\n\n"),
        },
        t.now(),
      ),
    };
  }
  if (wanted.length > 1) {
    const question = T(t.lang).whichOrder;
    return {
      outcome: "clarification",
      answer: composeAnswer(
        {
          answer_status: "needs_clarification",
          response_markdown: [question, orderLines(wanted.slice(0, 5), t.lang).join("\n")].join("\n\n"),
          clarification_question: question,
          next_actions: [{ type: "reply", label: "Name the order" }],
        },
        t.now(),
      ),
    };
  }
  const order = wanted[0]!;
  const proposal = await t.propose("start_return", { order_id: order.order_id });
  return {
    outcome: "confirmation_required",
    answer: composeAnswer(
      {
        answer_status: "awaiting_confirmation",
        response_markdown: T(t.lang).startReturn(escapeMarkdown(order.order_id)),
        next_actions: proposal,
      },
      t.now(),
    ),
  };
}
