// Product requests and products named by their title.
//
// A product request searches the catalogue with the router's query and filters (live price and
// stock for the cards shown). A product *named* in the text — "do you have the Sony WH-1000XM5
// Wireless Noise Cancelling Headphones in stock?", "add 2 of the KIVIK sofa" — resolves to that
// product (namedProduct): the catalogue is searched with the text and each result's title is
// compared with the words of the text; the product whose title words are found best (at least
// half of them and two words, or all of a one-word title) wins when no other product ties with it.
import { stem, words, type Lang } from "../knowledge/text.js";
import { alternation, isStopWordOfAny, perRegistry } from "../language/index.js";
import type { Intent } from "../knowledge/types.js";
import type { CatalogSearchResult, ProductCard } from "../storefront/types.js";
import { composeAnswer, escapeMarkdown, productLines, type AnswerParts } from "../answers/compose.js";
import { T } from "../answers/i18n.js";
import { MAX_PRODUCT_CARDS } from "./limits.js";
import { EVENT, limitedAnswer, searchLimitations, type TurnReply, type TurnTools } from "./tools.js";

/** Share of a title's words that must occur in the text. */
export const TITLE_MIN_COVERAGE = 0.5;

/** A text's content words; as stems in `lang` when given ("running sock packs" meets "Running Socks 3-Pack", "fußbälle" "Fußball"). */
const titleWords = (title: string, lang?: Lang): string[] => [
  ...new Set(
    words(title)
      .filter((w) => !isStopWordOfAny(w))
      .map((w) => (lang ? stem(w, lang) : w)),
  ),
];

/**
 * The product whose title the text names (see the header), or null. With `ref`, the text is just a
 * product reference in that language ("add 3 of the running sock packs"), compared as stems; a title
 * named inside a sentence is compared word for word ("do you have any body butters" names no one
 * "Body Butter").
 */
export function matchTitle(products: ProductCard[], text: string, ref?: Lang): ProductCard | null {
  const refOnly = ref !== undefined;
  const refWords = titleWords(text, ref);
  const said = new Set(refWords);
  const scored = products
    .map((p) => {
      const tw = titleWords(p.title, ref);
      const hit = tw.filter((w) => said.has(w)).length;
      const coverage = tw.length === 0 ? 0 : hit / tw.length;
      // A reference ("samba og sneaker", "airpods pro") is matched by how much of it the title holds.
      const refCoverage = refWords.length === 0 ? 0 : refWords.filter((w) => tw.includes(w)).length / refWords.length;
      const ok = refOnly
        ? refCoverage >= 0.6 && hit >= Math.min(2, refWords.length)
        : coverage >= TITLE_MIN_COVERAGE && (hit >= 2 || tw.length === 1);
      return { p, ok, score: refOnly ? refCoverage + 0.1 * coverage : coverage };
    })
    .filter((x) => x.ok)
    .sort((a, b) => b.score - a.score);
  if (scored.length === 0) return null;
  if (scored.length > 1 && scored[1]!.score === scored[0]!.score) return null;
  return scored[0]!.p;
}

/** The products whose titles hold the most of the text's words (at least one); empty when no title holds any. */
export function closestTitles(products: ProductCard[], text: string, lang: Lang): ProductCard[] {
  const refWords = titleWords(text, lang);
  const shared = products.map((p) => {
    const tw = new Set(titleWords(p.title, lang));
    return refWords.filter((w) => tw.has(w)).length;
  });
  const best = Math.max(0, ...shared);
  return best === 0 ? [] : products.filter((_, i) => shared[i] === best);
}

export async function namedProduct(t: TurnTools, query: string): Promise<{ product: ProductCard; found: CatalogSearchResult } | null> {
  const found = await t.gateway.search(t.handle.session.storeId, { q: query, limit: MAX_PRODUCT_CARDS });
  const product = matchTitle(found.products, query);
  return product ? { product, found } : null;
}

const cues = perRegistry(() => ({
  availability: new RegExp(`\\b(?:${alternation((p) => p.router.availability)})`, "i"),
  notModelNumbers: new RegExp(`\\b\\d+\\s*(?:${alternation((p) => p.router.notModelNumbers)}|%)\\b`, "gi"),
}));

/** Whether a text asks about a product's availability or price (a policy-like question about a named product), in any language. */
export const asksAvailability = (text: string): boolean => cues().availability.test(text);

/** Whether the text may name a product: a cue, a model number, or two capitalised words in a row. */
export function mayNameProduct(text: string): boolean {
  return (
    asksAvailability(text) ||
    /\b[a-z]+-?\d+[a-z]*\b/i.test(text.replace(cues().notModelNumbers, "")) ||
    /\b[A-Z][\w-]*\s+[A-Z0-9][\w-]*/.test(text.slice(1))
  );
}

/** The answer showing one named product with its live price and stock. */
export async function namedProductTurn(t: TurnTools, named: { product: ProductCard; found: CatalogSearchResult }): Promise<TurnReply> {
  const { product, found } = named;
  const facts = found.live_facts.filter((f) => f.product_id === product.product_id);
  await t.emit(EVENT.productsRead, { count: 1, source: found.source, live_facts: facts.length, warnings: found.warnings });
  return {
    outcome: "answer",
    answer: composeAnswer(
      {
        catalog_source: found.source,
        live_facts: facts,
        answer_status: "answered",
        response_markdown: [T(t.lang).foundNamed, productLines([product], facts, t.lang).join("\n")].join("\n\n"),
        products: [product],
        limitations: searchLimitations(found).filter((l) => l.code !== "excluded_without_live_price"),
      },
      t.now(),
    ),
  };
}

export async function productsTurn(t: TurnTools, intent: Extract<Intent, { kind: "product" }>): Promise<TurnReply> {
  const { session } = t.handle;
  const found = await t.gateway.search(session.storeId, { q: intent.query, ...intent.filters, limit: MAX_PRODUCT_CARDS });
  await t.emit(EVENT.productsRead, {
    count: found.products.length,
    source: found.source,
    live_facts: found.live_facts.length,
    warnings: found.warnings,
  });
  const limitations = searchLimitations(found);
  const base: Pick<AnswerParts, "catalog_source" | "live_facts"> = { catalog_source: found.source, live_facts: found.live_facts };
  if (found.products.length === 0) {
    return limitedAnswer(
      t,
      T(t.lang).noProducts(escapeMarkdown(intent.query)),
      [{ code: "no_products", message: "No product of the store's catalogue matches the request." }, ...limitations],
      base,
    );
  }
  return {
    outcome: "answer",
    answer: composeAnswer(
      {
        ...base,
        answer_status: "answered",
        response_markdown: [
          T(t.lang).found(escapeMarkdown(intent.query)),
          productLines(found.products, found.live_facts, t.lang).join("\n"),
        ].join("\n\n"),
        products: found.products,
        limitations,
      },
      t.now(),
    ),
  };
}
