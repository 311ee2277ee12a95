// TypeBox schemas of the store's assistant settings (routes.ts validates and documents with them;
// service.ts types its values from them).
import { Type, type Static } from "typebox";

export const SupportContactSchema = Type.Object(
  {
    email: Type.Optional(Type.String({ format: "email", maxLength: 254 })),
    url: Type.Optional(Type.String({ format: "uri", pattern: "^https?://", maxLength: 2000 })),
    phone: Type.Optional(Type.String({ minLength: 3, maxLength: 40, pattern: "^[0-9+() .-]+$" })),
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
