import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  COLOR_NAMES,
  ciede2000,
  colorNameToLab,
  dominantColors,
  hexToLab,
  labToHex,
  nearestColorName,
  normalizeColorName,
  parseHexColor,
  rgbToLab,
  type Lab,
} from "./colors.js";

const close = (actual: Lab, expected: Lab, tolerance = 0.01): void =>
  assert.ok(
    actual.every((v, i) => Math.abs(v - (expected[i] ?? 0)) <= tolerance),
    `${actual} ≉ ${expected}`,
  );

describe("sRGB ↔ CIELAB", () => {
  it("converts reference colours (D65)", () => {
    close(rgbToLab(255, 255, 255), [100, 0, 0]);
    close(rgbToLab(0, 0, 0), [0, 0, 0]);
    close(rgbToLab(255, 0, 0), [53.2408, 80.0925, 67.2032]);
    close(rgbToLab(0, 255, 0), [87.7347, -86.1827, 83.1793]);
    close(rgbToLab(0, 0, 255), [32.297, 79.1875, -107.8602]);
    close(rgbToLab(128, 128, 128), [53.585, 0, 0]);
  });

  it("round-trips every 17th sRGB value through Lab", () => {
    for (let r = 0; r < 256; r += 17)
      for (let g = 0; g < 256; g += 17)
        for (let b = 0; b < 256; b += 17) {
          const hex = `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("")}`;
          assert.equal(labToHex(rgbToLab(r, g, b)), hex);
        }
  });

  it("parses #rrggbb and #rgb, any case, and refuses anything else", () => {
    assert.deepEqual(parseHexColor("#1F2a44"), { r: 0x1f, g: 0x2a, b: 0x44 });
    assert.deepEqual(parseHexColor("fff"), { r: 255, g: 255, b: 255 });
    assert.deepEqual(parseHexColor(" #abc "), { r: 0xaa, g: 0xbb, b: 0xcc });
    for (const bad of ["", "#", "#12", "#1234", "#12345g", "red", "#1234567", "rgb(1,2,3)"]) assert.equal(parseHexColor(bad), null, bad);
    close(hexToLab("#ff0000") ?? [0, 0, 0], [53.2408, 80.0925, 67.2032]);
    assert.equal(hexToLab("nope"), null);
  });
});

describe("ciede2000", () => {
  // All 34 pairs of Sharma, Wu & Dalal (2005), Table 1: [L1, a1, b1], [L2, a2, b2], ΔE00.
  const pairs: Array<[Lab, Lab, number]> = [
    [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
    [[50, 3.1571, -77.2803], [50, 0, -82.7485], 2.8615],
    [[50, 2.8361, -74.02], [50, 0, -82.7485], 3.4412],
    [[50, -1.3802, -84.2814], [50, 0, -82.7485], 1.0],
    [[50, -1.1848, -84.8006], [50, 0, -82.7485], 1.0],
    [[50, -0.9009, -85.5211], [50, 0, -82.7485], 1.0],
    [[50, 0, 0], [50, -1, 2], 2.3669],
    [[50, -1, 2], [50, 0, 0], 2.3669],
    [[50, 2.49, -0.001], [50, -2.49, 0.0009], 7.1792],
    [[50, 2.49, -0.001], [50, -2.49, 0.001], 7.1792],
    [[50, 2.49, -0.001], [50, -2.49, 0.0011], 7.2195],
    [[50, 2.49, -0.001], [50, -2.49, 0.0012], 7.2195],
    [[50, -0.001, 2.49], [50, 0.0009, -2.49], 4.8045],
    [[50, -0.001, 2.49], [50, 0.001, -2.49], 4.8045],
    [[50, -0.001, 2.49], [50, 0.0011, -2.49], 4.7461],
    [[50, 2.5, 0], [50, 0, -2.5], 4.3065],
    [[50, 2.5, 0], [73, 25, -18], 27.1492],
    [[50, 2.5, 0], [61, -5, 29], 22.8977],
    [[50, 2.5, 0], [56, -27, -3], 31.903],
    [[50, 2.5, 0], [58, 24, 15], 19.4535],
    [[50, 2.5, 0], [50, 3.1736, 0.5854], 1.0],
    [[50, 2.5, 0], [50, 3.2972, 0], 1.0],
    [[50, 2.5, 0], [50, 1.8634, 0.5757], 1.0],
    [[50, 2.5, 0], [50, 3.2592, 0.335], 1.0],
    [[60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644],
    [[63.0109, -31.0961, -5.8663], [62.8187, -29.7946, -4.0864], 1.263],
    [[61.2901, 3.7196, -5.3901], [61.4292, 2.248, -4.962], 1.8731],
    [[35.0831, -44.1164, 3.7933], [35.0232, -40.0716, 1.5901], 1.8645],
    [[22.7233, 20.0904, -46.694], [23.0331, 14.973, -42.5619], 2.0373],
    [[36.4612, 47.858, 18.3852], [36.2715, 50.5065, 21.2231], 1.4146],
    [[90.8027, -2.0831, 1.441], [91.1528, -1.6435, 0.0447], 1.4441],
    [[90.9257, -0.5406, -0.9208], [88.6381, -0.8985, -0.7239], 1.5381],
    [[6.7747, -0.2908, -2.4247], [5.8714, -0.0985, -2.2286], 0.6377],
    [[2.0776, 0.0795, -1.135], [0.9033, -0.0636, -0.5514], 0.9082],
  ];

  it("matches all 34 published test pairs to 4 decimals, in both directions", () => {
    pairs.forEach(([a, b, expected], i) => {
      assert.equal(Number(ciede2000(a, b).toFixed(4)), expected, `pair ${i + 1}`);
      assert.equal(Number(ciede2000(b, a).toFixed(4)), expected, `pair ${i + 1} reversed`);
    });
  });

  it("is zero for identical colours and supports the textile weighting kL = 2", () => {
    assert.equal(ciede2000([40, 10, -20], [40, 10, -20]), 0);
    const light: Lab = [70, 0, -30];
    const dark: Lab = [40, 0, -30];
    assert.ok(ciede2000(light, dark, 2) < ciede2000(light, dark));
  });
});

/** A width × height RGB image filled by `paint(x, y)`. */
function image(width: number, height: number, paint: (x: number, y: number) => [number, number, number]): Buffer {
  const buf = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) buf.set(paint(x, y), (y * width + x) * 3);
  return buf;
}

describe("dominantColors", () => {
  it("returns the colours of a two-colour image with their shares", () => {
    const rgb = image(100, 100, (x) => (x < 75 ? [200, 30, 40] : [20, 40, 120]));
    const colors = dominantColors(rgb, 100, 100, { ignoreBackground: false });
    assert.equal(colors.length, 2);
    assert.equal(colors[0]?.hex, "#c81e28");
    assert.equal(colors[1]?.hex, "#142878");
    assert.ok(Math.abs((colors[0]?.share ?? 0) - 0.75) < 0.02);
    assert.ok(Math.abs((colors[1]?.share ?? 0) - 0.25) < 0.02);
  });

  it("leaves out a uniform background by default", () => {
    const rgb = image(224, 224, (x, y) => (x > 60 && x < 160 && y > 40 && y < 190 ? [30, 40, 70] : [250, 250, 250]));
    const product = dominantColors(rgb, 224, 224);
    assert.equal(product[0]?.hex, "#1e2846");
    assert.equal(product[0]?.share, 1);
    const whole = dominantColors(rgb, 224, 224, { ignoreBackground: false });
    assert.equal(whole[0]?.hex, "#fafafa");
  });

  it("keeps the background colour when almost nothing else is there (white on white)", () => {
    const rgb = image(64, 64, (x, y) => (x === 30 && y === 30 ? [0, 0, 0] : [255, 255, 255]));
    assert.equal(dominantColors(rgb, 64, 64)[0]?.hex, "#ffffff");
  });

  it("merges shades of one colour and honours count", () => {
    // Noise of ±4 around one colour plus four distinct colour bands.
    const bands: Array<[number, number, number]> = [
      [220, 40, 40],
      [40, 160, 60],
      [40, 60, 200],
      [240, 200, 40],
      [120, 40, 140],
    ];
    const rgb = image(100, 100, (x, y) => {
      const [r, g, b] = bands[Math.floor(x / 20)] ?? [0, 0, 0];
      const n = ((x * 7 + y * 13) % 9) - 4;
      return [r + n, g + n, b + n];
    });
    const all = dominantColors(rgb, 100, 100, { ignoreBackground: false });
    assert.equal(all.length, 5);
    for (const c of all) assert.ok(Math.abs(c.share - 0.2) < 0.03, JSON.stringify(all));
    assert.equal(dominantColors(rgb, 100, 100, { count: 2, ignoreBackground: false }).length, 2);
    const sum = all.reduce((s, c) => s + c.share, 0);
    assert.ok(Math.abs(sum - 1) < 1e-9);
  });

  it("is deterministic and accepts RGBA", () => {
    let seed = 42;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 256;
    const rgb = image(224, 224, () => [rand(), rand(), rand()]);
    const first = dominantColors(rgb, 224, 224);
    assert.deepEqual(dominantColors(rgb, 224, 224), first);
    const rgba = Buffer.alloc(224 * 224 * 4);
    for (let i = 0; i < 224 * 224; i++) rgba.set([rgb[i * 3] ?? 0, rgb[i * 3 + 1] ?? 0, rgb[i * 3 + 2] ?? 0, 255], i * 4);
    assert.deepEqual(dominantColors(rgba, 224, 224), first);
  });

  it("handles tiny and empty images", () => {
    assert.deepEqual(dominantColors(Buffer.from([1, 2, 3]), 1, 1), [{ hex: "#010203", share: 1 }]);
    assert.deepEqual(dominantColors(Buffer.alloc(0), 0, 0), []);
    assert.throws(() => dominantColors(Buffer.alloc(5), 2, 2), RangeError);
  });
});

describe("colour names", () => {
  const required = [
    "black",
    "white",
    "grey",
    "gray",
    "red",
    "maroon",
    "pink",
    "orange",
    "yellow",
    "beige",
    "brown",
    "olive",
    "green",
    "teal",
    "blue",
    "navy blue",
    "purple",
    "silver",
    "gold",
    "cream",
    "khaki",
    "tan",
    "mustard",
    "lavender",
    "magenta",
    "peach",
    "turquoise",
    "turquoise blue",
    "charcoal",
    "off white",
    "burgundy",
    "coral",
    "rust",
    "copper",
    "bronze",
    "nude",
    "skin",
    "sea green",
    "lime green",
    "fluorescent green",
    "grey melange",
    "mauve",
    "taupe",
    "metallic",
    "rose",
    "steel",
    "mushroom brown",
    "coffee brown",
  ];

  it("has a reference colour for every common fashion colour name", () => {
    for (const name of required) assert.ok(colorNameToLab(name), name);
  });

  it("ignores case, spaces, hyphens and underscores, and knows common synonyms", () => {
    const navy = colorNameToLab("navy blue");
    assert.ok(navy);
    for (const spelling of ["Navy Blue", "navy-blue", " NAVY_blue ", "navyblue", "Navy"])
      assert.deepEqual(colorNameToLab(spelling), navy, spelling);
    assert.deepEqual(colorNameToLab("Gray"), colorNameToLab("grey"));
    assert.deepEqual(colorNameToLab("Off-White"), colorNameToLab("off white"));
    assert.equal(normalizeColorName("Grey Melange"), "grey melange");
  });

  it("maps multi to no single colour, and tells it apart from an unknown name", () => {
    for (const m of ["Multi", "multicolour", "Multi-Color"]) {
      assert.equal(colorNameToLab(m), null);
      assert.equal(normalizeColorName(m), "multi");
    }
    assert.equal(colorNameToLab("NA"), null);
    assert.equal(normalizeColorName("NA"), null);
  });

  it("holds valid, distinct hex values, each nearest to its own name", () => {
    const seen = new Set<string>();
    for (const [name, hex] of Object.entries(COLOR_NAMES)) {
      if (hex === null) continue;
      assert.ok(parseHexColor(hex), name);
      assert.ok(!seen.has(hex), `${name} duplicates ${hex}`);
      seen.add(hex);
      const lab = colorNameToLab(name);
      assert.ok(lab);
      assert.equal(nearestColorName(lab).name, name);
    }
  });

  it("orders reference colours sensibly", () => {
    const L = (n: string): number => colorNameToLab(n)?.[0] ?? NaN;
    assert.ok(L("black") < L("charcoal") && L("charcoal") < L("grey") && L("grey") < L("white"));
    assert.ok(L("navy blue") < L("blue"));
    assert.ok(
      ciede2000(colorNameToLab("red") ?? [0, 0, 0], colorNameToLab("maroon") ?? [0, 0, 0]) <
        ciede2000(colorNameToLab("red") ?? [0, 0, 0], colorNameToLab("green") ?? [0, 0, 0]),
    );
  });
});
