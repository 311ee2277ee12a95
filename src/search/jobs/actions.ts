// Bulk actions on products (issue 38, item 5; docs/api-search.md "Bulk actions"): delete a selection of
// products, or set its category, brand, tags or availability, as a bulk job like an import
// (./service.ts): 202 at once, one row per product, progress through GET /v1/jobs/{job_id}.
//
// The selection is fixed when the job is created: `ids` (each once), or the products a filter
// (search's pre-filters plus brand, tags and availability) matches at that moment, oldest first.
// Ids the store does not have — deleted meanwhile, or another store's — become items that fail
// with not_found; nothing outside the store is read or touched (every query is scoped by store).
//
// The handler works through the pending items in chunks of CHUNK, one transaction per chunk: a
// product's removal (ProductsService.removeMany: row, lexical row, vector, image, outbox) or its
// metadata change (ProductsService.writeBatch with `metadataOf`, the change applied to the metadata
// read under the store's lock) commits together with its item's status, so a job resumed after a
// crash or a stop redoes only what was not committed. Between chunks it yields to another store's
// job after its time slice (JobContext.turnOver) and hands itself back when the worker stops.
import type { AppContext } from "../../context/context.js";
import type { Tx } from "../../platform/db/index.js";
import { AppError, isAppError } from "../../platform/errors/catalogue.js";
import type { JobContext, JobHandler } from "../../platform/jobs/queue.js";
import type { Plan } from "../../tenancy/plans.js";
import type { Metadata, ProductsService } from "../products/service.js";
import { colorMatches, dominantOf, hasFilters, parseColorFilter, validateFilters, type MetadataFilter } from "../query/filters.js";
import type { BulkItemRow, BulkJobsRepository } from "./repository.js";
import { BULK_ACTION_MAX_MATCHED, type BulkChanges, type BulkUpdateBody, type SelectionFilter } from "./schemas.js";
import type { BulkJobsService } from "./service.js";
import "../../embeddings/errors.js"; // registers the error codes thrown here

export const BULK_ACTION_JOB_KIND = "bulk_action";
/** Products changed per transaction. */
const CHUNK = 100;
const PAGE = 1000;
const TAGS_MAX = 50;

/** The changes of an update job, kept in its queue payload. */
export interface UpdateChanges {
  set: BulkChanges;
  add_tags: string[];
  remove_tags: string[];
}

interface ActionPayload {
  jobId: string;
  action: "delete" | "update";
  changes?: UpdateChanges;
}

interface Selection {
  ids?: string[] | undefined;
  filter?: SelectionFilter | undefined;
  callback_url?: string | undefined;
  callback_secret?: string | undefined;
}

const invalid = (field: string, message: string, sentence: string) =>
  new AppError("validation_failed", sentence, { errors: [{ field, message }] });

/** Tags once each, ignoring case (the first spelling kept). */
function uniqueTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((t) => !seen.has(t.toLowerCase()) && (seen.add(t.toLowerCase()), true));
}

/** The metadata after an update job's changes. Throws (failing that product only) when the tags would exceed their limit. */
export function applyChanges(current: Metadata, changes: UpdateChanges): Metadata {
  const next: Metadata = { ...current };
  const { category, brand } = changes.set;
  if (category === null) delete next.category;
  else if (category !== undefined) next.category = category;
  if (brand === null) delete next.brand;
  else if (brand !== undefined) next.brand = brand;
  if (changes.set.tags === null) delete next.tags;
  else if (changes.set.tags !== undefined) next.tags = uniqueTags(changes.set.tags);
  if (changes.add_tags.length > 0 || changes.remove_tags.length > 0) {
    const own = Array.isArray(current.tags) && changes.set.tags === undefined ? current.tags.filter((t) => typeof t === "string") : [];
    const removed = new Set(changes.remove_tags.map((t) => t.toLowerCase()));
    const tags = uniqueTags([...(changes.set.tags ?? own), ...changes.add_tags]).filter((t) => !removed.has(t.toLowerCase()));
    if (tags.length > TAGS_MAX) {
      throw invalid(
        "add_tags",
        `would give the product ${tags.length} tags; at most ${TAGS_MAX} are accepted`,
        `The product would have ${tags.length} tags; at most ${TAGS_MAX} are accepted: remove some with remove_tags.`,
      );
    }
    next.tags = tags;
  }
  return next;
}

export class BulkActionsService {
  private readonly repo: BulkJobsRepository;
  private readonly products: ProductsService;
  private readonly jobs: BulkJobsService;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: BulkJobsRepository; products: ProductsService; jobs: BulkJobsService },
  ) {
    this.repo = deps.repo;
    this.products = deps.products;
    this.jobs = deps.jobs;
  }

  /** POST /v1/products/bulk-delete. */
  async delete(storeId: string, plan: Plan, input: Selection) {
    return this.start(storeId, plan, "delete", input, undefined);
  }

  /** POST /v1/products/bulk-update. */
  async update(storeId: string, plan: Plan, input: BulkUpdateBody) {
    const set = input.set ?? {};
    const changes: UpdateChanges = { set, add_tags: input.add_tags ?? [], remove_tags: input.remove_tags ?? [] };
    if (Object.keys(set).length === 0 && changes.add_tags.length === 0 && changes.remove_tags.length === 0) {
      throw invalid(
        "set",
        "must name at least one change",
        "Nothing to change: send set (category, brand, tags, availability), add_tags or remove_tags.",
      );
    }
    if (set.tags !== undefined && (changes.add_tags.length > 0 || changes.remove_tags.length > 0)) {
      throw invalid(
        "add_tags",
        "cannot be combined with set.tags",
        "set.tags replaces the tags: send it alone, or use add_tags and remove_tags without it.",
      );
    }
    return this.start(storeId, plan, "update", input, changes);
  }

  private async start(storeId: string, plan: Plan, action: "delete" | "update", input: Selection, changes: UpdateChanges | undefined) {
    const ids = await this.select(storeId, input);
    const accepted = await this.jobs.enqueue(storeId, plan, {
      action,
      kind: BULK_ACTION_JOB_KIND,
      payload: (jobId): ActionPayload => (changes ? { jobId, action, changes } : { jobId, action }),
      items: ids.map((id) => ({ product_id: id, payload: "{}" })),
      callback_url: input.callback_url,
      callback_secret: input.callback_secret,
    });
    return { ...accepted, action };
  }

  /** The product ids a request selects: its ids once each, or what its filter matches now. */
  private async select(storeId: string, input: Selection): Promise<string[]> {
    if (input.ids !== undefined && input.filter !== undefined) {
      throw invalid("filter", "cannot be combined with ids", "Send either ids or a filter, not both.");
    }
    if (input.ids !== undefined) return [...new Set(input.ids)];
    if (input.filter === undefined) {
      throw invalid(
        "ids",
        "is required when no filter is sent",
        "The selection is empty: send ids (up to 1000 product ids) or a filter (e.g. {category}).",
      );
    }
    const { brand, tags, availability, ...search } = input.filter;
    const metadata: MetadataFilter[] = [...(search.metadata_filters ?? [])];
    if (brand !== undefined) metadata.push({ field: "brand", operator: "eq", value: brand });
    for (const tag of tags ?? []) metadata.push({ field: "tags", operator: "contains", value: tag });
    const filters = { ...search, metadata_filters: metadata };
    if (!hasFilters(filters) && availability === undefined) {
      throw invalid(
        "filter",
        "must hold at least one condition",
        "The filter has no condition: name a category, brand, tags, price range, colour, availability or metadata_filters (or send ids).",
      );
    }
    validateFilters(filters);
    const color = filters.color === undefined ? undefined : parseColorFilter(filters.color);
    const ids: string[] = [];
    let after: { createdAt: number; productId: string } | undefined;
    for (;;) {
      const page = await this.repo.selectionPage(storeId, { ...filters, availability }, after, PAGE);
      for (const row of page) if (!color || colorMatches(color, row.color_name, dominantOf(row))) ids.push(row.product_id);
      if (ids.length > BULK_ACTION_MAX_MATCHED) {
        throw invalid(
          "filter",
          `matches more than ${BULK_ACTION_MAX_MATCHED} products`,
          `The filter matches more than ${BULK_ACTION_MAX_MATCHED} products, more than one job takes: narrow it (e.g. by category or brand) and send one job per part.`,
        );
      }
      const last = page[page.length - 1];
      if (!last || page.length < PAGE) break;
      after = { createdAt: Number(last.created_at), productId: last.product_id };
    }
    if (ids.length === 0) {
      throw invalid("filter", "matches no products", "The selection is empty: the filter matches no products of this store.");
    }
    return ids;
  }

  /** The queue handler. Idempotent: a second run only looks at items still pending. */
  handler(): JobHandler<ActionPayload> {
    return {
      kind: BULK_ACTION_JOB_KIND,
      maxAttempts: 5,
      run: async (job: JobContext<ActionPayload>) => {
        const { storeId } = job;
        const { jobId, action, changes } = job.payload;
        const items = await this.repo.pendingItems(storeId, jobId);
        for (let i = 0; i < items.length; i += CHUNK) {
          if (job.signal.aborted) {
            // Stopping: committed chunks stay; the rest goes back to the queue for the next start.
            await this.ctx.jobs.release(job.id);
            return;
          }
          // Past its time slice with another store waiting: to the back of the queue, items pending.
          if (job.turnOver.aborted) return "yield";
          const chunk = items.slice(i, i + CHUNK);
          if (action === "delete") await this.deleteChunk(storeId, jobId, chunk);
          else await this.updateChunk(storeId, jobId, chunk, changes!);
        }
        await this.jobs.finish(storeId, jobId, "completed");
      },
      onFailed: async (job) => {
        await this.jobs.finish(job.storeId, job.payload.jobId, "failed");
      },
    };
  }

  private settle(tx: Tx, storeId: string, jobId: string, item: BulkItemRow, error?: unknown): Promise<boolean> {
    const outcome =
      error === undefined
        ? { status: "succeeded" as const, error_code: null, error_message: null }
        : {
            status: "failed" as const,
            error_code: isAppError(error) ? error.code : "internal_error",
            error_message: isAppError(error) ? error.message : "The change failed.",
          };
    return this.repo.with(tx).settleItem(storeId, jobId, item.idx, outcome, this.ctx.clock.now());
  }

  private notFound(productId: string): AppError {
    return new AppError("not_found", `No product "${productId}" in this store.`, { product_id: productId });
  }

  private async deleteChunk(storeId: string, jobId: string, chunk: readonly BulkItemRow[]): Promise<void> {
    await this.products.removeMany(
      storeId,
      chunk.map((item) => ({
        productId: item.product_id,
        // Settled with its removal; an item a previous run settled is left alone.
        claim: async (tx: Tx, found: boolean) =>
          (await this.settle(tx, storeId, jobId, item, found ? undefined : this.notFound(item.product_id))) && found,
      })),
    );
  }

  private async updateChunk(storeId: string, jobId: string, chunk: readonly BulkItemRow[], changes: UpdateChanges): Promise<void> {
    await this.products.writeBatch(
      storeId,
      chunk.map((item) => ({
        productId: item.product_id,
        // Replaced inside the transaction by the current metadata and image (metadataOf).
        imageUrl: "",
        metadata: {},
        metadataOf: (current: Metadata) => applyChanges(current, changes),
        ...(changes.set.availability !== undefined ? { availability: changes.set.availability } : {}),
        claim: (tx: Tx) => this.settle(tx, storeId, jobId, item),
        onFailure: async (tx: Tx, error: unknown) => {
          // An outage is not the product's fault: the attempt fails and the queue retries it.
          if (isAppError(error) && (error.code === "service_unavailable" || error.code === "model_unavailable")) throw error;
          const missing = isAppError(error) && error.code === "not_found";
          await this.settle(tx, storeId, jobId, item, missing ? this.notFound(item.product_id) : error);
        },
      })),
    );
  }
}
