// Bulk jobs (imports, deletes, updates) and their items; `storeId` first on every method.
import { sql, type Selectable } from "kysely";
import type { Dialect, Executor } from "../../platform/db/index.js";
import type { BulkJobItemsTable, BulkJobsTable } from "../../db/schema.js";
import { sqlConditions, type SearchFilters } from "../query/filters.js";

export type BulkJobRow = Selectable<BulkJobsTable>;
export type BulkItemRow = Selectable<BulkJobItemsTable>;

export class BulkJobsRepository {
  constructor(
    private readonly db: Executor,
    private readonly dialect: Dialect,
  ) {}

  with(db: Executor): BulkJobsRepository {
    return new BulkJobsRepository(db, this.dialect);
  }

  /**
   * Serialises new jobs of one store until the transaction ends (PostgreSQL: an advisory lock per
   * store; SQLite's writers are serial already), so its waiting-items check and insert are one step.
   */
  async lockQueue(storeId: string): Promise<void> {
    if (this.dialect === "postgres")
      await sql`SELECT pg_advisory_xact_lock(hashtext(current_schema() || ${`.shopsight:bulk-queue:${storeId}`}))`.execute(this.db);
  }

  /**
   * One page of the store's products passing the SQL part of `filters` (colour is the caller's),
   * oldest first, after `after`: what a filter selects for a bulk action.
   */
  selectionPage(
    storeId: string,
    filters: SearchFilters & { availability?: string | undefined },
    after: { createdAt: number; productId: string } | undefined,
    limit: number,
  ): Promise<{ product_id: string; created_at: number; color_name: string | null; dominant_colors: string }[]> {
    let q = this.db
      .selectFrom("products")
      .select(["product_id", "created_at", "color_name", "dominant_colors"])
      .where("store_id", "=", storeId);
    for (const cond of sqlConditions(this.dialect, filters)) q = q.where(cond);
    if (filters.availability !== undefined) q = q.where("availability", "=", filters.availability);
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb("created_at", ">", after.createdAt),
          eb.and([eb("created_at", "=", after.createdAt), eb("product_id", ">", after.productId)]),
        ]),
      );
    }
    return q.orderBy("created_at").orderBy("product_id").limit(limit).execute();
  }

  async create(storeId: string, job: Omit<BulkJobRow, "store_id">, items: Omit<BulkItemRow, "store_id" | "job_id">[]): Promise<void> {
    await this.db
      .insertInto("bulk_jobs")
      .values({ ...job, store_id: storeId })
      .execute();
    for (let i = 0; i < items.length; i += 200) {
      await this.db
        .insertInto("bulk_job_items")
        .values(items.slice(i, i + 200).map((it) => ({ ...it, job_id: job.job_id, store_id: storeId })))
        .execute();
    }
  }

  find(storeId: string, jobId: string): Promise<BulkJobRow | undefined> {
    return this.db.selectFrom("bulk_jobs").selectAll().where("store_id", "=", storeId).where("job_id", "=", jobId).executeTakeFirst();
  }

  pendingItems(storeId: string, jobId: string): Promise<BulkItemRow[]> {
    return this.db
      .selectFrom("bulk_job_items")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("job_id", "=", jobId)
      .where("status", "=", "pending")
      .orderBy("idx")
      .execute();
  }

  /** Items still pending in the store's unfinished jobs: what its queue holds. */
  async queuedItems(storeId: string): Promise<number> {
    const row = await this.db
      .selectFrom("bulk_job_items as i")
      .innerJoin("bulk_jobs as j", "j.job_id", "i.job_id")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("j.store_id", "=", storeId)
      .where("j.status", "=", "processing")
      .where("i.status", "=", "pending")
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async counts(storeId: string, jobId: string): Promise<{ succeeded: number; failed: number; pending: number }> {
    const rows = await this.db
      .selectFrom("bulk_job_items")
      .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
      .where("store_id", "=", storeId)
      .where("job_id", "=", jobId)
      .groupBy("status")
      .execute();
    const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    return { succeeded: by.succeeded ?? 0, failed: by.failed ?? 0, pending: by.pending ?? 0 };
  }

  /** Failed items per error code, with one message of each (for the job's summary). */
  async failureCodes(storeId: string, jobId: string): Promise<{ code: string; count: number; message: string }[]> {
    const rows = await this.db
      .selectFrom("bulk_job_items")
      .select(["error_code", (eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.min("error_message").as("message")])
      .where("store_id", "=", storeId)
      .where("job_id", "=", jobId)
      .where("status", "=", "failed")
      .groupBy("error_code")
      .orderBy("error_code")
      .execute();
    return rows.map((r) => ({ code: r.error_code ?? "error", count: r.n, message: r.message ?? "" }));
  }

  failures(storeId: string, jobId: string, limit = 1000): Promise<BulkItemRow[]> {
    return this.db
      .selectFrom("bulk_job_items")
      .selectAll()
      .where("store_id", "=", storeId)
      .where("job_id", "=", jobId)
      .where("status", "=", "failed")
      .orderBy("idx")
      .limit(limit)
      .execute();
  }

  /** Records an item's outcome once: only a pending item changes (a re-run job redoes nothing). */
  async settleItem(
    storeId: string,
    jobId: string,
    idx: number,
    outcome: Pick<BulkItemRow, "status" | "error_code" | "error_message">,
    now: number,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable("bulk_job_items")
      .set({ ...outcome, updated_at: now })
      .where("store_id", "=", storeId)
      .where("job_id", "=", jobId)
      .where("idx", "=", idx)
      .where("status", "=", "pending")
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async finish(storeId: string, jobId: string, status: BulkJobRow["status"], now: number): Promise<boolean> {
    const res = await this.db
      .updateTable("bulk_jobs")
      .set({ status, finished_at: now })
      .where("store_id", "=", storeId)
      .where("job_id", "=", jobId)
      .where("status", "=", "processing")
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }
}
