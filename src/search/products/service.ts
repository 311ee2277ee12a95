// Indexing products (spec: Product; Events). One write path (writeIn) serves POST (create or
// replace), PUT (partial update; re-embeds only when image_url changed), bulk items and the demo
// catalogue: fetch + decode + embed + dominant colours (outside the transaction), then inside it:
//   plan limit check, product row, lexical row, vector, stored image and the webhook outbox rows.
// write() runs one product in its own transaction; writeBatch() runs many (a bulk job's batch) in
// ONE transaction with a savepoint per item, so each item still commits all or nothing.
// The in-memory vector index is brought in step after the commit.
import type { AppContext } from "../../context/context.js";
import { sql } from "kysely";
import type { Tx } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { uuid } from "../../platform/ids.js";
import type { PreparedImage } from "../../embeddings/pipeline.js";
import { planOf } from "../../tenancy/plans.js";
import { AccountsRepository } from "../../tenancy/stores/repository.js";
import { WebhooksService } from "../webhooks/service.js";
import { LexicalRepository } from "../../lexical/repository.js";
import { noteTextChange } from "../../lexical/changes.js";
import { duplicateDetectionOn } from "./duplicates.js";
import { dotRow, normalized } from "../../vectors/math.js";
import { ProductsRepository, type Cursor, type ListFilter, type ProductRow } from "./repository.js";
import { iso } from "../../platform/clock.js";
import { AVAILABILITY_STATES, type IndexResponse, type ProductView as ProductViewSchema } from "./schemas.js";
import type { Static } from "typebox";
import "../errors/codes.js"; // registers the error codes thrown here

export const METADATA_MAX_BYTES = 16 * 1024;

export type Metadata = Record<string, unknown> & {
  name?: string;
  category?: string;
  brand?: string;
  price?: number;
  color_name?: string;
  tags?: string[];
};

/** The stock a store states for a product (migration 0026); null = unknown. */
export interface Availability {
  state: AvailabilityState;
  quantity?: number | null | undefined;
}
export type AvailabilityState = (typeof AVAILABILITY_STATES)[number];

export interface ProductInput {
  product_id: string;
  image_url: string;
  metadata?: Metadata | undefined;
  /** Left out or null: unknown. */
  availability?: Availability | null | undefined;
}

export type ProductView = Static<typeof ProductViewSchema>;

/** The index response, and whether the product was new (201) or replaced (200). */
export type IndexResult = Static<typeof IndexResponse> & { created: boolean };

/** One product write: with `embedded` a create or replace by a fetched image; without, a metadata change of an existing product. */
export interface ProductWrite {
  productId: string;
  imageUrl: string;
  metadata: Metadata;
  /** The stated stock: null = unknown; left out (undefined) keeps the existing product's (unknown for a new one). */
  availability?: Availability | null | undefined;
  /** The (re)fetched image and its vector. */
  embedded?: { image: PreparedImage; vector: Float32Array } | undefined;
  /**
   * Runs first inside the transaction (bulk jobs mark their item there); when it answers false
   * the write is skipped (result null). It must use `tx` only: nothing may touch the database
   * outside an open transaction (SQLite has one connection).
   */
  claim?: ((tx: Tx) => Promise<boolean>) | undefined;
  /**
   * A change of the product's current metadata (bulk updates): applied inside the transaction to the
   * metadata read under the store's lock, instead of `metadata`; the image and its URL stay as they are.
   */
  metadataOf?: ((current: Metadata) => Metadata) | undefined;
}

/** A write of a batch (writeBatch). */
export interface BatchWrite extends ProductWrite {
  /** Inside the batch's transaction, after this item's rows were rolled back: record the failure. Throwing aborts the whole batch. */
  onFailure?: ((tx: Tx, error: unknown) => Promise<void>) | undefined;
}

export type WriteOutcome = { ok: true; result: IndexResult | null } | { ok: false; error: unknown };

interface Duplicate {
  productId: string;
  score: number;
  imageUrl: string;
}

/** What one write committed (or will, with its transaction). */
interface Written {
  created: boolean;
  vectorId: string;
  row: ProductRow;
  imageUrl: string;
  vector: Float32Array | undefined;
}

export const toView = (p: ProductRow): ProductView => ({
  product_id: p.product_id,
  vector_id: p.vector_id,
  image_url: p.image_url,
  metadata: JSON.parse(p.metadata) as Metadata,
  dominant_colors: JSON.parse(p.dominant_colors) as ProductView["dominant_colors"],
  availability: availabilityOf(p),
  created_at: iso(p.created_at),
  updated_at: iso(p.updated_at),
});

/** The availability stored in a product row, or null (unknown). */
export function availabilityOf(
  p: Pick<ProductRow, "availability" | "stock_quantity">,
): { state: AvailabilityState; quantity: number | null } | null {
  const state = AVAILABILITY_STATES.find((s) => s === p.availability);
  return state ? { state, quantity: p.stock_quantity ?? null } : null;
}

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
  return [...keys]
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .sort()
    .map((k) => `metadata.${k}`);
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify([c.createdAt, c.productId])).toString("base64url");
function decodeCursor(s: string): Cursor {
  try {
    const [createdAt, productId] = JSON.parse(Buffer.from(s, "base64url").toString()) as [unknown, unknown];
    if (typeof createdAt === "number" && typeof productId === "string") return { createdAt, productId };
  } catch {
    // fall through
  }
  throw new AppError("validation_failed", "The cursor is not one this API returned.", {
    errors: [{ field: "cursor", message: "is invalid" }],
  });
}

export class ProductsService {
  readonly repo: ProductsRepository;
  private readonly lexical: LexicalRepository;
  private readonly accounts: AccountsRepository;
  private readonly webhooks: WebhooksService;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: ProductsRepository; lexical: LexicalRepository; accounts: AccountsRepository; webhooks: WebhooksService },
  ) {
    this.repo = deps.repo;
    this.lexical = deps.lexical;
    this.accounts = deps.accounts;
    this.webhooks = deps.webhooks;
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

  /** POST /v1/products and the demo catalogue: create, or replace an existing product of that id. */
  async index(storeId: string, input: ProductInput, prepared?: PreparedImage): Promise<IndexResult> {
    const metadata = input.metadata ?? {};
    checkMetadata(metadata);
    const image = prepared ?? (await this.ctx.images.fromUrl(input.image_url));
    const [vector] = await this.ctx.images.embed([image.decoded]);
    return (await this.write(storeId, {
      productId: input.product_id,
      imageUrl: input.image_url,
      metadata,
      availability: input.availability ?? null,
      embedded: { image, vector: vector! },
    }))!;
  }

  /** PUT /v1/products/{id}: partial update; the image is fetched and embedded again only when image_url changed. */
  async update(
    storeId: string,
    productId: string,
    patch: { image_url?: string | undefined; metadata?: Metadata | undefined; availability?: Availability | null | undefined },
  ) {
    const existing = await this.repo.find(storeId, productId);
    if (!existing) throw new AppError("not_found", `No product "${productId}".`, { product_id: productId });
    const metadata = patch.metadata ?? (JSON.parse(existing.metadata) as Metadata);
    checkMetadata(metadata);
    if (patch.image_url !== undefined && patch.image_url !== existing.image_url) {
      const image = await this.ctx.images.fromUrl(patch.image_url);
      const [vector] = await this.ctx.images.embed([image.decoded]);
      const embedded = { image, vector: vector! };
      return (await this.write(storeId, { productId, imageUrl: patch.image_url, metadata, availability: patch.availability, embedded }))!;
    }
    return (await this.write(storeId, { productId, imageUrl: existing.image_url, metadata, availability: patch.availability }))!;
  }

  async remove(storeId: string, productId: string): Promise<void> {
    await this.ctx.database.transaction(async (tx) => {
      const existing = await this.repo.with(tx).find(storeId, productId);
      if (!existing) throw new AppError("not_found", `No product "${productId}".`, { product_id: productId });
      await this.removeIn(tx, storeId, existing);
    });
    this.afterRemove(storeId, [productId]);
  }

  /**
   * Many removals of one store in ONE transaction (bulk delete jobs), each by the same path as
   * remove(). `claim(tx, found)` runs first for each product, inside the transaction (bulk jobs
   * settle their item there), and answers whether to remove it. Returns the ids removed.
   */
  async removeMany(
    storeId: string,
    items: readonly { productId: string; claim?: ((tx: Tx, found: boolean) => Promise<boolean>) | undefined }[],
  ): Promise<string[]> {
    const removed = await this.ctx.database.transaction(async (tx) => {
      const done: string[] = [];
      for (const item of items) {
        const existing = await this.repo.with(tx).find(storeId, item.productId);
        if (item.claim && !(await item.claim(tx, existing !== undefined))) continue;
        if (!existing) continue;
        await this.removeIn(tx, storeId, existing);
        done.push(item.productId);
      }
      return done;
    });
    if (removed.length > 0) this.afterRemove(storeId, removed);
    return removed;
  }

  /** Inside `tx`: the product row (its lexical row goes by cascade), its vector, its image unless shared, and the outbox rows. */
  private async removeIn(tx: Tx, storeId: string, existing: ProductRow): Promise<void> {
    const repo = this.repo.with(tx);
    const productId = existing.product_id;
    await repo.delete(storeId, productId);
    await this.ctx.vectors.remove(tx, storeId, [productId]);
    await repo.dropImageIfUnused(storeId, existing.image_sha256);
    const deletedAt = iso(this.ctx.clock.now());
    await this.webhooks.emit(tx, storeId, "product.deleted", { product_id: productId, deleted_at: deletedAt }, productId);
  }

  /** After a commit that removed products: the in-memory index and the lexical caches follow. */
  private afterRemove(storeId: string, productIds: string[]): void {
    this.ctx.vectors.afterCommit(storeId, { removedProductIds: productIds });
    noteTextChange(storeId);
    this.ctx.jobs.poke();
  }

  /**
   * The single write path for one product: everything lands in one transaction or not at all;
   * errors propagate. Returns null when `claim` answered false.
   */
  async write(storeId: string, item: ProductWrite): Promise<IndexResult | null> {
    const duplicate = await this.similarOther(storeId, item);
    const done = await this.ctx.database.transaction((tx) => this.writeIn(tx, storeId, item, duplicate));
    if (done) this.afterCommit(storeId, [done]);
    return done && indexResult(done);
  }

  /**
   * Many products of one store in ONE transaction (bulk jobs): each item is written inside its own
   * SAVEPOINT, so an item that fails (its metadata, the plan's product limit, a constraint) rolls
   * back only its own rows (product, lexical row, vector, image row, outbox rows) and becomes that
   * item's outcome, after `onFailure` recorded it in the same transaction. `inTransaction` runs
   * first in it (bulk jobs record items that failed before writing). The in-memory index is
   * brought in step after the commit; if the transaction itself fails (or `onFailure` throws),
   * nothing of the batch is written and the error propagates.
   */
  async writeBatch(
    storeId: string,
    items: readonly BatchWrite[],
    options: { inTransaction?: (tx: Tx) => Promise<void> } = {},
  ): Promise<WriteOutcome[]> {
    // Near-duplicates in the committed index are looked up before the transaction opens (nothing
    // may touch an SQLite database outside an open transaction); earlier items of this batch are
    // compared inside it.
    const similar: (Duplicate | undefined)[] = [];
    for (const item of items) similar.push(await this.similarOther(storeId, item));
    const { outcomes, written } = await this.ctx.database.transaction(async (tx) => {
      await options.inTransaction?.(tx);
      const outcomes: WriteOutcome[] = [];
      const written: Written[] = [];
      for (const [k, item] of items.entries()) {
        await sql`SAVEPOINT bulk_item`.execute(tx);
        try {
          const done = await this.writeIn(tx, storeId, item, similar[k] ?? similarInBatch(this.ctx, item, written));
          await sql`RELEASE SAVEPOINT bulk_item`.execute(tx);
          if (done) written.push(done);
          outcomes.push({ ok: true, result: done && indexResult(done) });
        } catch (error) {
          await sql`ROLLBACK TO SAVEPOINT bulk_item`.execute(tx);
          await sql`RELEASE SAVEPOINT bulk_item`.execute(tx);
          await item.onFailure?.(tx, error);
          outcomes.push({ ok: false, error });
        }
      }
      return { outcomes, written };
    });
    if (written.length > 0) this.afterCommit(storeId, written);
    return outcomes;
  }

  /** Inside `tx`: plan limit, product row, lexical row, vector, stored image and the outbox rows of one product. */
  private async writeIn(tx: Tx, storeId: string, item: ProductWrite, similar: Duplicate | undefined): Promise<Written | null> {
    if (item.claim && !(await item.claim(tx))) return null;
    const { productId, embedded } = item;
    let { imageUrl, metadata } = item;
    checkMetadata(metadata);
    const image = embedded?.image;
    const now = this.ctx.clock.now();
    const model = this.ctx.images.modelKey();
    const repo = this.repo.with(tx);
    await repo.lockStore(storeId);
    const existing = await repo.find(storeId, productId);
    if (!existing && !embedded) throw new AppError("not_found", `No product "${productId}".`);
    if (!existing) await this.checkPlanLimit(tx, storeId);
    if (existing && item.metadataOf) {
      metadata = item.metadataOf(JSON.parse(existing.metadata) as Metadata);
      imageUrl = existing.image_url;
      checkMetadata(metadata);
    }
    const vectorId = embedded ? uuid() : existing!.vector_id;
    const availability = item.availability === undefined ? (existing ? availabilityOf(existing) : null) : item.availability;
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
      availability: availability?.state ?? null,
      stock_quantity: availability?.quantity ?? null,
    };
    await repo.upsert(storeId, row);
    // The lexical index row in the same transaction (removed with the product by cascade).
    await this.lexical.with(tx).upsert(storeId, productId, metadata);
    // Identical-image duplicates are looked up here, so they include earlier items of a batch.
    const duplicate =
      embedded && !similar && !duplicateDetectionOn(this.ctx)
        ? await this.sameImage(repo, storeId, productId, embedded.image.sha256)
        : similar;
    if (embedded) {
      // The image store writes its copy before this transaction commits (src/shared/images/store.ts).
      const kept = await this.ctx.imageStore.put(storeId, embedded.image.sha256, embedded.image.stored.bytes);
      await repo.putImage(storeId, {
        sha256: embedded.image.sha256,
        content_type: embedded.image.stored.contentType,
        width: embedded.image.stored.width,
        height: embedded.image.stored.height,
        ...kept,
        created_at: now,
      });
      await this.ctx.vectors.upsert(tx, storeId, { vectorId, productId, model, vector: embedded.vector });
      if (existing && existing.image_sha256 !== embedded.image.sha256) await repo.dropImageIfUnused(storeId, existing.image_sha256);
    }
    const at = iso(now);
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
      if (existing.availability !== row.availability) changes.push("availability.state");
      if (existing.stock_quantity !== row.stock_quantity) changes.push("availability.quantity");
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
    return { created: !existing, vectorId, row, imageUrl, vector: embedded?.vector };
  }

  /** After a commit: the written vectors and filterable fields reach the vector index (embedded: in memory). */
  private afterCommit(storeId: string, written: readonly Written[]): void {
    const upserted = written.flatMap((w) => (w.vector ? [{ vectorId: w.vectorId, productId: w.row.product_id, vector: w.vector }] : []));
    const attributes = written.map(({ row }) => ({
      productId: row.product_id,
      attributes: {
        category: row.category,
        price: row.price,
        colorName: row.color_name,
        dominantColors: row.dominant_colors,
        metadata: row.metadata,
      },
    }));
    this.ctx.vectors.afterCommit(storeId, upserted.length > 0 ? { upserted, attributes } : { attributes });
    noteTextChange(storeId);
    this.ctx.jobs.poke();
  }

  private async checkPlanLimit(tx: Tx, storeId: string): Promise<void> {
    const store = await this.accounts.with(tx).findStore(storeId);
    const limit = planOf(store?.plan ?? "free").max_products;
    if (limit === null) return;
    const current = await this.repo.with(tx).count(storeId);
    if (current >= limit) {
      throw new AppError("plan_limit_reached", `Your plan allows ${limit} products; remove some or upgrade.`, { limit, current });
    }
  }

  /**
   * The committed product this one duplicates by embedding similarity above DUPLICATE_THRESHOLD,
   * when duplicate detection is on (model.ts: off with the built-in test model, whose similarities
   * only reflect colour); with it off, only identical images count (sameImage, inside the write).
   */
  private async similarOther(storeId: string, item: ProductWrite): Promise<Duplicate | undefined> {
    if (!item.embedded || !duplicateDetectionOn(this.ctx)) return undefined;
    const threshold = this.ctx.config.duplicateThreshold;
    const matches = await this.ctx.vectors.search(storeId, item.embedded.vector, { k: 2 });
    const other = matches.find((m) => m.productId !== item.productId && m.score > threshold);
    if (!other) return undefined;
    const row = await this.repo.find(storeId, other.productId);
    return row ? { productId: other.productId, score: Math.min(1, other.score), imageUrl: row.image_url } : undefined;
  }

  /** Another product of the store with the identical image (similarity 1). */
  private async sameImage(repo: ProductsRepository, storeId: string, productId: string, sha256: string): Promise<Duplicate | undefined> {
    const same = await repo.findByImage(storeId, sha256, productId);
    return same ? { productId: same.product_id, score: 1, imageUrl: same.image_url } : undefined;
  }
}

/** An earlier item of the same batch this one duplicates by embedding similarity (detection on only). */
function similarInBatch(ctx: AppContext, item: ProductWrite, written: readonly Written[]): Duplicate | undefined {
  if (!item.embedded || !duplicateDetectionOn(ctx)) return undefined;
  const query = normalized(item.embedded.vector);
  let best: Duplicate | undefined;
  for (const w of written) {
    if (!w.vector || w.row.product_id === item.productId) continue;
    const score = dotRow(normalized(w.vector), 0, query);
    if (score > ctx.config.duplicateThreshold && score > (best?.score ?? -1))
      best = { productId: w.row.product_id, score: Math.min(1, score), imageUrl: w.imageUrl };
  }
  return best;
}

const indexResult = (w: Written): IndexResult => ({
  status: "indexed",
  product_id: w.row.product_id,
  vector_id: w.vectorId,
  message: w.created ? "Product indexed." : "Product updated.",
  created: w.created,
});
