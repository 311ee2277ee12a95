// TypeBox schemas of the answer object (and the turn's outcome): what a chat turn returns, what the
// transcript route (src/assistant/sessions/routes.ts) presents, what the agent and the turns compose.
import { Type, type Static } from "typebox";

const MoneySchema = Type.Object(
  { amount_minor: Type.Integer({ description: "Minor currency units" }), currency: Type.String({ description: "ISO 4217" }) },
  { additionalProperties: true },
);
const AvailabilitySchema = Type.Object(
  { state: Type.String({ description: "in_stock | low_stock | out_of_stock | unknown" }), quantity: Type.Optional(Type.Integer()) },
  { additionalProperties: true },
);

export const CitationSchema = Type.Object({
  handle: Type.String(),
  concept_id: Type.String(),
  concept_version: Type.Integer(),
  title: Type.String(),
});

export const ProductCardSchema = Type.Object(
  {
    product_id: Type.String({ description: "prd_…" }),
    title: Type.String(),
    image_url: Type.Union([Type.String(), Type.Null()]),
    url: Type.Union([Type.String(), Type.Null()]),
    price_state: Type.String({ description: "live | unavailable | not_requested; price is present only when live" }),
    price: Type.Union([MoneySchema, Type.Null()]),
    availability_state: Type.String({ description: "live | unavailable | not_requested" }),
    availability: Type.Union([AvailabilitySchema, Type.Null()]),
  },
  { additionalProperties: true },
);

export const LiveFactSchema = Type.Object({
  source: Type.String({ description: "shopsight_catalog or storefront:<host>" }),
  product_id: Type.String(),
  field: Type.String({ description: "price | availability" }),
  value: Type.Union([MoneySchema, AvailabilitySchema]),
  read_at: Type.String({ format: "date-time" }),
});

export const ConflictSchema = Type.Object({
  point: Type.String(),
  citations: Type.Array(CitationSchema),
  statements: Type.Array(Type.String()),
});

export const LimitationSchema = Type.Object({
  code: Type.String({
    description:
      "no_evidence | no_products | not_verified_live | excluded_without_live_price | no_orders | order_not_found | no_support_contact | dependency_unavailable | no_match",
  }),
  message: Type.String(),
});

export const NextActionSchema = Type.Object({
  type: Type.String({ description: "confirm | cancel | contact_support | retry | sign_in | reply" }),
  label: Type.String(),
  intent_id: Type.Optional(Type.String({ description: "int_… (confirm and cancel)" })),
  action: Type.Optional(Type.String({ description: "add_to_cart | start_return" })),
  arguments: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]))),
  expires_at: Type.Optional(Type.String({ format: "date-time" })),
  method: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
});

export const SupportContactSchema = Type.Object({
  email: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  hours: Type.Optional(Type.String()),
});

export const HandoffSchema = Type.Object({
  reason: Type.String({ description: "policy_conflict | no_evidence | requested (the shopper asked for a person)" }),
  support_contact: Type.Union([SupportContactSchema, Type.Null()]),
});

export const FreshnessSchema = Type.Object({
  generated_at: Type.String({ format: "date-time", description: "When this answer was composed" }),
  live_read_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
    description: "Earliest live read behind live_facts (null: none)",
  }),
  policy_index_built_at: Type.Union([Type.String(), Type.Null()], {
    description: "When the policy index used was built (null: not consulted)",
  }),
});

export const VersionsSchema = Type.Object({
  policies: Type.Record(Type.String(), Type.Integer(), { description: "concept_id → concept_version consulted" }),
  catalog_source: Type.Union([Type.String(), Type.Null()], { description: "shopsight_catalog or storefront:<host> (null: not consulted)" }),
  answer_format: Type.Integer({ description: "Version of this answer object's shape (1)" }),
});

export const ANSWER_STATUSES = [
  "answered",
  "limited",
  "needs_clarification",
  "awaiting_confirmation",
  "handed_off",
  "denied",
  "unavailable",
] as const;
export const OUTCOMES = ["answer", "clarification", "confirmation_required", "handoff", "denied", "temporary_failure"] as const;

export const AnswerSchema = Type.Object({
  answer_status: Type.String({ description: ANSWER_STATUSES.join(" | ") }),
  response_markdown: Type.String(),
  citations: Type.Array(CitationSchema),
  products: Type.Array(ProductCardSchema),
  clarification_question: Type.Union([Type.String(), Type.Null()]),
  conflicts: Type.Array(ConflictSchema),
  limitations: Type.Array(LimitationSchema),
  next_actions: Type.Array(NextActionSchema),
  handoff: Type.Union([HandoffSchema, Type.Null()]),
  live_facts: Type.Array(LiveFactSchema),
  freshness: FreshnessSchema,
  versions: VersionsSchema,
});

export const OutcomeSchema = Type.String({ description: OUTCOMES.join(" | ") });

export type Answer = Static<typeof AnswerSchema>;
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];
export type Outcome = (typeof OUTCOMES)[number];
export type Limitation = Static<typeof LimitationSchema>;
export type NextAction = Static<typeof NextActionSchema>;
export type Handoff = Static<typeof HandoffSchema>;
export type SupportContact = Static<typeof SupportContactSchema>;
