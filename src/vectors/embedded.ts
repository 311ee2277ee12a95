// Embedded adapter: SQLite is the source of truth, memory.ts the search structure.
//
// Writes go to SQLite inside the caller's transaction (upsert/remove); once it committed the
// caller hands the same changes to afterCommit, which updates the in-memory groups synchronously
// (a few microseconds per vector; HNSW insertion happens in the background, see memory.ts). A
// crash between commit and afterCommit loses nothing: init() rebuilds memory from SQLite.
//
// One process owns an embedded database: writes made by another process against the same SQLite
// file are not seen until restart.
import type { Database, Executor } from "../platform/db/index.js";
import type { ResolvedOptions, VectorChanges, VectorIndex, VectorMatch, VectorSearchOptions, VectorUpsert, ModelCount } from "./types.js";
import { mergeAlso } from "./types.js";
import { fromBlob, normalized } from "./math.js";
import { isDeferred } from "./candidates.js";
import { VectorGroup, type GroupOptions, type SearchPath } from "./memory.js";
import { VectorRepository, type StoredAttributesRow } from "./repository.js";
import { FilteredProducts, type AttributeFilter, type ProductAttributes } from "./attributes.js";
import { SnapshotStore, type LoadOutcome } from "./snapshot.js";
import { ScalarKind } from "usearch";

const LOAD_PAGE = 2_000;

function attributesOf(row: StoredAttributesRow): ProductAttributes {
  return {
    category: row.category,
    price: row.price === null ? null : Number(row.price),
    colorName: row.color_name,
    dominantColors: row.dominant_colors,
    metadata: row.metadata,
  };
}

export class EmbeddedVectorIndex implements VectorIndex {
  private readonly repo: VectorRepository;
  private readonly stores = new Map<string, Map<number, VectorGroup>>();
  private readonly groupOptions: GroupOptions;
  private initialised = false;
  /** Reconciliations in flight: product key → token of the latest one. */
  private readonly inflight = new Map<string, number>();
  private readonly tasks = new Set<Promise<void>>();
  /** The path the last search took (tests and the benchmark look at it). */
  lastPath: SearchPath | "none" = "none";
  private readonly snapshots: SnapshotStore | null;
  /** Group version at its last snapshot save or load. */
  private readonly saved = new WeakMap<VectorGroup, number>();
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();
  /** What init() did with each group's snapshot ("store/dim" → outcome), for tests and the start-up log. */
  snapshotOutcomes = new Map<string, LoadOutcome>();
  /** How long the last init() spent on each step, in ms (the benchmark and the start-up log print it). */
  initTimings = { vectorsMs: 0, attributesMs: 0, snapshotsMs: 0 };

  constructor(
    database: Database,
    private readonly options: ResolvedOptions,
  ) {
    this.repo = new VectorRepository(database);
    this.groupOptions = {
      bruteForceThreshold: options.bruteForceThreshold,
      exactBudget: options.exactBudget,
      minAnnSelectivity: options.minAnnSelectivity,
      oversample: options.oversample,
      annCostRatio: options.annCostRatio,
      connectivity: options.connectivity,
      expansionAdd: options.expansionAdd,
      expansionSearch: options.expansionSearch,
      sliceMs: options.sliceMs,
      quantization: { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 }[options.quantization],
    };
    this.snapshots = options.snapshotDir
      ? new SnapshotStore(options.snapshotDir, `${options.quantization}/M${options.connectivity}/efc${options.expansionAdd}`)
      : null;
  }

  async upsert(tx: Executor, storeId: string, item: VectorUpsert): Promise<void> {
    await this.repo.upsert(tx, storeId, item, this.options.clock.now());
  }

  async remove(tx: Executor, storeId: string, productIds: string[]): Promise<void> {
    await this.repo.remove(tx, storeId, productIds);
  }

  /**
   * Applies committed changes to memory. The two lists carry no order between them, so a product
   * named in both (replaced and removed in one transaction, in some order) is taken out of memory
   * now and then set to whatever the database holds (asynchronously; settled() waits for it).
   */
  afterCommit(storeId: string, changes: VectorChanges): void {
    const removed = new Set(changes.removedProductIds ?? []);
    const upserted = changes.upserted ?? [];
    const conflicts = upserted.filter((item) => removed.has(item.productId)).map((item) => item.productId);
    for (const productId of [...removed, ...upserted.map((item) => item.productId)]) this.touch(storeId, productId);
    for (const productId of removed) this.forget(storeId, productId);
    for (const item of upserted) {
      if (removed.has(item.productId)) continue;
      let unit: Float32Array;
      try {
        unit = normalized(item.vector);
      } catch {
        continue; // upsert() rejected this vector already, so it was never committed
      }
      this.place(storeId, item.productId, item.vectorId, unit);
    }
    // The fields live only beside the vectors (one copy): set once the rows are in place.
    for (const { productId, attributes } of changes.attributes ?? []) {
      if (!removed.has(productId)) this.setAttributes(storeId, productId, attributes);
    }
    if (conflicts.length > 0) this.reconcile(storeId, [...new Set(conflicts)]);
    // A writer that did not pass the fields of a new product: read them (settled() waits for it).
    const unknown = upserted
      .filter((item) => !removed.has(item.productId) && this.attributesOf(storeId, item.productId) === undefined)
      .map((item) => item.productId);
    if (unknown.length > 0) this.loadAttributes(storeId, unknown);
  }

  /** The fields kept for a product, from the group holding its vector. */
  private attributesOf(storeId: string, productId: string): ProductAttributes | undefined {
    for (const group of this.stores.get(storeId)?.values() ?? []) {
      const attributes = group.attributesOf(productId);
      if (attributes !== undefined) return attributes;
    }
    return undefined;
  }

  private setAttributes(storeId: string, productId: string, attributes: ProductAttributes): void {
    for (const group of this.stores.get(storeId)?.values() ?? []) group.setAttributes(productId, attributes);
  }

  private loadAttributes(storeId: string, productIds: string[]): void {
    const task = this.repo
      .attributesOf(storeId, productIds)
      .then((rows) => {
        for (const row of rows) {
          // A newer afterCommit may have brought them meanwhile.
          if (this.attributesOf(storeId, row.product_id) === undefined) this.setAttributes(storeId, row.product_id, attributesOf(row));
        }
      })
      .catch(() => undefined) // unreachable database: those products pass no filter until the next start
      .finally(() => this.tasks.delete(task));
    this.tasks.add(task);
  }

  async search(storeId: string, query: Float32Array, options: VectorSearchOptions): Promise<VectorMatch[]> {
    if (!this.initialised) throw new Error("Vector index used before init().");
    const unit = normalized(query);
    const group = this.stores.get(storeId)?.get(unit.length);
    const k = Math.floor(options.k);
    const asked = options.also ?? new Set<string>();
    if (!group || (k <= 0 && asked.size === 0)) {
      this.lastPath = "none";
      return [];
    }
    // Filters are evaluated in memory here (filterCandidates); only PostgreSQL leaves them in the database.
    if (options.candidates && isDeferred(options.candidates)) throw new Error("The embedded index takes candidates as a set of ids.");
    // The k nearest apart from the products asked for by id (VectorSearchOptions.also), which the
    // group leaves out itself (VectorGroup.search), then those by id; one scan for both when they
    // are a large share of an unfiltered group's rows (VectorGroup.nearestAndAsked).
    const both = asked.size > 0 && !options.candidates ? group.nearestAndAsked(unit, k, asked) : undefined;
    if (both) {
      this.lastPath = k > 0 ? group.lastPath : "none";
      return mergeAlso(both.nearest, both.asked);
    }
    const hits = k > 0 ? group.search(unit, k, options.candidates, asked) : [];
    this.lastPath = k > 0 ? group.lastPath : "none";
    if (asked.size === 0) return hits;
    return mergeAlso(hits, group.search(unit, asked.size, asked));
  }

  filterCandidates(storeId: string, filter: AttributeFilter): ReadonlySet<string> | undefined {
    if (!this.initialised) return undefined;
    return new FilteredProducts(filter, [...(this.stores.get(storeId)?.values() ?? [])]);
  }

  attributes(storeId: string, productIds: readonly string[]): Map<string, ProductAttributes> | undefined {
    if (!this.initialised) return undefined;
    const out = new Map<string, ProductAttributes>();
    for (const id of productIds) {
      const a = this.attributesOf(storeId, id);
      if (a !== undefined) out.set(id, a);
    }
    return out;
  }

  get(storeId: string, productId: string): Promise<Float32Array | undefined> {
    return this.repo.get(storeId, productId);
  }

  count(storeId: string): Promise<number> {
    return this.repo.count(storeId);
  }

  countByModel(storeId: string): Promise<ModelCount[]> {
    return this.repo.countByModel(storeId);
  }

  /** Loads every vector from SQLite (again, if called twice), then starts HNSW builds. */
  async init(): Promise<void> {
    this.dropAll();
    let started = performance.now();
    // Sized first: growing a million-row matrix step by step copied it ~5 times over.
    for (const c of await this.repo.groupCounts()) this.group(c.storeId, c.dim).reserve(c.count);
    let after: { storeId: string; vectorId: string } | null = null;
    for (;;) {
      const rows = await this.repo.page(after, LOAD_PAGE);
      for (const row of rows) this.group(row.store_id, row.dim).loadRow(row.product_id, row.vector_id, row.embedding);
      const last = rows.at(-1);
      if (!last || rows.length < LOAD_PAGE) break;
      after = { storeId: last.store_id, vectorId: last.vector_id };
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.initTimings.vectorsMs = performance.now() - started;
    started = performance.now();
    // Then the filterable fields, into the rows of the vectors just loaded.
    let from: { storeId: string; productId: string } | null = null;
    for (;;) {
      const rows = await this.repo.attributesPage(from, LOAD_PAGE);
      for (const row of rows) this.setAttributes(row.store_id, row.product_id, attributesOf(row));
      const last = rows.at(-1);
      if (!last || rows.length < LOAD_PAGE) break;
      from = { storeId: last.store_id, productId: last.product_id };
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.initTimings.attributesMs = performance.now() - started;
    started = performance.now();
    this.snapshotOutcomes.clear();
    if (this.snapshots) {
      for (const [storeId, groups] of this.stores) {
        for (const group of groups.values()) {
          if (group.size <= this.options.bruteForceThreshold) continue;
          const outcome = await this.snapshots.load(storeId, group).catch((): LoadOutcome => "corrupt");
          this.snapshotOutcomes.set(`${storeId}/${group.dim}`, outcome);
          if (outcome === "loaded") this.saved.set(group, group.version);
        }
      }
      clearInterval(this.saveTimer);
      this.saveTimer = setInterval(() => void this.saveSnapshots(), this.options.snapshotIntervalMs);
      this.saveTimer.unref();
    }
    this.initTimings.snapshotsMs = performance.now() - started;
    for (const groups of this.stores.values()) for (const group of groups.values()) group.schedule();
    this.initialised = true;
  }

  /**
   * Saves the HNSW index of every group that changed since its last save and is completely built
   * (no-op without a snapshot folder). Runs by itself every `snapshotIntervalMs` and at close().
   */
  saveSnapshots(): Promise<void> {
    const snapshots = this.snapshots;
    if (!snapshots) return Promise.resolve();
    this.saving = this.saving.then(async () => {
      for (const [storeId, groups] of this.stores) {
        for (const group of groups.values()) {
          if (this.saved.get(group) === group.version) continue;
          const version = group.version;
          try {
            if (await snapshots.save(storeId, group, this.options.clock.now())) this.saved.set(group, version);
          } catch {
            // A failed save (disk full, folder removed) only costs a rebuild at the next start.
          }
        }
      }
    });
    return this.saving;
  }

  async settled(): Promise<void> {
    for (;;) {
      if (this.tasks.size > 0) {
        await Promise.all([...this.tasks]);
        continue;
      }
      const busy = [...this.stores.values()].flatMap((groups) => [...groups.values()]).filter((g) => g.busy);
      if (busy.length === 0) return;
      await Promise.all(busy.map((g) => g.idle()));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.saveTimer);
    this.saveTimer = undefined;
    if (this.initialised) await this.saveSnapshots();
    this.dropAll();
    this.initialised = false;
  }

  /** In-memory vector count of a store per dimension (tests compare it with the database). */
  memoryStats(storeId: string): { dim: number; size: number; indexed: boolean }[] {
    return [...(this.stores.get(storeId)?.values() ?? [])].map((g) => ({ dim: g.dim, size: g.size, indexed: g.indexed }));
  }

  private place(storeId: string, productId: string, vectorId: string, unit: Float32Array): void {
    const group = this.group(storeId, unit.length);
    // One vector per product: a vector of another dimension (previous model) is replaced; its fields move along.
    let attributes: ProductAttributes | undefined;
    for (const other of this.stores.get(storeId)!.values()) {
      if (other === group) continue;
      attributes ??= other.attributesOf(productId);
      other.remove(productId);
    }
    group.upsert(productId, vectorId, unit, attributes);
  }

  private forget(storeId: string, productId: string): void {
    for (const group of this.stores.get(storeId)?.values() ?? []) group.remove(productId);
  }

  /** A newer afterCommit supersedes a reconciliation in flight for the same product. */
  private touch(storeId: string, productId: string): void {
    const key = `${storeId}\u0000${productId}`;
    if (this.inflight.has(key)) this.inflight.set(key, this.inflight.get(key)! + 1);
  }

  private reconcile(storeId: string, productIds: string[]): void {
    const tokens = productIds.map((productId) => {
      const key = `${storeId}\u0000${productId}`;
      const token = (this.inflight.get(key) ?? 0) + 1;
      this.inflight.set(key, token);
      return { productId, key, token };
    });
    const task = this.repo
      .rows(storeId, productIds)
      .then((rows) => {
        const byProduct = new Map(rows.map((r) => [r.product_id, r]));
        for (const { productId, key, token } of tokens) {
          if (this.inflight.get(key) !== token) continue;
          this.inflight.delete(key);
          const row = byProduct.get(productId);
          if (row) this.place(storeId, productId, row.vector_id, fromBlob(row.embedding));
          else this.forget(storeId, productId);
        }
        const unknown = tokens
          .filter(({ productId }) => byProduct.has(productId) && this.attributesOf(storeId, productId) === undefined)
          .map((t) => t.productId);
        if (unknown.length > 0) this.loadAttributes(storeId, unknown);
      })
      .catch(() => {
        // The database is unreachable: memory keeps the product out until the next start.
        for (const { key, token } of tokens) if (this.inflight.get(key) === token) this.inflight.delete(key);
      })
      .finally(() => this.tasks.delete(task));
    this.tasks.add(task);
  }

  private group(storeId: string, dim: number): VectorGroup {
    let groups = this.stores.get(storeId);
    if (!groups) {
      groups = new Map();
      this.stores.set(storeId, groups);
    }
    let group = groups.get(dim);
    if (!group) {
      group = new VectorGroup(dim, this.groupOptions);
      groups.set(dim, group);
    }
    return group;
  }

  private dropAll(): void {
    for (const groups of this.stores.values()) for (const group of groups.values()) group.close();
    this.stores.clear();
  }
}
