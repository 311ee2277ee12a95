// The evaluation store of `npm run eval:assistant`: policies (two of which — `returns` and `faq` —
// disagree on the return window), a catalogue with prices and stock, store settings, and the
// questions with their expected outcome and expected cited concept ids.
//
// Conventions of `expect`:
//   outcome   — the message response's `outcome`;
//   cites     — concept ids that must be cited (exactly these) for policy answers and conflicts;
//               [] for outcomes that cite nothing;
//   products  — for product requests, at least one product card is expected (true) or none (false).

export interface FixturePolicy {
  concept_id: string;
  handle: string;
  title: string;
  locale: string;
  published: boolean;
  body_markdown: string;
  /** Earlier versions PUT before this one (older text): the answer must cite the newest. */
  earlier?: string[];
}

export interface FixtureProduct {
  product_id: string;
  name: string;
  category: string;
  color_name: string;
  hex: string;
  size?: string;
  price: number;
  stock: number;
  sku: string;
}

export type Outcome = "answer" | "clarification" | "confirmation_required" | "handoff" | "denied" | "temporary_failure";

export interface FixtureQuestion {
  id: string;
  locale: "en" | "de";
  text: string;
  expect: { outcome: Outcome; cites: string[]; products?: boolean };
}

export const settings = {
  currency: "EUR",
  support_contact: { email: "help@northwind.example", phone: "+49 30 1234567", hours: "Mon–Fri 9:00–17:00" },
};

export const policies: FixturePolicy[] = [
  {
    concept_id: "returns",
    handle: "returns",
    title: "Returns & refunds",
    locale: "en",
    published: true,
    body_markdown: `# Returns & refunds

## Return window
You can return any item within 30 days of delivery. Items must be unworn, unwashed and have their original tags attached.

## How to return
Start your return from the link in your shipping confirmation e-mail and print the prepaid label. Drop the parcel at any DHL point.

## Refunds
We refund the original payment method within 5 business days after your return arrives at our warehouse. The original shipping costs are not refunded.

## Exceptions
- Underwear, swimwear and pierced jewellery cannot be returned for hygiene reasons.
- Sale items marked "final sale" cannot be returned.`,
  },
  {
    concept_id: "faq",
    handle: "faq",
    title: "Frequently asked questions",
    locale: "en",
    published: true,
    body_markdown: `# Frequently asked questions

**How long do I have to return something?** Returns are accepted within 14 days of delivery.

**Do you have a physical shop?** No, Northwind Outfitters is an online-only store.

**Can I change my delivery address after ordering?** Write to our support team before the order ships and we will update the address.`,
  },
  {
    concept_id: "shipping",
    handle: "shipping",
    title: "Shipping & delivery",
    locale: "en",
    published: true,
    body_markdown: `# Shipping & delivery

## Delivery times
Orders within Germany arrive in 2-4 business days. Orders to other EU countries arrive in 5-8 business days.

## Shipping costs
Standard shipping costs €4.95 per order. Orders over €50 ship free of charge within Germany.

## Destinations
We ship to all EU countries, Switzerland and the United Kingdom. We do not deliver to PO boxes or parcel lockers.`,
  },
  {
    concept_id: "customs",
    handle: "customs-duties",
    title: "Customs and duties",
    locale: "en",
    published: true,
    body_markdown: `# Customs and duties

Orders shipped to Switzerland or the United Kingdom may be charged import duties and taxes by the destination country. These customs charges are paid by the recipient on delivery.`,
  },
  {
    concept_id: "warranty",
    handle: "warranty",
    title: "Warranty",
    locale: "en",
    published: true,
    body_markdown: `# Warranty

All products carry the statutory warranty of 2 years against manufacturing defects.

To make a warranty claim, e-mail our support team a photo of the defect and your order number. Normal wear and tear and damage from improper care are not covered by the warranty.`,
  },
  {
    concept_id: "payment",
    handle: "payment",
    title: "Payment methods",
    locale: "en",
    published: true,
    body_markdown: `# Payment methods

We accept Visa, Mastercard, American Express, PayPal and Klarna.

- Card payments are charged when your order ships.
- With Klarna invoice you pay within 14 days after your order ships.`,
  },
  {
    concept_id: "privacy",
    handle: "privacy",
    title: "Privacy notice",
    locale: "en",
    published: true,
    body_markdown: `# Privacy notice

We use your personal data only to process your orders and to answer your questions. We never sell personal data to third parties.

You can ask for a copy or the deletion of your personal data by e-mailing privacy@northwind.example.`,
  },
  {
    concept_id: "cancellation",
    handle: "order-cancellation",
    title: "Cancelling an order",
    locale: "en",
    published: true,
    earlier: [
      `# Cancelling an order

You can cancel an order within 2 hours of placing it.`,
    ],
    body_markdown: `# Cancelling an order

You can cancel an order within 1 hour of placing it by writing to our support team. After that the order is already being packed and can no longer be cancelled; you can return it after delivery instead.`,
  },
  {
    concept_id: "gift-cards",
    handle: "gift-cards",
    title: "Gift cards",
    locale: "en",
    published: true,
    body_markdown: `# Gift cards

Gift cards are valid for 3 years from the date of purchase. They cannot be exchanged for cash and can be used for several orders until the balance is spent.`,
  },
  {
    concept_id: "size-exchange",
    handle: "exchanges",
    title: "Size exchanges",
    locale: "en",
    published: true,
    body_markdown: `# Size exchanges

If an item does not fit, you can exchange it for another size of the same product. Request the exchange from your account; we send the new size as soon as the original item arrives back with us.`,
  },
  {
    concept_id: "loyalty",
    handle: "loyalty",
    title: "Loyalty programme",
    locale: "en",
    published: false,
    body_markdown: `# Loyalty programme

Members collect 1 point per euro spent and get a birthday voucher.`,
  },
  {
    concept_id: "rueckgabe",
    handle: "rueckgabe",
    title: "Rückgabe und Erstattung",
    locale: "de",
    published: true,
    body_markdown: `# Rückgabe und Erstattung

Sie können jeden Artikel innerhalb von 30 Tagen nach der Lieferung zurückgeben. Die Artikel müssen ungetragen sein und die Etiketten müssen noch angebracht sein.

Wir erstatten den Betrag innerhalb von 5 Werktagen nach Eingang der Rücksendung auf die ursprüngliche Zahlungsart.`,
  },
  {
    concept_id: "versand",
    handle: "versand",
    title: "Versand und Lieferung",
    locale: "de",
    published: true,
    body_markdown: `# Versand und Lieferung

Bestellungen innerhalb Deutschlands werden in 2-4 Werktagen geliefert. Der Standardversand kostet 4,95 € pro Bestellung. Ab einem Bestellwert von 50 € ist der Versand innerhalb Deutschlands kostenlos.`,
  },
  {
    concept_id: "zahlung",
    handle: "zahlung",
    title: "Zahlungsarten",
    locale: "de",
    published: true,
    body_markdown: `# Zahlungsarten

Wir akzeptieren Visa, Mastercard, PayPal und Klarna. Mit Klarna Rechnung zahlen Sie innerhalb von 14 Tagen nach dem Versand.`,
  },
];

export const products: FixtureProduct[] = [
  {
    product_id: "dress-red-01",
    name: "Scarlet Wrap Dress",
    category: "dresses",
    color_name: "red",
    hex: "#c0182a",
    size: "M",
    price: 39.9,
    stock: 12,
    sku: "NW-DR-001",
  },
  {
    product_id: "dress-red-02",
    name: "Crimson Midi Dress",
    category: "dresses",
    color_name: "red",
    hex: "#a3122a",
    size: "S",
    price: 79,
    stock: 3,
    sku: "NW-DR-002",
  },
  {
    product_id: "dress-blue-01",
    name: "Navy Summer Dress",
    category: "dresses",
    color_name: "blue",
    hex: "#1f3a93",
    size: "L",
    price: 45.5,
    stock: 0,
    sku: "NW-DR-003",
  },
  {
    product_id: "dress-black-01",
    name: "Little Black Dress",
    category: "dresses",
    color_name: "black",
    hex: "#111111",
    size: "M",
    price: 59,
    stock: 20,
    sku: "NW-DR-004",
  },
  {
    product_id: "shirt-white-01",
    name: "Oxford Shirt White",
    category: "shirts",
    color_name: "white",
    hex: "#f4f4f4",
    size: "L",
    price: 35,
    stock: 30,
    sku: "NW-SH-001",
  },
  {
    product_id: "shirt-green-01",
    name: "Linen Shirt Sage",
    category: "shirts",
    color_name: "green",
    hex: "#6f8f5a",
    size: "M",
    price: 42,
    stock: 8,
    sku: "NW-SH-002",
  },
  {
    product_id: "jacket-yellow-01",
    name: "Rain Jacket Yellow",
    category: "jackets",
    color_name: "yellow",
    hex: "#f2c40f",
    size: "L",
    price: 89.95,
    stock: 5,
    sku: "NW-JA-001",
  },
  {
    product_id: "jacket-black-01",
    name: "Leather Biker Jacket",
    category: "jackets",
    color_name: "black",
    hex: "#1b1b1b",
    size: "M",
    price: 199,
    stock: 2,
    sku: "NW-JA-002",
  },
  {
    product_id: "shoe-white-01",
    name: "Canvas Sneaker White",
    category: "shoes",
    color_name: "white",
    hex: "#fafafa",
    size: "42",
    price: 55,
    stock: 14,
    sku: "NW-SO-001",
  },
  {
    product_id: "shoe-brown-01",
    name: "Chelsea Boot Brown",
    category: "shoes",
    color_name: "brown",
    hex: "#6b4423",
    size: "43",
    price: 129,
    stock: 6,
    sku: "NW-SO-002",
  },
  {
    product_id: "bag-pink-01",
    name: "Tote Bag Rose",
    category: "bags",
    color_name: "pink",
    hex: "#e891b2",
    price: 24.5,
    stock: 40,
    sku: "NW-BA-001",
  },
  {
    product_id: "scarf-grey-01",
    name: "Wool Scarf Grey",
    category: "scarves",
    color_name: "grey",
    hex: "#8a8a8a",
    price: 29,
    stock: 0,
    sku: "NW-SC-001",
  },
];

const q = (id: string, locale: "en" | "de", text: string, outcome: Outcome, cites: string[] = [], products?: boolean): FixtureQuestion => ({
  id,
  locale,
  text,
  expect: { outcome, cites, ...(products === undefined ? {} : { products }) },
});

export const questions: FixtureQuestion[] = [
  // Policy answers (English)
  q("p01", "en", "How do I send an item back?", "answer", ["returns"]),
  q("p02", "en", "When will I get my refund?", "answer", ["returns"]),
  q("p03", "en", "Can I return swimwear?", "answer", ["returns"]),
  q("p04", "en", "How much does shipping cost?", "answer", ["shipping"]),
  q("p05", "en", "Is shipping free for orders over 50 euros?", "answer", ["shipping"]),
  q("p06", "en", "How long does delivery to France take?", "answer", ["shipping"]),
  q("p07", "en", "Do you ship to Switzerland?", "answer", ["shipping"]),
  q("p08", "en", "Do you deliver to PO boxes?", "answer", ["shipping"]),
  q("p09", "en", "Do I have to pay customs duties when ordering to the UK?", "answer", ["customs"]),
  q("p10", "en", "How long is the warranty?", "answer", ["warranty"]),
  q("p11", "en", "How do I make a warranty claim for a defect?", "answer", ["warranty"]),
  q("p12", "en", "Which payment methods do you accept?", "answer", ["payment"]),
  q("p13", "en", "Can I pay with PayPal?", "answer", ["payment"]),
  q("p14", "en", "When is my card charged?", "answer", ["payment"]),
  q("p15", "en", "Do you sell my personal data?", "answer", ["privacy"]),
  q("p16", "en", "How can I get my personal data deleted?", "answer", ["privacy"]),
  q("p17", "en", "How long can I cancel an order after placing it?", "answer", ["cancellation"]),
  q("p18", "en", "How long are gift cards valid?", "answer", ["gift-cards"]),
  q("p19", "en", "Can I exchange a gift card for cash?", "answer", ["gift-cards"]),
  q("p20", "en", "What if an item does not fit? Can I exchange it for another size?", "answer", ["size-exchange"]),
  q("p21", "en", "Do you have a physical shop I can visit?", "answer", ["faq"]),
  q("p22", "en", "Are the original shipping costs refunded?", "answer", ["returns"]),
  // Policy answers (German)
  q("d01", "de", "Wie lange habe ich Zeit für eine Rückgabe?", "answer", ["rueckgabe"]),
  q("d02", "de", "Was kostet der Versand?", "answer", ["versand"]),
  q("d03", "de", "Welche Zahlungsarten akzeptiert ihr?", "answer", ["zahlung"]),
  q("d04", "de", "Wann bekomme ich mein Geld zurück?", "answer", ["rueckgabe"]),
  // Conflicts: returns (30 days) vs faq (14 days)
  q("c01", "en", "How many days do I have to return an item?", "handoff", ["returns", "faq"]),
  q("c02", "en", "What is the return window?", "handoff", ["returns", "faq"]),
  q("c03", "en", "How long do I have to return something?", "handoff", ["returns", "faq"]),
  // No evidence (the store has a support contact → handoff, nothing cited)
  q("n01", "en", "Do you offer gift wrapping?", "handoff"),
  q("n02", "en", "How does your loyalty programme work?", "handoff"),
  q("n03", "en", "Do you offer student discounts?", "handoff"),
  q("n04", "en", "Is there a price match guarantee?", "handoff"),
  // Product requests
  q("r01", "en", "Show me red dresses under 50", "answer", [], true),
  q("r02", "en", "Do you have black jackets?", "answer", [], true),
  q("r03", "en", "I'm looking for white shoes", "answer", [], true),
  q("r04", "en", "Show me shirts between 30 and 45 euros", "answer", [], true),
  q("r05", "de", "Zeig mir rote Kleider unter 100 Euro", "answer", [], true),
  q("r06", "en", "Do you sell yellow jackets?", "answer", [], true),
  // Ambiguous
  q("a01", "en", "help", "clarification"),
  q("a02", "en", "the blue one?", "clarification"),
  q("a03", "en", "add it to my cart", "clarification"),
  q("a04", "de", "hallo", "clarification"),
  // Own orders and returns in an anonymous session
  q("o01", "en", "Where is my order 1234?", "denied"),
  q("o02", "en", "I want to return order #1234", "denied"),
  q("o03", "en", "Track my package please", "denied"),
  q("o04", "de", "Wo ist meine Bestellung?", "denied"),
  // Actions
  q("x01", "en", "Add the Little Black Dress to my cart", "confirmation_required"),
  q("x02", "en", "Please add 2 Oxford Shirt White to my basket", "confirmation_required"),
];
