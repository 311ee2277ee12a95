// The service eval:search and eval:search-shopper measure: started embedded (SQLite, a temporary
// DATA_DIR) on loopback beside a static file server for the dataset's images
// (OUTBOUND_ALLOW_PRIVATE), one store on the enterprise plan, and the test split of
// ../shared/datasets/fashion-products (test = int(sha1(id), 16) % 5 == 0, the rule of the model's
// split.json) indexed through POST /v1/products with the metadata a store would send:
//   full   — name, category (articleType), color_name (baseColour) and the other attributes
//            (gender, master/sub category, season, usage);
//   name   — the name only;
//   sparse — the name without its colour and article-type words (and no other field), so that
//            colour and type must be answered by the images while brand, gender and style words
//            still match lexically.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/platform/config.js";
import { createContext } from "../../src/context/context.js";
import { buildSearchApp } from "../../src/search/app.js";
import { composeSearch } from "../../src/search/compose.js";
import { readDataset, type DatasetProduct } from "./dataset.js";

export type Metadata = "full" | "name" | "sparse";

export const sha1mod = (s: string, m: number) => Number(BigInt(`0x${createHash("sha1").update(s).digest("hex")}`) % BigInt(m));

/** The test split of the dataset (the model was trained on the rest). */
export const testSplit = (all: DatasetProduct[]) => all.filter((p) => sha1mod(p.id, 5) === 0);

export async function pool<T, R>(items: readonly T[], n: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

/**
 * The product's name without its colour and article-type words (`sparse`): each word of the
 * colour and of the type is dropped, with its plural / singular forms ("Shirts" drops "Shirt").
 */
export function sparseName(p: Pick<DatasetProduct, "name" | "baseColour" | "articleType">): string {
  const stems = new Set(
    `${p.baseColour} ${p.articleType}`
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
      .map((w) => w.replace(/(es|s)$/, "")),
  );
  return p.name
    .split(/\s+/)
    .filter(
      (w) =>
        !stems.has(
          w
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, "")
            .replace(/(es|s)$/, ""),
        ),
    )
    .join(" ");
}

/** The metadata a store would send for a product (see the header). */
export function productMetadata(p: DatasetProduct, metadata: Metadata): Record<string, unknown> {
  if (metadata === "name") return { name: p.name };
  if (metadata === "sparse") return { name: sparseName(p) };
  return {
    name: p.name,
    category: p.articleType,
    color_name: p.baseColour,
    gender: p.gender,
    master_category: p.masterCategory,
    sub_category: p.subCategory,
    ...(p.season ? { season: p.season } : {}),
    ...(p.usage ? { usage: p.usage } : {}),
  };
}

export interface Harness {
  test: DatasetProduct[];
  all: DatasetProduct[];
  imageBase: string;
  /** A call to the Search API as the store (JSON body; GET without one). */
  call(p: string, body: object, method?: string): Promise<Response>;
  close(): Promise<void>;
}

export async function startHarness(o: {
  dataset: string;
  model: string;
  metadata: Metadata;
  concurrency: number;
  env?: Record<string, string>;
}): Promise<Harness> {
  const all = readDataset(path.join(o.dataset, "products.jsonl"));
  const test = testSplit(all);
  const images = http.createServer((req, res) => {
    const file = path.join(o.dataset, "images", path.basename(decodeURIComponent(req.url ?? "")));
    fs.readFile(file, (err, data) => {
      if (err) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": "image/jpeg" }).end(data);
    });
  });
  await new Promise<void>((r) => images.listen(0, "127.0.0.1", r));
  const imageBase = `http://127.0.0.1:${(images.address() as { port: number }).port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-eval-search-"));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", CLIP_MODEL: o.model, OUTBOUND_ALLOW_PRIVATE: "true", ...o.env });
  const ctx = await createContext(config);
  const services = composeSearch(ctx);
  const app = await buildSearchApp(ctx, { logger: false, services });
  const close = async () => {
    await app.close();
    await ctx.close();
    images.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const reg = await services.accounts.register(
      {
        client_name: "Eval",
        email: `eval-${randomBytes(4).toString("hex")}@example.com`,
        password: "Eval-pass-123",
      },
      "127.0.0.1",
    );
    await ctx.database.db.updateTable("stores").set({ status: "active", plan: "enterprise" }).where("id", "=", reg.client_id).execute();
    const token = (await ctx.signer.issue({ sub: reg.client_id, user_type: "client", memberships: [], is_super_admin: false }))
      .access_token;
    await app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const call = async (p: string, body: object, method = "POST") => {
      const res = await fetch(`${base}${p}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(method === "POST" || method === "PUT" ? { body: JSON.stringify(body) } : {}),
      });
      if (res.status >= 300) throw new Error(`${p} answered ${res.status}: ${await res.text()}`);
      return res;
    };
    const status = await (await call("/v1/search/model", {}, "GET")).json();
    console.log(`model status: ${JSON.stringify(status)}`);
    const t0 = performance.now();
    await pool(test, o.concurrency, async (p) => {
      await call("/v1/products", { product_id: p.id, image_url: `${imageBase}/${p.id}.jpg`, metadata: productMetadata(p, o.metadata) });
    });
    await ctx.vectors.settled();
    console.log(`indexed ${test.length} products through POST /v1/products in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return { test, all, imageBase, call, close };
  } catch (e) {
    await close();
    throw e;
  }
}
