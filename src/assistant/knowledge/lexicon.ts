// The commerce lexicon of the grounding engine: what shoppers write → what policies say.
//
// - SHORTHAND: text-speak and abbreviations rewritten before analysis ("mc" → mastercard, "amex" →
//   american express, "u" → you, "w/" → with, "og box" → original packaging …).
// - CROSS: word-level translation tables for a question asked in one language against policies
//   published in the other (German question, English policies and vice versa). Only the commerce
//   vocabulary is covered; in a translated query the words left untranslated are kept only when
//   the store's policies use them as they are (brand names, "PayPal", "Klarna"), see retrieval.ts.
// - TOPICS: the stems of policy actions done to an item (return, refund, exchange, ship, warranty).
//   When a question names one the policies hold, words the policies never use ("how do I return a
//   *tent*?") are the item, not the subject, and weigh little (retrieval.ts). Payment is not among
//   them: in "can I pay with bitcoin?" the unknown word is the subject.
// - SEPARABLE_ZU (German): "zurückzuschicken" → "zurückschicken" (the infinitive "zu" of separable
//   verbs sits inside the word).
import { stemDe, type Lang } from "./text.js";

export type Rewrite = [RegExp, string];

export const SHORTHAND: Record<"en" | "de", Rewrite[]> = {
  en: [
    [/\bw\/o\b/g, " without "],
    [/\bw\//g, " with "],
    [/\b(?:u)\b/g, " you "],
    [/\bur\b/g, " your "],
    [/\b(?:pls|plz|plse)\b/g, " please "],
    [/\bthx\b/g, " thanks "],
    [/\bmc\b/g, " mastercard "],
    [/\bamex\b/g, " american express "],
    [/\bgpay\b/g, " google pay "],
    [/\bapplepay\b/g, " apple pay "],
    [/\bpp\b/g, " paypal "],
    [/\bcc\b/g, " credit card "],
    [/\bjan\.?(?=\s+\d)/g, "january"],
    [/\bfeb\.?(?=\s+\d)/g, "february"],
    [/\bmar\.?(?=\s+\d)/g, "march"],
    [/\bapr\.?(?=\s+\d)/g, "april"],
    [/\bjun\.?(?=\s+\d)/g, "june"],
    [/\bjul\.?(?=\s+\d)/g, "july"],
    [/\baug\.?(?=\s+\d)/g, "august"],
    [/\bsept?\.?(?=\s+\d)/g, "september"],
    [/\boct\.?(?=\s+\d)/g, "october"],
    [/\bnov\.?(?=\s+\d)/g, "november"],
    [/\bdec\.?(?=\s+\d)/g, "december"],
    [/\bog\b/g, " original "],
    [/\b(?:orig|origianl|orginal)\b/g, " original "],
    [/\bintl\b/g, " international "],
    [/\bo(?:ver)?seas\b|\bfrom\s+abroad\b|\bfrom\s+another\s+country\b/g, " international currency "],
    [/\bswap(?:ped|ping|s)?\b/g, " exchange "],
    [/\b(?:not\s+(?:a\s+)?(?:co-?op\s+)?member|no\s+membership|without\s+(?:a\s+)?membership|non\s+member)s?\b/g, " non-members "],
    [/\b(?:billed|billing)\b/g, " charged "],
    [/\bcash\s+(?:it\s+)?out\b/g, " redeemable for cash "],
    [/\b(?:for|as|in)\s+cash\b/g, " redeemable for cash "],
    [/\b(?:the\s+)?rest\s+of\s+(?:the\s+|my\s+)?balance\b|\bleftover\s+balance\b|\bbalance\s+left\b/g, " remaining balance "],
    [
      /\b(?:is|it's|its|now|got|became|went)\s+(?:\w+\s+)?(?:cheaper|less\s+expensive|on\s+sale|discounted|reduced)\b/g,
      " price difference reduced price guarantee ",
    ],
    [/\b(?:do|will|would|must)\s+i\s+(?:have|need)\s+to\s+pay\b/g, " pay responsible "],
    [
      /\b(?:price\s+(?:went|goes|go|has\s+gone|dropped|drops|drop)\s*(?:down)?|price\s+drop\w*|(?:lower|reduced|cheaper)\s+price|price\s+adjust\w*|price\s+protection)\b/g,
      " price difference reduced price guarantee ",
    ],
    [/\bbox\b/g, " packaging "],
    [/\bdo\s+(?:i|you)\s+(?:need|have)\s+to\s+(?:keep|bring|have)\b/g, " need "],
    [/\b(?:ship|mail|post)\s+(?:it|them|this|that|stuff|\w+)?\s*back\b/g, " return "],
    [/\bget\s+((?:\w+\s+){0,3})back\b/g, " $1 refund "],
    [/\bpick(?:ed)?\s*up\b/g, " pickup "],
    [/\bthe\s+u\.?s\.?a?\b|\bu\.s\.a?\.?(?=\s|$)|\busa\b/g, " united states "],
  ],
  de: [
    [/\bmc\b/g, " mastercard "],
    [/\bamex\b/g, " american express "],
    [/\bwieviele?\b/g, " wie viele "],
    [/\bhab\b/g, " habe "],
    [/\bgeschenkkarten?\b/g, " gutschein "],
  ],
};

/**
 * Countries: the English name and the German names of each, one table. A country the shopper
 * names is a country ("return it in Canada" meets "the country or region in which …"; questions
 * only: a policy naming the United States does not speak about countries), and a German name is
 * translated to the English one for English policies (CROSS).
 */
export const COUNTRIES: ReadonlyArray<readonly [en: string, de: readonly string[]]> = [
  ["germany", ["deutschland"]],
  ["austria", ["österreich"]],
  ["switzerland", ["schweiz"]],
  ["france", ["frankreich"]],
  ["italy", ["italien"]],
  ["spain", ["spanien"]],
  ["netherlands", ["niederlande", "holland"]],
  ["belgium", ["belgien"]],
  ["denmark", ["dänemark"]],
  ["finland", ["finnland"]],
  ["luxembourg", ["luxemburg"]],
  ["poland", ["polen"]],
  ["czechia", ["tschechien"]],
  ["norway", ["norwegen"]],
  ["sweden", ["schweden"]],
  ["ireland", ["irland"]],
  ["canada", ["kanada"]],
  ["mexico", ["mexiko"]],
  ["brazil", ["brasilien"]],
  ["japan", ["japan"]],
  ["china", ["china"]],
  ["india", ["indien"]],
  ["australia", ["australien"]],
  ["united kingdom", ["großbritannien", "grossbritannien", "england"]],
  ["united states", ["usa", "vereinigte staaten", "vereinigten staaten"]],
];

/** Any of the names as a whole word (letter boundaries, so "österreich" is found too), captured. */
const namesPattern = (names: readonly string[]) =>
  new RegExp(`(?<!\\p{L})(${names.map((n) => n.replace(/ /g, "\\s+")).join("|")})(?!\\p{L})`, "gu");

/** Country names in English questions (captured). */
export const COUNTRY_NAMES = namesPattern(COUNTRIES.map(([en]) => en));

/** Country names in German questions (captured; the German policies say "Land" / "Länder"). */
export const COUNTRY_NAMES_DE = namesPattern(COUNTRIES.flatMap(([, de]) => de));

/** The words of the English country names ("united", "kingdom", "canada" …). */
export const COUNTRY_WORDS: ReadonlySet<string> = new Set(COUNTRIES.flatMap(([en]) => en.split(" ")));

/** German separable verbs with the infinitive "zu" inside: "zurückzuschicken" → "zurückschicken". */
export const SEPARABLE_ZU = /\b(ab|an|auf|aus|ein|mit|nach|vor|zurück|weg|um|hin|her|los|fest|frei)zu(\p{L}{3,})/gu;

/** German separable verbs' participles: "abgeholt" → "abholt", "zurückgeschickt" → "zurückschickt" (meets "Abholung", "zurückschicken"). */
export const SEPARABLE_GE = /\b(ab|an|auf|aus|ein|mit|nach|vor|zurück|weg|um|hin|her|los|fest|frei)ge(\p{L}{3,}t)\b/gu;

/**
 * "Who pays …?" asks whose cost it is, not an amount: how it is asked per language, and the words
 * it means in policy wording (PHRASES rewrites the question to them).
 */
export const WHO_PAYS: Record<"en" | "de", { asks: RegExp; means: string }> = {
  en: { asks: /\bwho\s+(?:pays?|covers?|is\s+responsible|has\s+to\s+pay|bears?)(?:\s+for)?\b/, means: " responsible cost " },
  de: { asks: /\bwer\s+(?:zahlt|bezahlt|trägt|übernimmt)(?:\s+für)?\b/, means: " kosten tragen " },
};

/** Whether a (normalised) text asks who pays, in either language. */
export function asksWhoPays(text: string): boolean {
  return WHO_PAYS.en.asks.test(text) || WHO_PAYS.de.asks.test(text);
}

/** Word-level rewrites before analysis (multi-word expressions onto one word). */
export const PHRASES: Record<"en" | "de", Rewrite[]> = {
  en: [
    [/\bsend(?:ing)?\s+(?:(?:it|them|this|that|these|those|something|an? \w+|the \w+|my \w+)\s+)?back\b/g, " return "],
    [/\b(?:take|bring)\s+(?:(?:it|them|this|that)\s+)?back\b/g, " return "],
    [/\b(?:get\s+)?(?:my\s+)?money\s+back\b/g, " refund "],
    [/\bgift\s+cards?\b/g, " giftcard "],
    [/\b(?:the\s+)?u\.?k\.?(?=\s|$|[?!,;])/g, " united kingdom "],
    // Not having a document or the packaging is one thing however it is said ("I lost the receipt",
    // "Don't have a receipt?", "Returns without Receipt").
    [
      /\b(?:lost|misplaced|threw\s+away|thrown\s+away|don'?t\s+have|do\s+not\s+have|no\s+longer\s+have|without|no)\s+(?:the\s+|my\s+|a\s+|an\s+|any\s+|its\s+|their\s+)?(?:original\s+)?(receipts?|box|boxes|packaging|tags?|labels?|proof\s+of\s+purchase)\b/g,
      " without $1 ",
    ],
    [/\b(receipts?|box|packaging|tags?|labels?)\s+(?:is|are|was|were|got)\s+(?:lost|missing|gone|thrown\s+away)\b/g, " without $1 "],
    // "Who pays customs?" asks whose cost it is ("Customs duties: Responsibility of the customer").
    [new RegExp(WHO_PAYS.en.asks.source, "g"), WHO_PAYS.en.means],
  ],
  de: [
    [/\bzurück(?:schick|send|geb|gegeb|gesend|geschick)\w*/g, " rückgabe "],
    [/\b(?:schick|send|geb)\w*\s+(?:\w+\s+){0,3}zurück\b/g, " rückgabe "],
    [/\bgeld\s+zurück\b/g, " erstattung "],
    // "Etiketten dranlassen" is not removing them.
    [/\bdran\s*(?:lass\w*|bleiben|behalten)\b|\bdranlass\w*/g, " nicht entfernen "],
    [/\bgutscheinkarten?\b|\bgeschenkkarten?\b/g, " gutschein "],
    [
      /\b(?:ohne|keine?n?)\s+(?:den\s+|die\s+|das\s+|meine?n?\s+)?(quittung|kassenbon|kassenzettel|beleg|verpackung|originalverpackung|etikett)\b/g,
      " ohne $1 ",
    ],
    [
      /\b(quittung|kassenbon|kassenzettel|beleg|verpackung|originalverpackung|etikett)\s+(?:\w+\s+)?(?:verloren|weggeworfen)\b/g,
      " ohne $1 ",
    ],
    // "Wer zahlt die Rücksendung?" asks who bears the cost ("Du trägst die unmittelbaren Kosten").
    [new RegExp(WHO_PAYS.de.asks.source, "g"), WHO_PAYS.de.means],
  ],
};

/**
 * Idioms that say yes ("Don't have a receipt? No problem."): read as a plain permission by the
 * yes/no lead (compose.ts polarity).
 */
export const YES_IDIOMS: Record<"en" | "de", Rewrite[]> = {
  en: [[/\b(?:no|not\s+a)\s+problem\b/g, " sure "]],
  de: [[/\bkein\s+problem\b/g, " möglich "]],
};

/**
 * Seasons shoppers name and the months policies name them by: "over the holidays?" asks about
 * "received between November 15 and December 25" (question groups are stems: "christma").
 */
export const SEASONS: ReadonlyArray<{ names: RegExp; months: readonly string[] }> = [
  { names: /^(?:holiday|christma|christmas|weihnacht|feiertag)/, months: ["november", "december", "dezemb", "dezember"] },
];

/**
 * Words that make an amount a threshold, not a price (compose.ts directAnswer): before it ("over
 * $99", "ab 50 €", "einen Warenwert von 50,- €"), or after it ("$50 or more", "… 50,- €
 * unterschreitet").
 */
export const THRESHOLD = {
  before: /\b(?:over|above|more\s+than|at\s+least|minimum(?:\s+of)?|exceeding|from|ab|über|mehr\s+als|mindestens)\s*$/i,
  valueBefore: /\b(?:waren|bestell|einkaufs|order|cart)\s*wert\s+(?:von\s+)?$/i,
  after: /^\s*(?:überschreitet|unterschreitet|übersteigt|erreicht|or\s+(?:more|less|above|over)|and\s+(?:up|above|over))\b/i,
};

/**
 * German separable verbs split across a question (one sentence, in lower case): the finite verb
 * after the question word and its particle at the end ("Wie *teile* ich euch meinen Rücktritt
 * *mit*?" → mitteile, meeting "Mitteilung"; "Wann *kommt* das Paket *an*?" → ankommt). Captures:
 * verb, particle. After a modal verb (kann, muss, darf, soll, wird) the next word is the subject,
 * and the particle sits on the infinitive already ("Kann ich … mitnehmen?"): no question word of
 * that kind leads here.
 */
export const SEPARABLE_SPLIT =
  /^(?:wie|wann|wo|was|warum|wer|welche\w*)\s+(\p{L}{3,})\s+(?:\p{L}+\s+){0,6}?(mit|an|ab|auf|aus|ein|vor|weg|nach|fest|frei)\s*[?.!]*\s*$/u;

/** Word-level translation of commerce vocabulary (question language → policy language). */
export const CROSS: Record<"de>en" | "en>de", Rewrite[]> = {
  "de>en": [
    [/\bwie\s+lange?\b|\bwie\s+viele\s+tage\b|\bbis\s+wann\b|\bfrist\w*\b|\bzeitraum\b/g, " how long days "],
    [/\b(?:wieder)?einlagerungs?gebühr\w*/g, " restocking fee "],
    [/\bwie\s+viel\b|\bwas\s+kostet\b|\bkosten?\b|\bkostet\b|\bgebühr\w*/g, " how much cost fee "],
    [/\bhalben\s+jahr\b/g, " 6 months "],
    [/\b(?:zurück\w*|rückgabe\w*|rücksend\w*|retour\w*)/g, " return "],
    [/\b(?:umtausch\w*|tausch\w*)/g, " exchange "],
    [/\b(?:erstatt\w*|rückerstatt\w*|rückzahlung\w*)/g, " refund "],
    [/\b(?:expressversand\w*)/g, " express shipping "],
    [/\b(?:versand\w*|verschick\w*|lieferung\w*|liefer\w*|porto)\b/g, " shipping "],
    [/\b(?:handys?|smartphones?|mobiltelefon\w*)\b/g, " cell phones "],
    [/\b(?:geschenkgutschein\w*|gutschein\w*|geschenkkarte\w*)/g, " gift cards "],
    [/\b(?:verfall\w*|ablauf\w*|abgelaufen)\b/g, " expire "],
    [/\bgültig\w*/g, " valid expire "],
    [/\bpreisgarantie\w*/g, " price guarantee "],
    [/\b(?:garantie\w*|gewährleistung\w*)/g, " guarantee warranty "],
    [/\b(?:nicht|kein\w*)[-\s]?mitglied\w*/g, " non-member "],
    [/\bmitglied\w*/g, " member "],
    [/\b(?:jacke|jacken)\b/g, " jacket "],
    [/\bmatratze\w*/g, " mattress "],
    [/\bwaschmaschine\w*/g, " washer "],
    [/\b(?:bezahl\w*|zahlung\w*|zahlen|zahle)\b/g, " pay payment "],
    [/\brechnung\w*/g, " invoice "],
    [/\bkreditkarte\w*/g, " credit card "],
    [/\b(?:quittung|kassenbon|kassenzettel|beleg)\b/g, " receipt "],
    [/\bohne\b/g, " without "],
    [/\b(?:restbetrag\w*|restguthaben\w*|guthaben\w*)/g, " remaining balance "],
    [/\b(?:auszahl\w*|bar\s+auszahl\w*)/g, " cash refund "],
    [/\bgebraucht\w*/g, " used "],
    [/\b(?:ausrüstung\w*|equipment)\b/g, " gear "],
    [/\b(?:im|in\s+der|in\s+einer)\s+(?:laden|filiale|geschäft|markt)\b/g, " in-store "],
    [/\bonline\b/g, " online "],
    [/\b(?:verpackung\w*|karton)\b/g, " packaging "],
    [/\b(?:kostenlos|gratis|umsonst|kostenfrei)\b/g, " free "],
    [/\b(?:ausland\w*|international\w*)\b/g, " international "],
    [/\bmontags?\b/g, " monday "],
    [/\bdienstags?\b/g, " tuesday "],
    [/\bmittwochs?\b/g, " wednesday "],
    [/\bdonnerstags?\b/g, " thursday "],
    [/\bfreitags?\b/g, " friday "],
    [/\b(?:samstags?|sonnabends?)\b/g, " saturday "],
    [/\bsonntags?\b/g, " sunday "],
    [/\bwochenende\w*/g, " weekend "],
    [/\bwerktag\w*/g, " business day "],
    [/\bbestell\w*/g, " order "],
    [/\b(?:bearbeit\w*|abgewickelt)/g, " processed "],
    ...COUNTRIES.map(([en, de]): Rewrite => [namesPattern(de), ` ${en} `]),
    [/\bzoll\w*/g, " customs duties "],
    [/\b(?:gekauft|kauf\w*)\b/g, " purchase "],
    [/\b(?:tage|tagen)\b/g, " days "],
    [/\bgeöffnet\w*/g, " opened "],
    [/\bmöbel\b/g, " furniture "],
    [/\b(?:widerruf\w*|rücktritt\w*|zurücktret\w*)/g, " withdraw cancel "],
  ],
  "en>de": [
    [/\bhow\s+(?:long|many\s+days)\b|\buntil\s+when\b|\bwindow\b/g, " wie lange frist "],
    [/\bhow\s+much\b|\bcosts?\b|\bfees?\b/g, " wie viel kostet "],
    [/\b(?:return\w*|send\s+(?:\w+\s+){0,3}back)\b/g, " rückgabe zurückschicken "],
    [/\bexchang\w*/g, " umtausch "],
    [/\brefund\w*/g, " erstattung "],
    [/\b(?:shipping|delivery|deliver|ship|postage)\b/g, " versand "],
    [/\b(?:pay|paying|payment|payments)\b/g, " zahlung bezahlen "],
    [/\binvoice\b/g, " rechnung "],
    [/\bfree\b/g, " kostenlos "],
    [/\b(?:gift\s*cards?|vouchers?)\b/g, " geschenkgutschein "],
    [/\blabel\b/g, " etikett "],
    [/\bdays?\b/g, " tage "],
    [/\bshoes?\b/g, " schuhe "],
    [/\bbeauty\b/g, " beauty "],
    [/\bwithdraw\w*/g, " widerruf rücktritt zurücktreten "],
    [/\b(?:warranty|guarantee)\b/g, " gewährleistung garantie "],
    [/\b(?:defective|faulty|broken|damaged)\b/g, " reklamation defekt "],
    [/\b(?:pick\s*-?\s*up|collection)\b/g, " abholung "],
    [/\bfreight\b/g, " spedition "],
  ],
};

/**
 * The words a translation table knows in the question's language (the letters-only words of its
 * patterns, 4+ letters: "return", "window", "invoice" …): the vocabulary a misspelt question word
 * is corrected against before it is translated ("retrun" → return), since the policies' own words
 * are in the other language.
 */
export function crossVocabulary(key: "de>en" | "en>de"): string[] {
  const out = new Set<string>();
  for (const [re] of CROSS[key])
    for (const w of re.source.replace(/\\[bswdp]\*?|\(\?:|[()|?*+\]\[]/g, " ").split(/[^\p{L}-]+/u))
      if (w.length >= 4 && /^\p{L}+$/u.test(w)) out.add(w);
  return [...out];
}

/**
 * The English words the en>de table knows: an English question's misspelt commerce words are
 * corrected against them (before translating, and in the router of an English thread).
 */
export const EN_CROSS_VOCABULARY: readonly string[] = crossVocabulary("en>de");

/** Stems of policy topics (after the language's stemming), per language. */
export const TOPICS: Record<"en" | "de", Set<string>> = {
  en: new Set(["return", "refund", "exchang", "ship", "shipping", "deliver", "delivery", "warranty", "cancel", "restock"]),
  de: new Set(["rückgabe", "retoure", "umtausch", "erstattung", "versand", "liefern", "lieferung", "garantie"].map((w) => stemDe(w))),
};

/**
 * Common goods (en, de): with a policy topic in the question, an item the policies never name
 * ("return a tent") is the question's object. Other unknown words keep their full weight (a
 * question about "swimwear" is not answered by a general returns sentence).
 */
export const GOODS = new Set(
  (
    "item items product products thing things stuff order purchase gift gifts tent tents laptop laptops computer computers tablet tablets phone phones " +
    "iphone ipad mac macbook tv tvs television camera cameras headphones earbuds speaker speakers watch watches console fridge refrigerator freezer washer " +
    "dryer dishwasher microwave oven appliance chair chairs sofa sofas couch table tables desk desks bed beds bookcase shelf lamp lamps rug mattress " +
    "furniture bike bikes jacket jackets coat coats shoe shoes boot boots sneaker sneakers dress dresses shirt shirts jeans pants trousers sweater skirt " +
    "bag bags backpack hat scarf gloves socks printer printers rod reel knife knives kayak tent helmet " +
    "artikel ware produkt produkte jacke jacken schuhe schuh stiefel kleid kleider hemd hemden hose tasche handy fernseher laptop stuhl sofa tisch bett " +
    "lampe matratze drucker fahrrad zelt"
  ).split(/\s+/),
);

export function crossKey(from: Lang, to: Lang): "de>en" | "en>de" | null {
  if (from === "de" && to === "en") return "de>en";
  if (from === "en" && to === "de") return "en>de";
  return null;
}

export function applyRewrites(text: string, rewrites: Rewrite[]): string {
  let t = text;
  for (const [re, to] of rewrites) t = t.replace(re, to);
  return t;
}
