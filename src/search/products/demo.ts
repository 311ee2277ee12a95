// The demo catalogue: 24 products (8 garment shapes × 3 colours) whose images are drawn by the
// service itself (SVG rendered with sharp) and served at /demo/images/{name}.png, so a new store
// can search at once with no internet. Installing reads the images directly (no HTTP round trip
// to ourselves) and indexes them through the normal write path.
import sharp from "sharp";
import type { AppContext } from "../../context/context.js";
import { AppError, isAppError } from "../../platform/errors/catalogue.js";
import type { ProductsService } from "./service.js";

const SHAPES: Record<string, { category: string; label: string; svg: string }> = {
  tshirt: {
    category: "tops",
    label: "T-Shirt",
    svg: '<path d="M120 70 L170 50 Q200 80 230 50 L280 70 L340 130 L300 170 L280 150 L280 340 L120 340 L120 150 L100 170 L60 130 Z"/>',
  },
  dress: { category: "dresses", label: "Dress", svg: '<path d="M165 50 L235 50 L245 130 L320 350 L80 350 L155 130 Z"/>' },
  trousers: {
    category: "bottoms",
    label: "Trousers",
    svg: '<path d="M130 50 L270 50 L290 350 L215 350 L200 150 L185 350 L110 350 Z"/>',
  },
  sneaker: {
    category: "shoes",
    label: "Sneakers",
    svg: '<path d="M60 250 L90 170 L160 180 L200 220 L330 240 Q350 260 340 290 L60 290 Z"/><rect x="60" y="290" width="285" height="20" fill="#dddddd"/>',
  },
  handbag: {
    category: "bags",
    label: "Handbag",
    svg: '<path d="M150 140 Q200 60 250 140" fill="none" stroke-width="14" stroke="currentColor"/><rect x="90" y="140" width="220" height="180" rx="20"/>',
  },
  cap: {
    category: "accessories",
    label: "Cap",
    svg: '<path d="M100 230 Q110 110 220 110 Q320 120 320 230 Z"/><path d="M220 230 L360 230 L350 255 L220 250 Z"/>',
  },
  scarf: {
    category: "accessories",
    label: "Scarf",
    svg: '<path d="M110 60 L290 60 L290 120 L230 120 L250 350 L190 350 L175 120 L110 120 Z"/>',
  },
  jacket: {
    category: "outerwear",
    label: "Jacket",
    svg: '<path d="M130 60 L270 60 L340 120 L330 340 L210 340 L210 110 L190 110 L190 340 L70 340 L60 120 Z"/>',
  },
};

const COLOURS: Record<string, { name: string; hex: string }> = {
  red: { name: "Red", hex: "#c8102e" },
  navy: { name: "Navy Blue", hex: "#1f2a56" },
  black: { name: "Black", hex: "#1a1a1a" },
  green: { name: "Green", hex: "#2e8b57" },
  yellow: { name: "Yellow", hex: "#f2c500" },
  pink: { name: "Pink", hex: "#f4a7c0" },
  brown: { name: "Brown", hex: "#7b4a2a" },
  grey: { name: "Grey", hex: "#8a8d91" },
  purple: { name: "Purple", hex: "#6a3d9a" },
  orange: { name: "Orange", hex: "#f07c1e" },
  white: { name: "White", hex: "#f5f5f0" },
  blue: { name: "Blue", hex: "#1f6fd1" },
};

const PLAN: [shape: string, colours: string[]][] = [
  ["tshirt", ["red", "white", "navy"]],
  ["dress", ["black", "pink", "green"]],
  ["trousers", ["navy", "grey", "brown"]],
  ["sneaker", ["white", "red", "black"]],
  ["handbag", ["brown", "black", "yellow"]],
  ["cap", ["blue", "orange", "green"]],
  ["scarf", ["purple", "red", "grey"]],
  ["jacket", ["black", "blue", "yellow"]],
];

export interface DemoProduct {
  product_id: string;
  image: string;
  metadata: { name: string; category: string; brand: string; price: number; color_name: string; tags: string[] };
}

export const DEMO_PRODUCTS: DemoProduct[] = PLAN.flatMap(([shape, colours], i) =>
  colours.map((c, j) => {
    const s = SHAPES[shape]!;
    const colour = COLOURS[c]!;
    return {
      product_id: `demo-${shape}-${c}`,
      image: `${shape}-${c}`,
      metadata: {
        name: `${colour.name} ${s.label}`,
        category: s.category,
        brand: ["Northwind", "Contoso", "Fabrikam"][j]!,
        price: Math.round((19.9 + i * 7.5 + j * 5) * 100) / 100,
        color_name: colour.name,
        tags: ["demo", shape, c],
      },
    };
  }),
);

export class DemoCatalogue {
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(private readonly ctx: AppContext) {}

  /** The PNG of demo image `name` (e.g. "dress-black"); 404 for unknown names. */
  image(name: string): Promise<Buffer> {
    const [shape, colour] = name.split("-");
    const s = shape ? SHAPES[shape] : undefined;
    const c = colour ? COLOURS[colour] : undefined;
    if (!s || !c || name.split("-").length !== 2) throw new AppError("not_found", "No such demo image.");
    let png = this.cache.get(name);
    if (!png) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400" viewBox="0 0 400 400"><rect width="400" height="400" fill="#ffffff"/><g fill="${c.hex}" stroke="${c.hex}" color="${c.hex}">${s.svg}</g></svg>`;
      png = sharp(Buffer.from(svg)).png().toBuffer();
      this.cache.set(name, png);
    }
    return png;
  }

  /** Indexes the 24 demo products into the store (re-installing updates them in place). */
  async install(storeId: string, products: ProductsService) {
    const installed: string[] = [];
    const failed: { product_id: string; error: string; message: string }[] = [];
    for (const p of DEMO_PRODUCTS) {
      try {
        const prepared = await this.ctx.images.fromBytes(await this.image(p.image));
        const url = `${this.ctx.config.publicBaseUrl}/demo/images/${p.image}.png`;
        await products.index(storeId, { product_id: p.product_id, image_url: url, metadata: p.metadata }, prepared);
        installed.push(p.product_id);
      } catch (error) {
        if (!isAppError(error) || error.status >= 500) throw error;
        failed.push({ product_id: p.product_id, error: error.code, message: error.message });
      }
    }
    return { installed: installed.length, failed, products: installed };
  }
}
