// Bulk imports (spec: Bulk job; Products and jobs). The request is stored as one job plus one
// row per item and answered 202 at once. The job handler processes pending items with bounded
// concurrency and writes them one batch per transaction: each item's product write and its item
// status commit together (inside the batch's transaction, in the item's own savepoint), so a job
// resumed after a crash skips what is done, redoes what was not committed and never loses an
// acknowledged product. One bad item fails that item only; the job is `failed` only when it
// cannot run at all.
//
// Throughput: up to BULK_CONCURRENCY items (default 32) are in flight per job; each is fetched and
// decoded as soon as a slot is free, so fetching and decoding run ahead of the model while its
// runtime gathers the waiting images into batches of up to 16. Items whose embeddings come back
// together are written together (BatchCommitter): one transaction per batch, not per item. The
// window is the back-pressure: a slot frees only once its item committed, so no more than
// BULK_CONCURRENCY fetched items are ever uncommitted (what a SIGKILL can cost is re-fetching those).
// The default, twice the model's batch, keeps each batch full: 16 items wait, decoded, while the
// previous 16 are embedded (with 24 the batches alternated 16 and 8).
//
// Fairness: after the queue's time slice (JOBS_SLICE_SECONDS), when another store's job waits, the
// handler starts no new item, lets the items in flight commit and returns "yield"; the job goes to
// the back of the queue and resumes from its pending items (src/platform/jobs/queue.ts).
//
// Stopping (SIGTERM): stop() aborts the job's signal; no new item starts, the items in flight
// finish and commit, and the job goes back to the queue at once (its unstarted items still
// pending) so the next start, or another worker, resumes it without waiting for the lease.
import type { AppContext } from "../../context/context.js";
import type { Tx } from "../../platform/db/index.js";
import { AppError, isAppError } from "../../platform/errors/catalogue.js";
import { randomSecret, uuid } from "../../platform/ids.js";
import { secretAad } from "../../db/sealed-columns.js";
import type { JobContext, JobHandler } from "../../platform/jobs/queue.js";
import { checkTargetUrl } from "../../platform/outbound/target.js";
import type { PreparedImage } from "../../embeddings/pipeline.js";
import { ProductsService, type ProductInput } from "../products/service.js";
import { WebhooksService } from "../webhooks/service.js";
import { BatchCommitter } from "./batch-committer.js";
import { BulkJobsRepository, type BulkItemRow } from "./repository.js";
import { iso } from "../../platform/clock.js";
import { QUEUED_BULK_ITEMS, type Plan } from "../../tenancy/plans.js";
import type { BulkAction } from "../../db/schema.js";
import "../../embeddings/errors.js"; // registers the error codes thrown here
import "../errors/codes.js"; // registers the error codes thrown here

export const BULK_MAX_ITEMS = 1000;
export const BULK_JOB_KIND = "bulk_import";

interface BulkPayload {
  jobId: string;
}

/** An item ready to be written: embedded, or failed before writing (fetch, decode, embed). */
type PreparedItem = { item: BulkItemRow; input: ProductInput } & (
  { embedded: { image: PreparedImage; vector: Float32Array }; error?: undefined } | { embedded?: undefined; error: unknown }
);

/** Dependency outages are not the item's fault: the job is retried instead of failing items. */
const isOutage = (error: unknown) => isAppError(error) && (error.code === "model_unavailable" || error.code === "service_unavailable");

/** The callback secret sealed at rest (src/platform/secrets.ts), or null. */
const sealedCallbackSecret = (ctx: AppContext, jobId: string, secret: string | undefined): string | null =>
  secret === undefined ? null : ctx.secrets.seal(secret, secretAad.callback(jobId));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * One sentence on where a job stands, and what to do about failures that have a fix: items
 * refused by the plan's product limit name the limit and the way out.
 */
export function jobSummary(
  status: string,
  total: number,
  counts: { succeeded: number; failed: number; pending: number },
  codes: readonly { code: string; count: number; message: string }[],
): string {
  const processed = counts.succeeded + counts.failed;
  const parts = [`${processed} of ${plural(total, "item")} processed: ${counts.succeeded} succeeded, ${counts.failed} failed.`];
  if (status === "processing" && counts.pending > 0) parts.push(`${counts.pending} pending.`);
  if (status === "failed" && counts.pending > 0)
    parts.push(`The job failed before ${plural(counts.pending, "item was", "items were")} processed.`);
  const plan = codes.find((c) => c.code === "plan_limit_reached");
  if (plan) {
    parts.push(
      `${plural(plan.count, "item was", "items were")} not indexed because the store reached its plan's product limit (${plan.message.replace(/\.$/, "")}): ` +
        `remove products or upgrade the plan, then submit those items again.`,
    );
  }
  const missing = codes.find((c) => c.code === "not_found");
  if (missing) {
    parts.push(
      `${plural(missing.count, "product was", "products were")} not found in this store (deleted already, or not this store's ids): nothing was done to ${missing.count === 1 ? "it" : "them"}.`,
    );
  }
  const other = codes.filter((c) => c.code !== "plan_limit_reached" && c.code !== "not_found");
  if (other.length > 0) parts.push(`Other failures: ${other.map((c) => `${c.count} ${c.code}`).join(", ")} (see errors).`);
  return parts.join(" ");
}

export class BulkJobsService {
  private readonly repo: BulkJobsRepository;
  private readonly products: ProductsService;
  private readonly webhooks: WebhooksService;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: BulkJobsRepository; products: ProductsService; webhooks: WebhooksService },
  ) {
    this.repo = deps.repo;
    this.products = deps.products;
    this.webhooks = deps.webhooks;
  }

  async create(
    storeId: string,
    plan: Plan,
    input: { products: ProductInput[]; callback_url?: string | undefined; callback_secret?: string | undefined },
  ) {
    const seen = new Set<string>();
    const dupes = input.products.map((p) => p.product_id).filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
    if (dupes.length > 0) {
      throw new AppError("validation_failed", `product_id appears more than once: ${[...new Set(dupes)].slice(0, 10).join(", ")}.`, {
        errors: [{ field: "products", message: "product_id values must be unique within one request" }],
      });
    }
    return this.enqueue(storeId, plan, {
      action: "import",
      kind: BULK_JOB_KIND,
      payload: (jobId): BulkPayload => ({ jobId }),
      items: input.products.map((p) => ({ product_id: p.product_id, payload: JSON.stringify(p) })),
      callback_url: input.callback_url,
      callback_secret: input.callback_secret,
    });
  }

  /**
   * Stores a bulk job (imports here, deletes and updates: ./actions.ts) with one pending row per
   * item and queues it under `kind`; the store's waiting items stay within its plan's cap.
   */
  async enqueue(
    storeId: string,
    plan: Plan,
    job: {
      action: BulkAction;
      kind: string;
      /** The queue payload its handler reads. */
      payload: (jobId: string) => object;
      items: readonly { product_id: string; payload: string }[];
      callback_url?: string | undefined;
      callback_secret?: string | undefined;
    },
  ) {
    if (job.callback_url !== undefined) checkTargetUrl(job.callback_url, this.ctx.config.outbound.allowPrivate);
    const limit = QUEUED_BULK_ITEMS[plan.plan_name];
    const generatedSecret = job.callback_url && !job.callback_secret ? randomSecret("cbs_", 24) : undefined;
    const total = job.items.length;
    const now = this.ctx.clock.now();
    const jobId = await this.ctx.database.transaction(async (tx) => {
      // The store's waiting items are counted and the new ones written under one lock, so two
      // jobs sent at once cannot both pass the plan's cap.
      const repo = this.repo.with(tx);
      await repo.lockQueue(storeId);
      const queued = await repo.queuedItems(storeId);
      if (queued + total > limit) {
        throw new AppError(
          "queue_limit_reached",
          `The ${plan.plan_name} plan allows ${limit} bulk items waiting per store; ${queued} are waiting and this job adds ${total}. ` +
            `Wait for the store's jobs to finish (GET /v1/jobs/{job_id}), send a smaller job, or upgrade the plan.`,
          { limit: "queued_bulk_items", max: limit, queued, requested: total, plan: plan.plan_name, retry_after: 60 },
          { "retry-after": "60" },
        );
      }
      const id = uuid();
      await this.ctx.jobs.enqueue(tx, storeId, job.kind, job.payload(id), id);
      await repo.create(
        storeId,
        {
          job_id: id,
          status: "processing",
          action: job.action,
          total,
          callback_url: job.callback_url ?? null,
          callback_secret: sealedCallbackSecret(this.ctx, id, job.callback_secret ?? generatedSecret),
          created_at: now,
          finished_at: null,
        },
        job.items.map((item, idx) => ({
          idx,
          product_id: item.product_id,
          payload: item.payload,
          status: "pending" as const,
          error_code: null,
          error_message: null,
          updated_at: now,
        })),
      );
      return id;
    });
    this.ctx.jobs.poke();
    return {
      job_id: jobId,
      status: "processing" as const,
      total,
      ...(generatedSecret ? { callback_secret: generatedSecret } : {}),
    };
  }

  async status(storeId: string, jobId: string) {
    const job = await this.repo.find(storeId, jobId);
    if (!job) throw new AppError("not_found", "No such job.", { job_id: jobId });
    const counts = await this.repo.counts(storeId, jobId);
    const failures = await this.repo.failures(storeId, jobId);
    const codes = counts.failed > 0 ? await this.repo.failureCodes(storeId, jobId) : [];
    return {
      job_id: job.job_id,
      status: job.status,
      action: job.action,
      total: job.total,
      processed: counts.succeeded + counts.failed,
      succeeded: counts.succeeded,
      failed: counts.failed,
      errors: failures.map((f) => ({ product_id: f.product_id, error: f.error_code ?? "error", message: f.error_message ?? "" })),
      summary: jobSummary(job.status, job.total, counts, codes),
      created_at: iso(job.created_at),
      finished_at: iso(job.finished_at),
    };
  }

  /** The queue handler. Idempotent: a second run only looks at items still pending. */
  handler(): JobHandler<BulkPayload> {
    const { products, webhooks } = this;
    return {
      kind: BULK_JOB_KIND,
      maxAttempts: 5,
      run: async (job: JobContext<BulkPayload>) => {
        const { storeId } = job;
        const { jobId } = job.payload;
        const items = await this.repo.pendingItems(storeId, jobId);
        const committer = new BatchCommitter<PreparedItem>((batch) => this.writeBatch(products, storeId, jobId, batch));
        let next = 0;
        let failure: { error: unknown } | undefined;
        const worker = async () => {
          // Past its time slice with another store waiting (turnOver): start nothing new.
          while (next < items.length && !job.signal.aborted && !failure && !job.turnOver.aborted) {
            const item = items[next++]!;
            try {
              await committer.add(await this.prepare(item));
            } catch (error) {
              // An outage or a batch that could not commit: start nothing new, let the others
              // finish, then fail this attempt (the queue retries it; pending items are redone).
              failure ??= { error };
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(this.ctx.config.bulkConcurrency, items.length) }, worker));
        if (failure) throw failure.error;
        if (job.signal.aborted) {
          // Stopping: what is in flight has committed; hand the rest back for the next start.
          await this.ctx.jobs.release(job.id);
          return;
        }
        // What is in flight has committed; the queue puts the job at the back with its items pending.
        if (next < items.length && job.turnOver.aborted) return "yield";
        await this.complete(webhooks, storeId, jobId, "completed");
      },
      onFailed: async (job) => {
        await this.complete(webhooks, job.storeId, job.payload.jobId, "failed");
      },
    };
  }

  /** Fetch, decode and embed one item (the model runtime batches concurrent calls); outages throw. */
  private async prepare(item: BulkItemRow): Promise<PreparedItem> {
    const input = JSON.parse(item.payload) as ProductInput;
    try {
      const image = await this.ctx.images.fromUrl(input.image_url);
      const [vector] = await this.ctx.images.embed([image.decoded]);
      return { item, input, embedded: { image, vector: vector! } };
    } catch (error) {
      if (isOutage(error)) throw error;
      return { item, input, error };
    }
  }

  /**
   * One transaction for a batch of items: items that failed earlier are recorded first, then each
   * embedded item is written in its own savepoint together with its `succeeded` mark (an item an
   * earlier run settled is skipped), or rolled back and marked failed.
   */
  private async writeBatch(products: ProductsService, storeId: string, jobId: string, batch: PreparedItem[]): Promise<void> {
    const settleFailed = async (tx: Tx, item: BulkItemRow, error: unknown) => {
      if (isOutage(error)) throw error;
      const code = isAppError(error) ? error.code : "internal_error";
      const message = isAppError(error) ? error.message : "Indexing failed.";
      await this.repo
        .with(tx)
        .settleItem(storeId, jobId, item.idx, { status: "failed", error_code: code, error_message: message }, this.ctx.clock.now());
    };
    const writes = batch.flatMap(({ item, input, embedded }) =>
      embedded
        ? [
            {
              productId: input.product_id,
              imageUrl: input.image_url,
              metadata: input.metadata ?? {},
              availability: input.availability ?? null,
              embedded,
              claim: (tx: Tx) =>
                this.repo
                  .with(tx)
                  .settleItem(
                    storeId,
                    jobId,
                    item.idx,
                    { status: "succeeded", error_code: null, error_message: null },
                    this.ctx.clock.now(),
                  ),
              onFailure: (tx: Tx, error: unknown) => settleFailed(tx, item, error),
            },
          ]
        : [],
    );
    await products.writeBatch(storeId, writes, {
      inTransaction: async (tx) => {
        for (const { item, embedded, error } of batch) if (!embedded) await settleFailed(tx, item, error);
      },
    });
  }

  /** Marks a job finished (once) and queues its callback, if it has one (bulk actions: ./actions.ts). */
  finish(storeId: string, jobId: string, status: "completed" | "failed"): Promise<void> {
    return this.complete(this.webhooks, storeId, jobId, status);
  }

  private async complete(webhooks: WebhooksService, storeId: string, jobId: string, status: "completed" | "failed"): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.database.transaction(async (tx) => {
      const repo = this.repo.with(tx);
      if (!(await repo.finish(storeId, jobId, status, now))) return;
      const job = await repo.find(storeId, jobId);
      if (!job?.callback_url || !job.callback_secret) return;
      const counts = await repo.counts(storeId, jobId);
      await webhooks.emitCallback(
        tx,
        storeId,
        job.callback_url,
        this.ctx.secrets.open(job.callback_secret, secretAad.callback(jobId)),
        {
          event: "bulk.completed",
          job_id: jobId,
          status,
          total: job.total,
          succeeded: counts.succeeded,
          failed: counts.failed,
          finished_at: iso(now),
        },
        `job:${jobId}`,
      );
    });
  }
}
