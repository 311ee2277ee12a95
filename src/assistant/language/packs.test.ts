// The language-pack interface (issue 36 item 8): everything language-specific lives in one pack
// per language behind one interface, so adding a language is adding one file. The first suite
// writes such a file's worth here — a toy Esperanto, a handful of words per member — registers it
// and shows that the engine reads, detects, routes, grounds and answers in it through the
// interface alone. The second checks that the built-in packs implement every member.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { T, chatLang } from "../answers/i18n.js";
import { contactLine } from "../answers/compose.js";
import { classifyText } from "../knowledge/classify.js";
import { noEvidenceMarkdown } from "../knowledge/compose.js";
import { ground } from "../knowledge/ground.js";
import { splitPassages } from "../knowledge/passages.js";
import { PassageIndex } from "../knowledge/retrieval.js";
import { analyze, quantities, sentences, textLang } from "../knowledge/text.js";
import { de } from "./de.js";
import { en } from "./en.js";
import { OTHER, langOf, languages, registerLanguage, type LanguagePack } from "./index.js";

const QUESTION_WORDS = /kiom|kiel|kiam|kie|ĉu|kio|kiu/;

/** A toy Esperanto: the whole of what the engine needs to know about a language. */
const eo: LanguagePack = {
  code: "eo",
  name: "Esperanto",
  words: {
    stopWords: new Set(
      "la mi vi li ŝi ni ili ĝi kaj aŭ sed de da en al por kun sen dum post ĉu kio kiu kiom kiel kiam kie estas havas povas mia via bonvolu".split(
        " ",
      ),
    ),
    // Endings of nouns, adjectives, adverbs and verbs (plural -j, accusative -n) come off.
    stem: (word) => word.replace(/(?:ojn|ajn|oj|aj|on|an|as|is|os|o|a|e|i)$/, ""),
    abbreviations: ["ktp"],
  },
  numbers: {
    words: { unu: 1, du: 2, tri: 3, dek: 10, dudek: 20, tridek: 30 },
    notStated: ["unu"],
    durationUnits: /tagoj?n?|semajnoj?n?/,
    unitDays: [
      [/^tagoj?n?$/, 1],
      [/^semajnoj?n?$/, 7],
    ],
    rangeWords: /ĝis/,
    currencyNames: {},
    percentWords: ["procentoj"],
  },
  dates: {
    months: ["januaro", "februaro", "marto", "aprilo", "majo", "junio", "julio", "aŭgusto", "septembro", "oktobro", "novembro", "decembro"],
    monthFirst: false,
    weekdays: ["lundo", "mardo", "merkredo", "ĵaŭdo", "vendredo", "sabato", "dimanĉo"],
  },
  rewrites: {
    shorthand: [],
    phrases: [],
    yesIdioms: [[/\bneniu\s+problemo\b/g, " povas "]],
    whoPays: { asks: /\bkiu\s+pagas\b/, means: " kosto " },
    translations: {},
  },
  vocabulary: {
    synonyms: [["resend", "redon"]],
    topics: new Set(["resend"]),
    goods: ["varo", "ŝuoj"],
    countries: {},
    countryWord: "lando",
    seasons: {},
    orders: { words: /mendo/, number: /numero/, is: /estas/ },
  },
  questions: {
    duration: /\bkiom\s+longe\b|\bkiom\s+da\s+tagoj\b/,
    durationWords: ["kiom", "longe", "tagoj"],
    money: /\bkiom\s+kostas\b/,
    moneyWords: ["kiom", "kostas"],
    asksValue: /\bkiom\b/,
    how: /\bkiel\s+mi\b/,
    howPassage: /retpoŝte/,
    start: /\bde\s+kiam\b/,
    startWords: ["de", "kiam"],
    startPassage: /de\s+la\s+livero/,
    periodNouns: ["limdato"],
    contextClause: /^(?:mi|ni)\b/,
    askingClause: new RegExp(`^(?:${QUESTION_WORDS.source})\\b`),
    clauseMarks: [],
    timeReference: /hieraŭ|hodiaŭ/,
    ago: /antaŭ\s+\d+\s+tagoj/,
    without: /sen/,
    questionWord: new RegExp(`^(?:${QUESTION_WORDS.source})\\b`),
    partJoiners: /kaj/,
    pronouns: /ĝi|tio/,
    followUp: /kaj|sed|kio\s+pri/,
    aboutThat: { connectives: /kaj|sed/, verbs: /ĉu/, demonstratives: /tio/, doubts: /ĉu\s+vi\s+certas|vere/ },
    pointsBack: /tio|tion/,
  },
  instructions: {
    injection: /\bignoru\s+(?:ĉiujn\s+)?(?:instrukciojn|regulojn)\b/,
    asks: { connectives: /kaj|sed/, softeners: /bonvolu/, starts: QUESTION_WORDS },
    tellMe: /diru\s+al\s+mi/,
    clauseJoiners: /kaj/,
    dictates: /\bkonfirmu\s+ke\b/,
    frameWords: /longe|tagoj/,
    claimForm: { start: /ke/, verbs: /estas|havas/ },
    claimWords: /diru|konfirmu|ke/,
    shopperSubject: { openings: /saluton/, subjects: /mi|ni|mia/ },
    claim: /nun|nova/,
  },
  router: {
    colors: { ruĝa: "red", blua: "blue" },
    categories: [[/^(ŝuo|ŝuoj|ŝuojn)$/, ["shoe", "shoes"]]],
    policyWords: /resend\w*|liver\w*|repag\w*/,
    policyExtras: /rabato/,
    request: /montru\s+al\s+mi|mi\s+serĉas/,
    requestStrip: { phrases: /montru\s+al\s+mi|mi\s+serĉas/ },
    questionStart: QUESTION_WORDS,
    cart: /\baldonu\s+(.+?)\s+al\s+(?:mia\s+)?ĉaro\b/,
    determiners: ["la"],
    articlesOfOne: [],
    quantityLinks: [],
    quantityUnits: ["sakoj"],
    quantityAfter: /^[\s,]*(\d{1,2})$/,
    referenceTails: ["bonvolu"],
    vagueReferences: /ĝi|tio|tiu/,
    bareReference: { openings: /kaj/, determiners: /la/, ones: /unu/ },
    courtesy: {
      greetings: ["saluton", "helpon"],
      thanks: ["dankon"],
      fillers: ["bonan", "tagon", "bonvolu"],
      phatic: /kiel\s+vi\s+fartas/,
    },
    returnOwn: /mi\s+volas\s+resendi/,
    returnWord: /resend\w*/,
    orderOwn: /mia\s+mendo/,
    orderStatus: /kie\s+estas\s+mia/,
    orderStatusOutright: /kie\s+estas\s+mia/,
    ownOrder: [/\bmia\s+mendo\b/g, " ĝi "],
    orderWords: ["mendo"],
    conditionsClause: /kiom\s+longe|ĉu\s+mi\s+povas/,
    clauseConjunctions: /sed|kaj/,
    conditional: /se|ĉu\s+mi\s+povas|kiom/,
    hypothetical: /se/,
    buyingClause: /kiam\s+mi\s+aĉetas/,
    personRequest: /paroli\s+kun\s+homo/,
    sizeWords: /grandeco/,
    price: { between: /inter/, and: /kaj/, max: /malpli\s+ol|sub/, min: /pli\s+ol|super/ },
    queryFillers: /bonvolu/,
    queryArticles: /la/,
    availability: /haveblas/,
    notModelNumbers: /tagoj?n?/,
  },
  facts: {
    startEvents: { delivery: /liver|ricev/ },
    durationStart: { words: /de|post/ },
    scope: ["membroj"],
    productClasses: [],
    free: /senpag[ae]/,
    negation: /\bne/,
    negationBridge: /estas|plu/,
    unless: /krom\s+se/,
    condition: /se/,
    lasts: /daŭras/,
  },
  answers: {
    unitTerms: ["tag", "semajn"],
    threshold: { before: /super|ekde/, after: /aŭ\s+pli/ },
    deadline: /ĝis\s+/,
    until: /ĝis/,
    nextDay: /la\s+sekva\s+tago/,
    announcesList: /jenaj/,
    refersBack: /tio|tiu/,
    continues: /en\s+tiu\s+kazo/,
    qualifies: { start: /tamen|krom/, anywhere: /escepte/ },
    yesNoQuestion: /^ĉu\b/,
    negative: /\bne\b/,
    positive: /\b(?:povas|rajtas|devas)\b/,
    conditioned: /se|krom|nur/,
  },
  checks: {
    promises: ["garantio", "senpage"],
    commitments: { ship: ["sendas"], today: ["hodiaŭ"] },
    actionClaims: [/\bmi\s+aldonis\b/i],
    stockPhrases: { outOfStock: /\belĉerpita\b/, lowStock: /\bnur\s+kelkaj\b/, inStock: /\bhavebla\b/ },
  },
  replies: {
    yes: "Jes",
    no: "Ne",
    conflict: "La reguloj de la butiko malkonsentas pri tio:",
    noEvidence: "La publikigitaj reguloj de la butiko ne respondas tiun demandon.",
    unansweredParts: (parts) => `La reguloj diras nenion pri: ${parts.join(", ")}.`,
    clarify: {
      help: "Kiel mi povas helpi?",
      vagueProduct: "Kiun produkton vi celas?",
      cart: "Kiun produkton mi aldonu al via ĉaro?",
      phatic: "Mi fartas bone, dankon! Kiel mi povas helpi?",
      welcome: "Ne dankinde!",
    },
    stock: { in_stock: "havebla", low_stock: "nur kelkaj", out_of_stock: "elĉerpita", unknown: "havebleco nekonata" },
    priceUnavailable: "prezo nun ne havebla",
    availabilityUnchecked: "havebleco ne kontrolita",
    unavailable: (dependency) => `${dependency === "storefront" ? "La katalogo" : "La scio-servo"} nun ne atingeblas.`,
    contact: {
      email: "retpoŝto",
      phone: "telefono",
      sentence: (channels, hours) => `Vi atingas la teamon per ${channels.join(", ")}${hours}.`,
    },
    noContactForConflict: "La teamo de la butiko devas decidi tion.",
    noContactForEvidence: "Homo de la butiko devas respondi tion.",
    handingOver: "La teamo de la butiko daŭrigos.",
    noContactForPerson: "Ĉi tiu butiko ne agordis kontakton.",
    found: (query) => `Jen kion mi trovis por «${query}»:`,
    foundNamed: "Jen tiu produkto:",
    noProducts: (query) => `Mi trovis neniujn produktojn por «${query}».`,
    cartNotFound: (ref) => `Mi ne trovis «${ref}».`,
    cartWhich: (titles) => `Kiun vi volas: ${titles.join(", ")}?`,
    cartConfirm: (quantity, title) => `Ĉu aldoni ${quantity} × **${title}** al via ĉaro?`,
    signIn: (kind) => (kind === "order" ? "Bonvolu ensaluti por vidi mendojn." : "Bonvolu ensaluti por resendi."),
    orderNotFound: (id) => `Mi ne trovis la mendon ${id}.`,
    noOrders: "Mi trovis neniujn mendojn.",
    orders: (one) => (one ? "Jen via mendo:" : "Jen viaj lastaj mendoj:"),
    whichOrder: "Kiun mendon vi volas resendi?",
    startReturn: (id) => `Ĉu komenci resendon por la mendo **${id}**?`,
    orderLine: (id, status, date) => `- Mendo **${id}** — ${status} (${date})`,
  },
};

describe("language packs: a language added in one file", () => {
  let unregister: () => void = () => {};
  before(() => {
    unregister = registerLanguage(eo);
  });
  after(() => unregister());

  test("the registry knows it: its locales, detection by its stop words, framing language", () => {
    assert.ok(languages().includes(eo));
    assert.equal(langOf("eo-EO"), "eo");
    assert.equal(chatLang("eo"), "eo");
    // An Esperanto question in an English thread is read in Esperanto (its stop words say so).
    assert.equal(textLang("Kiom longe mi povas resendi la varon?", "en"), "eo");
    // English and German are read as before.
    assert.equal(textLang("How long do I have to return it?", "de"), "en");
    assert.equal(textLang("Wie lange habe ich für die Rückgabe?", "en"), "de");
  });

  test("text is analysed with its stop words and stemmer, and its number and unit words are quantities", () => {
    assert.deepEqual(analyze("Kiom da tagoj mi havas por resendi la varojn?", "eo"), ["tag", "resend", "var"]);
    assert.deepEqual(
      quantities("Vi havas tridek tagojn aŭ du semajnojn.").map((q) => (q.kind === "duration" ? q.days : null)),
      [30, 14],
    );
    assert.deepEqual(sentences("Resendu la varojn ktp. Poste ni repagas."), ["Resendu la varojn ktp. Poste ni repagas."]);
  });

  test("the router reads its words and asks back in it", () => {
    assert.deepEqual(classifyText("saluton", "eo"), { kind: "ambiguous", question: "Kiel mi povas helpi?" });
    assert.equal(classifyText("Kiom longe mi povas resendi varon?", "eo").kind, "policy");
    assert.deepEqual(classifyText("aldonu du ŝuojn al mia ĉaro", "eo"), {
      kind: "action",
      name: "add_to_cart",
      product_ref: "ŝuojn",
      quantity: 2,
    });
  });

  test("a policy in the language answers a question in it, led by the value asked for", async () => {
    const index = new PassageIndex(
      splitPassages({
        concept_id: "resendoj",
        version: 1,
        handle: "resendoj",
        title: "Resendoj",
        locale: "eo",
        body_markdown: "# Resendoj\n\nVi povas resendi varojn dum 30 tagoj post la livero.",
      }),
    );
    const answer = await ground(index, "Kiom longe mi povas resendi varon?", "eo");
    assert.equal(answer.kind, "answer");
    assert.equal(answer.kind === "answer" && answer.direct, "30 tagoj");
    assert.deepEqual(answer.kind === "answer" ? answer.citations.map((c) => c.concept_id) : [], ["resendoj"]);
    const none = await ground(index, "Kiom kostas la sendado al Marso?", "eo");
    assert.deepEqual(none, { kind: "no_evidence", markdown: eo.replies.noEvidence });
  });

  test("replies are framed in it", () => {
    assert.equal(noEvidenceMarkdown("eo"), eo.replies.noEvidence);
    assert.equal(T("eo").found("ruĝaj ŝuoj"), "Jen kion mi trovis por «ruĝaj ŝuoj»:");
    assert.equal(T("eo").stock.low_stock, "nur kelkaj");
    assert.equal(
      contactLine({ email: "helpo@example.org", hours: "9–17" }, "eo"),
      "Vi atingas la teamon per retpoŝto helpo@example.org (9–17).",
    );
  });

  test("once removed, the language is one without a pack again (framed in the default language)", () => {
    const again = registerLanguage({ ...eo });
    again();
    unregister();
    assert.equal(langOf("eo"), OTHER);
    assert.equal(chatLang("eo"), "en");
    assert.deepEqual(analyze("Kiom da tagoj", "eo"), ["kiom", "da", "tagoj"]);
    unregister = registerLanguage(eo);
  });
});

describe("language packs: the built-in packs implement every member", () => {
  /** Members a pack may leave out (./types.ts marks them optional). */
  const OPTIONAL = new Set([
    "words.stopWordForm",
    "questions.narrativeClause",
    "words.isKnownWord",
    "words.namesGoods",
    "words.namesOnlyPlace",
    "words.derivedWords",
    "words.warm",
    "words.compounds",
    "numbers.wholeAmount",
    "dates.monthAbbreviations",
    "rewrites.joinVerbParts",
    "router.adjectiveEnding",
    "router.propertyReference",
    "router.questionInversion",
    "router.personWish",
    "facts.including",
    "router.requestStrip.openings",
    "router.price.currencies",
    "facts.durationStart.qualifiers",
    "answers.threshold.valueBefore",
  ]);
  /** Members that are tables keyed by the language's own words (their keys are data, not members). */
  const TABLES = new Set([
    "numbers.words",
    "numbers.currencyNames",
    "vocabulary.countries",
    "vocabulary.seasons",
    "rewrites.translations",
    "router.colors",
    "facts.startEvents",
    "checks.commitments",
  ]);
  /** The members of a pack, by key path, down to their values (a pattern, a list, a table, a function, a string …). */
  const members = (value: unknown, at = ""): Array<[string, unknown]> =>
    value !== null &&
    typeof value === "object" &&
    !(value instanceof RegExp || value instanceof Set || Array.isArray(value)) &&
    !TABLES.has(at)
      ? Object.entries(value).flatMap(([k, v]) => members(v, at ? `${at}.${k}` : k))
      : [[at, value]];
  /** What may be empty in a built-in pack: German has no relative-clause marks, articles of one, quantity links or currency names of its own. */
  const MAY_BE_EMPTY = new Set(["questions.clauseMarks", "router.articlesOfOne", "router.quantityLinks", "numbers.currencyNames"]);

  test("English and German have the same members, apart from the optional ones", () => {
    const enPaths = new Set(members(en).map(([p]) => p));
    const dePaths = new Set(members(de).map(([p]) => p));
    for (const p of [...enPaths, ...dePaths]) {
      if (enPaths.has(p) && dePaths.has(p)) continue;
      assert.ok(
        OPTIONAL.has(p) || [...OPTIONAL].some((o) => p.startsWith(`${o}.`)),
        `${p} is missing from ${enPaths.has(p) ? "de" : "en"}`,
      );
    }
  });

  for (const pack of [en, de]) {
    test(`${pack.code}: every member holds something, and no pattern matches the empty text`, () => {
      for (const [path, value] of members(pack)) {
        if (value instanceof RegExp) assert.ok(!value.test(""), `${pack.code}.${path} matches the empty text`);
        const size =
          value instanceof Set
            ? value.size
            : Array.isArray(value) || typeof value === "string"
              ? value.length
              : value !== null && typeof value === "object" && !(value instanceof RegExp)
                ? Object.keys(value).length
                : 1;
        assert.ok(size > 0 || MAY_BE_EMPTY.has(path), `${pack.code}.${path} is empty`);
      }
      const r = pack.replies;
      for (const text of [
        r.unansweredParts(["x"]),
        r.unavailable("storefront"),
        r.unavailable("knowledge"),
        r.contact.sentence(["e-mail a@b"], " (9–17)"),
        r.found("q"),
        r.noProducts("q"),
        r.cartNotFound("r"),
        r.cartWhich(["a", "b"]),
        r.cartConfirm(2, "t"),
        r.signIn("order"),
        r.signIn("return"),
        r.orderNotFound("1"),
        r.orders(true),
        r.orders(false),
        r.startReturn("1"),
        r.orderLine("1", "s", "d"),
      ])
        assert.ok(text.trim().length > 0);
    });
  }
});

describe("the built-in packs' stemmers", () => {
  test("English reads an irregular form as its WordNet lemma (verb.exc, noun.exc), then stems it as the lemma", () => {
    const s = (w: string) => en.words.stem(w);
    assert.equal(s("came"), s("come"));
    assert.equal(s("wore"), s("wear"));
    assert.equal(s("worn"), s("wear"));
    assert.equal(s("bought"), s("buy"));
    assert.equal(s("children"), s("child"));
    assert.equal(s("broken"), s("break"));
    // A comparative or superlative is read as its positive (WordNet's morphy rules where the lexicon tags it so).
    assert.equal(s("older"), s("old"));
    assert.equal(s("larger"), s("large"));
    assert.equal(s("bigger"), s("big"));
    assert.equal(s("better"), s("good"));
    // Words that only end like one keep their form.
    for (const w of ["order", "number", "paper", "customer", "never"]) assert.equal(s(w), w);
    // A regular form keeps the suffix rules.
    assert.equal(s("shipping"), "ship");
    assert.equal(s("returns"), s("return"));
  });
});

describe("the built-in packs' stop words", () => {
  test("English pronouns of every person and case are stop words: a shopper's 'gave him' is no evidence to look for", () => {
    for (const w of ["him", "his", "her", "hers", "himself", "herself", "myself", "themselves", "because", "while"])
      assert.ok(en.words.stopWords.has(w), w);
    // Content verbs stay content: "which cards do you take", "another gift card".
    for (const w of ["take", "another", "never"]) assert.ok(!en.words.stopWords.has(w), w);
  });

  test("German modal particles are stop words: 'kann ich das auch einfach in der Filiale abgeben' asks nothing of 'einfach'", () => {
    for (const w of ["eigentlich", "einfach", "halt", "eben", "übrigens", "überhaupt"]) assert.ok(de.words.stopWords.has(w), w);
    // Spoken articles are function words too; "geht" stays content ("mein gutscheincode geht nicht").
    for (const w of ["nen", "ner", "nem"]) assert.ok(de.words.stopWords.has(w), w);
    assert.ok(!de.words.stopWords.has("geht"));
  });
});
