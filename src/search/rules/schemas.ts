// Request and response schemas of /v1/search/rules (merchandising rules; issue 38, item 4).
import { Type } from "typebox";
import { FIELD_PATTERN, ProductId } from "../products/schemas.js";

/** Rules a store may hold. */
export const RULES_MAX_PER_STORE = 500;
/** Pins of one rule. */
export const RULE_MAX_PINS = 20;
/** Hidden products of one rule. */
export const RULE_MAX_HIDE = 100;
/** Boost (and, apart, bury) conditions of one rule. */
export const RULE_MAX_CONDITIONS = 10;
/** Highest pin position: the largest page a search returns. */
export const RULE_MAX_POSITION = 100;
/** Words of a rule's query. */
export const RULE_MAX_QUERY_WORDS = 10;

const Match = Type.Union([Type.Literal("exact"), Type.Literal("contains")], {
  description:
    "exact: the search's normalised query equals `query`; contains: the search's query holds the words of `query` in a row (whole words)",
});
const Condition = Type.Object(
  {
    field: Type.String({
      pattern: FIELD_PATTERN,
      description: "Metadata key, e.g. category, brand, tags; dotted for nested keys",
    }),
    value: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Number(), Type.Boolean()], {
      description: "Met when the metadata value equals it (strings ignoring case), or a list (tags) holds it",
    }),
  },
  { additionalProperties: false },
);
const Pin = Type.Object(
  {
    product_id: ProductId,
    position: Type.Integer({ minimum: 1, maximum: RULE_MAX_POSITION, description: "1-based position in the results" }),
  },
  { additionalProperties: false },
);

export const RuleBody = Type.Object(
  {
    match: Match,
    query: Type.String({
      minLength: 1,
      maxLength: 200,
      description: `1–${RULE_MAX_QUERY_WORDS} words; stored normalised (lower-case words of letters or digits, one space between)`,
    }),
    pins: Type.Optional(
      Type.Array(Pin, {
        maxItems: RULE_MAX_PINS,
        description: "Products placed at these positions (shown even when the ranking missed them)",
      }),
    ),
    hide: Type.Optional(Type.Array(ProductId, { maxItems: RULE_MAX_HIDE, description: "Products removed from the results" })),
    boost: Type.Optional(
      Type.Array(Condition, { maxItems: RULE_MAX_CONDITIONS, description: "Results meeting a condition move above the others" }),
    ),
    bury: Type.Optional(
      Type.Array(Condition, { maxItems: RULE_MAX_CONDITIONS, description: "Results meeting a condition move below the others" }),
    ),
    enabled: Type.Optional(Type.Boolean({ default: true, description: "A disabled rule is kept but never applied" })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: "A note for people" })),
  },
  { additionalProperties: false },
);

export const RuleView = Type.Object({
  id: Type.String({ description: "rule_…" }),
  match: Match,
  query: Type.String({ description: "Normalised" }),
  pins: Type.Array(Pin, { description: "By position" }),
  hide: Type.Array(Type.String()),
  boost: Type.Array(Condition),
  bury: Type.Array(Condition),
  enabled: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
  hits: Type.Integer({ description: "Searches the rule applied to since it was made" }),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
});

export const RuleIdParams = Type.Object({ rule_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export const RuleDeleted = Type.Object({ deleted: Type.Literal(true), id: Type.String() });

/** A rule in search analytics. */
export const RuleHitsView = Type.Object({
  id: Type.String(),
  match: Match,
  query: Type.String(),
  enabled: Type.Boolean(),
  hits: Type.Integer({ description: "Searches of the window the rule applied to" }),
});
