// English (see ./types.ts for what each member means). English is also the registry's default:
// replies in a language without a pack are framed in English (./index.ts).
import { createRequire } from "node:module";
import { derivedEnglishWords, isEnglishWord, namesEnglishGoods, namesOnlyEnglishPlace, warmDictionary } from "./en-dictionary.js";
import type { LanguagePack } from "./types.js";

// --- words ------------------------------------------------------------------------------------

const STOP_WORDS = new Set(
  (
    "a an the and or but if then else of to in on at by for with from into onto about as is are was were be been being am do does did " +
    "doing have has had having i me my mine we us our ours you your yours he she it its they them their this that these those there here " +
    "what which who whom whose when where why how can could would should will shall may might must not no yes so than too very just also " +
    "any some all each every other such only own same more most less few many much own up down out over under again further once " +
    "please tell know want like need get got let lets ok okay hi hello hey thanks thank policy policies store rule rules info " +
    "information question questions ask asking regarding about anything something thing things say says said does dont don't im i'm " +
    "ive i've youre you're whats what's it's its there's theres able still already even ever really actually anyway maybe " +
    "after before during since within through among " +
    "though ago i'd i'll you've you'd you'll we're we've we'd they're they've isn't aren't doesn't didn't " +
    "that's thats who's where's how's here's let's he's she's " +
    "him his her hers himself herself itself myself yourself ourselves themselves because while"
  ).split(/\s+/),
);

/**
 * Irregular forms that the suffix rules cannot reach, mapped to their lemma: WordNet 3.0's
 * exception lists of verbs and nouns (verb.exc, noun.exc, as the `wink-lexicon` package ships
 * them: "came" → come, "bought" → buy, "wore" → wear, "children" → child).
 */
const require = createRequire(import.meta.url);
/** Both lists as one map, read on first use (about 40 ms: not at start-up); the verbs' alone too. */
let exceptions: ReadonlyMap<string, string> | null = null;
let verbForms: ReadonlyMap<string, string> | null = null;
function verbExceptions(): ReadonlyMap<string, string> {
  verbForms ??= new Map(Object.entries(require("wink-lexicon/src/wn-verb-exceptions.js") as Record<string, string>));
  return verbForms;
}
function lemmaOf(w: string): string | undefined {
  exceptions ??= new Map([
    ...Object.entries(require("wink-lexicon/src/wn-noun-exceptions.js") as Record<string, string>),
    // A form in both lists (e.g. "axes") is read as the verb's, as before.
    ...verbExceptions(),
  ]);
  return exceptions.get(w);
}

/** The words that may open a clause of circumstances before its subject or verb ("so I …", "but got …"). */
const CONTEXT_OPENERS = "(?:so|but|and|because|since|as|well|also|btw|ok|okay)";
/** A clause's first word after its opener. */
const FIRST_WORD = new RegExp(`^(?:${CONTEXT_OPENERS}\\s+)?([a-z]+)\\b`);

/** The part-of-speech tags of English words, most frequent first (wink-lexicon's lexicon), read on first use. */
let tags: Readonly<Record<string, readonly string[]>> | null = null;

/**
 * A clause whose subject was left out begins, after a conjunction, with a past-tense verb ("got an
 * interface last week", "bought these in March", "wore them once"): the word's most frequent tag
 * in wink-lexicon is VBD, or, for a word its lexicon lacks, WordNet's verb exceptions hold it as
 * another verb's form.
 */
function pastTenseClause(clause: string): boolean {
  const word = FIRST_WORD.exec(clause)?.[1];
  if (word === undefined) return false;
  tags ??= require("wink-lexicon/src/lexicon.js") as Record<string, string[]>;
  const known = tags[word];
  if (known) return known[0] === "VBD";
  const lemma = verbExceptions().get(word);
  return lemma !== undefined && lemma !== word;
}

function undoDouble(stem: string): string {
  return /([bdfgmnprt])\1$/.test(stem) ? stem.slice(0, -1) : stem;
}

/**
 * The positive of a comparative or superlative ("older" → old, "latest" → late, "larger" →
 * large, "bigger" → big): WordNet's morphy rules for adjectives (-er, -est, keeping a final -e),
 * taken only when wink-lexicon tags the word as a comparative or superlative (JJR, JJS, RBR, RBS)
 * and the base as an adjective or adverb; WordNet's adjective exceptions first ("better" → good).
 */
let adjectiveForms: ReadonlyMap<string, string> | null = null;
function positiveOf(w: string): string | undefined {
  adjectiveForms ??= new Map(Object.entries(require("wink-lexicon/src/wn-adjective-exceptions.js") as Record<string, string>));
  const irregular = adjectiveForms.get(w);
  if (irregular !== undefined) return irregular;
  const suffix = /(?:er|est)$/.exec(w)?.[0];
  if (suffix === undefined || w.length - suffix.length < 2) return undefined;
  tags ??= require("wink-lexicon/src/lexicon.js") as Record<string, string[]>;
  if (!tags[w]?.some((t) => /^(?:JJ|RB)[RS]$/.test(t))) return undefined;
  const bare = w.slice(0, -suffix.length);
  return [bare, `${bare}e`, undoDouble(bare)].find((b) => tags![b]?.some((t) => t === "JJ" || t === "RB"));
}

/**
 * Light stemming: an irregular form is read as its lemma first (lemmaOf), a comparative as its positive (positiveOf), then possessive and plural endings (ies→y, sses→ss, (s|x|z|ch|sh)es→…, s), -ing /
 * -ed (with a doubled final consonant undone: shipping → ship), -able / -ible, then a final -e
 * (exchange, exchanged, exchanging → exchang).
 */
function stem(word: string): string {
  let w = word.replace(/'s$/, "").replace(/'/g, "");
  w = lemmaOf(w) ?? positiveOf(w) ?? w;
  if (w.length <= 3 || /^\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(x|z|ch|sh|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = undoDouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undoDouble(w.slice(0, -2));
  if (/(able|ible)$/.test(w) && w.length > 6) w = w.slice(0, -4);
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  return w;
}

// --- rewrites ---------------------------------------------------------------------------------

/** "Who pays customs?" asks whose cost it is ("Customs duties: Responsibility of the customer"). */
const WHO_PAYS = { asks: /\bwho\s+(?:pays?|covers?|is\s+responsible|has\s+to\s+pay|bears?)(?:\s+for)?\b/, means: " responsible cost " };

// --- vocabulary -------------------------------------------------------------------------------

/** Synonym groups: stems or words; a word ("appliance") is also read as its stem ("applianc"), since passages hold stems. */
const SYNONYMS: string[][] = [
  ["return", "refund", "exchang"],
  ["refund", "return", "money"],
  ["ship", "shipment", "delivery", "deliver", "postag", "dispatch"],
  ["delivery", "deliver", "ship", "shipment", "dispatch", "arriv"],
  ["deliver", "delivery", "ship", "shipment", "dispatch", "arriv"],
  ["warranty", "guarante", "defect", "defective"],
  ["guarante", "warranty"],
  ["pay", "payment", "paypal", "card", "invoice", "klarna"],
  ["payment", "pay", "paypal", "card", "invoice", "klarna"],
  ["exchang", "swap", "return"],
  ["cancel", "cancellation", "cancel"],
  ["abroad", "international", "country", "worldwide"],
  ["international", "abroad", "country", "worldwide"],
  ["cost", "price", "fee", "charge"],
  ["faulty", "fault", "defective", "defect", "warranty", "guarante"],
  ["broken", "damag", "defective", "defect"],
  ["damag", "broken", "defective", "defect"],
  ["privacy", "data", "personal"],
  ["data", "privacy", "personal"],
  ["take", "accept"],
  ["buy", "purchas", "bought"],
  ["send", "ship", "mail", "return", "submit", "provid", "includ"],
  ["expir", "valid"],
  ["valid", "expir"],
  ["charg", "fee", "cost"],
  ["fee", "charg", "cost"],
  ["packag", "box", "packaging"],
  ["phone", "cell"],
  ["cell", "phone"],
  ["fridg", "appliance", "refrigerator"],
  ["washer", "appliance"],
  ["dryer", "appliance"],
  ["member", "membership"],
  ["receiv", "deliver", "delivery", "arriv"],
  ["arriv", "receiv", "deliver", "delivery"],
  ["clock", "period", "begin"],
  ["start", "begin", "period"],
  ["secur", "encryption", "protect"],
  ["respons", "responsibility", "borne", "expens"],
  ["saturday", "weekend"],
  ["websit", "online", "internet"],
  ["web", "online", "internet"],
  ["sunday", "weekend"],
];

// --- the pack ---------------------------------------------------------------------------------

export const en: LanguagePack = {
  code: "en",
  name: "English",

  words: {
    stopWords: STOP_WORDS,
    stem,
    isKnownWord: isEnglishWord,
    derivedWords: (word) => derivedEnglishWords(lemmaOf(word) ?? word),
    namesGoods: namesEnglishGoods,
    namesOnlyPlace: namesOnlyEnglishPlace,
    warm: warmDictionary,
    abbreviations: ["a.m", "p.m", "e.g", "i.e", "etc", "approx", "incl", "vs", "no", "st", "mr", "mrs", "dr"],
  },

  numbers: {
    words: {
      one: 1,
      two: 2,
      three: 3,
      four: 4,
      five: 5,
      six: 6,
      seven: 7,
      eight: 8,
      nine: 9,
      ten: 10,
      eleven: 11,
      twelve: 12,
      fourteen: 14,
      fifteen: 15,
      twenty: 20,
      thirty: 30,
      forty: 40,
      fifty: 50,
      sixty: 60,
      ninety: 90,
      hundred: 100,
    },
    notStated: ["one"],
    durationUnits: /(?:business |working |calendar )?(?:days?|weeks?|months?|years?|hours?)/,
    unitDays: [
      [/^(business |working |calendar )?days?$/, 1],
      [/^weeks?$/, 7],
      [/^months?$/, 30],
      [/^years?$/, 365],
      [/^hours?$/, 1 / 24],
    ],
    rangeWords: /to/,
    currencyNames: { euro: "EUR", euros: "EUR", dollar: "USD", dollars: "USD", buck: "USD", bucks: "USD" },
    percentWords: ["percent"],
  },

  dates: {
    months: ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"],
    monthAbbreviations: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
    monthFirst: true,
    weekdays: ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
  },

  rewrites: {
    shorthand: [
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
      // "not a member", "not a <tier or programme> member": one qualifier word may stand before "member".
      [
        /\b(?:not\s+(?:a\s+)?(?:[a-z]+(?:-[a-z]+)?\s+)?member|no\s+membership|without\s+(?:a\s+)?membership|non\s+member)s?\b/g,
        " non-members ",
      ],
      [/\b(?:billed|billing)\b/g, " charged "],
      [/\bcash(?:ed|ing)?\s+(?:it\s+|them\s+)?out\b/g, " redeemable for cash "],
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
      // A particle verb with its object between ("send stuff back", "bring the lamp back"): the object stays.
      [/\b(?:ship|mail|post)(?:s|ed|ing)?\s+((?:\w+\s+){0,3})back\b/g, " return $1 "],
      [/\bget\s+((?:\w+\s+){0,3})back\b/g, " $1 refund "],
      [/\bpick(?:ed)?\s*up\b/g, " pickup "],
      [/\bthe\s+u\.?s\.?a?\b|\bu\.s\.a?\.?(?=\s|$)|\busa\b/g, " united states "],
    ],
    phrases: [
      [/\b(?:send|sends|sending|sent)\s+((?:\w+\s+){0,3})back\b/g, " return $1 "],
      [/\b(?:take|takes|taking|took|bring|brings|bringing|brought)\s+((?:\w+\s+){0,3})back\b/g, " return $1 "],
      [/\b(?:get\s+)?(?:my\s+)?money\s+back\b/g, " refund "],
      [/\bgift\s+cards?\b/g, " giftcard "],
      [/\b(?:the\s+)?u\.?k\.?(?=[\s?!,;:)]|$)/g, " united kingdom "],
      // Not having a document or the packaging is one thing however it is said ("I lost the receipt",
      // "Don't have a receipt?", "Returns without Receipt").
      [
        /\b(?:lost|misplaced|threw\s+away|thrown\s+away|don'?t\s+have|do\s+not\s+have|no\s+longer\s+have|without|no)\s+(?:the\s+|my\s+|a\s+|an\s+|any\s+|its\s+|their\s+)?(?:original\s+)?(receipts?|box|boxes|packaging|tags?|labels?|proof\s+of\s+purchase)\b/g,
        " without $1 ",
      ],
      [/\b(receipts?|box|packaging|tags?|labels?)\s+(?:is|are|was|were|got)\s+(?:lost|missing|gone|thrown\s+away)\b/g, " without $1 "],
      // A negated participle is the policies' un- adjective: "i haven't used it", "never opened" → unused, unopened.
      [
        /\b(?:haven'?t|have\s+not|hasn'?t|has\s+not|hadn'?t|never|not|havent|hasnt)\s+(?:been\s+|even\s+|yet\s+|ever\s+)?(?:(?:it|them)\s+)?(used|opened|worn|washed|assembled)\b/g,
        " un$1 ",
      ],
      // "Who pays customs?" asks whose cost it is ("Customs duties: Responsibility of the customer").
      [new RegExp(WHO_PAYS.asks.source, "g"), WHO_PAYS.means],
    ],
    yesIdioms: [[/\b(?:no|not\s+a)\s+problem\b/g, " sure "]],
    whoPays: WHO_PAYS,
    translations: {
      de: {
        rewrites: [
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
          [/\b(?:(?:tele)?phone\s+(?:number|line)|hotline|number\s+to\s+call)\b/g, " telefon "],
          [/\bclaims?\b/g, " anspruch "],
          [/\b(?:receipts?|proof\s+of\s+purchase)\b/g, " kassenbon "],
          [/\bcash\b/g, " bar "],
          [/\b(?:vat|sales\s+tax)\b/g, " mehrwertsteuer "],
        ],
        countries: false,
      },
    },
  },

  vocabulary: {
    synonyms: SYNONYMS.map((group) => [...new Set(group.flatMap((a) => (/^[a-z]+$/.test(a) ? [a, stem(a)] : [a])))]),
    topics: new Set(["return", "refund", "exchang", "ship", "shipping", "deliver", "delivery", "warranty", "cancel", "restock"]),
    goods: (
      "item items product products thing things stuff order purchase gift gifts tent tents laptop laptops computer computers tablet tablets phone phones " +
      "iphone ipad mac macbook tv tvs television camera cameras headphones earbuds speaker speakers watch watches console fridge refrigerator freezer washer " +
      "dryer dishwasher microwave oven appliance chair chairs sofa sofas couch table tables desk desks bed beds bookcase shelf lamp lamps rug " +
      "furniture bike bikes jacket jackets coat coats shoe shoes boot boots sneaker sneakers dress dresses shirt shirts jeans pants trousers sweater skirt " +
      "bag bags backpack hat scarf gloves socks printer printers rod reel knife knives kayak tent helmet"
    ).split(" "),
    countries: {
      DE: ["germany"],
      AT: ["austria"],
      CH: ["switzerland"],
      FR: ["france"],
      IT: ["italy"],
      ES: ["spain"],
      NL: ["netherlands"],
      BE: ["belgium"],
      DK: ["denmark"],
      FI: ["finland"],
      LU: ["luxembourg"],
      PL: ["poland"],
      CZ: ["czechia"],
      NO: ["norway"],
      SE: ["sweden"],
      IE: ["ireland"],
      CA: ["canada"],
      MX: ["mexico"],
      BR: ["brazil"],
      JP: ["japan"],
      CN: ["china"],
      IN: ["india"],
      AU: ["australia"],
      GB: ["united kingdom"],
      US: ["united states"],
    },
    countryWord: "country",
    // "Over the holidays?" asks about "received between November 15 and December 25".
    seasons: { holidays: { names: /holiday|christma|christmas/, months: ["november", "december"] } },
    orders: { words: /order/, number: /number|no\.?/, is: /is/ },
  },

  questions: {
    // "Can I still return it?", "is it too late?" ask whether the period is still open.
    duration:
      /\bhow\s+(?:long|fast|quick(?:ly)?|soon|old|many\s+(?:(?:working|business|calendar)\s+)?(?:days|weeks|months|years|hours))\b|\b(?:window|period|deadline|time\s*limit|time\s*frame|timeframe|days?\s+(?:do|have)|until\s+when|(?:know|tell\s+me|wondering|wonder|idea|sure|find\s+out|say)\s+when|whens|when(?!\s+(?:i|i'm|im|i've|ive|we|you|u|it|it's|its|they|he|she)\b)|(?:can|could|may)\s+i\s+still|too\s+late)\b/,
    durationWords: (
      "how long fast quick quickly soon many working business calendar days day weeks week months month years year hours window period " +
      "deadline time limit frame timeframe until when whens take takes"
    ).split(" "),
    // "do i have to pay …" is rewritten "pay responsible" (phrases above); "whats it cost", "will it cost me anything" ask too.
    money:
      /\bhow\s+much\b|\bwhat(?:\s+(?:does|do|is|are|will|would)|s|'s)\b.*\b(?:cost|costs|fee|fees|charge)\b|\b(?:pay|cost|charge)\s+(?:me\s+)?(?:anything|extra|more)\b|\bpay\s+responsible\b|\b(?:fee|fees|minimum|maximum|max|threshold)\b|\bthe\s+(?:most|least|smallest|lowest|highest|biggest|largest)\b(?!\s+(?:recent|popular|common)\b)|^(?:is|are|will|would)\b.*\bfree\b/,
    moneyWords: [
      "how",
      "much",
      "cost",
      "costs",
      "fee",
      "fees",
      "charge",
      "charges",
      "most",
      "least",
      "smallest",
      "lowest",
      "highest",
      "biggest",
      "largest",
      "max",
      "maximum",
      "amount",
    ],
    asksValue: /\bhow\s+(?:much|long|many\s+\w+)\b|\bwhat\s+(?:does|do|is|are|will)\b.*\bcost/,
    phone: /\b(?:(?:tele)?phone\s+(?:number|line)|what\s+number|which\s+number|number\s+(?:do\s+i|to)\s+call|hotline)\b/,
    list: /\b(?:which|what)\s+(?:(?:kinds?|types?|sorts?)\s+of\b|(?:\w+\s+)?\w+s\s+(?:do|does|are|can|will|you|u)\b)/,
    listWords: ["method", "methods", "option", "options", "way", "ways", "kind", "kinds", "type", "types", "sort", "sorts"],
    how: /\bhow\s+(?:do|can|should|would|to)\s+(?:i|we|you)?\s*(?!long|much|many)\w+|\bwhat\s+do\s+i\s+(?:need|have)\s+to\b|\bwhere\s+(?:do|can)\s+i\b/,
    howPassage:
      /in-store|in\s+store|by\s+mail|online|visit|bring|drop|print|log\s+in|sign\s+in|select|choose|contact|e-?mail|call|request|fill|pack|label|start|send|must\s+include|need|required|via/,
    start:
      /\bfrom\s+when\b|\bwhen\s+does\s+(?:the\s+|my\s+|it\s+)?(?:\w+\s+)?(?:start|begin)|\b(?:start|begin)s?\s+(?:counting|from)\b|\bcounted\s+from\b|\bclock\s+start/,
    startWords: "from when does do the my it start starts begin begins counting counted clock".split(" "),
    startPassage:
      /from\s+the\s+(?:day|date|time)|(?:begins?|starts?|beginning|starting)\s+(?:on|with|the\s+day|when)|(?:of|from|after)\s+(?:the\s+(?:date\s+of\s+)?)?(?:delivery|purchase|receipt)/,
    periodNouns: ["window", "period", "deadline"],
    contextClause: new RegExp(`^(?:${CONTEXT_OPENERS}\\s+)?(?:i|i'm|i've|i'd|im|ive|we|we've|my|our|it|it's|its|they)\\b`),
    askingClause:
      /^(?:(?:so|but|and|also|then|ok|okay)\s+)?(?:how|what|which|when|where|why|who|can|could|do|does|did|is|are|will|would|should|may|must|tell\s+me)\b|\b(?:can|could|may|do|will|should|must)\s+i\b/,
    narrativeClause: pastTenseClause,
    clauseMarks: [
      // "a washer I ordered online": a subject pronoun after a noun starts a relative clause.
      [
        /\b(?!(?:can|could|do|does|did|should|shall|will|would|may|might|must|am|have|has|had|if|when|and|but|or|so|because|since|that|as|where|how|what|why|which|who|until|unless|before|after|once|while)\b)(\p{L}{2,})\s+(i|we)\s+(?=\p{L})/gu,
        "$1, $2 ",
      ],
    ],
    timeReference:
      /(?:last|this|next|past)\s+(?:week|month|year|weekend|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|today|tonight|tomorrow|the\s+other\s+day|a\s+(?:few|couple\s+of)\s+(?:days|weeks|months)\s+ago|(?:in\s+the\s+)?(?:morning|afternoon|evening|night)/,
    ago: /(?:\d+|a|an|one|two|three|four|five|six)\s+(?:days?|weeks?|months?|years?)\s+ago/,
    without: /without/,
    // Also the contractions shoppers type without an apostrophe ("whats"), and a conditional that
    // opens the next part ("…, and if it's already been sent will I have to pay …").
    questionWord:
      /^(?:how|hows|what|whats|which|when|whens|where|wheres|why|who|whos|can|could|do|does|did|is|are|will|would|should|may|until|if)\b/,
    partJoiners: /and|also|plus/,
    pronouns: /it|that|this|they|them/,
    followUp: /and|also|what\s+about|how\s+about|what\s+if|and\s+if|if|but|or/,
    aboutThat: {
      connectives: /and|but/,
      verbs: /does|do|is|would|will|can|could/,
      demonstratives: /that|this/,
      doubts: /are\s+you\s+sure|really/,
    },
    pointsBack: /that|this/,
  },

  instructions: {
    // One alternative per kind of instruction.
    injection: new RegExp(
      [
        String.raw`\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+)?(?:previous|prior|above|earlier)?\s*(?:instructions?|rules?|prompts?|polic(?:y|ies))\b`,
        String.raw`\b(?:system|developer|admin)\s*(?:override|mode|prompt)\b`,
        String.raw`^\s*system\s*:`,
        String.raw`\byou\s+are\s+now\b`,
        String.raw`\byou\s+are\s+(?:a|an)\s+(?:\w+\s+){0,3}now\b`,
        // "… bitte act as …" too: a German shopper may write the English instruction.
        String.raw`(?:^\s*|[.!?;:,]\s*|\b(?:you|please|now|just|and|then|bitte)\s+)act\s+as\s+(?:if|an?|the|my|your)\b`,
        String.raw`\b(?:behave|talk|speak)\s+like\s+(?:an?|the)\b`,
        String.raw`\brole-?\s?play\b`,
        String.raw`\bimagine\s+(?:that\s+)?(?:there\s+(?:are|were|is)\s+no|you)\b`,
        String.raw`\bsystem\s+prompt\b`,
        String.raw`\bpretend\s+(?:to\s+be|you)\b`,
        String.raw`\bnew\s+(?:policy|instructions?|rules?)\s*:`,
        String.raw`<\/?\s*(?:policy|system|instructions?)\s*>`,
        String.raw`\b(?:print|reveal|show)\s+(?:your\s+|the\s+)?(?:hidden\s+|system\s+)?(?:instructions?|prompt|api\s+key)\b`,
        String.raw`\byou\s+(?:must|have\s+to|should|shall|will)\s+(?:always\s+|only\s+)?(?:answer|say|reply|respond|tell|confirm|state|write)\b`,
        String.raw`\[\/?\s*inst\s*\]`,
        String.raw`#{2,}\s*(?:new\s+instructions?|system)\b`,
      ].join("|"),
    ),
    asks: {
      connectives: /and|also|then|but|so/,
      softeners: /just|please|now|only/,
      starts: /how|what|which|when|where|why|whether|can|could|do|does|is|are|will|may/,
    },
    tellMe: /(?:tell|give|show)\s+me/,
    clauseJoiners: /and|then/,
    dictates: /\b(?:confirm|say|state|tell\s+\w+|agree|promise|write|answer)\s+(?:that|with|yes)\b/,
    frameWords: /long|many|days?|time|period|window/,
    claimForm: { start: /that/, verbs: /is|are|be|was|were|have|has|gets?|takes?/ },
    claimWords: /say|tell|confirm|state|answer|reply|respond|write|agree|promise|that|exist|now|always|mode|admin|system|developer/,
    shopperSubject: { openings: /so|but|and|well|ok|okay|hi|hey|hello|also/, subjects: /i|i'm|i've|i'd|im|ive|we|we've|my|our/ },
    claim:
      /you|your|now|new|from\s+now\s+on|management|manager|owner|admin|staff|official(?:ly)?|ceo|forget|ignore|disregard|pretend|act\s+as|respond|reply/,
  },

  router: {
    colors: {
      red: "red",
      blue: "blue",
      green: "green",
      black: "black",
      white: "white",
      yellow: "yellow",
      pink: "pink",
      purple: "purple",
      orange: "orange",
      brown: "brown",
      grey: "grey",
      gray: "grey",
      beige: "beige",
      navy: "navy",
      gold: "gold",
      silver: "silver",
      violet: "purple",
      turquoise: "turquoise",
      cream: "beige",
    },
    categories: [
      [/^(dress|dresses)$/, ["dress", "dresses"]],
      [/^(shirt|shirts|t-shirt|t-shirts|tshirt|tshirts|tee|tees)$/, ["shirt", "shirts"]],
      [/^(jeans)$/, ["jeans", "jeans"]],
      [/^(trousers|pants)$/, ["trousers", "pants"]],
      [/^(shoe|shoes)$/, ["shoe", "shoes"]],
      [/^(sneaker|sneakers|trainers)$/, ["sneaker", "sneakers"]],
      [/^(boot|boots)$/, ["boot", "boots"]],
      [/^(jacket|jackets)$/, ["jacket", "jackets"]],
      [/^(coat|coats)$/, ["coat", "coats"]],
      [/^(sweater|sweaters|jumper|jumpers|pullover|pullovers|hoodie|hoodies)$/, ["sweater", "sweaters"]],
      [/^(skirt|skirts)$/, ["skirt", "skirts"]],
      [/^(bag|bags|handbag|handbags)$/, ["bag", "bags"]],
      [/^(hat|hats|cap|caps)$/, ["hat", "hats"]],
      [/^(scarf|scarves)$/, ["scarf", "scarves"]],
      [/^(belt|belts)$/, ["belt", "belts"]],
      [/^(sock|socks)$/, ["sock", "socks"]],
      [/^(blouse|blouses)$/, ["blouse", "blouses"]],
      [/^(shorts)$/, ["shorts", "shorts"]],
    ],
    policyWords:
      /returns?|returning|returned|refunds?|refunded|exchanges?|exchanging|shipping|ship|ships|shipped|shipment|deliver(?:y|ies|ed)?|postage|dispatch(?:ed)?|warrant(?:y|ies)|guarantees?|payments?|pay|paying|paypal|credit\s+cards?|klarna|invoices?|privacy|personal\s+data|gdpr|cookies?|cancel(?:l?ation|l?ed|ling)?|withdraw(?:al|ing|n)?|terms|conditions|polic(?:y|ies)|gift\s*cards?|vouchers?|coupons?|discount\s+codes?|promo\s+codes?|price\s+match(?:ing)?|customs|duties|international(?:ly)?|abroad|countries|opening\s+hours/,
    policyExtras:
      /visa|mastercard|mc|amex|american\s+express|discover|afterpay|zip\s*pay|apple\s+pay|google\s+pay|shop\s+pay|discounts?|student|members?(?:hip)?|restocking|receipts?|fees?|expire[sd]?|price\s+(?:guarantee|adjustment|protection|drop)|rma|installation|installed|assembly|gpay/,
    request:
      /show\s+me|looking\s+for|look\s+for|search(?:ing)?\s+for|find\s+me|find|do\s+you\s+(?:guys\s+)?(?:have(?!\s+to\b)|sell|carry|stock)|have\s+you\s+got|(?:you\s+)?got\s+any|^any|^need\s+(?:a|an|some)|i(?:\s+(?:need|want|would\s+like)|'d\s+like)\s+(?:a|an|some|to\s+buy)|recommend|suggest|buy|shop\s+for|(?:are|is)\s+.+\s+(?:in\s+stock|available)/,
    requestStrip: {
      openings: /can\s+you\s+|could\s+you\s+|please\s+/,
      phrases:
        /show\s+me|i'?m\s+looking\s+for|i\s+am\s+looking\s+for|looking\s+for|look\s+for|search(?:ing)?\s+for|find\s+me|find|do\s+you\s+(?:guys\s+)?(?:have(?!\s+to\b)|sell|carry|stock|offer)|have\s+you\s+got|(?:you\s+)?got(?=\s+any)|^need(?=\s+(?:a|an|some)\b)|i(?:\s+(?:need|want|would\s+like)|'d\s+like)(?:\s+to\s+buy)?|recommend(?:\s+me)?|suggest|buy|shop\s+for/,
    },
    questionStart:
      /what|which|how|when|where|why|who|can|could|do|does|did|is|are|will|would|should|may|was|(?:from|until|till|by|to|with|for|at)\s+(?:when|what|which|whom|where)/,
    // "do", "have" and "has" are main verbs before an object too ("do it", "have it delivered"):
    // only a subject that cannot be an object follows them here.
    questionInversion:
      /(?:can|could|does|did|am|is|are|was|were|will|would|should|shall|may|might|must)\s+(?:i|you|u|we|they|it|he|she|there)|(?:do|have|has)\s+(?:i|you|u|we|they|he|she)/,
    personWish: {
      person:
        /human|real\s+person|person|agent|some\s*one|somebody|representative|rep|staff(?:\s+member)?|team\s+member|customer\s+(?:services?|support|care)|manager|employee/,
      contact: /talk|speak|chat|call|ring|phone|contact|e-?mail|get\s+(?:in\s+touch|back)|reach\s+out/,
    },
    cart: /\b(?:add|put|place|throw)\s+(.+?)\s+(?:to|in|into|onto)\s+(?:my\s+|the\s+|your\s+)?(?:shopping\s+)?(?:cart|basket|bag)\b/,
    determiners: ["the", "this", "that", "these", "those", "some"],
    articlesOfOne: ["a", "an"],
    quantityLinks: ["of"],
    quantityUnits: [
      ...["bag", "bags", "box", "boxes", "pack", "packs", "packet", "packets", "bottle", "bottles", "can", "cans", "tin", "tins"],
      ...["pair", "pairs", "piece", "pieces", "roll", "rolls", "tub", "tubs", "jar", "jars", "case", "cases", "bucket", "buckets"],
    ],
    quantityAfter: /^[\s,;:-]*(?:x\s*)?(\d{1,2}|[a-z]+)\s*(?:x|of\s+(?:them|those|these|it)|pieces?|pcs)?\s*(?:please|pls)?\s*[.!]*$/,
    referenceTails: ["please"],
    vagueReferences: /it|this|that|them|these|those|this one|that one|these ones|those ones|one|the one/,
    propertyReference: /^(?:the\s+|that\s+|this\s+)?\w+\s+one$/,
    bareReference: { openings: /and|what\s+about|how\s+about/, determiners: /the|this|that/, ones: /one|ones/ },
    courtesy: {
      greetings: ["help", "hi", "hello", "hey", "hiya", "howdy", "morning", "afternoon", "evening", "ok", "okay", "yes", "no"],
      thanks: ["thanks", "thank", "thx", "ty", "cheers", "bye", "goodbye"],
      phatic:
        /\bhow\s+(?:are|r)\s+(?:you|u|ya)(?:\s+(?:doing|going))?|\bhow(?:'s|\s+is)\s+(?:it\s+going|things|everything|(?:your|ur)\s+day(?:\s+going)?)|\bhow\s+(?:you|u)\s+doing|\bhope\s+(?:you(?:'re|\s+are)|ur|you\s+r)\s+(?:well|good|ok|having\s+a\s+good\s+day)/,
      fillers: [
        "good",
        "great",
        "cool",
        "perfect",
        "awesome",
        "nice",
        "lovely",
        "brilliant",
        "amazing",
        "fantastic",
        "wonderful",
        "ok",
        "okay",
        "so",
        "much",
        "lot",
        "lots",
        "heaps",
        "very",
        "really",
        "helped",
        "helps",
        "helpful",
        "needed",
        "all",
        "just",
        "browsing",
        "looking",
        "around",
        "now",
        "have",
        "day",
        "there",
        "you",
        "guys",
        "everyone",
        "folks",
        "again",
        "today",
        "appreciate",
        "appreciated",
        "everything",
        "got",
        "wanted",
        "see",
        "later",
        "team",
        "me",
        "please",
      ],
    },
    returnOwn:
      /i(?:\s+(?:want|would\s+like|wish)|'d\s+like)\s+to\s+(?:return|send\s+back|exchange)|i(?:\s+(?:want|would\s+like)|'d\s+like)\s+(?:a\s+)?(?:return|refund)\s+(?:for|of)\s+my|return\s+(?:my|order)\b|start\s+a\s+return|(?:make|initiate|open|create|begin)\s+a\s+return|send\s+back\s+my|send\s+my\s+\w+\s+back/,
    returnWord: /return|send\s+(?:\w+\s+){0,3}back|refund/,
    orderOwn:
      /where(?:'s|\s+is|\s+are)\s+my\s+(?:order|package|parcel|delivery|stuff|things|items)|my\s+(?:last\s+|recent\s+|latest\s+)?orders?\b|track(?:ing)?\s+(?:of\s+)?(?:my\s+)?(?:order|package|parcel)|(?:order|delivery)\s+status|status\s+of\s+(?:my\s+)?order|(?:has|have)\s+my\s+(?:order|package|parcel)|when\s+will\s+my\s+(?:order|package|parcel)|did\s+my\s+order/,
    orderStatus:
      /where(?:'s|\s+is|\s+are)\s+my|track(?:ing)?\b|(?:order|delivery)\s+status|status\s+of|(?:has|have)\s+my\s+(?:order|package|parcel)|when\s+will\s+my\s+(?:order|package|parcel)|did\s+my\s+order/,
    orderStatusOutright:
      /where(?:'s|\s+is|\s+are)\s+my|track(?:ing)?\b|(?:order|delivery)\s+status|status\s+of|(?:has|have)\s+my\s+(?:order|package|parcel)|did\s+my\s+order/,
    ownOrder: [/\bmy\s+(?:last\s+|recent\s+|latest\s+)?(?:orders?|package|parcel|delivery|stuff|things|items)\b/g, " it "],
    orderWords: ["order", "orders", "arrive", "come", "ship", "it"],
    conditionsClause:
      /(?:can|could|may)\s+i|do\s+you|(?:does|will|would)\s+(?:it|that|this)|how\s+(?:long|much|many)|what(?:'s|\s+is|\s+are)\s+(?:your|the)|is\s+there|are\s+there|do\s+i\s+(?:need|have)|is\s+(?:it|that|this)\s+(?:free|ok|okay|possible|allowed)|does\s+(?:it|that)\s+cost|will\s+i\s+(?:get|be\s+charged|have\s+to)/,
    clauseConjunctions: /but|and|so/,
    conditional:
      /if|when|can\s+i|could\s+i|do\s+i|does|do\s+you|will\s+i|would\s+i|is\s+there|are\s+there|is|are|how\s+(?:do|can|long|much|many)|until\s+when|what\s+if|what\s+do/,
    hypothetical: /what\s+if|if|in\s+case|suppose|supposing|assuming/,
    buyingClause: /(?:when|if|once|after|before|whenever)\s+(?:i|we|you)\s+(?:\w+\s+)?(?:buy|purchase|order|shop)/,
    personRequest: new RegExp(
      [
        String.raw`\b(?:talk|speak|chat)\s+(?:to|with)\s+(?:a\s+|an\s+|your\s+|the\s+|some\s+)?(?:real\s+|live\s+|actual\s+)?(?:person|human|people|agent|some\s*one|somebody|representative|rep|staff|team|customer\s+(?:service|support|care)|support|manager|employee)\b`,
        // "put me through to customer services", "connect me with an agent", "transfer me to someone"
        String.raw`\b(?:put|transfer|connect|pass|send)\s+me\s+(?:through\s+|over\s+|on\s+)?(?:to|with)\s+(?:a\s+|an\s+|your\s+|the\s+|some\s+)?(?:real\s+|live\s+|actual\s+)?(?:person|human|agent|some\s*one|somebody|representative|rep|staff|team|customer\s+(?:services?|support|care)|support|manager|employee)\b`,
        String.raw`\b(?:how|where)\s+(?:can|do|could|should)\s+i\s+(?:contact|reach|call|e-?mail|phone|get\s+(?:in\s+touch|hold)\s+(?:with|of))\b`,
        // The shopper stating (or asking leave for) the wish to reach the store: "I need to contact your
        // team", "can I call you". Not when the parcel is the subject ("how long does it take to reach
        // you") or the question asks what a policy requires ("do I need to contact you before returning":
        // an inverted question, "do/does/must/should I need to …").
        String.raw`(?<!\b(?:do|does|did|must|should|will)\s)\b(?:i|we)(?:\s+(?:want|need|have)\s+to|\s+would\s+like\s+to|['’]d\s+like\s+to|\s+wanna)\s+(?:contact|reach|call|e-?mail|phone)\s+(?:you|your\s+(?:team|store|shop|support|staff)|the\s+(?:store|shop|team|support))\b`,
        String.raw`\b(?:can|could|may)\s+(?:i|we)\s+(?:contact|call|e-?mail|phone)\s+(?:you|your\s+(?:support\s+)?(?:team|store|shop|support|staff)|the\s+(?:store|shop|team|support))\s*\??$`,
        String.raw`\b(?:your|the\s+store'?s|the\s+shop'?s)\s+(?:phone\s+number|telephone\s+number|e-?mail\s+address|contact\s+(?:details|info(?:rmation)?))\b`,
        String.raw`\b(?:customer\s+(?:service|support|care)|support)\s+(?:phone|number|e-?mail|contact)\b`,
        String.raw`^(?:a\s+)?(?:human|real\s+person|live\s+agent|agent|representative)(?:\s+please)?$`,
      ].join("|"),
    ),
    sizeWords: /size/,
    price: {
      between: /between/,
      and: /and/,
      max: /under|below|less\s+than|cheaper\s+than|up\s+to|max(?:imum)?|at\s+most|no\s+more\s+than/,
      min: /over|above|more\s+than|at\s+least|from|min(?:imum)?/,
      currencies: /euros?|eur|dollars?|usd/,
    },
    queryFillers: /please|any|some/,
    queryArticles: /a|an|the/,
    availability:
      /in\s+stock|available|availability|sold\s+out|how\s+much\s+(?:is|are|does|do)\s+(?:the|a|an)\b|price\s+of|do\s+you\s+have\s+the\b/,
    notModelNumbers: /days?|am|pm/,
  },
  facts: {
    namesByCapitals: true,
    startEvents: {
      delivery: /deliver|receiv|receipt|arriv/,
      purchase: /purchas|buy|bought/,
      shipment: /ship|dispatch/,
      rma: /rma|issuanc/,
      order: /order|placing/,
    },
    durationStart: { qualifiers: /calendar|business/, words: /of|from|after|since/ },
    scope: [
      "member",
      "members",
      "membership",
      "non-member",
      "nonmember",
      "holiday",
      "holidays",
      "christmas",
      "november",
      "december",
      "phone",
      "phones",
      "cellular",
      "tablet",
      "tablets",
      "wearable",
      "wearables",
      "appliance",
      "appliances",
      "electronics",
      "software",
      "used",
      "refurbished",
      "clearance",
      "online",
      "in-store",
      "mail",
      "custom",
      "personalized",
      "international",
      "express",
      "overnight",
    ],
    productClasses: [
      ...["phone", "phones", "cellular", "tablet", "tablets", "wearable", "wearables", "appliance", "appliances", "electronics"],
      ...["software", "used", "refurbished", "clearance", "custom", "personalized"],
    ],
    free: /free(?:\s+of\s+charge)?|no\s+charge|at\s+no\s+cost/,
    negation: /\b(?:not|no|never)|n't/,
    negationBridge:
      /be|been|longer|always|a|an|eligible|qualify|qualifies|qualified|include|includes|included|including|apply|applies|available|offered|provided|entitled|come|comes|for|with|as|to/,
    unless: /unless|except\s+(?:if|when|for)|excluding|other\s+than|apart\s+from/,
    including: /including|inclusive\s+of|as\s+well\s+as/,
    condition: /if|in\s+case|provided(?:\s+that)?/,
    lasts: /takes?|taking|took|allow/,
  },

  answers: {
    unitTerms: ["day", "days", "week", "month", "year", "hour", "business", "working", "calendar", "euro", "dollar", "percent"],
    listJoiners: /and|or/,
    threshold: {
      before: /over|above|more\s+than|at\s+least|minimum(?:\s+of)?|exceeding|from/,
      after: /or\s+(?:more|less|above|over)|and\s+(?:up|above|over)/,
    },
    deadline: /(?:through|thru|until|till|by|no\s+later\s+than|before)\s+(?:the\s+)?/,
    until: /until|through|by/,
    nextDay: /(?:next|following)\s+(?:business\s+|working\s+)?day/,
    announcesList: /following|these|any\s+of|one\s+of|either|includes?|including|as\s+follows/,
    refersBack: /this|these|that|those|it|they|such|in\s+(?:this|that|such\s+a)\s+case/,
    continues: /in\s+(?:this|that|such\s+a)\s+case/,
    qualifies: {
      start: /however|but|otherwise|except|unless|only|if|note|please\s+note|this\s+does\s+not|these\s+do\s+not/,
      anywhere:
        /except(?:ion)?s?|excluding|unless|not\s+(?:eligible|accepted|apply|applicable|covered|be\s+\w+ed)|are\s+excluded|is\s+excluded|final\s+sale/,
    },
    yesNoQuestion: /^(?:(?:and|so|but|also|ok|okay)\s+)?(?:can|could|may|do|does|did|is|are|will|would|should|must|have|has)\b/,
    negative:
      /\b(?:not|no|never|cannot|can't|won't|don't|doesn't|isn't|aren't|unable|non-refundable|nonrefundable|final\s+sale|excluded|ineligible)\b/,
    positive: /\b(?:can|may|must|required|accepted|we\s+accept|are\s+eligible|is\s+eligible|sure)\b/,
    conditioned: /if|unless|except|only|however|depend\w*|vary|varies|may\s+allow|can\s+allow/,
  },

  checks: {
    promises: [
      "guarantee",
      "guaranteed",
      "guarantees",
      "free",
      "always",
      "never",
      "refund",
      "refunds",
      "refunded",
      "lifetime",
      "unlimited",
      "forever",
      "promise",
      "promised",
      "instantly",
      "immediately",
      "anytime",
      "money back",
      "no questions asked",
      "any time",
      "100%",
    ],
    commitments: {
      ship: ["ship", "ships", "shipped", "shipping", "dispatch", "dispatches", "dispatched"],
      deliver: ["deliver", "delivers", "delivered", "delivery", "deliveries", "arrive", "arrives", "arrived", "arrival"],
      today: ["today"],
      tomorrow: ["tomorrow"],
      tonight: ["tonight"],
      overnight: ["overnight"],
      sameDay: ["same day", "same-day"],
      nextDay: ["next day", "next-day"],
      thisWeek: ["this week"],
      express: ["express"],
      rightAway: ["right away", "asap", "as soon as possible"],
      eligible: ["eligible", "eligibility", "ineligible", "qualify", "qualifies", "qualified"],
      covered: ["covered", "covers", "coverage"],
      exempt: ["exempt", "waived"],
    },
    actionClaims: [
      /\b(?:i|we)(?:'ve|\s+have|\s+just)?\s+(?:added|put|placed|ordered|started|initiated|opened|processed|issued|refunded|cancel+ed|booked)\b/i,
      /\b(?:has|have|was|were)\s+been\s+(?:added|placed|ordered|started|initiated|processed|refunded|cancel+ed)\b/i,
      /\badded\s+(?:\S+\s+){0,4}to\s+your\s+(?:cart|basket|bag)\b/i,
    ],
    stockPhrases: {
      outOfStock: /\b(?:out\s+of\s+stock|sold\s+out|not\s+in\s+stock|no\s+longer\s+in\s+stock)\b/,
      lowStock: /\blow\s+(?:on\s+)?stock\b|\bonly\s+(?:a\s+few|\w+)\s+left\b/,
      inStock: /\bin\s+stock\b/,
    },
  },
  replies: {
    yes: "Yes",
    no: "No",
    conflict: "The store's policies disagree on this point, so I can't give you a reliable answer:",
    noEvidence: "The store's published policies don't cover this question, so I can't answer it.",
    unansweredParts: (parts) => `The policies say nothing about this part of your question: ${parts.map((p) => `“${p}”`).join(", ")}.`,
    clarify: {
      help: "What can I help you with? You can ask about a product, your order, or the store's policies (returns, shipping, payment).",
      vagueProduct: "Which product do you mean? Please tell me its name or describe it.",
      cart: "Which product should I add to your cart? Please tell me its name.",
      welcome: "You're welcome! Is there anything else I can help you with?",
      phatic: "I'm doing well, thanks for asking! What can I help you with today?",
    },
    stock: { in_stock: "in stock", low_stock: "low stock", out_of_stock: "out of stock", unknown: "availability unknown" },
    priceUnavailable: "price not available right now",
    availabilityUnchecked: "availability not checked",
    unavailable: (dependency) =>
      `${dependency === "storefront" ? "The store's catalogue" : "The assistant's knowledge service"} can't be reached right now. Please try again in a moment.`,
    contact: {
      email: "e-mail",
      phone: "phone",
      sentence: (channels, hours) => `You can reach the store's team${channels.length > 0 ? ` by ${channels.join(", ")}` : ""}${hours}.`,
    },
    noContactForConflict: "The store's team needs to settle this; no support contact is configured for this store.",
    noContactForEvidence: "A person from the store's team needs to answer this; no support contact is configured for this store.",
    handingOver: "Of course — the store's team will take it from here.",
    noContactForPerson:
      "A person from the store's team can help with this, but no support contact is configured for this store here; the store's own website lists its ways to get in touch.",
    found: (query) => `Here is what I found for “${query}”:`,
    foundNamed: "Here is that product:",
    noProducts: (query) => `I couldn't find products matching “${query}” in this store's catalogue.`,
    cartNotFound: (ref) => `I couldn't find “${ref}” in this store's catalogue, so nothing was added to your cart.`,
    cartWhich: (titles) => `Which one would you like to add to your cart: ${titles.map((t) => `“${t}”`).join(", ")}?`,
    cartConfirm: (quantity, title) => `Add ${quantity} × **${title}** to your cart? Confirm to go ahead, or cancel.`,
    signIn: (kind) =>
      kind === "order"
        ? "I can only look up orders for signed-in customers. Please sign in to the store and ask again."
        : "Returns can only be started by signed-in customers. Please sign in to the store and ask again.",
    orderNotFound: (id) => `I couldn't find order ${id} among your orders.`,
    noOrders: "I couldn't find any orders for your account.",
    orders: (one) => (one ? "Here is your order:" : "Here are your most recent orders:"),
    whichOrder: "Which order would you like to return?",
    startReturn: (id) => `Start a return for order **${id}**? Confirm to go ahead, or cancel.`,
    orderLine: (id, status, date) => `- Order **${id}** — ${status} (placed ${date})`,
  },
};
