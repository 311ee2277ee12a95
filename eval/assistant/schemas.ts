// The shapes of the assistant evaluation's data files (northwind.json, retailers/, blind/): TypeBox
// schemas that load.ts checks every file against, and the types the runners use (from the schemas).
import { Type, type Static, type TSchema } from "typebox";
import { VocabularySchema } from "../../src/assistant/settings/schemas.js";

const strict = { additionalProperties: false };

export const FixturePolicy = Type.Object(
  {
    concept_id: Type.String(),
    handle: Type.String(),
    title: Type.String(),
    locale: Type.String(),
    published: Type.Boolean(),
    body_markdown: Type.String(),
    /** Earlier versions PUT before this one (older text): the answer must cite the newest. */
    earlier: Type.Optional(Type.Array(Type.String())),
  },
  strict,
);
export type FixturePolicy = Static<typeof FixturePolicy>;

export const FixtureProduct = Type.Object(
  {
    product_id: Type.String(),
    name: Type.String(),
    category: Type.String(),
    color_name: Type.String(),
    hex: Type.String(),
    size: Type.Optional(Type.String()),
    price: Type.Number(),
    stock: Type.Integer(),
    sku: Type.String(),
  },
  strict,
);
export type FixtureProduct = Static<typeof FixtureProduct>;

export const Outcome = Type.Enum(["answer", "clarification", "confirmation_required", "handoff", "denied", "temporary_failure"]);
export type Outcome = Static<typeof Outcome>;

const Locale = Type.Enum(["en", "de"]);

export const SupportContact = Type.Object(
  { email: Type.String(), phone: Type.Optional(Type.String()), hours: Type.Optional(Type.String()) },
  strict,
);

/** A group of questions in a questions list, with what the comment above it said. */
const Section = <T extends TSchema>(question: T) =>
  Type.Object({ about: Type.Optional(Type.String()), questions: Type.Array(question) }, strict);

// --- northwind.json (fixture.ts) --------------------------------------------------------------

export const FixtureQuestion = Type.Object(
  {
    id: Type.String(),
    locale: Locale,
    text: Type.String(),
    expect: Type.Object({ outcome: Outcome, cites: Type.Array(Type.String()), products: Type.Optional(Type.Boolean()) }, strict),
  },
  strict,
);
export type FixtureQuestion = Static<typeof FixtureQuestion>;

export const NorthwindFile = Type.Object(
  {
    settings: Type.Object({ currency: Type.String(), support_contact: SupportContact }, strict),
    policies: Type.Array(FixturePolicy),
    products: Type.Array(FixtureProduct),
    sections: Type.Array(Section(FixtureQuestion)),
  },
  strict,
);

// --- retailers/ (retailers.ts) and blind sets ----------------------------------------------------

export const RetailerStore = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    kind: Type.String(),
    currency: Type.String(),
    sources: Type.Array(Type.String()),
    support_contact: SupportContact,
    /** The store's own words (PUT /v1/admin/settings/vocabulary), as its owner would enter them. */
    vocabulary: Type.Optional(VocabularySchema),
    policies: Type.Array(FixturePolicy),
    products: Type.Array(FixtureProduct),
  },
  strict,
);
export type RetailerStore = Static<typeof RetailerStore>;

export const Category = Type.Enum([
  "policy",
  "paraphrase",
  "scoped",
  "conflict",
  "multi_part",
  "german",
  "follow_up",
  "unanswerable",
  "injection",
  "routing",
  "product",
  "cart",
  "order",
  "smalltalk",
]);
export type Category = Static<typeof Category>;

export const RetailQuestion = Type.Object(
  {
    id: Type.String(),
    store: Type.String(),
    locale: Locale,
    category: Category,
    text: Type.String(),
    before: Type.Optional(Type.Array(Type.String())),
    expect: Type.Object(
      {
        outcome: Type.Union([Outcome, Type.Array(Outcome)]),
        cites: Type.Array(Type.String()),
        alsoOk: Type.Optional(Type.Array(Type.String())),
        facts: Type.Optional(Type.Array(Type.String())),
        forbid: Type.Optional(Type.Array(Type.String())),
        conflicts: Type.Optional(Type.Boolean()),
        products: Type.Optional(Type.Array(Type.String())),
        quantity: Type.Optional(Type.Integer()),
      },
      strict,
    ),
  },
  strict,
);
export type RetailQuestion = Static<typeof RetailQuestion>;

/** One file of retailers/questions/: a round of questions, in the order they are asked. */
export const QuestionsFile = Type.Object({ about: Type.String(), sections: Type.Array(Section(RetailQuestion)) }, strict);

/** A helper-written set (blind/*.json): its own stores and questions (other top-level fields, e.g. `written`, are free). */
export const RetailSetFile = Type.Object({
  stores: Type.Array(RetailerStore),
  questions: Type.Array(RetailQuestion),
});
