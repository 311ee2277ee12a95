// HNSW snapshots of the embedded index: a store's built usearch index saved to disk so that the
// next start loads it instead of rebuilding (a rebuild is ~1 ms of CPU per 512-d vector).
//
// The database stays the source of truth; a snapshot is a cache that is only trusted when it
// matches what init() just read from the database:
//   - the manifest names the store, dimension, quantization and HNSW parameters in use;
//   - it lists every entry (HNSW key, product id, vector id) and the database holds exactly those
//     products with those vector ids (so the counts agree);
//   - a SHA-256 over the vectors, in entry order, equals the one over the vectors just loaded (a
//     vector edited behind the snapshot, even under the same id, is caught);
//   - the index file has the recorded size and SHA-256 (a truncated or corrupted file is caught
//     before usearch reads it: loading a damaged file can abort the process);
//   - after loading, the index holds the recorded number of entries.
// Anything else means "stale" or "corrupt": the snapshot is ignored (and removed) and the index is
// rebuilt in the background as without snapshots.
//
// Saving: usearch writes the index synchronously (~6 ms per 1,000 512-d f32 vectors measured on
// this box) into a temporary file; the file is fsynced, hashed off the event loop, the manifest is
// written and fsynced the same way, then both are renamed into place (index first; a crash between
// the renames leaves a manifest whose hash does not match, i.e. a rejected snapshot) and the
// folder is fsynced.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { Index } from "usearch";
import type { VectorGroup } from "./memory.js";

/** 2: the vectors' hash is SHA-256 (format 1 used SHA-1; such a snapshot is rebuilt once). */
const FORMAT = 2;

export interface SnapshotManifest {
  format: number;
  storeId: string;
  dim: number;
  /** usearch quantization and HNSW parameters the index was built with. */
  params: string;
  count: number;
  tombstones: number;
  indexBytes: number;
  indexSha256: string;
  vectorsSha256: string;
  keys: number[];
  products: string[];
  vectors: string[];
  savedAt: number;
}

export type LoadOutcome = "loaded" | "missing" | "stale" | "corrupt";

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 22 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await fs.open(file, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r").catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync().catch(() => undefined); // not every file system syncs directories
  } finally {
    await handle.close();
  }
}

export class SnapshotStore {
  constructor(
    readonly dir: string,
    private readonly params: string,
  ) {}

  private base(storeId: string, dim: number): string {
    const id = createHash("sha1").update(storeId).digest("hex").slice(0, 20);
    return path.join(this.dir, `${id}-${dim}`);
  }

  /** Writes the group's index if it is complete; false when there was nothing to save. */
  async save(storeId: string, group: VectorGroup, now: number): Promise<boolean> {
    const source = group.snapshotSource();
    if (!source) return false;
    await fs.mkdir(this.dir, { recursive: true });
    const base = this.base(storeId, group.dim);
    const tmpIndex = `${base}.usearch.tmp-${process.pid}`;
    const tmpManifest = `${base}.json.tmp-${process.pid}`;
    // Same tick: the index file, the entries and the vector hash describe one state of the group.
    source.index.save(tmpIndex);
    const vectorsSha256 = createHash("sha256").update(source.bytes).digest("hex");
    try {
      await fsyncFile(tmpIndex);
      const { size } = await fs.stat(tmpIndex);
      const manifest: SnapshotManifest = {
        format: FORMAT,
        storeId,
        dim: group.dim,
        params: this.params,
        count: source.keys.length,
        tombstones: source.tombstones,
        indexBytes: size,
        indexSha256: await sha256File(tmpIndex),
        vectorsSha256,
        keys: source.keys,
        products: source.products,
        vectors: source.vectors,
        savedAt: now,
      };
      await fs.writeFile(tmpManifest, JSON.stringify(manifest));
      await fsyncFile(tmpManifest);
      await fs.rename(tmpIndex, `${base}.usearch`);
      await fs.rename(tmpManifest, `${base}.json`);
      await fsyncDir(this.dir);
      return true;
    } finally {
      await fs.rm(tmpIndex, { force: true });
      await fs.rm(tmpManifest, { force: true });
    }
  }

  /**
   * Loads the group's snapshot when it matches the group's rows (just read from the database);
   * a stale or corrupt snapshot is deleted and the group is left untouched.
   */
  async load(storeId: string, group: VectorGroup): Promise<LoadOutcome> {
    const base = this.base(storeId, group.dim);
    const text = await fs.readFile(`${base}.json`, "utf8").catch(() => undefined);
    if (text === undefined) return "missing";
    const outcome = await this.check(storeId, group, base, text);
    if (outcome !== "loaded") await this.discard(storeId, group.dim);
    return outcome;
  }

  async discard(storeId: string, dim: number): Promise<void> {
    const base = this.base(storeId, dim);
    await fs.rm(`${base}.json`, { force: true });
    await fs.rm(`${base}.usearch`, { force: true });
  }

  private async check(storeId: string, group: VectorGroup, base: string, text: string): Promise<LoadOutcome> {
    let m: SnapshotManifest;
    try {
      m = JSON.parse(text) as SnapshotManifest;
    } catch {
      return "corrupt";
    }
    if (
      m.format !== FORMAT ||
      !Array.isArray(m.keys) ||
      !Array.isArray(m.products) ||
      !Array.isArray(m.vectors) ||
      typeof m.vectorsSha256 !== "string" ||
      typeof m.indexSha256 !== "string"
    )
      return "corrupt";
    if (m.keys.length !== m.count || m.products.length !== m.count || m.vectors.length !== m.count) return "corrupt";
    if (m.storeId !== storeId || m.dim !== group.dim || m.params !== this.params) return "stale";
    // The database must hold exactly these products with these vector ids and vectors.
    if (m.count !== group.size) return "stale";
    const version = group.version;
    const digest = group.digestOf(m.products, m.vectors);
    if (digest === undefined || digest !== m.vectorsSha256) return "stale";
    const file = `${base}.usearch`;
    const info = await fs.stat(file).catch(() => undefined);
    if (!info || info.size !== m.indexBytes) return "corrupt";
    if ((await sha256File(file)) !== m.indexSha256) return "corrupt";
    let index: Index;
    try {
      index = group.emptyIndex();
      index.load(file);
    } catch {
      return "corrupt";
    }
    if (index.size() !== m.count) return "corrupt";
    // The group may have changed while the file was read: then rebuild as usual.
    if (group.version !== version) return "stale";
    group.adoptIndex(index, m.keys, m.products, m.tombstones);
    return "loaded";
  }
}
