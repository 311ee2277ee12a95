// Framing text of chat replies in the thread's language (en, de; any other language gets en).
// Quoted policy sentences, product titles and live values are never translated: only the words
// around them are.
import type { StockState } from "../storefront/types.js";
import type { SupportContact } from "./schemas.js";
import { langOf } from "../knowledge/text.js";

export type ChatLang = "en" | "de";

export const chatLang = (locale: string): ChatLang => (langOf(locale) === "de" ? "de" : "en");

const STOCK: Record<ChatLang, Record<StockState, string>> = {
  en: { in_stock: "in stock", low_stock: "low stock", out_of_stock: "out of stock", unknown: "availability unknown" },
  de: {
    in_stock: "auf Lager",
    low_stock: "nur noch wenige auf Lager",
    out_of_stock: "nicht auf Lager",
    unknown: "Verfügbarkeit unbekannt",
  },
};

export const T = {
  stock: (lang: ChatLang, state: StockState) => STOCK[lang][state],
  priceUnavailable: (lang: ChatLang) => (lang === "de" ? "Preis gerade nicht verfügbar" : "price not available right now"),
  availabilityUnchecked: (lang: ChatLang) => (lang === "de" ? "Verfügbarkeit nicht geprüft" : "availability not checked"),
  unavailable: (lang: ChatLang, dependency: "storefront" | "knowledge") =>
    lang === "de"
      ? `${dependency === "storefront" ? "Der Katalog des Shops" : "Der Wissensdienst des Assistenten"} ist gerade nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.`
      : `${dependency === "storefront" ? "The store's catalogue" : "The assistant's knowledge service"} can't be reached right now. Please try again in a moment.`,
  contact: (lang: ChatLang, contact: SupportContact | null): string | null => {
    if (!contact) return null;
    const bits: string[] = [];
    if (contact.email) bits.push(`${lang === "de" ? "E-Mail" : "e-mail"} ${contact.email}`);
    if (contact.phone) bits.push(`${lang === "de" ? "Telefon" : "phone"} ${contact.phone}`);
    if (contact.url) bits.push(contact.url);
    if (bits.length === 0 && !contact.hours) return null;
    const hours = contact.hours ? ` (${contact.hours})` : "";
    if (lang === "de") return `Sie erreichen das Team des Shops${bits.length > 0 ? ` per ${bits.join(", ")}` : ""}${hours}.`;
    return `You can reach the store's team${bits.length > 0 ? ` by ${bits.join(", ")}` : ""}${hours}.`;
  },
  noContactForConflict: (lang: ChatLang) =>
    lang === "de"
      ? "Das Team des Shops muss das klären; für diesen Shop ist kein Support-Kontakt hinterlegt."
      : "The store's team needs to settle this; no support contact is configured for this store.",
  handingOver: (lang: ChatLang) =>
    lang === "de" ? "Gern verbinde ich Sie mit dem Team des Shops." : "Of course — the store's team will take it from here.",
  noContactForPerson: (lang: ChatLang) =>
    lang === "de"
      ? "Für diesen Shop ist leider kein Support-Kontakt hinterlegt; ich helfe gern weiter, wo ich kann."
      : "This store has not configured a support contact, so I can't pass you on; I'm happy to help where I can.",
  noEvidence: (lang: ChatLang) =>
    lang === "de"
      ? "Die veröffentlichten Richtlinien des Shops beantworten diese Frage nicht, daher kann ich sie nicht beantworten."
      : "The store's published policies don't cover this question, so I can't answer it.",
  unansweredParts: (lang: ChatLang, parts: string[]) =>
    lang === "de"
      ? `Zu diesem Teil Ihrer Frage sagen die Richtlinien nichts: ${parts.map((p) => `„${p}“`).join(", ")}.`
      : `The policies say nothing about this part of your question: ${parts.map((p) => `“${p}”`).join(", ")}.`,
  found: (lang: ChatLang, query: string) =>
    lang === "de" ? `Das habe ich zu „${query}“ gefunden:` : `Here is what I found for “${query}”:`,
  foundNamed: (lang: ChatLang) => (lang === "de" ? "Dieses Produkt meinen Sie:" : "Here is that product:"),
  noProducts: (lang: ChatLang, query: string) =>
    lang === "de"
      ? `Ich habe im Katalog des Shops keine Produkte zu „${query}“ gefunden.`
      : `I couldn't find products matching “${query}” in this store's catalogue.`,
  cartNotFound: (lang: ChatLang, ref: string) =>
    lang === "de"
      ? `Ich habe „${ref}“ im Katalog des Shops nicht gefunden, daher wurde nichts in den Warenkorb gelegt.`
      : `I couldn't find “${ref}” in this store's catalogue, so nothing was added to your cart.`,
  cartWhich: (lang: ChatLang, titles: string[]) =>
    lang === "de"
      ? `Welches Produkt soll ich in den Warenkorb legen: ${titles.map((t) => `„${t}“`).join(", ")}?`
      : `Which one would you like to add to your cart: ${titles.map((t) => `“${t}”`).join(", ")}?`,
  cartConfirm: (lang: ChatLang, quantity: number, title: string) =>
    lang === "de"
      ? `${quantity} × **${title}** in den Warenkorb legen? Bestätigen Sie, um fortzufahren, oder brechen Sie ab.`
      : `Add ${quantity} × **${title}** to your cart? Confirm to go ahead, or cancel.`,
  signIn: (lang: ChatLang, kind: "order" | "return") =>
    lang === "de"
      ? kind === "order"
        ? "Bestellungen kann ich nur für angemeldete Kundinnen und Kunden nachsehen. Bitte melden Sie sich im Shop an und fragen Sie noch einmal."
        : "Rücksendungen können nur angemeldete Kundinnen und Kunden starten. Bitte melden Sie sich im Shop an und fragen Sie noch einmal."
      : kind === "order"
        ? "I can only look up orders for signed-in customers. Please sign in to the store and ask again."
        : "Returns can only be started by signed-in customers. Please sign in to the store and ask again.",
  orderNotFound: (lang: ChatLang, id: string) =>
    lang === "de"
      ? `Die Bestellung ${id} habe ich unter Ihren Bestellungen nicht gefunden.`
      : `I couldn't find order ${id} among your orders.`,
  noOrders: (lang: ChatLang) =>
    lang === "de" ? "Ich habe keine Bestellungen zu Ihrem Konto gefunden." : "I couldn't find any orders for your account.",
  orders: (lang: ChatLang, one: boolean) =>
    lang === "de"
      ? one
        ? "Hier ist Ihre Bestellung:"
        : "Hier sind Ihre letzten Bestellungen:"
      : one
        ? "Here is your order:"
        : "Here are your most recent orders:",
  whichOrder: (lang: ChatLang) =>
    lang === "de" ? "Welche Bestellung möchten Sie zurückschicken?" : "Which order would you like to return?",
  startReturn: (lang: ChatLang, id: string) =>
    lang === "de"
      ? `Rücksendung für Bestellung **${id}** starten? Bestätigen Sie, um fortzufahren, oder brechen Sie ab.`
      : `Start a return for order **${id}**? Confirm to go ahead, or cancel.`,
  orderLine: (lang: ChatLang, id: string, status: string, date: string) =>
    lang === "de" ? `- Bestellung **${id}** — ${status} (aufgegeben am ${date})` : `- Order **${id}** — ${status} (placed ${date})`,
};
