// "Add N of <product> to my cart": the product is the one whose title is the reference exactly
// (or its id), else the one whose title holds the reference best, words compared as stems of the
// thread's language (products.ts matchTitle: "running sock packs" is "Running Socks 3-Pack"), else
// the found products whose titles share the most of the reference's words (closestTitles: "the
// valspar eggshell white gallon" is the one Valspar paint); one product → a consent-gated
// add_to_cart proposal with that product and quantity; several equally good → which one?; none
// found → nothing added.
import type { Intent } from "../knowledge/types.js";
import { composeAnswer, escapeMarkdown, productLines, type AnswerParts } from "../answers/compose.js";
import { T } from "../answers/i18n.js";
import { MAX_PRODUCT_CARDS } from "./limits.js";
import { closestTitles, matchTitle } from "./products.js";
import { EVENT, limitedAnswer, searchLimitations, type TurnReply, type TurnTools } from "./tools.js";

export async function cartTurn(t: TurnTools, intent: Extract<Intent, { kind: "action" }>): Promise<TurnReply> {
  const { session } = t.handle;
  const found = await t.gateway.search(session.storeId, { q: intent.product_ref, limit: MAX_PRODUCT_CARDS });
  await t.emit(EVENT.productsRead, {
    count: found.products.length,
    source: found.source,
    live_facts: found.live_facts.length,
    warnings: found.warnings,
  });
  const base: Pick<AnswerParts, "catalog_source" | "live_facts"> = { catalog_source: found.source, live_facts: found.live_facts };
  const ref = intent.product_ref.trim().toLowerCase();
  const exact = found.products.filter((p) => p.product_id.toLowerCase() === ref || p.title.trim().toLowerCase() === ref);
  const close = exact.length === 1 ? null : matchTitle(found.products, intent.product_ref, t.lang);
  const closest = exact.length === 1 || close ? [] : closestTitles(found.products, intent.product_ref, t.lang);
  const matches = exact.length === 1 ? exact : close ? [close] : closest.length > 0 ? closest : found.products;
  if (matches.length === 0) {
    return limitedAnswer(
      t,
      T(t.lang).cartNotFound(escapeMarkdown(intent.product_ref)),
      [{ code: "no_match", message: "No product of the catalogue matches the item to add." }],
      base,
    );
  }
  if (matches.length > 1) {
    const question = T(t.lang).cartWhich(matches.map((p) => escapeMarkdown(p.title)));
    return {
      outcome: "clarification",
      answer: composeAnswer(
        {
          ...base,
          answer_status: "needs_clarification",
          response_markdown: [question, productLines(matches, found.live_facts, t.lang).join("\n")].join("\n\n"),
          clarification_question: question,
          products: matches,
          limitations: searchLimitations(found),
          next_actions: [{ type: "reply", label: "Pick a product" }],
        },
        t.now(),
      ),
    };
  }
  const product = matches[0]!;
  const quantity = Math.max(1, Math.floor(intent.quantity || 1));
  const proposal = await t.propose("add_to_cart", { product_id: product.product_id, quantity });
  const line = productLines([product], found.live_facts, t.lang)[0]!;
  return {
    outcome: "confirmation_required",
    answer: composeAnswer(
      {
        ...base,
        answer_status: "awaiting_confirmation",
        response_markdown: `${T(t.lang).cartConfirm(quantity, escapeMarkdown(product.title))}\n\n${line}`,
        products: [product],
        limitations: searchLimitations(found).filter((l) => l.code !== "excluded_without_live_price"),
        next_actions: proposal,
      },
      t.now(),
    ),
  };
}
