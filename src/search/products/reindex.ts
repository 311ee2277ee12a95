// Re-embedding products from their stored images, after CLIP_MODEL changed (the fingerprint of
// the loaded model differs from the one stored with a product's vector), or on demand. Reads the
// stored copy (no download), embeds in batches and replaces each vector in its own transaction,
// so an interrupted run can simply be started again. It also rewrites every product's lexical
// index row from its metadata (issue 15).
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { LexicalRepository } from "../../lexical/repository.js";
import { ProductsRepository } from "./repository.js";

export interface ReindexReport {
  store_id: string;
  model: string;
  checked: number;
  reindexed: number;
  /** Lexical index rows rebuilt (every product of the store, from its metadata). */
  lexical: number;
  failed: { product_id: string; error: string }[];
}

const BATCH = 16;
const LEXICAL_BATCH = 500;

export class Reindexer {
  private readonly repo: ProductsRepository;
  private readonly text: LexicalRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: ProductsRepository; text: LexicalRepository },
  ) {
    this.repo = deps.repo;
    this.text = deps.text;
  }

  /** Stores with products embedded by another model than the loaded one, and how many. */
  async stale(): Promise<{ store_id: string; count: number }[]> {
    return this.repo.staleByStore(this.ctx.images.modelKey());
  }

  /** Re-embeds the store's products (only stale ones unless `all`). */
  async store(storeId: string, options: { all?: boolean } = {}): Promise<ReindexReport> {
    const model = this.ctx.images.modelKey();
    const rows = await this.repo.embeddingsOfStore(storeId);
    const todo = options.all ? rows : rows.filter((r) => r.model !== model);
    const report: ReindexReport = { store_id: storeId, model, checked: rows.length, reindexed: 0, lexical: 0, failed: [] };
    for (let i = 0; i < todo.length; i += BATCH) {
      const batch = todo.slice(i, i + BATCH);
      const decoded = [];
      const ok = [];
      for (const row of batch) {
        try {
          const image = await this.repo.getImage(storeId, row.image_sha256);
          if (!image) throw new AppError("not_found", "stored image missing");
          decoded.push(await this.ctx.images.decode(await this.ctx.imageStore.read(storeId, image)));
          ok.push(row);
        } catch (error) {
          report.failed.push({ product_id: row.product_id, error: (error as Error).message });
        }
      }
      if (ok.length === 0) continue;
      const vectors = await this.ctx.images.embed(decoded);
      for (const [j, row] of ok.entries()) {
        const vector = vectors[j]!;
        await this.ctx.database.transaction(async (tx) => {
          await this.ctx.vectors.upsert(tx, storeId, { vectorId: row.vector_id, productId: row.product_id, model, vector });
          await this.repo.with(tx).setModel(storeId, row.product_id, model);
        });
        this.ctx.vectors.afterCommit(storeId, { upserted: [{ vectorId: row.vector_id, productId: row.product_id, vector }] });
        report.reindexed += 1;
      }
    }
    report.lexical = await this.lexical(storeId);
    return report;
  }

  /** Rewrites the store's lexical index rows from the products' metadata (in batches, each one transaction). */
  async lexical(storeId: string): Promise<number> {
    const rows = await this.repo.metadataOfStore(storeId);
    for (let i = 0; i < rows.length; i += LEXICAL_BATCH) {
      await this.ctx.database.transaction(async (tx) => {
        const lexical = this.text.with(tx);
        for (const r of rows.slice(i, i + LEXICAL_BATCH))
          await lexical.upsert(storeId, r.product_id, JSON.parse(r.metadata) as Record<string, unknown>);
      });
    }
    return rows.length;
  }
}
