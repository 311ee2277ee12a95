// Store assistant settings: the store currency (ISO 4217; live prices are given and price bounds
// applied in it) and the support contact handed to shoppers on handoff. A store that never saved
// settings gets the defaults: USD and no support contact.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { DEFAULT_STORE_CURRENCY, isCurrency, noteCurrencyChange } from "../../tenancy/currency.js";
import type { SettingsRepository } from "./repository.js";
import { iso } from "../../platform/clock.js";
import type { AssistantSettings, AssistantSettingsView, SupportContact } from "./schemas.js";

export const DEFAULT_CURRENCY = DEFAULT_STORE_CURRENCY;

const CONTACT_KEYS = ["email", "url", "phone", "hours"] as const;

function parseContact(text: string | null): SupportContact | null {
  if (text === null) return null;
  const raw = JSON.parse(text) as Record<string, unknown>;
  const out: SupportContact = {};
  for (const k of CONTACT_KEYS) if (typeof raw[k] === "string") out[k] = raw[k];
  return out;
}

export class AssistantSettingsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly repo: SettingsRepository,
  ) {}

  /** The store's settings, defaults when none were saved. */
  async get(storeId: string): Promise<AssistantSettings> {
    const { currency, support_contact } = await this.view(storeId);
    return { currency, support_contact };
  }

  async view(storeId: string): Promise<AssistantSettingsView> {
    const row = await this.repo.find(storeId);
    if (!row) return { currency: DEFAULT_CURRENCY, support_contact: null, updated_at: null };
    return { currency: row.currency, support_contact: parseContact(row.support_contact), updated_at: iso(row.updated_at) };
  }

  async put(storeId: string, input: AssistantSettings, actorUserId: string | null): Promise<AssistantSettingsView> {
    const currency = input.currency.toUpperCase();
    if (!isCurrency(currency)) {
      throw new AppError("validation_failed", "currency is not an ISO 4217 currency code in use.", {
        errors: [{ field: "currency", message: "is not an ISO 4217 code" }],
      });
    }
    let contact: SupportContact | null = null;
    if (input.support_contact !== null) {
      contact = {};
      for (const k of CONTACT_KEYS) if (input.support_contact[k] !== undefined) contact[k] = input.support_contact[k]!;
      if (Object.keys(contact).length === 0) {
        throw new AppError("validation_failed", "support_contact needs at least one of email, url, phone, hours (or null).", {
          errors: [{ field: "support_contact", message: "needs at least one of email, url, phone, hours" }],
        });
      }
    }
    await this.repo.upsert(storeId, {
      currency,
      support_contact: contact === null ? null : JSON.stringify(contact),
      updated_by: actorUserId,
      updated_at: this.ctx.clock.now(),
    });
    noteCurrencyChange(storeId);
    return this.view(storeId);
  }
}
