// TypeBox schemas of the store's assistant settings (routes.ts validates and documents with them;
// service.ts types its values from them).
import { Type, type Static } from "typebox";

export const SupportContactSchema = Type.Object(
  {
    email: Type.Optional(Type.String({ format: "email", maxLength: 254 })),
    url: Type.Optional(Type.String({ format: "uri", pattern: "^https?://", maxLength: 2000 })),
    phone: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 40,
        // Digits at least once; letters for vanity numbers and "ext.", "/" between two numbers.
        pattern: "^(?=.*[0-9])[0-9A-Za-z+() ./#*,-]+$",
        description: 'As shoppers should read it: "+44 20 7946 0000", "1-888-30-ROOTS (76687)", "0800 123 456 ext. 2"',
      }),
    ),
    hours: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export const SettingsFields = {
  currency: Type.String({ pattern: "^[A-Za-z]{3}$", description: "ISO 4217 code of the store currency (default USD)" }),
  support_contact: Type.Union([SupportContactSchema, Type.Null()], { description: "Shown to shoppers on handoff; null for none" }),
};
export const SettingsViewFields = {
  ...SettingsFields,
  updated_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "null: never saved (defaults)" }),
};
export const SettingsSchema = Type.Object(SettingsFields);
export const SettingsViewSchema = Type.Object(SettingsViewFields);

export type SupportContact = Static<typeof SupportContactSchema>;
export type AssistantSettings = Static<typeof SettingsSchema>;
export type AssistantSettingsView = Static<typeof SettingsViewSchema>;

/** PUT /v1/admin/settings's body. */
export const SettingsBody = Type.Object(SettingsFields, { additionalProperties: false });

// --- the store's vocabulary (GET/PUT /v1/admin/settings/vocabulary) ------------------------------

/** One word or short phrase of the store's vocabulary (lower-cased on save). */
const VocabularyWord = Type.String({ minLength: 1, maxLength: 40 });

export const VocabularyFields = {
  synonyms: Type.Array(Type.Array(VocabularyWord, { minItems: 2, maxItems: 20 }), {
    maxItems: 200,
    description:
      'Groups of words that mean the same at this store (e.g. ["member", "elite"] when the members\' tier is called Elite). Each word of a group finds the others, weighed below the word itself.',
  }),
  scope_words: Type.Array(VocabularyWord, {
    maxItems: 200,
    description:
      'Words that limit where a policy statement applies at this store: a membership tier, a programme, a region (e.g. "elite", "alaska"). A statement naming one is an exception to its rule, not a conflict with it, and answers a question naming it first.',
  }),
  product_words: Type.Array(VocabularyWord, {
    maxItems: 200,
    description:
      'Kinds of product the store\'s policies set apart (e.g. "mattress"): scope words that are product classes, and the object of a policy question that names them.',
  }),
};
export const VocabularySchema = Type.Object(VocabularyFields);
export const VocabularyViewFields = {
  ...VocabularyFields,
  updated_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "null: never saved (empty)" }),
};
export const VocabularyViewSchema = Type.Object(VocabularyViewFields);
export type AssistantVocabulary = Static<typeof VocabularySchema>;
export type AssistantVocabularyView = Static<typeof VocabularyViewSchema>;

/** PUT /v1/admin/settings/vocabulary's body (every list replaces the saved one). */
export const VocabularyBody = Type.Object(VocabularyFields, { additionalProperties: false });
