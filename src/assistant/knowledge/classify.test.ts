import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PERSON_WISH_GAP, productHints, routeText, classifyText, softOrderRemainder, threadContext } from "./classify.js";

const kind = (text: string, locale = "en") => classifyText(text, locale).kind;

describe("knowledge: classify (deterministic router)", () => {
  test("policy questions in English and German", () => {
    for (const text of [
      "What is your return policy?",
      "How much does shipping cost?",
      "Do you ship to Switzerland?",
      "How long is the warranty?",
      "Which payment methods do you accept?",
      "Can I pay with PayPal?",
      "How many days do I have to return an item?",
      "How long do I have to return something?",
      "Do you offer gift wrapping?",
      "Is there a price match guarantee?",
      "Do you sell my personal data?",
      // "do you have to" is the modal "have to", not "do you have (sell) …".
      "how old do you have to be to join staples rewards",
      "Do you have to pay for return shipping?",
    ]) {
      assert.equal(kind(text), "policy", text);
    }
    for (const text of [
      "Wie lange habe ich Zeit für eine Rückgabe?",
      "Was kostet der Versand?",
      "Welche Zahlungsarten akzeptiert ihr?",
      "Gibt es eine Garantie?",
    ]) {
      assert.equal(kind(text, "de-DE"), "policy", text);
    }
  });

  test("product requests keep colour and type words in the query (features for routing only) and carry size and price filters in minor units", () => {
    const red = classifyText("show me red dresses under 50", "en");
    assert.deepEqual(red, {
      kind: "product",
      query: "red dresses",
      filters: { price_max_minor: 5000 },
      features: { color: ["red"], category: ["dresses", "dress"] },
    });

    const between = classifyText("Show me shirts between 30 and 45 euros", "en");
    assert.equal(between.kind, "product");
    if (between.kind === "product") {
      assert.equal(between.filters.price_min_minor, 3000);
      assert.equal(between.filters.price_max_minor, 4500);
      assert.equal(between.query, "shirts");
    }

    // A half size keeps its decimal point: in the query ("mens 10.5", not "10 5") and as a size filter.
    const half = classifyText("looking for waterproof hiking boots mens 10.5", "en");
    assert.equal(half.kind, "product");
    if (half.kind === "product") assert.equal(half.query, "waterproof hiking boots mens 10.5");
    const halfSize = classifyText("got any trail runners in size 9.5?", "en");
    assert.equal(halfSize.kind, "product");
    if (halfSize.kind === "product") {
      assert.deepEqual(halfSize.filters.size, ["9.5"]);
      assert.doesNotMatch(halfSize.query, /\b5\b/);
    }

    const size = classifyText("I'm looking for a black jacket in size M", "en");
    assert.equal(size.kind, "product");
    if (size.kind === "product") {
      assert.deepEqual(size.filters.size, ["M"]);
      assert.deepEqual(size.features, { color: ["black"], category: ["jacket", "jackets"] });
      assert.match(size.query, /^black jacket\b/);
    }

    const yen = classifyText("sneakers under 5000", "en", "JPY");
    assert.equal(yen.kind === "product" && yen.filters.price_max_minor, 5000);
    const atLeast = classifyText("dresses over €20.50", "en");
    assert.equal(atLeast.kind === "product" && atLeast.filters.price_min_minor, 2050);

    const de = classifyText("Zeig mir rote Kleider unter 100 Euro", "de");
    assert.equal(de.kind, "product");
    if (de.kind === "product") {
      assert.deepEqual(de.features.color, ["red"]);
      assert.ok(de.features.category?.includes("dresses"));
      assert.equal(de.filters.price_max_minor, 10000);
      assert.equal(de.query, "rote kleider");
    }
    const deSize = classifyText("Ich suche schwarze Schuhe in Größe 42", "de");
    assert.equal(deSize.kind === "product" && deSize.filters.size?.[0], "42");
    // A word starting with an umlaut is no size ("in münchen" is not "in M"); "in m" at the end is.
    const place = classifyText("habt ihr eine filiale in münchen?", "de");
    assert.ok(place.kind !== "product" || (place.filters.size === undefined && /münchen/.test(place.query)));
    const inM = classifyText("do you have this jacket in m", "en");
    assert.deepEqual(inM.kind === "product" && inM.filters.size, ["M"]);

    assert.equal(kind("Do you sell umbrellas?"), "product");
    assert.equal(kind("blue jeans"), "product");
  });

  test("the shopper's own orders and returns, with the order id", () => {
    assert.deepEqual(classifyText("Where is my order 1234?", "en"), { kind: "order", query: "Where is my order 1234?", order_id: "1234" });
    assert.deepEqual(classifyText("I want to return order #A-1001", "en"), {
      kind: "return",
      query: "I want to return order #A-1001",
      order_id: "A-1001",
    });
    assert.equal(kind("Track my package please"), "order");
    assert.equal(kind("What's the status of my order?"), "order");
    assert.equal(kind("I'd like to return the shoes I bought"), "return");
    assert.equal(kind("How do I start a return?"), "return");
    assert.equal(kind("Wo ist meine Bestellung?", "de"), "order");
    assert.equal(kind("Ich möchte meine Jacke zurückschicken", "de"), "return");
    const deId = classifyText("Bestellung 5567 zurücksenden", "de");
    assert.equal(deId.kind, "return");
    assert.equal(deId.kind === "return" && deId.order_id, "5567");
    // A general question about returns is a policy question, not the shopper's own return.
    assert.equal(kind("Can I return sale items?"), "policy");
    // Whether something is allowed is a question about the conditions, not the start of a return;
    // with an order id it is the shopper's own return.
    assert.equal(kind("Can I send back my jacket after 40 days?"), "policy");
    assert.equal(kind("Darf ich meine Jacke nach 40 Tagen zurückschicken?", "de"), "policy");
    assert.equal(kind("Can I return my order #1234?"), "return");
    // A misspelt policy word of an English thread still routes ("retun" → return), not to the shoes it names.
    assert.equal(kind("can i retun my shoes after 3 weeks"), "policy");
    assert.equal(kind("show me white sneakers"), "product");
    // "…, do you charge anything?" asks about the conditions of a return.
    assert.equal(kind("I'd like to send back my opened iPad — do you charge anything?"), "policy");
    assert.equal(kind("I want to return my order, can you help?"), "return");
  });

  test("add to cart with quantity; a vague product asks which one", () => {
    assert.deepEqual(classifyText("Add the Little Black Dress to my cart", "en"), {
      kind: "action",
      name: "add_to_cart",
      product_ref: "little black dress",
      quantity: 1,
    });
    assert.deepEqual(classifyText("please add 2 Oxford Shirt White to my basket", "en"), {
      kind: "action",
      name: "add_to_cart",
      product_ref: "oxford shirt white",
      quantity: 2,
    });
    assert.deepEqual(classifyText("put three wool socks in my bag", "en"), {
      kind: "action",
      name: "add_to_cart",
      product_ref: "wool socks",
      quantity: 3,
    });
    assert.deepEqual(classifyText("Leg bitte zwei Leinenhemden in den Warenkorb", "de"), {
      kind: "action",
      name: "add_to_cart",
      product_ref: "leinenhemden",
      quantity: 2,
    });
    // A unit the quantity counts in, a quantity after the cart, German "von".
    const cart = (text: string, locale = "en") => {
      const i = classifyText(text, locale);
      return i.kind === "action" ? [i.product_ref, i.quantity] : i.kind;
    };
    assert.deepEqual(cart("put 2 bags of the 40 lb unscented clumping litter in my cart"), ["40 lb unscented clumping litter", 2]);
    assert.deepEqual(cart("add the jbl speaker to my cart, 2 of them"), ["jbl speaker", 2]);
    assert.deepEqual(cart("add the red dress to my cart x3"), ["red dress", 3]);
    assert.deepEqual(cart("add the red dress to my cart please"), ["red dress", 1]);
    assert.deepEqual(cart("add the speaker to my cart, then show me headphones"), ["speaker", 1]);
    assert.deepEqual(cart("leg mir bitte 2 von den goldenen creolen in den warenkorb", "de"), ["goldenen creolen", 2]);
    assert.deepEqual(cart("pack 3 Eimer Wandfarbe in den Warenkorb", "de"), ["wandfarbe", 3]);
    assert.deepEqual(cart("leg die Wandfarbe in den Warenkorb, 2 Stück", "de"), ["wandfarbe", 2]);
    const vague = classifyText("add it to my cart", "en");
    assert.equal(vague.kind, "ambiguous");
    assert.match(vague.kind === "ambiguous" ? vague.question : "", /Which product/);
  });

  test("vague and too-short texts are ambiguous, with the question in the thread language", () => {
    for (const text of ["help", "hi", "?", "the blue one?", "this one", "that", "ok"]) assert.equal(kind(text), "ambiguous", text);
    const de = classifyText("hallo", "de-AT");
    assert.equal(de.kind, "ambiguous");
    assert.match(de.kind === "ambiguous" ? de.question : "", /Wobei kann ich helfen/);
    assert.equal(kind("die blaue?", "de"), "ambiguous");
    assert.equal(kind("maybe"), "ambiguous");
  });

  test("courtesy messages (greeting, thanks, goodbye with only fillers) are never a policy answer: a greeting is asked what it needs, thanks are answered", () => {
    const question = (text: string, locale: string) => {
      const r = routeText(text, locale);
      assert.equal(r.trace.rule, "vague", text);
      return r.intent.kind === "ambiguous" ? r.intent.question : "";
    };
    // Thanks or a goodbye asks nothing and leaves nothing unclear: the reply is an answer, not a clarification.
    const reply = (text: string, locale: string) => {
      const r = routeText(text, locale);
      assert.equal(r.trace.rule, "courtesy", text);
      return r.intent.kind === "courtesy" ? r.intent.reply : "";
    };
    for (const text of ["cool thanks, that's all I needed!", "thanks, that helped a lot!", "cheers, bye"])
      assert.match(reply(text, "en"), /You're welcome/, text);
    assert.match(question("hi! just browsing for now 🙂", "en"), /What can I help you with/);
    assert.match(reply("Danke, schönen Tag noch!", "de"), /Gern geschehen/);
    assert.match(reply("danke dir, das wars!", "de"), /Gern geschehen/);
    assert.match(reply("danke, das hilft mir weiter!", "de"), /Gern geschehen/);
    assert.match(question("Guten Morgen!", "de"), /Wobei kann ich helfen/);
    // Asking how the assistant is, with a greeting or alone, is answered in kind.
    for (const text of ["heyy how's your day going", "hi! how are you?", "how r u doing today"])
      assert.match(reply(text, "en"), /I'm doing well/, text);
    for (const text of ["hallo zusammen! wie gehts euch heute so?", "moin! wie gehts euch so", "Wie geht es Ihnen?"])
      assert.match(reply(text, "de"), /Danke der Nachfrage/, text);
    // … but not when it asks how something goes.
    assert.notEqual(routeText("hab ein laufband bestellt, wie geht das zurück", "de").trace.rule, "courtesy");
    assert.notEqual(routeText("how are you shipping my sofa", "en").trace.rule, "courtesy");
    // A question beside the courtesy is routed as a question.
    for (const text of ["thanks! can I return a worn jacket", "hi, do you ship to canada"])
      assert.notEqual(routeText(text, "en").trace.rule, "vague", text);
    assert.notEqual(routeText("danke, wann kommt meine bestellung", "de").trace.rule, "vague");
  });
});

describe("knowledge: soft order questions", () => {
  test("an order question without id or status words leaves its other words for the evidence check", () => {
    assert.equal(
      softOrderRemainder("I ordered on saturday, when will my order be processed?"),
      "i ordered on saturday, when will it be processed?",
    );
    assert.equal(softOrderRemainder("Where is my order?"), null);
    assert.equal(softOrderRemainder("when will my order 1234 arrive?"), null);
    assert.equal(softOrderRemainder("when will my order arrive?"), null);
    // Asking how to follow one's parcel asks for the procedure; asking where it is or its status does not.
    assert.equal(
      softOrderRemainder("how do i track my parcel and how do big things like a fridge get delivered"),
      "how do i track it and how do big things like a fridge get delivered",
    );
    assert.equal(softOrderRemainder("how do i track my parcel"), "how do i track it");
    assert.equal(softOrderRemainder("can you track my parcel for me"), null);
    assert.equal(softOrderRemainder("how do i track my order 1234"), null);
  });

  test("a request for a person or for the store's contact is a handoff, in English and German", () => {
    for (const text of [
      "I want to talk to a person",
      "How can I contact you?",
      "can i speak to someone about my refund",
      "what's your phone number",
      "human please",
      "Kann ich mit einem Mitarbeiter sprechen?",
      "wie erreiche ich euch",
      "I'd like to contact your support team",
      "I need to contact your team",
      "can I contact your support team?",
      "could we call you",
      "can you put me through to customer services please",
      "connect me with an agent",
    ]) {
      assert.equal(kind(text, text.match(/[äöü]|ich|euch/) ? "de" : "en"), "handoff", text);
    }
    for (const text of [
      "how do I return shoes",
      "can I pay by phone",
      "do you ship to the UK",
      // The verb's subject is the parcel, or the question asks what the policy requires.
      "if i post my return how long does it take to reach you",
      "can you send me the receipt to my email",
      "do I need to contact you before returning?",
      "can I contact you before sending it back or just return it?",
    ])
      assert.notEqual(kind(text), "handoff", text);
    // "sie" is the parcel here, not the store.
    assert.notEqual(kind("Meine Bestellung ist zu groß, wie kann ich sie zurückschicken?", "de"), "handoff");
    assert.equal(kind("wie kann ich Sie erreichen", "de"), "handoff");
  });

  test("a question in a later clause makes a question, so a described problem is no product clarification", () => {
    // Before: only a text opening with a question word (or ending in "?") was a question, so these
    // fell through to "Which product do you mean?".
    for (const text of [
      "the kettle arrived with a dent in it, what can i do",
      "got a lamp last week and it flickers - can you fix it",
      "whats the most i can load on the card",
      "die Lampe flackert seit gestern, kann ich da was machen",
      // German asks by inversion and after a preposition.
      "liefert ihr auch in die schweiz",
      "bei wem meld ich mich wenn die rechnung nicht stimmt",
      "from when does the 30 days count",
    ]) {
      const { intent, trace } = routeText(text, /^(?:die|liefert|bei)\b/.test(text) ? "de" : "en");
      assert.equal(intent.kind, "policy", text);
      assert.equal(trace.features?.questionForm, true, text);
    }
    // A statement without a question stays unplaced; a German conditional clause is no inversion.
    assert.equal(kind("the kettle arrived with a dent in it"), "ambiguous");
    assert.equal(routeText("wenn ich die lampe bekomme", "de").trace.features?.questionForm, false);
  });

  test("an English auxiliary before its subject asks, wherever it stands (subject–auxiliary inversion)", () => {
    // No comma or conjunction before the main clause: the question is only in its word order.
    for (const text of [
      "if something i bought goes on sale a few days later can i get the difference back",
      "if i order online and pick it up at the store what times can i grab it",
      "my speaker died after 10 months am i still covered",
    ]) {
      const { intent, trace } = routeText(text, "en");
      assert.equal(trace.features?.questionForm, true, text);
      assert.equal(intent.kind, "policy", text);
    }
    // The subject before its auxiliary is a statement, and German inverts in statements too.
    for (const [text, lang] of [
      ["the lamp i can see in the photo is broken", "en"],
      ["i want to have it delivered to my office", "en"],
      ["my son broke it so i will do it myself", "en"],
      ["dann kann ich die lampe bekommen", "de"],
    ] as const)
      assert.equal(routeText(text, lang).trace.features?.questionForm, false, text);
  });

  test("casual product requests: 'got any …', a text opening with 'any', 'need a …'", () => {
    for (const [text, query] of [
      ["got any garden hoses?", "garden hoses"],
      ["any nike stuff", "nike stuff"],
      ["need a 2 person tent for a weekend", "2 person tent for a weekend"],
      ["do you guys sell roof boxes", "roof boxes"],
    ] as const) {
      const intent = classifyText(text, "en");
      assert.equal(intent.kind, "product", text);
      assert.equal(intent.kind === "product" && intent.query, query, text);
    }
    // "any" inside a policy question asks for no product.
    assert.equal(kind("any fees for returns?"), "policy");
  });

  test("a conditional clause never makes the shopper's own return", () => {
    for (const text of [
      "if I return my jacket do I pay for shipping",
      "what if I want to return my shoes after 40 days",
      "wenn ich meine Schuhe zurückschicken möchte, wer zahlt den Versand",
    ]) {
      assert.equal(kind(text, text.startsWith("wenn") ? "de" : "en"), "policy", text);
    }
    assert.equal(kind("I want to return my jacket"), "return");
    assert.equal(kind("I'd like to return my order 1234 if possible"), "return");
  });

  test("routeText names the rule that decided, with the scored decision's features and scores", () => {
    assert.equal(routeText("I want to talk to a person", "en").trace.rule, "person");
    assert.equal(routeText("hi", "en").trace.rule, "vague");
    assert.equal(routeText("add 2 of the blue mugs to my cart", "en").trace.rule, "cart");
    const scored = routeText("how long do I have to return shoes?", "en");
    assert.equal(scored.intent.kind, "policy");
    assert.equal(scored.trace.rule, "scored");
    assert.ok((scored.trace.scores as { policy: number }).policy > 0);
    assert.equal((scored.trace.features as { returnWord: boolean }).returnWord, true);
  });
});

test("a language's adjective ending reads only that language's colour words ('blaue' is blue; 'reden' is no red)", () => {
  assert.deepEqual(productHints("die blaue jacke").filters.color, ["blue"]);
  assert.deepEqual(productHints("rote schuhe").filters.color, ["red"]);
  assert.equal(productHints("ich möchte mit jemandem vom kundenservice reden").filters.color, undefined);
  assert.notEqual(classifyText("ich möchte bitte mit jemandem vom kundenservice reden", "de").kind, "product");
});

test("a request for a person in German, however it is put, hands off", () => {
  for (const text of [
    "ich möchte bitte mit jemandem vom kundenservice reden",
    "Bitte verbinden Sie mich mit einem Mitarbeiter.",
    "kann ich mit jemandem sprechen?",
    "verbindet mich mit dem Kundenservice",
    // Spoken "nem" / "ner" for "einem" / "einer".
    "kann ich bitte mit nem mitarbeiter sprechen",
  ])
    assert.equal(classifyText(text, "de").kind, "handoff", text);
  // Not a person: the subject of the sentence is something else.
  assert.notEqual(classifyText("kann ich mit dem Gutschein bezahlen?", "de").kind, "handoff");
});

test("a wish to reach a person, with other words between, hands off when it is no question (router.personWish)", () => {
  for (const [text, locale] of [
    ["pls get a human to call me about my faulty tv", "en"],
    ["have someone from your team ring me back", "en"],
    ["ich möcht bitte mit jemandem vom kundendienst persönlich sprechen", "de"],
    ["ein mitarbeiter soll mich bitte zurückrufen", "de"],
  ] as const) {
    assert.equal(classifyText(text, locale).kind, "handoff", text);
    assert.equal(routeText(text, locale).trace.rule, "person", text);
  }
  // A question naming a person and a call asks what a policy requires; past tense is no wish.
  for (const text of ["do i have to call customer service to return it", "i called customer service and they said 30 days, is that right"])
    assert.notEqual(routeText(text, "en").trace.rule, "person", text);
  // More than PERSON_WISH_GAP words between them are no wish.
  assert.notEqual(routeText(`a human ${"very ".repeat(PERSON_WISH_GAP + 1)}call`, "en").trace.rule, "person");
});

test("a turn's thread context: the shopper's earlier messages back to their last question, oldest first", () => {
  // Newest first, as the thread stores them.
  assert.equal(
    threadContext(["it's way too big for our yard", "hi, I bought a trampoline last week for the kids", "do you sell tents?"], 3),
    "do you sell tents? hi, I bought a trampoline last week for the kids. it's way too big for our yard.",
  );
  assert.equal(
    threadContext(["can you change the address?", "i think i typed the wrong street on my order"], 3),
    "can you change the address?",
  );
  assert.equal(threadContext(["whats the return window for electronics"], 3), "whats the return window for electronics.");
  assert.equal(threadContext(["one", "two", "three", "four"], 3), "three. two. one.");
  assert.equal(threadContext([], 3), undefined);
});
