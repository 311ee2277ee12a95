/*
 * UI strings of <commerce-ai-chat>, per language. The element's `locale` attribute (BCP 47) picks
 * the language by its primary subtag ("de-AT" → de); anything else falls back to English. To add
 * a language, add an object with the same keys.
 */
export const STRINGS = {
  en: {
    title: "Shopping assistant",
    welcome: "Hello! Ask me about our products, delivery, returns or anything else about the shop.",
    inputLabel: "Your message",
    placeholder: "Ask a question…",
    send: "Send",
    you: "You",
    assistant: "Assistant",
    typing: "The assistant is writing…",
    sources: "Sources",
    products: "Products",
    priceUnavailable: "Price unavailable",
    stock: { in_stock: "In stock", low_stock: "Only a few left", out_of_stock: "Out of stock", unknown: "Availability unknown" },
    confirmTitle: "Please confirm",
    confirm: "Confirm",
    cancel: "Cancel",
    confirmed: "Done.",
    cancelled: "Cancelled. Nothing was changed.",
    confirmationExpired: "That confirmation is no longer valid. Here is a fresh one.",
    actions: { add_to_cart: "Add to cart", start_return: "Start a return" },
    args: {
      product_id: "Product",
      product: "Product",
      title: "Product",
      quantity: "Quantity",
      order_id: "Order",
      variant_id: "Variant",
      reason: "Reason",
    },
    handoffContact: "Our support team can help you further:",
    handoffNoContact: "A member of our team will take over. Please contact the shop's support.",
    email: "Email",
    phone: "Phone",
    supportPage: "Support page",
    hours: "Hours",
    temporaryFailure: "The assistant is temporarily unavailable. Please try again in a moment.",
    rateLimited: (seconds) => `Too many messages right now. Please try again in ${seconds} ${seconds === 1 ? "second" : "seconds"}.`,
    rateLimitedNoTime: "Too many messages right now. Please try again shortly.",
    retry: "Try again",
    connectionLost: "The connection was lost before the reply arrived.",
    reconnecting: "Reconnecting…",
    error: "Something went wrong. Please try again.",
    unavailable: "The chat is not available on this page right now.",
  },
  de: {
    title: "Einkaufsassistent",
    welcome: "Hallo! Fragen Sie mich zu unseren Produkten, zum Versand, zu Rücksendungen oder zu allem anderen rund um den Shop.",
    inputLabel: "Ihre Nachricht",
    placeholder: "Stellen Sie eine Frage…",
    send: "Senden",
    you: "Sie",
    assistant: "Assistent",
    typing: "Der Assistent schreibt…",
    sources: "Quellen",
    products: "Produkte",
    priceUnavailable: "Preis nicht verfügbar",
    stock: {
      in_stock: "Auf Lager",
      low_stock: "Nur noch wenige verfügbar",
      out_of_stock: "Nicht auf Lager",
      unknown: "Verfügbarkeit unbekannt",
    },
    confirmTitle: "Bitte bestätigen",
    confirm: "Bestätigen",
    cancel: "Abbrechen",
    confirmed: "Erledigt.",
    cancelled: "Abgebrochen. Es wurde nichts geändert.",
    confirmationExpired: "Diese Bestätigung ist nicht mehr gültig. Hier ist eine neue.",
    actions: { add_to_cart: "In den Warenkorb legen", start_return: "Rücksendung starten" },
    args: {
      product_id: "Produkt",
      product: "Produkt",
      title: "Produkt",
      quantity: "Menge",
      order_id: "Bestellung",
      variant_id: "Variante",
      reason: "Grund",
    },
    handoffContact: "Unser Kundenservice hilft Ihnen gerne weiter:",
    handoffNoContact: "Ein Mitarbeiter übernimmt. Bitte wenden Sie sich an den Kundenservice des Shops.",
    email: "E-Mail",
    phone: "Telefon",
    supportPage: "Hilfeseite",
    hours: "Erreichbarkeit",
    temporaryFailure: "Der Assistent ist vorübergehend nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.",
    rateLimited: (seconds) =>
      `Gerade sind es zu viele Nachrichten. Bitte versuchen Sie es in ${seconds} ${seconds === 1 ? "Sekunde" : "Sekunden"} erneut.`,
    rateLimitedNoTime: "Gerade sind es zu viele Nachrichten. Bitte versuchen Sie es gleich erneut.",
    retry: "Erneut versuchen",
    connectionLost: "Die Verbindung wurde unterbrochen, bevor die Antwort ankam.",
    reconnecting: "Verbindung wird wiederhergestellt…",
    error: "Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.",
    unavailable: "Der Chat ist auf dieser Seite gerade nicht verfügbar.",
  },
};

/** The strings for a BCP 47 tag (primary language subtag; English when unknown). */
export function stringsFor(locale) {
  const language = String(locale || "en")
    .toLowerCase()
    .split(/[-_]/)[0];
  return Object.prototype.hasOwnProperty.call(STRINGS, language) ? STRINGS[language] : STRINGS.en;
}
