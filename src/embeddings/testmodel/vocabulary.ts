// The tiny test model's knowledge: a palette of basic colours (the axes of its colour space), the
// words that name them, and a few hundred everyday and fashion words that it knows but gives no
// colour meaning. Everything here is typed by hand: no downloaded vocabulary is used.

/** One basic colour: its name and a prototype sRGB value in [0, 1]. */
export interface PaletteColour {
  name: string;
  rgb: readonly [number, number, number];
  /** Further prototypes of the same colour (muted, lighter or darker shades seen in product photos). */
  variants?: readonly (readonly [number, number, number])[];
}

/**
 * The basic colours. Their order defines the colour axes of the embedding; the prototypes are
 * what a pixel is compared with (soft nearest-colour assignment in sRGB).
 */
export const PALETTE: readonly PaletteColour[] = [
  { name: "black", rgb: [0.06, 0.06, 0.07], variants: [[0.16, 0.16, 0.18]] },
  { name: "white", rgb: [0.96, 0.96, 0.95] },
  {
    name: "grey",
    rgb: [0.55, 0.55, 0.56],
    variants: [
      [0.74, 0.74, 0.75],
      [0.36, 0.36, 0.38],
    ],
  },
  { name: "red", rgb: [0.84, 0.1, 0.12], variants: [[0.72, 0.2, 0.22]] },
  { name: "maroon", rgb: [0.48, 0.06, 0.12], variants: [[0.4, 0.13, 0.17]] },
  { name: "pink", rgb: [0.97, 0.6, 0.74], variants: [[0.86, 0.5, 0.58]] },
  { name: "orange", rgb: [0.98, 0.52, 0.1], variants: [[0.9, 0.45, 0.22]] },
  { name: "yellow", rgb: [0.98, 0.88, 0.18], variants: [[0.92, 0.82, 0.4]] },
  { name: "beige", rgb: [0.88, 0.8, 0.64], variants: [[0.78, 0.7, 0.58]] },
  {
    name: "brown",
    rgb: [0.45, 0.27, 0.13],
    variants: [
      [0.6, 0.44, 0.3],
      [0.32, 0.22, 0.16],
      [0.44, 0.32, 0.26],
    ],
  },
  { name: "olive", rgb: [0.45, 0.45, 0.12] },
  { name: "green", rgb: [0.15, 0.62, 0.22], variants: [[0.33, 0.5, 0.35]] },
  { name: "teal", rgb: [0.0, 0.5, 0.5], variants: [[0.2, 0.48, 0.52]] },
  {
    name: "blue",
    rgb: [0.16, 0.36, 0.84],
    variants: [
      [0.3, 0.42, 0.64],
      [0.45, 0.6, 0.8],
    ],
  },
  { name: "navy", rgb: [0.09, 0.11, 0.34], variants: [[0.16, 0.19, 0.3]] },
  { name: "purple", rgb: [0.5, 0.2, 0.64], variants: [[0.46, 0.36, 0.56]] },
];

export type PaletteName = (typeof PALETTE)[number]["name"];

/**
 * Words with colour meaning: each maps to a mixture of palette colours (weights need not sum to
 * one; the model normalises each word's vector). Plain palette names map to themselves.
 */
export const COLOUR_WORDS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  ...Object.fromEntries(PALETTE.map((c) => [c.name, { [c.name]: 1 }])),
  gray: { grey: 1 },
  silver: { grey: 0.7, white: 0.3 },
  charcoal: { black: 0.5, grey: 0.5 },
  ash: { grey: 0.8, white: 0.2 },
  ivory: { white: 0.7, beige: 0.3 },
  offwhite: { white: 0.8, beige: 0.2 },
  crimson: { red: 0.8, maroon: 0.2 },
  scarlet: { red: 1 },
  cherry: { red: 0.7, maroon: 0.3 },
  burgundy: { maroon: 1 },
  wine: { maroon: 0.8, purple: 0.2 },
  rose: { pink: 0.8, red: 0.2 },
  magenta: { pink: 0.6, purple: 0.4 },
  fuchsia: { pink: 0.6, purple: 0.4 },
  coral: { orange: 0.5, pink: 0.5 },
  peach: { orange: 0.4, pink: 0.3, beige: 0.3 },
  salmon: { pink: 0.5, orange: 0.5 },
  rust: { orange: 0.5, brown: 0.5 },
  mustard: { yellow: 0.6, olive: 0.4 },
  lemon: { yellow: 1 },
  gold: { yellow: 0.6, orange: 0.2, brown: 0.2 },
  golden: { yellow: 0.6, orange: 0.2, brown: 0.2 },
  cream: { beige: 0.6, white: 0.4 },
  nude: { beige: 0.7, pink: 0.3 },
  tan: { beige: 0.5, brown: 0.5 },
  khaki: { beige: 0.5, olive: 0.5 },
  camel: { beige: 0.4, brown: 0.6 },
  chocolate: { brown: 1 },
  coffee: { brown: 1 },
  bronze: { brown: 0.6, orange: 0.4 },
  copper: { brown: 0.6, orange: 0.4 },
  lime: { green: 0.6, yellow: 0.4 },
  mint: { green: 0.5, white: 0.5 },
  sea: { teal: 0.5, blue: 0.5 },
  turquoise: { teal: 0.6, blue: 0.4 },
  aqua: { teal: 0.5, blue: 0.5 },
  cyan: { teal: 0.5, blue: 0.5 },
  indigo: { navy: 0.6, purple: 0.4 },
  violet: { purple: 1 },
  lavender: { purple: 0.6, white: 0.4 },
  lilac: { purple: 0.6, pink: 0.4 },
  mauve: { purple: 0.5, pink: 0.5 },
  plum: { purple: 0.6, maroon: 0.4 },
  denim: { blue: 0.6, navy: 0.4 },
  // Modifiers nudge towards black or white without naming a hue.
  dark: { black: 0.3 },
  light: { white: 0.3 },
  pale: { white: 0.3 },
};

/**
 * Words that strengthen their colour when combined ("navy blue" is mostly navy). Applied as a
 * multiplier on the word's normalised vector.
 */
export const COLOUR_WORD_EMPHASIS: Readonly<Record<string, number>> = { navy: 2, sea: 0.7 };

/** Everyday and fashion words the tokenizer knows as whole words; they carry no colour. */
export const PLAIN_WORDS: readonly string[] = `
a an the and or with without for of in on at by to from into over under near this that these those
is are was be it its my your our their his her men women man woman mens womens boys girls boy girl
kids kid baby unisex adult teen new old best top bottom left right up down front back side inside outside
photo picture image shot of style look looks like similar same other more less very really just some any
all one two three four five six seven eight nine ten pair set pack piece size small medium large extra
big little long short tall wide narrow slim skinny regular loose relaxed fitted tight oversized cropped
high low mid round square flat pointed open closed full half sleeve sleeves sleeveless collar neck
dress dresses shirt shirts tshirt tee tees top tops blouse tunic kurta kurti saree sari skirt skirts
trousers trouser pants jeans shorts leggings jeggings capris joggers trackpants chinos cargo
jacket jackets coat coats blazer suit suits waistcoat vest sweater sweaters sweatshirt hoodie cardigan
pullover jumper shrug poncho cape kimono robe nightdress nightsuit pyjama pajamas lounge sleepwear
lingerie bra briefs boxers trunks innerwear socks stockings tights swimsuit bikini swimwear
shoe shoes sneakers trainers boots boot sandals sandal heels heel flats loafers slippers flip flops
moccasins pumps wedges clogs sports casual formal ethnic party wedding office work travel beach summer
winter spring fall autumn season daily everyday evening night day festive traditional classic modern
bag bags handbag handbags clutch wallet wallets backpack tote purse belt belts watch watches strap
sunglasses glasses cap caps hat hats scarf scarves stole dupatta tie ties gloves mittens umbrella
jewellery jewelry necklace earrings earring ring rings bracelet bangle bangles pendant chain anklet
perfume deodorant lipstick nail polish makeup kajal fragrance cosmetics accessory accessories
cotton silk wool woollen linen denim leather suede velvet satin chiffon georgette polyester nylon
lycra rayon viscose knit knitted woven lace mesh fleece canvas rubber metal plastic wooden fabric
print printed pattern patterned plain solid striped stripes stripe checked checks check plaid tartan
floral flowers flower dots dotted polka geometric abstract graphic logo text embroidered sequined
beaded textured washed faded distressed ripped quilted padded pleated ruffled tiered layered
zip zipper button buttons pocket pockets hood hooded lining lined stretch soft warm cool comfortable
waterproof lightweight heavy thin thick bright shiny matte glossy metallic neon pastel deep vivid
colour color colours colors coloured colored tone shade multi multicolour multicolor mixed
brand original premium luxury cheap sale offer gift gifts present buy shop store online
running training gym yoga football cricket tennis basketball golf hiking cycling swimming outdoor
analog digital chronograph dial steel gold plated silver sterling diamond stone pearl crystal
`
  .split(/\s+/)
  .filter((w) => w.length > 0);

/** Every whole word the tokenizer learns, deduplicated and in a stable order. */
export function allWords(): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of [...Object.keys(COLOUR_WORDS), ...PLAIN_WORDS]) {
    if (!/^[a-z]+$/.test(w)) throw new Error(`vocabulary word "${w}" must be lower-case letters`);
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}
