// German (see ./types.ts for what each member means).
import { PorterStemmerDe } from "natural/lib/natural/stemmers/index.js";
import { deu } from "stopword";
import type { LanguagePack } from "./types.js";

// --- words ------------------------------------------------------------------------------------

const STOP_WORDS = new Set(
  (
    "der die das den dem des ein eine einen einem einer eines und oder aber wenn dann sonst von zu zum zur in im ins an am auf bei mit " +
    "aus nach uber für fur um als ist sind war waren sein bin bist seid habe hast hat haben hatte hatten ich mich mir mein meine meinen " +
    "meinem meiner wir uns unser unsere ihr ihre ihren ihrem euch euer du dich dir dein deine er sie es man dies diese dieser dieses " +
    "jene was welche welcher welches wer wen wem wessen wann wo warum wie kann konnen können konnte könnte wurde würde werden wird soll " +
    "sollte darf durfen dürfen muss mussen müssen nicht kein keine ja nein so als auch nur noch schon sehr mehr viel viele alle jede " +
    "jeder jedes bitte sagen sag wissen mochte möchte mochten möchten hallo hi danke richtlinie richtlinien regel regeln shop laden " +
    "info infos frage fragen gibt geben es etwas denn doch mal bekomme bekommen bekommt bekommst erhalte erhalten erhält kriege kriegen " +
    "benutzen benutze verwenden verwende nutzen nutze machen mache tun noch vom beim ab ob eure euren eurem eurer deinen deinem deiner ihrer ihres " +
    "nachdem bevor sobald obwohl falls weil damit während dass gäbe wäre wären hätte hätten per " +
    // Modal particles: the speaker's tone, not the question's content ("geht das eigentlich einfach so?").
    "eigentlich halt eben einfach bloß ruhig etwa vielleicht wohl übrigens überhaupt irgendwie " +
    // Spoken forms of articles ("nen pulli", "nach ner rücksendung") and "vor" (before, ago).
    "nen ne nem ner vor"
  ).split(/\s+/),
);

/** German words the umlaut folding would merge with another ("zählt" is not "zahlt"). */
const IRREGULAR: Partial<Record<string, string>> = { zählt: "zaehl", zählen: "zaehl", gezählt: "zaehl", zählst: "zaehl" };

/**
 * Snowball's German stemmer (natural's PorterStemmerDe: ß → ss, ä/ö/ü → a/o/u, inflectional and
 * derivational suffixes in its R1/R2 regions: "Kosten" → kost, "Rückgabe" → ruckgab). Compounds
 * are met by prefix and suffix matching at search time (knowledge/retrieval.ts): "versand" finds
 * "versandkosten".
 */
function stem(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular !== undefined) return irregular;
  const w = word.replace(/'/g, "");
  if (/^\d/.test(w)) return w;
  return PorterStemmerDe.stem(w);
}

// --- rewrites ---------------------------------------------------------------------------------

/** Separable verbs with the infinitive "zu" inside: "zurückzuschicken" → "zurückschicken". */
const SEPARABLE_ZU = /\b(ab|an|auf|aus|ein|mit|nach|vor|zurück|weg|um|hin|her|los|fest|frei)zu(\p{L}{3,})/gu;

/** Separable verbs' participles: "abgeholt" → "abholt", "zurückgeschickt" → "zurückschickt" (meets "Abholung", "zurückschicken"). */
const SEPARABLE_GE = /\b(ab|an|auf|aus|ein|mit|nach|vor|zurück|weg|um|hin|her|los|fest|frei)ge(\p{L}{3,}t)\b/gu;

/**
 * Separable verbs split across a question (one sentence, in lower case): the finite verb after the
 * question word and its particle at the end ("Wie *teile* ich euch meinen Rücktritt *mit*?" →
 * mitteile, meeting "Mitteilung"; "Wann *kommt* das Paket *an*?" → ankommt). Captures: verb,
 * particle. After a modal verb (kann, muss, darf, soll, wird) the next word is the subject, and the
 * particle sits on the infinitive already ("Kann ich … mitnehmen?"): no question word of that kind
 * leads here.
 */
const SEPARABLE_SPLIT =
  /^(?:wie|wann|wo|was|warum|wer|welche\w*)\s+(\p{L}{3,})\s+(?:\p{L}+\s+){0,6}?(mit|an|ab|auf|aus|ein|vor|weg|nach|fest|frei)\s*[?.!]*\s*$/u;

/** The parts of separable verbs joined (see the three patterns above); a split verb is added to the text. */
function joinVerbParts(text: string): string {
  let t = text.replace(SEPARABLE_ZU, "$1$2").replace(SEPARABLE_GE, "$1$2");
  // Each sentence on its own ("Hallo! Wann kommt mein Paket an?").
  for (const sentence of t.split(/(?<=[.!?])\s+/)) {
    const split = SEPARABLE_SPLIT.exec(sentence.trim());
    if (split) t = `${t} ${split[2]}${split[1]}`;
  }
  return t;
}

/** "Wer zahlt die Rücksendung?" asks who bears the cost ("Du trägst die unmittelbaren Kosten"). */
/**
 * A word between a verb and its particle or negation ("schick die schönen Schuhe zurück"). JavaScript's
 * `\w` knows only ASCII letters, and `\p{L}` needs the `u` flag, which the router's expressions
 * joined from these patterns (knowledge/classify.ts) do not carry.
 */
const GAP_WORD = String.raw`[\wäöüß]+`;

const WHO_PAYS = { asks: /\bwer\s+(?:zahlt|bezahlt|trägt|übernimmt)(?:\s+für)?\b/, means: " kosten tragen " };

// --- vocabulary -------------------------------------------------------------------------------

/** Synonym groups of stems. */
/**
 * A clause whose subject and auxiliary were left out ends with a past participle, as casual writing
 * does ("falsche Farbe im Markt gekauft", "letzte Woche online bestellt"): its last word is ge…t /
 * ge…en (also after a separable prefix: "zurückgeschickt") or an inseparable prefix's …t ("bestellt").
 */
function participleClause(clause: string): boolean {
  const last = /([a-zäöüß]+)$/.exec(clause)?.[1];
  if (last === undefined) return false;
  return /^[a-zäöüß]*ge[a-zäöüß]{2,}(?:t|en)$/.test(last) || /^(?:be|ver|er|ent|zer|emp)[a-zäöüß]{2,}t$/.test(last);
}

const SYNONYMS: string[][] = [
  ...[
    ["rückgabe", "retoure", "umtausch", "widerruf", "rücksendung"],
    ["rücksendung", "rückgabe", "retoure"],
    ["retoure", "rückgabe", "widerruf"],
    ["erstattung", "erstatten", "rückerstattung", "rückzahlung"],
    ["rückzahlung", "erstattung", "erstatten", "rückerstattung", "zahlung"],
    ["versand", "liefern", "lieferung", "zustellung"],
    ["liefern", "lieferung", "versand", "zustellung"],
    ["lieferung", "versand", "liefern", "zustellung"],
    ["defekt", "mangel", "funktionsstörung", "garantie", "gewährleistung", "reklamation"],
    ["garantie", "gewährleistung"],
    ["kassenbon", "quittung", "kassenzettel", "beleg", "kaufbeleg"],
    ["quittung", "kassenbon", "kassenzettel", "beleg", "kaufbeleg"],
    ["gewährleistung", "garantie"],
    ["zahlen", "bezahlen", "zahlung", "zahlungsart", "paypal", "rechnung", "kreditkarte"],
    ["bezahlen", "zahlen", "zahlung", "paypal", "rechnung", "kreditkarte"],
    ["zahlung", "zahlen", "bezahlen", "paypal", "rechnung", "kreditkarte"],
    ["kosten", "gebühr", "preis"],
    ["porto", "kosten", "versandkosten", "lieferkosten"],
    ["gebühr", "kosten", "preis"],
    ["datenschutz", "daten"],
    ["ausland", "international", "land", "länder"],
    ["schicken", "senden", "versand", "liefern", "lieferung"],
    ["senden", "schicken", "versand", "liefern", "lieferung"],
  ].map((g) => g.map((w) => stem(w))),
  // Noun and verb of the same act: "zurücktreten" / "Rücktritt(sfrist)".
  [stem("zurücktreten"), stem("rücktritt"), "widerruf"],
  [stem("rücktritt"), stem("zurücktreten"), "widerruf"],
  [stem("widerruf"), stem("rücktritt"), stem("zurücktreten")],
  [stem("kosmetik"), "beauty"],
  // Verb and noun of the same act with another vowel: "angeben" / "Angabe".
  [stem("angeben"), stem("angabe")],
  [stem("angabe"), stem("angeben")],
];

// --- the pack ---------------------------------------------------------------------------------

export const de: LanguagePack = {
  code: "de",
  name: "German",

  words: {
    stopWords: STOP_WORDS,
    stopWordForm: (word) => word.replace(/ä/g, "a").replace(/ö/g, "o").replace(/ü/g, "u"),
    stem,
    compounds: {
      genericHeads:
        /regelung(?:en)?|regeln?|bedingung(?:en)?|richtlinien?|politik|infos?|informationen?|möglichkeit(?:en)?|optionen?|rechte?s?|frist(?:en)?|zeitraum|zeit|dauer|seiten?|fall|fälle/,
      inflection: /e|t|n|s|er|en|et|st|es|em|ig/,
      linking: /es|s|en|n|e/,
      functionWords: deu,
    },
    abbreviations: ["z.b", "bzw", "ca", "inkl", "ggf", "usw", "nr"],
  },

  numbers: {
    words: {
      ein: 1,
      eine: 1,
      einen: 1,
      einem: 1,
      einer: 1,
      eins: 1,
      zwei: 2,
      drei: 3,
      vier: 4,
      fünf: 5,
      funf: 5,
      sechs: 6,
      sieben: 7,
      acht: 8,
      neun: 9,
      zehn: 10,
      elf: 11,
      zwölf: 12,
      zwolf: 12,
      vierzehn: 14,
      fünfzehn: 15,
      zwanzig: 20,
      dreißig: 30,
      dreissig: 30,
      vierzig: 40,
      fünfzig: 50,
      sechzig: 60,
      neunzig: 90,
      hundert: 100,
    },
    notStated: ["ein", "eine", "einen", "einem", "einer"],
    durationUnits: /(?:werk|arbeits|kalender)?(?:tage?n?|tagen)|wochen?|monate?n?|jahre?n?|stunden?/,
    unitDays: [
      [/^(werk|arbeits|kalender)?tag(e|en)?$|^werktag(e|en)?$/, 1],
      [/^woche(n)?$/, 7],
      [/^monat(e|en)?$/, 30],
      [/^jahr(e|en)?$/, 365],
      [/^stunde(n)?$/, 1 / 24],
    ],
    rangeWords: /bis/,
    currencyNames: {},
    percentWords: ["prozent"],
    // "50,- €", "50,-- EUR" are 50 €.
    wholeAmount: /(\d),(-{1,2})(?=\s?(?:€|eur\b|euro))/,
  },

  dates: {
    months: ["januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember"],
    monthFirst: false,
    weekdays: ["montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag"],
  },

  rewrites: {
    joinVerbParts,
    shorthand: [
      [/\bmc\b/g, " mastercard "],
      [/\bamex\b/g, " american express "],
      // "wieviel" is "wie viel" (how much), "wieviele" "wie viele" (how many).
      [/\bwieviel(e?)\b/g, " wie viel$1 "],
      [/\bhab\b/g, " habe "],
      // A clitic "es" written onto its verb: "wie lang dauerts", "gibts", "gehts", "kostets".
      [/\b(gibt|gab|geht|ging|dauert|kostet|ist|war|hat|klappt|braucht|gilt|kommt|passt|stimmt|reicht|lohnt)s\b/g, " $1 es "],
      [/\bgeschenkkarten?\b/g, " gutschein "],
      // "Bon" is the receipt ("ohne Bon"), "Bargeld" what policies write as "in bar".
      [/\bbons?\b/g, " kassenbon "],
      [/\bbargeld\b/g, " bar "],
    ],
    phrases: [
      [/\bzurück(?:schick|send|geb|gegeb|gesend|geschick)\w*/g, " rückgabe "],
      // The verb with its endings only ("gebt … zurück", not "gebrauchte … zurück" or "Sendung … zurück").
      [new RegExp(String.raw`\b(?:schick|send|geb)(?:e|en|e?st|e?t|te|ten|tet)?\s+(?:${GAP_WORD}\s+){0,3}zurück\b`, "g"), " rückgabe "],
      [/\bgeld\s+zurück\b/g, " erstattung "],
      // Getting something back is a refund: "krieg ich … zurück", "bekomme ich … zurück".
      [new RegExp(String.raw`\b(?:krieg|bekomm|bekomme|bekommt|erhalt|erhält)\w*\s+(?:${GAP_WORD}\s+){0,4}zurück\b`, "g"), " erstattung "],
      // "Etiketten dranlassen" is not removing them.
      [/\bdran\s*(?:lass\w*|bleiben|behalten)\b|\bdranlass\w*/g, " nicht entfernen "],
      [/\bgutscheinkarten?\b|\bgeschenkkarten?\b/g, " gutschein "],
      [
        /\b(?:ohne|keine?n?)\s+(?:den\s+|die\s+|das\s+|meine?n?\s+)?(quittung|kassenbon|kassenzettel|beleg|verpackung|originalverpackung|etikett)\b/g,
        " ohne $1 ",
      ],
      [
        new RegExp(
          String.raw`\b(quittung|kassenbon|kassenzettel|beleg|verpackung|originalverpackung|etikett)\s+(?:${GAP_WORD}\s+)?(?:verloren|weggeworfen)\b`,
          "g",
        ),
        " ohne $1 ",
      ],
      // A symptom is what policies call a defect: "ist kaputt gegangen", "der Akku ist hin", "geht nicht
      // mehr", "lädt nicht", "hat den Geist aufgegeben" (not "der Code geht nicht": no device stopped).
      [
        new RegExp(
          String.raw`\bkaputt\w*(?:\s+gegangen|\s+gemacht)?|\b(?:ist|sind|war|waren)\s+(?:${GAP_WORD}\s+){0,3}hin\b|\b(?:geht|gehen|funktioniert|funktionieren|läuft|laufen)\s+(?:${GAP_WORD}\s+){0,2}nicht\s+mehr\b|\b(?:lädt|startet|springt)\s+(?:${GAP_WORD}\s+){0,2}nicht(?:\s+mehr|\s+an)?\b|\bstreik(?:t|en)\b|\bden\s+geist\s+aufgegeben\b|\bgibt\s+den\s+geist\s+auf\b`,
          "g",
        ),
        " defekt ",
      ],
      // A negated participle is the policies' un- adjective: "noch nicht benutzt", "nie getragen" → unbenutzt, ungetragen.
      [/\b(?:noch\s+)?(?:nicht|nie|gar\s+nicht)\s+(?:mal\s+)?(benutzt|getragen|geöffnet|gewaschen|aufgebaut|montiert)\b/g, " un$1 "],
      // "Wer zahlt die Rücksendung?" asks who bears the cost ("Du trägst die unmittelbaren Kosten").
      [new RegExp(WHO_PAYS.asks.source, "g"), WHO_PAYS.means],
    ],
    yesIdioms: [[/\bkein\s+problem\b/g, " möglich "]],
    whoPays: WHO_PAYS,
    translations: {
      en: {
        rewrites: [
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
          // A dictionary entry like Jacke → jacket (whether mattresses are a class of their own is the store's vocabulary).
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
          [/\bzoll\w*/g, " customs duties "],
          [/\b(?:gekauft|kauf\w*)\b/g, " purchase "],
          [/\b(?:tage|tagen)\b/g, " days "],
          [/\bgeöffnet\w*/g, " opened "],
          [/\bmöbel\b/g, " furniture "],
          [/\b(?:widerruf\w*|rücktritt\w*|zurücktret\w*)/g, " withdraw cancel "],
        ],
        countries: true,
      },
    },
  },

  vocabulary: {
    synonyms: SYNONYMS,
    topics: new Set(["rückgabe", "retoure", "umtausch", "erstattung", "versand", "liefern", "lieferung", "garantie"].map(stem)),
    goods: (
      "artikel ware produkt produkte jacke jacken schuhe schuh stiefel kleid kleider hemd hemden hose tasche handy fernseher laptop stuhl sofa tisch bett " +
      "lampe drucker fahrrad zelt"
    ).split(" "),
    countries: {
      DE: ["deutschland"],
      AT: ["österreich"],
      CH: ["schweiz"],
      FR: ["frankreich"],
      IT: ["italien"],
      ES: ["spanien"],
      NL: ["niederlande", "holland"],
      BE: ["belgien"],
      DK: ["dänemark"],
      FI: ["finnland"],
      LU: ["luxemburg"],
      PL: ["polen"],
      CZ: ["tschechien"],
      NO: ["norwegen"],
      SE: ["schweden"],
      IE: ["irland"],
      CA: ["kanada"],
      MX: ["mexiko"],
      BR: ["brasilien"],
      JP: ["japan"],
      CN: ["china"],
      IN: ["indien"],
      AU: ["australien"],
      GB: ["großbritannien", "grossbritannien", "england"],
      US: ["usa", "vereinigte staaten", "vereinigten staaten"],
    },
    // The German policies say "Land" / "Länder".
    countryWord: "land",
    seasons: { holidays: { names: /weihnacht|feiertag/, months: ["dezemb", "dezember"] } },
    orders: { words: /bestellung|auftrag/, number: /nr\.?|nummer/, is: /ist/ },
  },

  questions: {
    duration:
      /\bwie\s+(?:lange?|schnell|alt|viele\s+(?:werk|arbeits)?(?:tage|wochen|monate|jahre|stunden)|viel\s+zeit)\b|\b(?:\p{L}*frist\p{L}*|\p{L}*zeitraum|wann|bis\s+wann|dauer\w*|dauert|zahlungsziel|(?:kann|darf)\s+ich\s+(?:\p{L}+\s+)?noch|zu\s+spät)\b/u,
    durationWords: "zeit schnell wie lange lang viele tage wochen monate jahre stunden frist fristen zeitraum wann bis dauer dauert".split(
      " ",
    ),
    money: /\bwie\s+viel\b(?!\s+zeit)|\b(?:kostet|kosten|gebühr\w*|gebuhr\w*|preis|mindestbestellwert|mindest\w*)\b/,
    moneyWords: ["wie", "viel", "kostet", "kosten", "gebühr", "gebühren", "preis"],
    asksValue: /\bwie\s+(?:viel|viele|lange?)\b|\bwas\s+kostet\b/,
    phone: /\b(?:telefon\w*|rufnummer|hotline|welche\s+nummer|unter\s+welcher\s+nummer)\b/,
    list: new RegExp(
      String.raw`\bwelche[nmrs]?\s+(?:${GAP_WORD}\s+)?\w*(?:arten|methoden|länder|laender|karten|optionen|möglichkeiten|anbieter|marken|dienstleister)\b`,
    ),
    listWords: ["art", "arten", "methode", "methoden", "option", "optionen", "möglichkeit", "möglichkeiten"],
    how: /\bwie\s+(?:kann|muss|soll|mache|funktioniert)\b|\bwas\s+muss\s+ich\b|\bwo\s+kann\s+ich\b/,
    howPassage: /filiale|per\s+post|etikett|anmelden|kontakt\w*|schick\w*/,
    start: /\bab\s+wann\b|\bwann\s+beginnt\b|\bbeginnt\s+die\b|\bzählt\s+(?:die|ab)\b|\bgerechnet\b/,
    startWords: "ab wann beginnt die der das zählt gerechnet".split(" "),
    startPassage: /ab\s+dem\s+tag|ab\s+(?:erhalt|empfang|zugang|lieferung|kaufdatum)|beginnt\s+mit/,
    periodNouns: ["frist", "fristen"],
    contextClause: /^(?:(?:und|aber|weil|da|also|naja|nachdem|obwohl)\s+)?(?:ich|wir|mein\w*|unser\w*|es)\b/,
    narrativeClause: participleClause,
    askingClause:
      /^(?:(?:und|aber|also|dann)\s+)?(?:wie|was|welche\w*|wann|wo|warum|wer|kann|könnt|darf|gibt|muss|ist|sind|habe|hat|wird|werden|bekomme)\b|\b(?:kann|darf|muss|soll)\s+ich\b/,
    clauseMarks: [],
    timeReference:
      /(?:letzte[nrs]?|diese[nrs]?|nächste[nrs]?|vorige[nrs]?)\s+(?:woche|monat|jahr|wochenende)|gestern|heute|morgen|vorgestern|morgens|vormittags?|nachmittags?|abends?|nachts/,
    ago: /vor\s+(?:\d+|einem|einer|zwei|drei|vier)\s+(?:tag|tagen|wochen?|monat|monaten|jahr|jahren)/,
    without: /ohne/,
    // Also a question word after its preposition ("ab wann", "an welche …") and a verb before its
    // subject ("zahlt ihr …", "kann man …", "krieg ich …").
    questionWord:
      /^(?:wie|was|welche\w*|wann|wo|wohin|woher|warum|wieso|weshalb|wer|kann|könnt|darf|gibt|muss|ist|sind|habe|hat|wird|werden|bis|(?:ab|bis|seit|an|auf|für|in|mit|von|zu)\s+(?:wann|welche\w*|wem|wen)|[a-zäöüß]+t\s+ihr|[a-zäöüß]+\s+man|(?:krieg|kriege|bekomm|bekomme|hab|kann|muss|darf|soll|zahl|zahle)\s+ich)\b/,
    partJoiners: /und/,
    pronouns: /es|das|dies|sie/,
    followUp: /und|aber|oder|was\s+ist\s+mit|wie\s+ist\s+es\s+mit|und\s+wenn|wenn/,
    aboutThat: {
      connectives: /und|aber/,
      verbs: /gilt|ist|zählt|geht/,
      demonstratives: /das|dies/,
      doubts: /bist\s+du\s+(?:dir\s+)?sicher|sind\s+sie\s+(?:sich\s+)?sicher|wirklich|echt/,
    },
    pointsBack: /dies|das|dafür|davon/,
  },

  instructions: {
    // One alternative per kind of instruction.
    injection: new RegExp(
      [
        String.raw`\bdu\s+bist\s+(?:ab\s+)?jetzt\b`,
        String.raw`\btu\s+so,?\s+als\b`,
        String.raw`\bstell\s+dir\s+vor\b`,
        String.raw`\bvergiss\s+(?:alle\s+|deine\s+)?(?:regeln|anweisungen)\b`,
        String.raw`\bignorier\w*\s+(?:alle\s+|deine\s+)?(?:vorherigen\s+)?(?:anweisungen|regeln|richtlinien)\b`,
        String.raw`\bdu\s+(?:musst|sollst|wirst)\s+(?:immer\s+|nur\s+)?(?:antworten|sagen|bestätigen|schreiben)\b`,
        String.raw`\bantworte\w*\s+(?:immer|nur|ab\s+jetzt)\b`,
        String.raw`#{2,}\s*(?:neue\s+anweisung\w*)\b`,
        String.raw`\b(?:neue\s+anweisung\w*)\s*:`,
      ].join("|"),
    ),
    asks: {
      connectives: /und|aber|dann|also/,
      softeners: /bitte|nur/,
      starts: /wie|was|welche\w*|wann|wo|warum|ob|kann|darf|gibt|muss|ist|sind/,
    },
    tellMe: /nenn\w*\s+mir|sag\w*\s+mir/,
    clauseJoiners: /und|dann/,
    dictates: new RegExp(String.raw`\b(?:bestätig\w*|sag\w*)\s+(?:${GAP_WORD}\s+)?(?:dass|ja)\b`),
    frameWords: /lange?|viele?|tage?n?|zeit|frist/,
    claimForm: { start: /dass/, verbs: /ist|sind|sei|habe|hat|gibt|beträgt|dauert/ },
    claimWords: /sag\w*|antwort\w*|bestätig\w*|schreib\w*|dass|gibt|jetzt|immer|modus/,
    shopperSubject: { openings: /und|aber|also|hallo/, subjects: /ich|wir|mein\w*|unser\w*/ },
    claim: /du|dein\w*|euer|eure|jetzt|ab\s+sofort|neue\w*|chef|inhaber|vergiss|ignorier\w*|antworte\w*/,
  },

  router: {
    colors: {
      rot: "red",
      blau: "blue",
      grün: "green",
      grun: "green",
      schwarz: "black",
      weiß: "white",
      weiss: "white",
      gelb: "yellow",
      rosa: "pink",
      lila: "purple",
      violett: "purple",
      braun: "brown",
      grau: "grey",
      silber: "silver",
      türkis: "turquoise",
    },
    // "blaue", "roten": an inflected adjective.
    adjectiveEnding: /^(.+?)(?:e|en|er|es|em)$/,
    categories: [
      [/^(kleid|kleider|kleidern)$/, ["dress", "dresses"]],
      [/^(hemd|hemden)$/, ["shirt", "shirts"]],
      [/^(hose|hosen)$/, ["trousers", "pants"]],
      [/^(schuh|schuhe|schuhen)$/, ["shoe", "shoes"]],
      [/^(stiefel)$/, ["boot", "boots"]],
      [/^(jacke|jacken)$/, ["jacket", "jackets"]],
      [/^(mantel|mäntel)$/, ["coat", "coats"]],
      [/^(pulli)$/, ["sweater", "sweaters"]],
      [/^(rock|röcke)$/, ["skirt", "skirts"]],
      [/^(tasche|taschen|handtasche|handtaschen)$/, ["bag", "bags"]],
      [/^(mütze|mützen|hut|hüte)$/, ["hat", "hats"]],
      [/^(schal|schals)$/, ["scarf", "scarves"]],
      [/^(gürtel)$/, ["belt", "belts"]],
      [/^(socken)$/, ["sock", "socks"]],
      [/^(bluse|blusen)$/, ["blouse", "blouses"]],
    ],
    policyWords:
      /rücktritt\w*|zurücktret\w*|zurückzutreten|\w*gutschein\w*|rückgabe\w*|rücksend\w*|zurück(?:schick|send|geb|gegeb|gesend|geschick)\w*|retoure\w*|umtausch\w*|umtauschen|erstattung\w*|rückerstattung\w*|widerruf\w*|versand\w*|versenden|lieferung\w*|lieferzeit\w*|liefern|porto|garantie\w*|gewährleistung\w*|zahlung\w*|bezahl\w*|zahlungsart\w*|rechnung|kreditkarte\w*|datenschutz\w*|agb|stornier\w*|gutschein\w*|rabatt\w*|zoll\w*|ausland\w*/,
    policyExtras: /rabatt\w*|mitglied\w*|quittung|kassenbon|nachnahme|vorkasse|preisgarantie|verfallen|gebühr\w*|montage|aufbau/,
    request:
      /zeig(?:e|t)?\s+mir|ich\s+suche|suche\s+nach|suche|habt\s+ihr|haben\s+sie|führt\s+ihr|verkauft\s+ihr|ich\s+brauche|ich\s+(?:möchte|will|hätte\s+gerne?)\s+(?:ein|eine|einen)|empfiehl\w*|empfehl\w*|kaufen|auf\s+lager|verfügbar/,
    requestStrip: {
      phrases:
        /zeig(?:e|t)?\s+mir|ich\s+suche(?:\s+nach)?|suche\s+nach|suche|habt\s+ihr|haben\s+sie|führt\s+ihr|verkauft\s+ihr|ich\s+brauche|ich\s+(?:möchte|will|hätte\s+gerne?)/,
    },
    // Also a question word after a preposition ("ab wann", "bei wem") and a verb before its subject
    // pronoun — German asks by inversion ("liefert ihr …", "hab ich …") — unless a conjunction opens the clause.
    questionStart:
      /wie|welche\w*|wann|wo|warum|wer|kann|könnt|darf|gibt|muss|ist|sind|habe|hat|wird|werden|(?:ab|bis|seit|mit|an|bei|von|für|zu|nach|auf|über|um)\s+(?:wann|wem|wen|was|welche\w*|wie\w*|wo)|(?!(?:wenn|weil|dass|ob|als|falls|nachdem|obwohl|da|sobald|und|aber|oder|denn|sondern|damit|bevor|seit|bis)\s)[a-zäöüß]+\s+(?:ich|du|ihr|wir|man)/,
    cart: /(?:\b(?:leg\w*|füg\w*|pack\w*|tu|tue|gib|mach\w*)\s+(?:mir\s+)?(?:bitte\s+)?|^)(.+?)\s+(?:in\s+(?:den|meinen)|zum|zu\s+(?:meinem|dem))\s+(?:warenkorb|einkaufswagen|korb)\b/,
    determiners: ["der", "die", "das", "den", "dem", "diese", "diesen", "dieses"],
    articlesOfOne: [],
    quantityLinks: ["von", "vom"],
    quantityUnits: [
      ...["packung", "packungen", "dose", "dosen", "flasche", "flaschen", "paar", "stück", "sack", "säcke", "beutel"],
      ...["rolle", "rollen", "eimer", "karton", "kartons", "tube", "tuben", "glas", "gläser"],
    ],
    quantityAfter: /^[\s,;:-]*(\d{1,2}|[a-zäöüß]+)\s*(?:x|mal|stück|davon)?\s*(?:bitte)?\s*[.!]*$/,
    referenceTails: ["bitte", "mir"],
    vagueReferences: /es|das|dies|diese|diesen|dieses|den|die|das da|den da|die da/,
    bareReference: { openings: /und|was\s+ist\s+mit/, determiners: /der|die|das|den|dem/, ones: /da|hier/ },
    courtesy: {
      greetings: ["hilfe", "hallo", "hi", "hey", "moin", "servus", "grüß", "grüezi", "morgen", "tag", "abend", "ja", "nein"],
      thanks: ["danke", "dankeschön", "dank", "tschüss", "tschüs", "ciao", "wiedersehen"],
      phatic:
        /\bwie\s+geht(?:'s|s|\s+es)(?:\s+(?:euch|dir|ihnen))?|\bwie\s+läuft(?:'s|s)|\balles\s+(?:gut|klar|fit)\s+bei\s+(?:euch|dir|ihnen)/,
      fillers: [
        "guten",
        "gute",
        "schönen",
        "schöne",
        "noch",
        "vielen",
        "herzlichen",
        "super",
        "toll",
        "prima",
        "perfekt",
        "gut",
        "alles",
        "war",
        "wars",
        "hat",
        "geholfen",
        "hilft",
        "weiter",
        "nur",
        "umschauen",
        "stöbern",
        "mal",
        "sehr",
        "euch",
        "ihnen",
        "dir",
        "zusammen",
        "heute",
        "so",
        "erstmal",
        "klasse",
        "auf",
        "bitte",
      ],
    },
    returnOwn: new RegExp(
      String.raw`ich\s+(?:möchte|will|würde\s+gerne?|muss)\s+(?:${GAP_WORD}\s+){0,5}(?:zurückschicken|zurücksenden|zurückgeben|retournieren|umtauschen|reklamieren)|retoure\s+(?:starten|anmelden|beginnen|einleiten)|meine\s+bestellung\s+(?:${GAP_WORD}\s+){0,2}(?:zurück\w*|retournieren)`,
    ),
    returnWord: /rücksend\w*|retoure\w*|zurück\w*|retournieren|umtauschen/,
    orderOwn:
      /wo\s+(?:ist|bleibt)\s+meine?\s+(?:bestellung|paket|lieferung|sendung)|meine[rn]?\s+(?:letzten?\s+)?bestellung(?:en)?|sendungsverfolgung|bestellstatus|status\s+meiner\s+bestellung|wann\s+kommt\s+meine?\s+(?:bestellung|paket|lieferung|sendung)/,
    orderStatus: /wo\s+(?:ist|bleibt)|sendungsverfolgung|bestellstatus|status\s+meiner|wann\s+kommt\s+meine?/,
    orderStatusOutright: /wo\s+(?:ist|bleibt)|sendungsverfolgung|bestellstatus|status\s+meiner/,
    ownOrder: [/\bmeine[rn]?\s+(?:letzten?\s+)?(?:bestellung(?:en)?|paket|lieferung|sendung)\b/g, " es "],
    orderWords: ["bestellung", "kommt", "es"],
    conditionsClause:
      /(?:kann|darf)\s+ich|wie\s+(?:lange?|viel|mache|geht|funktioniert)|was\s+kostet|kostet\s+(?:das|es)|ist\s+(?:das|es)\s+(?:kostenlos|möglich|gratis)|gibt\s+es|muss\s+ich|brauche\s+ich/,
    clauseConjunctions: /aber|und/,
    conditional: /wenn|kann\s+ich|darf\s+ich|muss\s+ich|wie\s+lange|wie\s+viel|gibt\s+es|bis\s+wann|ist|sind/,
    hypothetical: /wenn|falls|angenommen/,
    buyingClause: /(?:wenn|falls|nachdem|sobald)\s+(?:ich|wir)\s+(?:\S+\s+){0,4}(?:kaufe|kaufen|bestelle|bestellen)/,
    personWish: {
      person: /menschen?|person|mitarbeiter(?:in|innen)?|berater(?:in)?|jemand(?:em|en)?|kundenservice|kundendienst|support/,
      contact: /sprechen|reden|chatten|telefonieren|anrufen|zurückrufen|kontaktieren|melden/,
    },
    personRequest: new RegExp(
      [
        String.raw`\bmit\s+(?:einem|einer|nem|ner|jemandem|dem)\s+(?:echten\s+)?(?:mitarbeiter(?:in)?|menschen|person|berater(?:in)?|kundenservice|support)\s+(?:sprechen|reden|chatten|telefonieren)\b`,
        // "mit jemandem (vom Kundenservice) reden", "verbinden Sie mich mit einem Mitarbeiter"
        String.raw`\bmit\s+jemandem\s+(?:(?:vom|aus\s+dem|von\s+(?:ihrem|eurem|dem))\s+(?:kundenservice|kundendienst|support|team)\s+)?(?:sprechen|reden|chatten|telefonieren)\b`,
        String.raw`\bverbinde[nt]?\s+(?:sie\s+|du\s+)?mich\s+(?:bitte\s+)?mit\s+(?:einem|einer|jemandem|dem|der)\b`,
        String.raw`\bwie\s+(?:kann\s+ich\s+(?:sie|euch|den\s+kundenservice|den\s+shop|das\s+team)\s+(?:erreichen|kontaktieren|anrufen|anschreiben)|(?:erreiche|kontaktiere)\s+ich\s+(?:sie|euch|den\s+kundenservice|den\s+shop|das\s+team))\b`,
        String.raw`\b(?:kundenservice|kundendienst|support)\s+(?:kontaktieren|erreichen|anrufen)\b`,
        String.raw`\b(?:ihre|eure|die)\s+(?:telefonnummer|e-?mail-?adresse|kontaktdaten)\b`,
      ].join("|"),
    ),
    sizeWords: /größe|grösse|gr\./,
    price: {
      between: /zwischen/,
      and: /und|bis/,
      max: /unter|bis(?:\s+zu)?|höchstens|maximal|weniger\s+als|günstiger\s+als|billiger\s+als/,
      min: /über|ab|mindestens|mehr\s+als/,
    },
    queryFillers: /bitte|irgendwelche|etwas/,
    queryArticles: /ein|eine|einen/,
    availability: /verfügbar|auf\s+lager|vorrätig|ausverkauft|was\s+kostet\s+(?:der|die|das)\b|habt\s+ihr\s+(?:die|den|das)\b/,
    notModelNumbers: /tage?n?/,
  },
  facts: {
    // German capitalises every noun: capitals mark no names.
    namesByCapitals: false,
    startEvents: {
      delivery: /empfang|erhalt|liefer|zustell|besitz/,
      purchase: /kauf|gekauft/,
      shipment: /versand|versend/,
      order: /bestell/,
    },
    durationStart: { words: /nach|ab|seit/ },
    scope: [
      "mitglied",
      "mitglieder",
      "weihnachten",
      "november",
      "dezember",
      "elektronik",
      "software",
      "gebraucht",
      "online",
      "filiale",
      "express",
      "ausland",
    ],
    productClasses: ["elektronik", "software", "gebraucht"],
    free: /(?:versand|rück(?:sende|versand))?kosten(?:los|frei)(?:e|en|er|es|em)?|gratis/,
    negation: /\b(?:nicht|kein\w*)/,
    negationBridge: /mehr|immer|ganz|berechtigt|inklusive|inbegriffen|enthalten|erhältlich|verfügbar|gilt|gelten|für|mit|als|zu/,
    unless: /es\s+sei\s+denn|außer\s+(?:wenn|für|bei)|ausgenommen|mit\s+ausnahme\s+(?:von|der|des)/,
    including: /einschließlich|einschliesslich|inklusive|inkl/,
    condition: /wenn|falls|sofern|soweit/,
    lasts: /dauert|dauern|benötigt|benötigen|braucht|brauchen/,
  },

  answers: {
    unitTerms: ["tag", "woch", "monat", "jahr", "stund", "werktag", "prozent"],
    listJoiners: /und|oder|sowie/,
    threshold: {
      before: /ab|über|mehr\s+als|mindestens/,
      // "einen Warenwert von 50,- €".
      valueBefore: /(?:waren|bestell|einkaufs|order|cart)\s*wert\s+(?:von\s+)?/,
      after: /überschreitet|unterschreitet|übersteigt|erreicht/,
    },
    deadline: /(?:bis(?:\s+zum)?|spätestens(?:\s+am)?)\s+/,
    until: /bis/,
    nextDay: /(?:nächsten|folgenden)\s+(?:werk|arbeits)?tag/,
    announcesList: /folgende\w*|eine[sr]?\s+der/,
    refersBack: /dies\w*|das|diese\w*|sie|dafür|damit|dabei|hierfür|in\s+diesem\s+fall/,
    continues: /in\s+diesem\s+fall|in\s+diesen\s+fällen|dafür|hierfür|dabei/,
    qualifies: {
      start: /sonst|andernfalls|ausgenommen|außer|allerdings|jedoch|nur|wenn|ausnahme/,
      anywhere: /außer|ausgenommen|ausgeschlossen|nicht\s+(?:möglich|zurück\w*|erstattet)/,
    },
    yesNoQuestion:
      /^(?:(?:und|aber|also)\s+)?(?:kann|könnt\w*|darf|dürfen|muss|müssen|ist|sind|gibt|habe|hat|wird|werden|bekomme|bekommt|verfallen|verfällt|nehmt|nehmen|akzeptiert|akzeptieren)\b/,
    negative: /\b(?:nicht|kein\w*|nie|ausgeschlossen)\b/,
    positive: /\b(?:kann|können|kannst|darf|dürfen|muss|müssen|möglich|kostenlos|kostenfrei)\b/,
    conditioned: /wenn|sofern|außer|ausser|nur|jedoch|allerdings|abhängig/,
  },

  checks: {
    promises: [
      "garantie",
      "garantiert",
      "garantieren",
      "kostenlos",
      "kostenfrei",
      "gratis",
      "immer",
      "nie",
      "niemals",
      "erstattung",
      "erstattet",
      "rückerstattung",
      "lebenslang",
      "unbegrenzt",
      "versprechen",
      "sofort",
      "jederzeit",
      "geld zurück",
      "ohne angabe von gründen",
    ],
    commitments: {
      ship: ["versand", "versandt", "versendet", "verschickt", "versenden"],
      deliver: ["liefern", "geliefert", "lieferung", "zugestellt", "zustellung"],
      today: ["heute"],
      tomorrow: ["morgen"],
      overnight: ["über nacht"],
      sameDay: ["am selben tag", "noch heute"],
      nextDay: ["am nächsten tag"],
      thisWeek: ["diese woche"],
      rightAway: ["umgehend"],
      eligible: ["berechtigt", "anspruch"],
      covered: ["abgedeckt"],
      exempt: ["befreit"],
    },
    actionClaims: [
      /\b(?:habe|haben)\b[^.!?]{0,60}\b(?:hinzugefügt|gelegt|gestartet|erstattet|storniert|bestellt)\b/i,
      /\b(?:wurde|wurden|ist|sind)\b[^.!?]{0,60}\b(?:hinzugefügt|in\s+den\s+warenkorb\s+gelegt|gestartet|erstattet|storniert)\b/i,
    ],
    stockPhrases: {
      outOfStock: /\bnicht\s+(?:auf\s+lager|vorrätig|lieferbar)|\bausverkauft\b|\bvergriffen\b/,
      lowStock: /\bnur\s+noch\s+(?:wenige|\w+)\b/,
      inStock: /\bauf\s+lager\b|\bvorrätig\b|\blieferbar\b/,
    },
  },
  replies: {
    yes: "Ja",
    no: "Nein",
    conflict: "Die Richtlinien des Shops widersprechen sich in diesem Punkt, daher kann ich keine verlässliche Antwort geben:",
    noEvidence: "Die veröffentlichten Richtlinien des Shops beantworten diese Frage nicht, daher kann ich sie nicht beantworten.",
    unansweredParts: (parts) => `Zu diesem Teil Ihrer Frage sagen die Richtlinien nichts: ${parts.map((p) => `„${p}“`).join(", ")}.`,
    clarify: {
      help: "Wobei kann ich helfen? Sie können nach Produkten, Ihrer Bestellung oder den Richtlinien des Shops (Rückgabe, Versand, Zahlung) fragen.",
      vagueProduct: "Welches Produkt meinen Sie? Nennen Sie bitte den Namen oder beschreiben Sie es.",
      cart: "Welches Produkt soll ich in Ihren Warenkorb legen? Nennen Sie bitte den Namen.",
      welcome: "Gern geschehen! Kann ich sonst noch etwas für Sie tun?",
      phatic: "Danke der Nachfrage, gut! Womit kann ich Ihnen helfen?",
    },
    stock: {
      in_stock: "auf Lager",
      low_stock: "nur noch wenige auf Lager",
      out_of_stock: "nicht auf Lager",
      unknown: "Verfügbarkeit unbekannt",
    },
    priceUnavailable: "Preis gerade nicht verfügbar",
    availabilityUnchecked: "Verfügbarkeit nicht geprüft",
    unavailable: (dependency) =>
      `${dependency === "storefront" ? "Der Katalog des Shops" : "Der Wissensdienst des Assistenten"} ist gerade nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.`,
    contact: {
      email: "E-Mail",
      phone: "Telefon",
      sentence: (channels, hours) => `Sie erreichen das Team des Shops${channels.length > 0 ? ` per ${channels.join(", ")}` : ""}${hours}.`,
    },
    noContactForConflict: "Das Team des Shops muss das klären; für diesen Shop ist kein Support-Kontakt hinterlegt.",
    noContactForEvidence: "Das muss eine Person aus dem Team des Shops beantworten; für diesen Shop ist kein Support-Kontakt hinterlegt.",
    handingOver: "Gern verbinde ich Sie mit dem Team des Shops.",
    noContactForPerson:
      "Dabei hilft Ihnen gern das Team des Shops; hier ist allerdings kein Support-Kontakt hinterlegt. Die Kontaktwege stehen auf der Website des Shops.",
    found: (query) => `Das habe ich zu „${query}“ gefunden:`,
    foundNamed: "Dieses Produkt meinen Sie:",
    noProducts: (query) => `Ich habe im Katalog des Shops keine Produkte zu „${query}“ gefunden.`,
    cartNotFound: (ref) => `Ich habe „${ref}“ im Katalog des Shops nicht gefunden, daher wurde nichts in den Warenkorb gelegt.`,
    cartWhich: (titles) => `Welches Produkt soll ich in den Warenkorb legen: ${titles.map((t) => `„${t}“`).join(", ")}?`,
    cartConfirm: (quantity, title) =>
      `${quantity} × **${title}** in den Warenkorb legen? Bestätigen Sie, um fortzufahren, oder brechen Sie ab.`,
    signIn: (kind) =>
      kind === "order"
        ? "Bestellungen kann ich nur für angemeldete Kundinnen und Kunden nachsehen. Bitte melden Sie sich im Shop an und fragen Sie noch einmal."
        : "Rücksendungen können nur angemeldete Kundinnen und Kunden starten. Bitte melden Sie sich im Shop an und fragen Sie noch einmal.",
    orderNotFound: (id) => `Die Bestellung ${id} habe ich unter Ihren Bestellungen nicht gefunden.`,
    noOrders: "Ich habe keine Bestellungen zu Ihrem Konto gefunden.",
    orders: (one) => (one ? "Hier ist Ihre Bestellung:" : "Hier sind Ihre letzten Bestellungen:"),
    whichOrder: "Welche Bestellung möchten Sie zurückschicken?",
    startReturn: (id) => `Rücksendung für Bestellung **${id}** starten? Bestätigen Sie, um fortzufahren, oder brechen Sie ab.`,
    orderLine: (id, status, date) => `- Bestellung **${id}** — ${status} (aufgegeben am ${date})`,
  },
};
