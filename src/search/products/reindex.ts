// Re-embedding products from their stored images, after CLIP_MODEL changed (the fingerprint of
// the loaded model differs from the one stored with a product's vector), or on demand. Reads the
// stored copy (no download), embeds in batches and replaces each vector in its own transaction,
// so an interrupted run can simply be started again. It also rewrites every product's lexical
// index row from its metadata (issue 15).
//
// Live (issue 38): a reindex runs as a job of the queue (REINDEX_JOB_KIND), so the process that
// serves searches is the one that writes the new vectors and its in-memory index follows at once
// (the embedded index sees no other process's writes). `npm run cli -- reindex`, POST
// /v1/products/reindex and a server starting with another model than its products' enqueue it;
// progress is the share of the store's products embedded by the loaded model (GET /v1/jobs/{id}).
// "All" marks every product stale when the job is enqueued, so a resumed job goes on where it was.
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import type { JobHandler } from "../../platform/jobs/queue.js";
import { iso } from "../../platform/clock.js";
import { LexicalRepository } from "../../lexical/repository.js";
import { noteTextChange } from "../../lexical/changes.js";
import { ProductsRepository } from "./repository.js";

export const REINDEX_JOB_KIND = "reindex";

export interface ReindexPayload {
  /** Products to embed when the job was enqueued. */
  total: number;
  /** Written when the job ends: products whose stored image could not be read (still on the old model). */
  failed?: number;
}

/** A reindex job as GET /v1/jobs/{job_id} shows it (the bulk job's shape: nothing fails item by item). */
export interface ReindexStatus {
  job_id: string;
  status: "processing" | "completed" | "failed";
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  errors: { product_id: string; error: string; message: string }[];
  summary: string;
  created_at: string;
  finished_at: string | null;
}

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

  /**
   * Re-embeds the store's products (only stale ones unless `all`). `stop` is asked between
   * batches: when it says so, the run returns with `done` false (the rest stays stale).
   */
  async store(
    storeId: string,
    options: {
      all?: boolean;
      stop?: () => boolean;
      /** Runs after a batch is embedded, before it is written (tests: a write racing the job). */ beforeWrite?: () => Promise<void>;
    } = {},
  ): Promise<ReindexReport & { done: boolean }> {
    const model = this.ctx.images.modelKey();
    const rows = await this.repo.embeddingsOfStore(storeId);
    const todo = options.all ? rows : rows.filter((r) => r.model !== model);
    const report: ReindexReport = { store_id: storeId, model, checked: rows.length, reindexed: 0, lexical: 0, failed: [] };
    for (let i = 0; i < todo.length; i += BATCH) {
      if (options.stop?.()) return { ...report, done: false };
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
      await options.beforeWrite?.();
      for (const [j, row] of ok.entries()) {
        const vector = vectors[j]!;
        // Under the store's write lock, and only if the product is still the one read above: a
        // product replaced (new image) or deleted while the job ran keeps what that write did.
        const written = await this.ctx.database.transaction(async (tx) => {
          const products = this.repo.with(tx);
          await products.lockStore(storeId);
          if (!(await products.setModelIfUnchanged(storeId, row, model))) return false;
          await this.ctx.vectors.upsert(tx, storeId, { vectorId: row.vector_id, productId: row.product_id, model, vector });
          return true;
        });
        if (!written) continue;
        this.ctx.vectors.afterCommit(storeId, { upserted: [{ vectorId: row.vector_id, productId: row.product_id, vector }] });
        report.reindexed += 1;
      }
    }
    report.lexical = await this.lexical(storeId);
    return { ...report, done: true };
  }

  /**
   * Enqueues a reindex of the store for the worker that serves it, or returns the one already
   * waiting or running. `all`: every product, not only those embedded by another model.
   */
  async enqueue(storeId: string, options: { all?: boolean } = {}): Promise<{ jobId: string; queued: boolean }> {
    const model = this.ctx.images.modelKey();
    return this.ctx.database.transaction(async (tx) => {
      // One at a time per store (two API processes starting together, two calls at once).
      await this.repo.with(tx).lockStore(storeId);
      const pending = await tx
        .selectFrom("jobs")
        .select("id")
        .where("store_id", "=", storeId)
        .where("kind", "=", REINDEX_JOB_KIND)
        .where("status", "in", ["queued", "running"])
        .executeTakeFirst();
      const products = this.repo.with(tx);
      // A reindex already waiting or running is returned as it is (with `all` too: its list of
      // products is fixed, so marking more stale now would leave them undone; ask again after it).
      if (pending) return { jobId: pending.id, queued: false };
      if (options.all) await products.markStale(storeId);
      const total = await products.countStale(storeId, model);
      return { jobId: await this.ctx.jobs.enqueue<ReindexPayload>(tx, storeId, REINDEX_JOB_KIND, { total }), queued: true };
    });
  }

  /** Enqueues a reindex of every store with products embedded by another model (a server starting with a new CLIP_MODEL). */
  async enqueueStale(): Promise<{ store_id: string; count: number; job_id: string }[]> {
    const out = [];
    for (const s of await this.stale()) out.push({ ...s, job_id: (await this.enqueue(s.store_id)).jobId });
    return out;
  }

  /** A reindex job of the store, or undefined when the id names none. */
  async status(storeId: string, jobId: string): Promise<ReindexStatus | undefined> {
    const job = await this.jobs().where("store_id", "=", storeId).where("id", "=", jobId).executeTakeFirst();
    return job && this.describe(job, job.status === "completed" ? 0 : await this.countStale(storeId));
  }

  /** The store's products embedded by another model, and its latest reindex (GET /v1/search/model). */
  async progress(
    storeId: string,
  ): Promise<{ stale_products: number; job: Pick<ReindexStatus, "job_id" | "status" | "processed" | "total" | "summary"> | null }> {
    if (!this.ctx.images.available) return { stale_products: 0, job: null };
    const [latest, stale] = await Promise.all([
      this.jobs().where("store_id", "=", storeId).orderBy("created_at", "desc").limit(1).executeTakeFirst(),
      this.countStale(storeId),
    ]);
    const status = latest && this.describe(latest, stale);
    return {
      stale_products: stale,
      job: status
        ? { job_id: status.job_id, status: status.status, processed: status.processed, total: status.total, summary: status.summary }
        : null,
    };
  }

  private jobs() {
    return this.ctx.database.db.selectFrom("jobs").selectAll().where("kind", "=", REINDEX_JOB_KIND);
  }

  private countStale(storeId: string): Promise<number> {
    return this.repo.countStale(storeId, this.ctx.images.modelKey());
  }

  /** The job as GET /v1/jobs shows it; `stale`: the store's products still embedded by another model. */
  private describe(
    job: { id: string; status: string; payload: string; error: string | null; created_at: number; finished_at: number | null },
    stale: number,
  ): ReindexStatus {
    const { total, failed = 0 } = JSON.parse(job.payload) as ReindexPayload;
    const status = job.status === "failed" ? "failed" : job.status === "completed" ? "completed" : "processing";
    // While it runs, and when it failed (no outcome written), what is left is what is still embedded by another model.
    const left = status === "completed" ? failed : Math.min(total, stale);
    const done = total - left;
    return {
      job_id: job.id,
      status,
      total,
      processed: status === "processing" ? done : total,
      succeeded: done,
      failed: status === "processing" ? 0 : left,
      errors: [],
      summary:
        status === "processing"
          ? `Re-embedding with the loaded model: ${done} of ${total} products done; searches use each new vector as soon as it is written.`
          : status === "completed"
            ? left === 0
              ? "Reindexed: every product is embedded by the loaded model."
              : `Reindexed, but ${left} products could not be re-embedded (their stored image could not be read): upload them again (POST /v1/products).`
            : `The reindex failed (${job.error ?? "unknown error"}); start it again with POST /v1/products/reindex: it goes on where it stopped.`,
      created_at: iso(job.created_at),
      finished_at: iso(job.finished_at),
    };
  }
  /** Whether a worker has taken the job (it was claimed at least once). */
  async claimed(jobId: string): Promise<boolean> {
    const row = await this.ctx.database.db.selectFrom("jobs").select(["claimed_at", "status"]).where("id", "=", jobId).executeTakeFirst();
    return row !== undefined && (row.claimed_at !== null || row.status !== "queued");
  }

  /** The queue handler: re-embeds the store's stale products, yielding its slot like a bulk job. */
  handler(): JobHandler<ReindexPayload> {
    return {
      kind: REINDEX_JOB_KIND,
      maxAttempts: 5,
      run: async (job) => {
        const report = await this.store(job.storeId, { stop: () => job.signal.aborted || job.turnOver.aborted });
        if (report.done) {
          // Every stale product was tried in this run: those that failed are the job's outcome.
          const payload: ReindexPayload = { ...job.payload, failed: report.failed.length };
          await this.ctx.database.db
            .updateTable("jobs")
            .set({ payload: JSON.stringify(payload) })
            .where("id", "=", job.id)
            .execute();
          return;
        }
        if (job.signal.aborted) {
          await this.ctx.jobs.release(job.id);
          return;
        }
        return "yield";
      },
    };
  }

  /** Rewrites the store's lexical index rows from the products' metadata (in batches, each one transaction). */
  async lexical(storeId: string): Promise<number> {
    const ids = await this.repo.idsOfStore(storeId);
    let written = 0;
    for (let i = 0; i < ids.length; i += LEXICAL_BATCH) {
      // Each batch's metadata is read again under the store's write lock, so a product changed or
      // deleted since the list was read is written as it is now (or not at all).
      written += await this.ctx.database.transaction(async (tx) => {
        const products = this.repo.with(tx);
        await products.lockStore(storeId);
        const lexical = this.text.with(tx);
        const rows = await products.metadataOfStore(storeId, ids.slice(i, i + LEXICAL_BATCH));
        await lexical.upsertMany(
          rows.map((r) => ({ storeId, productId: r.product_id, metadata: JSON.parse(r.metadata) as Record<string, unknown> })),
        );
        return rows.length;
      });
      noteTextChange(storeId); // after the commit (changes.ts): caches of the text are rebuilt
    }
    return written;
  }
}
