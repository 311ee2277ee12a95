// Indexing products (spec: Product; Events). One path serves POST (create or replace), PUT
// (partial update; re-embeds only when image_url changed), bulk items and the demo catalogue:
//   fetch + decode + embed + dominant colours (outside the transaction), then in ONE transaction:
//   plan limit check, product row, vector, stored image and the webhook outbox rows.
// The in-memory vector index is brought in step after the commit.
import type { AppContext } from "../../platform/context.js";
import type { Tx } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { uuid } from "../../platform/ids.js";
import type { PreparedImage } from "../../embeddings/pipeline.js";
import { planOf } from "../billing/plans.js";
import { AccountsRepository } from "../accounts/repository.js";
import { WebhooksService } from "../webhooks/service.js";
import { LexicalRepository } from "../../lexical/repository.js";
import { noteTextChange } from "../../lexical/changes.js";
import { modelStatus } from "../search/model.js";
import { ProductsRepository, type Cursor, type ListFilter, type ProductRow } from "./repository.js";

export const METADATA_MAX_BYTES = 16 * 1024;

export type Metadata = Record<string, unknown> & {
  name?: string;
  category?: string;
  brand?: string;
  price?: number;
  color_name?: string;
  tags?: string[];
};

export interface ProductInput {
  product_id: string;
  image_url: string;
  metadata?: Metadata | undefined;
}

export interface ProductView {
  product_id: string;
  vector_id: string;
  image_url: string;
  metadata: Metadata;
  dominant_colors: { hex: string; share: number }[];
  created_at: string;
  updated_at: string;
}

export interface IndexResult {
  status: "indexed";
  product_id: string;
  vector_id: string;
  message: string;
  created: boolean;
}

export const toView = (p: ProductRow): ProductView => ({
  product_id: p.product_id,
  vector_id: p.vector_id,
  image_url: p.image_url,
  metadata: JSON.parse(p.metadata) as Metadata,
  dominant_colors: JSON.parse(p.dominant_colors) as ProductView["dominant_colors"],
  created_at: new Date(p.created_at).toISOString(),
  updated_at: new Date(p.updated_at).toISOString(),
});

export function checkMetadata(metadata: Metadata): void {
  const size = Buffer.byteLength(JSON.stringify(metadata));
  if (size > METADATA_MAX_BYTES) {
    throw new AppError("validation_failed", `metadata is ${size} bytes; at most ${METADATA_MAX_BYTES} are accepted.`, {
      errors: [{ field: "metadata", message: `must be at most ${METADATA_MAX_BYTES} bytes of JSON` }],
    });
  }
}

/** Field paths that differ between two metadata documents (`metadata.price`, …). */
function changedPaths(before: Metadata, after: Metadata): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort().map((k) => `metadata.${k}`);
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify([c.createdAt, c.productId])).toString("base64url");
function decodeCursor(s: string): Cursor {
  try {
    const [createdAt, productId] = JSON.parse(Buffer.from(s, "base64url").toString()) as [unknown, unknown];
    if (typeof createdAt === "number" && typeof productId === "string") return { createdAt, productId };
  } catch {
    // fall through
  }
  throw new AppError("validation_failed", "The cursor is not one this API returned.", { errors: [{ field: "cursor", message: "is invalid" }] });
}

export class ProductsService {
  readonly repo: ProductsRepository;
  private readonly lexical: LexicalRepository;
  private readonly webhooks: WebhooksService;

  constructor(private readonly ctx: AppContext) {
    this.repo = new ProductsRepository(ctx.database.db, ctx.database.dialect);
    this.lexical = new LexicalRepository(ctx.database.db, ctx.database.dialect);
    this.webhooks = new WebhooksService(ctx);
  }

  async get(storeId: string, productId: string): Promise<ProductView> {
    const row = await this.repo.find(storeId, productId);
    if (!row) throw new AppError("not_found", `No product "${productId}".`, { product_id: productId });
    return toView(row);
  }

  async list(storeId: string, limit: number, cursor: string | undefined, filter: ListFilter) {
    const after = cursor ? decodeCursor(cursor) : undefined;
    // A listing is a replica-eligible read (DATABASE_READ_URLS; src/platform/db/replicas.ts).
    const reader = this.repo.with(this.ctx.database.reader(storeId));
    const rows = await reader.list(storeId, limit + 1, after, filter);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      products: page.map(toView),
      next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.created_at, productId: last.product_id }) : null,
      total: await reader.count(storeId, filter),
    };
  }

  /** POST /v1/products and bulk items: create, or replace an existing product of that id. */
  async index(storeId: string, input: ProductInput, prepared?: PreparedImage): Promise<IndexResult> {
    const metadata = input.metadata ?? {};
    checkMetadata(metadata);
    const image = prepared ?? (await this.ctx.images.fromUrl(input.image_url));
    const [vector] = await this.ctx.images.embed([image.decoded]);
    return (await this.write(storeId, input.product_id, input.image_url, metadata, image, vector!))!;
  }

  /** PUT /v1/products/{id}: partial update; the image is fetched and embedded again only when image_url changed. */
  async update(storeId: string, productId: string, patch: { image_url?: string | undefined; metadata?: Metadata | undefined }) {
    const existing = await this.repo.find(storeId, productId);
    if (!existing) throw new AppError("not_found", `No product "${productId}".`, { product_id: productId });
    const metadata = patch.metadata ?? (JSON.parse(existing.metadata) as Metadata);
    checkMetadata(metadata);
    if (patch.image_url !== undefined && patch.image_url !== existing.image_url) {
      const image = await this.ctx.images.fromUrl(patch.image_url);
      const [vector] = await this.ctx.images.embed([image.decoded]);
      return (await this.write(storeId, productId, patch.image_url, metadata, image, vector!))!;
    }
    return (await this.write(storeId, productId, existing.image_url, metadata, undefined, undefined))!;
  }

  async remove(storeId: string, productId: string): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      const existing = await repo.find(storeId, productId);
      if (!existing) throw new AppError("not_found", `No product "${productId}".`, { product_id: productId });
      await repo.delete(storeId, productId);
      await this.ctx.vectors.remove(tx, storeId, [productId]);
      await repo.dropImageIfUnused(storeId, existing.image_sha256);
      await this.webhooks.emit(tx, storeId, "product.deleted", { product_id: productId, deleted_at: new Date(now).toISOString() }, productId);
    });
    this.ctx.vectors.afterCommit(storeId, { removedProductIds: [productId] });
    noteTextChange(storeId);
    this.ctx.jobs.poke();
  }

  /**
   * The single write path. `image`/`vector` are given when the image was (re)fetched; without
   * them only metadata changes. Everything lands in one transaction or not at all.
   * `claim`, when given, runs first inside that transaction (bulk jobs mark their item there);
   * if it answers false the write is skipped and null is returned. Nothing else may touch the
   * database outside `tx` while the transaction is open (SQLite has one connection).
   */
  async write(
    storeId: string,
    productId: string,
    imageUrl: string,
    metadata: Metadata,
    image: PreparedImage | undefined,
    vector: Float32Array | undefined,
    claim?: (tx: Tx) => Promise<boolean>,
  ): Promise<IndexResult | null> {
    const now = this.ctx.clock.now();
    const model = this.ctx.images.modelKey();
    // Near-duplicate check against the committed index, before our own write.
    const duplicate = vector && image ? await this.nearestOther(storeId, productId, vector, image.sha256) : undefined;

    const run = async (tx: Tx) => {
      if (claim && !(await claim(tx))) return null;
      const repo = this.repo.with(tx);
      await repo.lockStore(storeId);
      const existing = await repo.find(storeId, productId);
      if (!existing) await this.checkPlanLimit(tx, storeId);
      if (!existing && (!image || !vector)) throw new AppError("not_found", `No product "${productId}".`);
      const vectorId = image && vector ? uuid() : existing!.vector_id;
      const row: ProductRow = {
        store_id: storeId,
        product_id: productId,
        vector_id: vectorId,
        image_url: imageUrl,
        image_sha256: image?.sha256 ?? existing!.image_sha256,
        name: typeof metadata.name === "string" ? metadata.name : null,
        category: typeof metadata.category === "string" ? metadata.category : null,
        brand: typeof metadata.brand === "string" ? metadata.brand : null,
        price: typeof metadata.price === "number" ? metadata.price : null,
        color_name: typeof metadata.color_name === "string" ? metadata.color_name : null,
        metadata: JSON.stringify(metadata),
        dominant_colors: image ? JSON.stringify(image.colors) : existing!.dominant_colors,
        model: image ? model : existing!.model,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      await repo.upsert(storeId, row);
      // The lexical index row in the same transaction (removed with the product by cascade).
      await this.lexical.with(tx).upsert(storeId, productId, metadata);
      if (image && vector) {
        // The image store writes its copy before this transaction commits (src/platform/images/store.ts).
        const kept = await this.ctx.imageStore.put(storeId, image.sha256, image.stored.bytes);
        await repo.putImage(storeId, {
          sha256: image.sha256,
          content_type: image.stored.contentType,
          width: image.stored.width,
          height: image.stored.height,
          ...kept,
          created_at: now,
        });
        await this.ctx.vectors.upsert(tx, storeId, { vectorId, productId, model, vector });
        if (existing && existing.image_sha256 !== image.sha256) await repo.dropImageIfUnused(storeId, existing.image_sha256);
      }
      const at = new Date(now).toISOString();
      if (!existing) {
        await this.webhooks.emit(
          tx,
          storeId,
          "product.indexed",
          { product_id: productId, vector_id: vectorId, image_url: imageUrl, metadata, indexed_at: at },
          productId,
        );
      } else {
        const changes = changedPaths(JSON.parse(existing.metadata) as Metadata, metadata);
        if (existing.image_url !== imageUrl) changes.unshift("image_url");
        else if (image && existing.image_sha256 !== image.sha256) changes.unshift("image");
        if (changes.length > 0) {
          await this.webhooks.emit(
            tx,
            storeId,
            "product.updated",
            { product_id: productId, changes, previous_image_url: existing.image_url, new_image_url: imageUrl, updated_at: at },
            productId,
          );
        }
      }
      if (duplicate) {
        await this.webhooks.emit(
          tx,
          storeId,
          "product.duplicate_detected",
          {
            new_product_id: productId,
            existing_product_id: duplicate.productId,
            similarity_score: duplicate.score,
            new_image_url: imageUrl,
            existing_image_url: duplicate.imageUrl,
            detected_at: at,
          },
          productId,
        );
      }
      return { created: !existing, vectorId, row };
    };
    const done = await this.ctx.database.transaction(run);
    if (!done) return null;
    const { created, vectorId, row } = done;
    // The filterable fields go to the vector index too (embedded: in-memory filters).
    const attributes = [{ productId, attributes: { category: row.category, price: row.price, colorName: row.color_name, dominantColors: row.dominant_colors, metadata: row.metadata } }];
    this.ctx.vectors.afterCommit(storeId, image && vector ? { upserted: [{ vectorId, productId, vector }], attributes } : { attributes });
    this.ctx.jobs.poke();
    return {
      status: "indexed",
      product_id: productId,
      vector_id: vectorId,
      message: created ? "Product indexed." : "Product updated.",
      created,
    };
  }

  private async checkPlanLimit(tx: Tx, storeId: string): Promise<void> {
    const store = await new AccountsRepository(tx).findStore(storeId);
    const limit = planOf(store?.plan ?? "free").max_products;
    if (limit === null) return;
    const current = await this.repo.with(tx).count(storeId);
    if (current >= limit) {
      throw new AppError("plan_limit_reached", `Your plan allows ${limit} products; remove some or upgrade.`, { limit, current });
    }
  }

  /**
   * The existing product this one duplicates: by embedding similarity above DUPLICATE_THRESHOLD
   * when duplicate detection is on (model.ts: off with the built-in test model, whose similarities
   * only reflect colour), else only a product with the identical image (similarity 1).
   */
  private async nearestOther(storeId: string, productId: string, vector: Float32Array, imageSha256: string) {
    if (!modelStatus(this.ctx).duplicate_detection) {
      const same = await this.repo.findByImage(storeId, imageSha256, productId);
      return same ? { productId: same.product_id, score: 1, imageUrl: same.image_url } : undefined;
    }
    const threshold = this.ctx.config.duplicateThreshold;
    const matches = await this.ctx.vectors.search(storeId, vector, { k: 2 });
    const other = matches.find((m) => m.productId !== productId && m.score > threshold);
    if (!other) return undefined;
    const row = await this.repo.find(storeId, other.productId);
    return row ? { productId: other.productId, score: Math.min(1, other.score), imageUrl: row.image_url } : undefined;
  }
}

