// The language pack: everything the assistant knows about one language, behind one interface.
// One file per language (./en.ts, ./de.ts) implements it; ./index.ts registers the packs and maps a
// language code to its pack. The engine (src/assistant/knowledge/, answers/, turns/, agent/) never
// names a language: it asks the pack of the thread's (or the text's) language, or — where a text
// is read whatever its language (a German word in an English thread) — every registered pack.
//
// Conventions:
// - Every text a pack sees is normalised first (knowledge/text.ts `normalize`: lower case, NFC,
//   typographic quotes and dashes made plain), unless a member says otherwise.
// - A member typed `RegExp` that the comment calls an *alternation* is a list of alternatives
//   ("under|below|less\s+than"): the engine wraps it in the rest of its pattern and joins the
//   alternations of all packs (in registry order), so only its `source` counts (flags are ignored;
//   the engine's pattern sets them). A member called a *pattern* is used as it is.
// - Word lists hold words as written (lower case); *stems* are the output of the pack's `stem`.
// - A `Rewrite` replaces its pattern (global) in a normalised text; the replacement may use $1 ….

/** A text rewrite: [pattern (global), replacement]. */
export type Rewrite = readonly [RegExp, string];

/** The event a period is counted from ("within 30 days of delivery" → delivery). */
export type StartEvent = "delivery" | "purchase" | "shipment" | "rma" | "order";

export interface LanguagePack {
  /** The primary language subtag of the locales this pack reads ("de" reads "de", "de-AT", "de_CH"). */
  readonly code: string;
  /** The language's English name, as a model is told to answer in it ("German"). */
  readonly name: string;

  /** Words and their forms: what analysis (tokens → content terms) needs. */
  readonly words: {
    /**
     * Function words and words that carry no subject in a shop question ("policy", "please"). They
     * are also the cues of language detection: a text with at least two more stop words of one
     * language than of any other is read in that language.
     */
    readonly stopWords: ReadonlySet<string>;
    /** Another spelling a word is also looked up by among the stop words (de: umlauts written plain, "für" → "fur"). */
    readonly stopWordForm?: (word: string) => string;
    /** The stem of a lower-case word (rules, no dictionary): the forms a shopper and a policy use meet in one term. */
    readonly stem: (word: string) => string;
    /**
     * Whether a word is a word of the language (a dictionary). Typo correction leaves known words
     * alone ("lost" is not corrected to "last"); a language without a dictionary is not
     * spelling-corrected at all (nothing tells its typos from rare words).
     */
    readonly isKnownWord?: (word: string) => boolean;
    /**
     * Whether a word names goods (a thing one buys: "bowl", "salad", "Jacke"). A question's word the
     * policies never use that names goods is the object the policy question is about, not its
     * subject (retrieval.ts weigh). Absent: only the vocabulary's goods list says so.
     */
    readonly namesGoods?: (word: string) => boolean;
    /**
     * Whether a name means nothing but a place ("singapore", but not "jersey" — also a garment —
     * or "guinea"): the region names of the Unicode CLDR (Intl.DisplayNames) that this says are
     * places only are read as countries beside vocabulary.countries (lexicon.ts countryNames).
     * Absent in the default language: only vocabulary.countries are.
     */
    readonly namesOnlyPlace?: (name: string) => boolean;
    /**
     * Words derived from a lower-case word's root ("expire" → "expiration", "expiratory"; a dictionary's
     * derivations): a question's word also matches the forms among them that extend its stem
     * (retrieval.ts), weighed as a synonym. Absent: a word matches its own stem and synonyms only.
     */
    readonly derivedWords?: (word: string) => readonly string[];
    /** Loads isKnownWord's word list in the background; called when the engine is created. */
    readonly warm?: () => Promise<void>;
    /**
     * Compound nouns written as one word (de: "Versandkosten"): a question's word also matches a
     * policy term it starts or ends ("versand" → "versandkosten", "standardversand"), and a
     * compound the policies never use is read as its parts ("Versandkosten" → versand + kosten).
     */
    readonly compounds?: {
      /** Alternation: heads that name no subject of their own ("regelung", "frist"): "Rückgaberegelung" asks about "Rückgabe". */
      readonly genericHeads: RegExp;
      /** Alternation: endings of one or two letters a stem may still carry (such a remainder is no compound part). */
      readonly inflection: RegExp;
      /** Alternation: linking elements at the end of a compound's first part ("s" of "Rücktrittsfrist"). */
      readonly linking: RegExp;
      /** Function words (a kept stop-word list): never a compound part ("weiter" of "weiterschenken" is not "weitere"). */
      readonly functionWords?: readonly string[];
    };
    /** Abbreviations that end in a period without ending a sentence ("e.g", "z.b"; the final period left out). */
    readonly abbreviations: readonly string[];
  };

  /** Numbers, units and amounts as the language writes them. */
  readonly numbers: {
    /** Numbers written as words ("two" → 2, "zwei" → 2). */
    readonly words: Readonly<Record<string, number>>;
    /** Number words that mostly are an article or a pronoun ("one", "ein"): not read as a stated number by the LLM checks. */
    readonly notStated: readonly string[];
    /** Alternation: the unit of a duration after its number ("business days", "Werktagen", "weeks"). */
    readonly durationUnits: RegExp;
    /** How many days a unit matched by durationUnits is: [pattern of the whole unit, days]. */
    readonly unitDays: ReadonlyArray<readonly [RegExp, number]>;
    /** Alternation: the word between the two numbers of a range ("14 to 30 days"; "-" is the engine's). */
    readonly rangeWords: RegExp;
    /** Currency names written after an amount → ISO code ("euros" → EUR); signs and codes are the engine's. */
    readonly currencyNames: Readonly<Record<string, string>>;
    /** Words for per cent after a number ("percent"). */
    readonly percentWords: readonly string[];
    /** Pattern: a whole amount written with a dash for the cents ("50,- €"): capture 1 the last digit, capture 2 the dashes (read as blanks). */
    readonly wholeAmount?: RegExp;
  };

  /** Calendar words. */
  readonly dates: {
    /** The twelve month names, January first. */
    readonly months: readonly string[];
    /** Abbreviated month names, January first (read in the month-first form only). */
    readonly monthAbbreviations?: readonly string[];
    /** Whether dates are also written month first ("January 14, 2020"); every language is read day first ("14 January", "7. Januar"). */
    readonly monthFirst: boolean;
    /** The seven day names, Monday first (a plural "s" is read too). */
    readonly weekdays: readonly string[];
  };

  /**
   * Rewrites of a question or passage before analysis, in this order: joinVerbParts, shorthand,
   * phrases (knowledge/retrieval.ts rewrite).
   */
  readonly rewrites: {
    /** Verbs whose parts stand apart joined into one word (de: "zurückzuschicken" → "zurückschicken"; "Wann kommt das Paket an?" adds "ankommt"). */
    readonly joinVerbParts?: (text: string) => string;
    /** Text-speak and abbreviations ("u" → you, "amex" → american express, "w/" → with). */
    readonly shorthand: readonly Rewrite[];
    /** Multi-word expressions onto the words policies use ("send it back" → return, "who pays" → responsible cost). */
    readonly phrases: readonly Rewrite[];
    /** Idioms that say yes ("no problem" → sure): read as a plain permission by the yes/no lead. */
    readonly yesIdioms: readonly Rewrite[];
    /** "Who pays …?" asks whose cost it is, not an amount: how it is asked (pattern) and the policy words it means (phrases rewrite it to them). */
    readonly whoPays: { readonly asks: RegExp; readonly means: string };
    /**
     * Word-level translation of the commerce vocabulary into the policy words of another language
     * (by its code), for a question asked against policies in that language. `countries`: country
     * names are translated too (after the rewrites) into the target's name of the same country.
     * The words a table knows are also the vocabulary a misspelt question word is corrected
     * against (with a dictionary: words.isKnownWord).
     */
    readonly translations: Readonly<Partial<Record<string, { readonly rewrites: readonly Rewrite[]; readonly countries: boolean }>>>;
  };

  /** What words of the shop's world mean. */
  readonly vocabulary: {
    /** Synonym groups of stems (or words): a question's stem that leads a group also matches the others (weighed less). */
    readonly synonyms: readonly (readonly string[])[];
    /** Stems of policy topics done to an item (return, refund, ship …): with one in the question, an item the policies never name is the question's object. */
    readonly topics: ReadonlySet<string>;
    /** Common goods ("tent", "Jacke"): with a policy topic in the question, such an item the policies never name weighs little. */
    readonly goods: readonly string[];
    /** Country names by ISO 3166 code (the same order in every pack). */
    readonly countries: Readonly<Record<string, readonly string[]>>;
    /** The word this language's policies say a country with ("country", "Land"): a question naming a country also asks about it. */
    readonly countryWord: string;
    /**
     * Seasons by a key shared across languages ("holidays"): names — alternation of the stems that
     * name it (matched at a stem's start) — and the months (words or stems) policies name it by.
     * A season named in any language means the months of every language.
     */
    readonly seasons: Readonly<Record<string, { readonly names: RegExp; readonly months: readonly string[] }>>;
    /** Words of an order reference ("order #1234", "Bestellung Nr. 4711"). */
    readonly orders: {
      /** Alternation: the noun ("order"). */
      readonly words: RegExp;
      /** Alternation: "number" and its abbreviations. */
      readonly number: RegExp;
      /** Alternation: the verb of "my order number is …". */
      readonly is: RegExp;
    };
  };

  /** What a question asks, as retrieval reads it (knowledge/retrieval.ts queryGroups). */
  readonly questions: {
    /** Pattern: the question asks for a duration ("how long", "window", "bis wann"). */
    readonly duration: RegExp;
    /** Words of a duration question's frame, not its subject ("how", "long", "days"). */
    readonly durationWords: readonly string[];
    /** Pattern: the question asks for an amount ("how much", "fee", "was kostet"). */
    readonly money: RegExp;
    /** Words of an amount question's frame ("much", "cost"). */
    readonly moneyWords: readonly string[];
    /** Pattern: the question asks for the value outright ("how much", "wie lange"): evidence must state it. */
    readonly asksValue: RegExp;
    /** Pattern: the question asks for a phone number ("what number do I call", "Telefonnummer"): a sentence giving one answers it. */
    readonly phone?: RegExp;
    /** Pattern: the question asks which ones ("which credit cards", "welche Zahlungsarten"): a sentence enumerating them answers it. */
    readonly list?: RegExp;
    /** Words of a list question's frame, not its subject ("what payment *methods*", "welche *Möglichkeiten*"). */
    readonly listWords?: readonly string[];
    /** Pattern: the question asks for a procedure ("how do I …", "wie kann …"). */
    readonly how: RegExp;
    /** Alternation: a passage names a channel or a step ("in store", "by mail", "Etikett"): it answers a procedure question. */
    readonly howPassage: RegExp;
    /** Pattern: the question asks from when a period counts ("from when", "ab wann"). */
    readonly start: RegExp;
    /** The words of a start question's frame (dropped from its words). */
    readonly startWords: readonly string[];
    /** Alternation: a passage names the event a period starts with ("from the date of delivery", "ab Erhalt"). */
    readonly startPassage: RegExp;
    /** Nouns of the period itself ("window", "Frist"): with a start question they name the subject. */
    readonly periodNouns: readonly string[];
    /** Pattern: a clause that states the shopper's circumstances ("I ordered online", "ich habe …"). */
    readonly contextClause: RegExp;
    /** Pattern: a clause that asks ("how …", "can I …", "kann ich …"). */
    readonly askingClause: RegExp;
    /**
     * Whether a clause (normalised text) states circumstances with its subject left out, as casual
     * writing does ("got one last week", "wore them once"); absent: only contextClause makes one.
     */
    readonly narrativeClause?: (clause: string) => boolean;
    /** Rewrites that mark where a clause starts inside a sentence (en: "a washer I ordered" → "a washer, I ordered"). */
    readonly clauseMarks: readonly Rewrite[];
    /** Alternation: when the shopper did something ("last month", "gestern"): a circumstance, not the subject. */
    readonly timeReference: RegExp;
    /** Alternation: a duration that dates the shopper's purchase ("3 weeks ago", "vor 2 Monaten"). */
    readonly ago: RegExp;
    /** Alternation: the word phrases rewrite not having something to ("without", "ohne"): the condition the question hinges on. */
    readonly without: RegExp;

    // Multi-part questions and follow-ups (knowledge/parts.ts):
    /** Pattern (at the start): a question word that starts a part ("how", "can", "wie", "kann"). */
    readonly questionWord: RegExp;
    /** Alternation: what joins two parts before a question word ("…, and how much …", "und"). */
    readonly partJoiners: RegExp;
    /** Alternation: a pronoun a part or a follow-up asks about ("it", "das"): it borrows the subject before it. */
    readonly pronouns: RegExp;
    /** Alternation (at the start): an elliptical turn's opening ("and for …?", "what about …", "und wenn …"). */
    readonly followUp: RegExp;
    /**
     * A question about the previous one's subject ("Does that include …?", "Gilt das auch für …?")
     * or doubt of the previous answer ("are you sure?"): alternations of its leading connective,
     * its verb, the demonstrative after the verb, and the doubts.
     */
    readonly aboutThat: { readonly connectives: RegExp; readonly verbs: RegExp; readonly demonstratives: RegExp; readonly doubts: RegExp };
    /** Alternation: words that point back at the previous question's subject ("that", "dafür"): a follow-up's borrowed words name it. */
    readonly pointsBack: RegExp;
  };

  /**
   * Instructions addressed to the assistant inside a shopper's text (knowledge/sanitize.ts): what
   * they look like, so that they are removed before retrieval.
   */
  readonly instructions: {
    /** Alternation: an instruction to the assistant ("ignore all previous instructions", "vergiss deine Regeln", "you are now …"). */
    readonly injection: RegExp;
    /** Alternations of a clause that asks the store something: its leading connective, a softener ("just", "bitte"), its question word. */
    readonly asks: { readonly connectives: RegExp; readonly softeners: RegExp; readonly starts: RegExp };
    /** Alternation: "tell me" (after a softener): dropped before the question it introduces; it also starts an asking clause. */
    readonly tellMe: RegExp;
    /** Alternation: conjunctions a sentence carrying an instruction is split at ("and", "dann"). */
    readonly clauseJoiners: RegExp;
    /** Alternation: what the instruction wants said ("confirm that …", "sag dass …"): never kept as a question. */
    readonly dictates: RegExp;
    /** Alternation: words that frame what is asked, not its subject ("long", "days", "Frist"). */
    readonly frameWords: RegExp;
    /** Alternations of a clause that states something ("returns are 90 days"), not an order: its opening ("that") and its verbs ("is", "beträgt"). */
    readonly claimForm: { readonly start: RegExp; readonly verbs: RegExp };
    /** Alternation: words of the instruction itself, not of its subject ("say", "confirm", "jetzt"). */
    readonly claimWords: RegExp;
    /** Alternations of a sentence that speaks as the shopper: an opening ("so", "hallo") and the subject ("I", "my", "ich"). */
    readonly shopperSubject: { readonly openings: RegExp; readonly subjects: RegExp };
    /** Alternation: words of a claim or order addressed to the assistant ("New rule from management", "ab sofort"). */
    readonly claim: RegExp;
  };

  /**
   * The router's vocabulary (knowledge/classify.ts): what a shopper's text asks for. Every pack's
   * words are read in any thread (shoppers switch language); only clarification questions are in
   * the thread's language.
   */
  readonly router: {
    /** Colour words → the catalogue's colour names ("rot" → red). */
    readonly colors: Readonly<Record<string, string>>;
    /** Pattern: an inflected adjective, its capture 1 the colour word ("blaue" → blau). */
    readonly adjectiveEnding?: RegExp;
    /** Product-type nouns: [pattern of a word, [singular, plural] of the catalogue's category]. */
    readonly categories: ReadonlyArray<readonly [RegExp, readonly [string, string]]>;
    /** Alternation: policy topics ("returns", "Versand", "gift cards"). */
    readonly policyWords: RegExp;
    /** Alternation: policy topics beyond those: card brands, discounts, membership, fees. */
    readonly policyExtras: RegExp;
    /** Alternation: a product request ("show me", "do you have", "ich suche"). */
    readonly request: RegExp;
    /** The request words cut from a product query: alternations of a polite opening ("can you") and of the request ("show me", "ich suche nach"). */
    readonly requestStrip: { readonly openings?: RegExp; readonly phrases: RegExp };
    /** Alternation (at the start): a question's opening word ("what", "kann"). */
    readonly questionStart: RegExp;
    /**
     * Alternation: an auxiliary before its subject pronoun, anywhere in the text ("… goes on sale a
     * week later can i get the difference back", "am i allowed"): subject–auxiliary inversion marks
     * a question clause in a language whose statements keep the subject first. Absent in a language
     * that inverts in statements too (German: "dann kann ich …").
     */
    readonly questionInversion?: RegExp;
    /**
     * A wish to reach a person in a statement, whatever words stand between (rule 1b beside
     * personRequest's set phrases): alternations of a person the store employs ("a human", "someone
     * from customer service", "jemandem vom Kundendienst") and of reaching them ("call", "talk",
     * "sprechen"), at most PERSON_WISH_GAP words apart in either order ("pls get a human to call me",
     * "ich möchte bitte mit jemandem vom Kundendienst persönlich sprechen").
     */
    readonly personWish?: { readonly person: RegExp; readonly contact: RegExp };
    /** Pattern: "add <product> to my cart" (capture 1: the product reference). */
    readonly cart: RegExp;
    /** Determiners before a cart's product reference ("the", "diese"): left out of it. */
    readonly determiners: readonly string[];
    /** Articles that say one item ("a", "an"): a cart's quantity words besides the number words. */
    readonly articlesOfOne: readonly string[];
    /** Words between a cart's quantity and its product ("of": "2 of the …"). */
    readonly quantityLinks: readonly string[];
    /** Units a cart's quantity counts in, not part of the product ("2 *bags* of the litter", "3 *Eimer* Wandfarbe"). */
    readonly quantityUnits: readonly string[];
    /**
     * Pattern: a cart request's quantity after the cart ("add the speaker to my cart, 2 of them",
     * "… in den Warenkorb, 3 Stück"): the whole rest of the text, the quantity (digits or a number word) in group 1.
     */
    readonly quantityAfter: RegExp;
    /** Words that end a cart's product reference without being part of it ("please", "mir"). */
    readonly referenceTails: readonly string[];
    /** Alternation (the whole text): a vague reference to a product ("it", "that one", "die da"). */
    readonly vagueReferences: RegExp;
    /** Pattern: a reference by a property only ("the blue one"). */
    readonly propertyReference?: RegExp;
    /** A bare reference to a product ("the blue one?", "die blaue?"): alternations of an opening ("what about"), the determiner, and the word after the property ("one", "da"). */
    readonly bareReference: { readonly openings: RegExp; readonly determiners: RegExp; readonly ones: RegExp };
    /**
     * Courtesy messages (the dialogue acts of greeting, thanking and closing, and "help" alone): a
     * message is one when it holds a greeting or a thanks word and otherwise only fillers and stop
     * words — "help me", "cool thanks, that's all I needed", "hi! just browsing", "Danke, schönen
     * Tag noch!". It asks nothing the policies could answer. Words lower case. `phatic`: a
     * pattern of asking after the assistant's wellbeing ("how are you", "wie geht's euch"), which a
     * greeting may carry and which is answered in kind.
     */
    readonly courtesy: {
      readonly greetings: readonly string[];
      readonly thanks: readonly string[];
      readonly fillers: readonly string[];
      readonly phatic: RegExp;
    };
    /** Alternation: "I want to return …", "ich möchte … zurückschicken": starting a return of one's own. */
    readonly returnOwn: RegExp;
    /** Alternation: any word of returning ("return", "Retoure"). */
    readonly returnWord: RegExp;
    /** Alternation: one's own order ("my order", "wo ist meine Bestellung"). */
    readonly orderOwn: RegExp;
    /** Alternation: asking about the state of one's own order ("where is my", "track", "wann kommt meine"). */
    readonly orderStatus: RegExp;
    /** Alternation: … outright ("where is my", "track", "status"; not "when will my order …"). */
    readonly orderStatusOutright: RegExp;
    /** "My order" made impersonal (a policy question in disguise): [pattern (global), the pronoun it becomes]. */
    readonly ownOrder: Rewrite;
    /** Words of an order question that say nothing of the policy question left ("order", "kommt"). */
    readonly orderWords: readonly string[];
    /** Alternation: a clause that asks about conditions ("how long", "can I", "wie lange", "muss ich"), after… */
    readonly conditionsClause: RegExp;
    /** Alternation: … a conjunction ("but", "aber") that may open it. */
    readonly clauseConjunctions: RegExp;
    /** Alternation: questions about conditions ("can I", "how long", "wie lange"). */
    readonly conditional: RegExp;
    /** Alternation: a hypothetical clause's opening ("what if", "falls"): never the shopper's own request. */
    readonly hypothetical: RegExp;
    /** Alternation: a subordinate clause about buying ("when I buy", "wenn ich … kaufe"): no product request. */
    readonly buyingClause: RegExp;
    /** Alternation: a request for a person or for the store's contact ("talk to a human", "Kundenservice erreichen"). */
    readonly personRequest: RegExp;
    /** Size filters: alternation of the word before a size ("size", "Größe"). */
    readonly sizeWords: RegExp;
    /** Price bounds: alternations of "between" and its "and", of upper and lower bounds ("under", "ab"), and of currency names after an amount. */
    readonly price: {
      readonly between: RegExp;
      readonly and: RegExp;
      readonly max: RegExp;
      readonly min: RegExp;
      readonly currencies?: RegExp;
    };
    /** Alternation: filler words cut from a product query ("please", "irgendwelche"). */
    readonly queryFillers: RegExp;
    /** Alternation: an article opening a product query ("a", "ein"). */
    readonly queryArticles: RegExp;
    /** Alternation: a text asks about a product's availability or price ("in stock", "was kostet der"). */
    readonly availability: RegExp;
    /** Alternation: a number with a unit that is no model number ("30 days", "14 Tage"). */
    readonly notModelNumbers: RegExp;
  };

  /** Typed facts of a policy sentence, for conflicts by facts (knowledge/facts.ts). */
  readonly facts: {
    /** Alternations of stem (or word) beginnings naming the event a period starts with ("deliver", "erhalt"). */
    readonly startEvents: Readonly<Partial<Record<StartEvent, RegExp>>>;
    /** Between a duration and its start event ("30 calendar days *of* delivery", "14 Tage *nach* Erhalt"): alternations of the unit's qualifiers and of the linking words. */
    readonly durationStart: { readonly qualifiers?: RegExp; readonly words: RegExp };
    /**
     * Scope qualifiers: a statement limited to them (members, the holiday season, cell phones,
     * online …) is an exception to the general rule, not a conflict with it.
     */
    readonly scope: readonly string[];
    /**
     * The language capitalises only names mid-sentence (English): a scope word inside a run of
     * capitalised words there is part of a name ("American Express", "Diners Club"), not a scope.
     * Absent or false (German capitalises every noun): no such reading.
     */
    readonly namesByCapitals?: boolean;
    /** The product classes among the scope words: a statement about them is narrower than one about "most products". */
    readonly productClasses: readonly string[];
    /** Alternation: "free" in policy wording (an amount of 0). */
    readonly free: RegExp;
    /** Alternation: a negation right before "free" ("not", "n't", "kein…"). */
    readonly negation: RegExp;
    /** Alternation: words a negation reaches "free" through ("not *eligible for* free shipping", "nicht *mehr* kostenlos"). */
    readonly negationBridge: RegExp;
    /** Alternation: the start of an "unless …" clause, which names the exception to a statement, not its scope. */
    readonly unless: RegExp;
    /**
     * Alternation: the start of an inclusive phrase ("including …", "einschließlich …"): a qualifier in
     * it widens the statement, it is not the statement's scope ("return your item to any store
     * (including products purchased online)" holds for every purchase). Optional.
     */
    readonly including?: RegExp;
    /**
     * Alternation: the opening of a condition clause at a sentence's start ("If your purchase was
     * made with …, you have 365 days", "Wenn …, …"): the statement holds only for a question that
     * shares a word of the clause.
     */
    readonly condition: RegExp;
    /**
     * Alternation: the words right before a duration that make it the time something takes ("may
     * take 3 to 5 business days", "dauert 2 Tage"), not a window to act in ("within 30 days of
     * purchase"): the two are different points, never a conflict.
     */
    readonly lasts: RegExp;
  };

  /** How an extractive answer is read and led (knowledge/compose.ts). */
  readonly answers: {
    /** Stems of unit words ("day", "woch", "percent"): left out when two sentences' contexts are compared. */
    readonly unitTerms: readonly string[];
    /** Alternation: the words that join the last items of an enumeration ("and", "or", "und"). */
    readonly listJoiners?: RegExp;
    /** Words that make an amount a threshold, not a price: alternations before it ("over $99", "ab 50 €"), right before it after a value noun ("Warenwert von 50 €"), and after it ("$50 or more"). */
    readonly threshold: { readonly before: RegExp; readonly valueBefore?: RegExp; readonly after: RegExp };
    /** Alternation: the words before a date that make it a deadline ("through January 14", "bis zum 7. Januar"), with an article if the language puts one there. */
    readonly deadline: RegExp;
    /** Alternation: a date in a sentence with a duration is the answer after these words ("until", "bis"). */
    readonly until: RegExp;
    /** Alternation: a time without a number ("on the next business day", "am nächsten Werktag"). */
    readonly nextDay: RegExp;
    /** Alternation: a lead-in announcing a list ("… any of the following:"). */
    readonly announcesList: RegExp;
    /** Alternation: a sentence start that leans on the sentence before ("This …", "In diesem Fall …"). */
    readonly refersBack: RegExp;
    /** Alternation: a sentence start that continues its predecessor's case ("In this case …", "Dafür …"). */
    readonly continues: RegExp;
    /** Alternations: a sentence that qualifies the one before it: at its start ("However", "Sonst") or anywhere ("except", "ausgeschlossen"). */
    readonly qualifies: { readonly start: RegExp; readonly anywhere: RegExp };
    /** Pattern: a yes/no question (its last clause: "can I …", "kann ich …"). */
    readonly yesNoQuestion: RegExp;
    /** Pattern: a negation in a sentence (a "No" lead; also whether a reply states a negation). */
    readonly negative: RegExp;
    /** Pattern: a permission or requirement in a sentence (a "Yes" lead). */
    readonly positive: RegExp;
    /** Alternation: a condition in a sentence: no Yes / No lead then ("if", "unless", "nur"). */
    readonly conditioned: RegExp;
  };

  /** What a model's reply is checked for (knowledge/llm.ts checkPhrasing, agent/check.ts). */
  readonly checks: {
    /**
     * Promise words ("guarantee", "kostenlos", "money back"): a reply may use one only when a cited
     * passage does. The default language's are checked in every thread, a thread's own besides.
     */
    readonly promises: readonly string[];
    /**
     * Commitments about delivery, timing and eligibility, in families of words keyed across
     * languages ("ship": ships, shipped, versand …): a word of a family in a reply needs a word of
     * the same family in its sources. Inflections are listed, not stemmed, so that a family stays
     * one concept.
     */
    readonly commitments: Readonly<Record<string, readonly string[]>>;
    /** Patterns: a reply claiming an action was done ("I've added it to your cart", "wurde erstattet"). */
    readonly actionClaims: readonly RegExp[];
    /** Alternations of stock phrases by the stock they state, most specific first ("sold out", "nur noch wenige", "in stock"). */
    readonly stockPhrases: { readonly outOfStock: RegExp; readonly lowStock: RegExp; readonly inStock: RegExp };
  };

  /**
   * The framing text of replies in this language. Quoted policy sentences, product titles and live
   * values are never translated: they are the arguments.
   */
  readonly replies: {
    /** The lead of a yes/no answer ("Yes: …", "No: …"). */
    readonly yes: string;
    readonly no: string;
    /** Before the quoted statements of policies that disagree. */
    readonly conflict: string;
    /** The published policies do not answer the question. */
    readonly noEvidence: string;
    /** The parts of a multi-part question the policies say nothing about. */
    readonly unansweredParts: (parts: readonly string[]) => string;
    /** The router's clarification questions: nothing asked ("help"), a vague product reference, a cart request naming no product; and the answers to thanks or a goodbye ("welcome") and to "how are you" ("phatic"). */
    readonly clarify: {
      readonly help: string;
      readonly vagueProduct: string;
      readonly cart: string;
      readonly welcome: string;
      readonly phatic: string;
    };
    /** A product's live stock state. */
    readonly stock: Readonly<Record<"in_stock" | "low_stock" | "out_of_stock" | "unknown", string>>;
    readonly priceUnavailable: string;
    readonly availabilityUnchecked: string;
    /** A service the turn needs cannot be reached. */
    readonly unavailable: (dependency: "storefront" | "knowledge") => string;
    /** The store's contact: the names of two channels, and the sentence naming the channels (joined) with the hours suffix (" (Mon–Fri 9–17)" or ""). */
    readonly contact: {
      readonly email: string;
      readonly phone: string;
      readonly sentence: (channels: readonly string[], hours: string) => string;
    };
    readonly noContactForConflict: string;
    /** A handoff for want of evidence at a store without a support contact. */
    readonly noContactForEvidence: string;
    readonly handingOver: string;
    readonly noContactForPerson: string;
    readonly found: (query: string) => string;
    readonly foundNamed: string;
    readonly noProducts: (query: string) => string;
    readonly cartNotFound: (ref: string) => string;
    readonly cartWhich: (titles: readonly string[]) => string;
    readonly cartConfirm: (quantity: number, title: string) => string;
    readonly signIn: (kind: "order" | "return") => string;
    readonly orderNotFound: (id: string) => string;
    readonly noOrders: string;
    readonly orders: (one: boolean) => string;
    readonly whichOrder: string;
    readonly startReturn: (id: string) => string;
    readonly orderLine: (id: string, status: string, date: string) => string;
  };
}
