// Store assistant settings: the store currency (ISO 4217; live prices are given and price bounds
// applied in it) and the support contact handed to shoppers on handoff. A store that never saved
// settings gets the defaults: USD and no support contact. Apart from them, the store's own
// vocabulary of the policy engine (synonyms, scope words, product words: knowledge/store-words.ts),
// empty until saved.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { DEFAULT_STORE_CURRENCY, isCurrency, noteCurrencyChange } from "../../tenancy/currency.js";
import type { SettingsRepository } from "./repository.js";
import { iso } from "../../platform/clock.js";
import { isStopWord, languages } from "../language/index.js";
import type { AssistantSettings, AssistantSettingsView, AssistantVocabulary, AssistantVocabularyView, SupportContact } from "./schemas.js";

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

  /** The store's vocabulary, empty when none was saved. */
  async vocabulary(storeId: string): Promise<AssistantVocabularyView> {
    const row = await this.repo.findVocabulary(storeId);
    if (!row) return { synonyms: [], scope_words: [], product_words: [], updated_at: null };
    return {
      synonyms: JSON.parse(row.synonyms) as string[][],
      scope_words: JSON.parse(row.scope_words) as string[],
      product_words: JSON.parse(row.product_words) as string[],
      updated_at: iso(row.updated_at),
    };
  }

  /**
   * Replaces the store's vocabulary. Words are lower-cased with spaces collapsed; duplicates are
   * dropped. A word the engine cannot read (nothing but stop words or punctuation in a language
   * it analyses: store words apply in every language) is refused, naming the word.
   */
  async putVocabulary(storeId: string, input: AssistantVocabulary, actorUserId: string | null): Promise<AssistantVocabularyView> {
    const errors: Array<{ field: string; message: string }> = [];
    const clean = (w: string, field: string): string => {
      const word = w.normalize("NFC").toLowerCase().replace(/\s+/g, " ").trim();
      // Read as the engine reads it (knowledge/text.ts analyze): its words, less the language's stop words.
      const tokens = word.match(/[\p{L}\p{N}]+/gu) ?? [];
      const unread = languages().find((p) => tokens.every((x) => isStopWord(x, p.code)));
      if (unread)
        errors.push({
          field,
          message: `"${w}" has no word the assistant reads in ${unread.code} (only stop words or punctuation); use a content word`,
        });
      return word;
    };
    const unique = (ws: string[]) => [...new Set(ws)];
    const vocabulary: AssistantVocabulary = {
      synonyms: input.synonyms.map((group, i) => unique(group.map((w, j) => clean(w, `synonyms[${i}][${j}]`)))),
      scope_words: unique(input.scope_words.map((w, i) => clean(w, `scope_words[${i}]`))),
      product_words: unique(input.product_words.map((w, i) => clean(w, `product_words[${i}]`))),
    };
    vocabulary.synonyms.forEach((group, i) => {
      if (group.length < 2) errors.push({ field: `synonyms[${i}]`, message: "needs at least two different words" });
    });
    if (errors.length > 0) {
      throw new AppError(
        "validation_failed",
        `The vocabulary has ${errors.length} word(s) to fix: ${errors[0]!.field} ${errors[0]!.message}.`,
        {
          errors,
        },
      );
    }
    const updatedAt = this.ctx.clock.now();
    await this.repo.upsertVocabulary(storeId, {
      synonyms: JSON.stringify(vocabulary.synonyms),
      scope_words: JSON.stringify(vocabulary.scope_words),
      product_words: JSON.stringify(vocabulary.product_words),
      updated_by: actorUserId,
      updated_at: updatedAt,
    });
    return { ...vocabulary, updated_at: iso(updatedAt) };
  }
}
