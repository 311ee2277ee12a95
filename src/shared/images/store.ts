// Where copies of product images live: the image store adapter (IMAGE_STORE).
//
//   - "filesystem" (the embedded default; on PostgreSQL a path every process shares, e.g. a
//     mounted volume): files under IMAGE_STORE_PATH (default DATA_DIR/images), content-addressed
//     as `<store id>/<first 2 hex>/<sha256>`. A file is written (temp file, flushed, renamed)
//     before the transaction that references it commits, so a committed row always finds its
//     file; a file whose transaction rolled back, or whose last product went, is unreferenced and
//     removed by collect() (a maintenance task) once older than the grace period.
//   - "database" (the PostgreSQL default, as before): the bytes stay in `product_images.bytes`.
//
// `product_images.stored_in` says where each image is, so a deployment that switches stores keeps
// reading old rows; adopt() moves existing images into the configured store in batches (run at
// start, in the background; idempotent). Rows kept on the filesystem hold an empty `bytes` value.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { Database } from "../../platform/db/index.js";

export type ImageStoreKind = "database" | "filesystem";

/** The part of a product_images row the store needs. */
export interface StoredImageRef {
  sha256: string;
  bytes: Buffer | Uint8Array;
  stored_in: string;
}

export interface ImageStore {
  kind: ImageStoreKind;
  /** Writes the image where this store keeps images (before the referencing transaction commits); returns the row's `bytes` and `stored_in`. */
  put(storeId: string, sha256: string, bytes: Buffer): Promise<{ bytes: Buffer; stored_in: ImageStoreKind }>;
  /** The bytes of a stored image, wherever its row says it is. */
  read(storeId: string, image: StoredImageRef): Promise<Buffer>;
  /** Removes files no row references, older than `graceMs`. Returns how many. */
  collect(graceMs?: number): Promise<number>;
  /** Moves images kept elsewhere into this store, `batch` at a time. Returns how many moved. */
  adopt(batch?: number): Promise<number>;
}

const EMPTY = Buffer.alloc(0);
const SHA = /^[0-9a-f]{64}$/;
/** Files younger than this are never collected: their transaction may still be open. */
export const DEFAULT_GRACE_MS = 60 * 60_000;

export function createImageStore(database: Database, kind: ImageStoreKind, root: string): ImageStore {
  const files = new ImageFiles(root);
  const adopt = (batch = 200) => adoptInto(database, kind, files, batch);
  if (kind === "database") {
    return {
      kind,
      put: async (_storeId, _sha256, bytes) => ({ bytes, stored_in: "database" }),
      read: (storeId, image) => readImage(files, storeId, image),
      // Files left from an earlier filesystem configuration are collected once adopted.
      collect: (graceMs = DEFAULT_GRACE_MS) => files.collect(database, graceMs),
      adopt,
    };
  }
  return {
    kind,
    put: async (storeId, sha256, bytes) => {
      await files.write(storeId, sha256, bytes);
      return { bytes: EMPTY, stored_in: "filesystem" };
    },
    read: (storeId, image) => readImage(files, storeId, image),
    collect: (graceMs = DEFAULT_GRACE_MS) => files.collect(database, graceMs),
    adopt,
  };
}

async function readImage(files: ImageFiles, storeId: string, image: StoredImageRef): Promise<Buffer> {
  if (image.stored_in === "filesystem") return files.read(storeId, image.sha256);
  return Buffer.from(image.bytes);
}

async function adoptInto(database: Database, kind: ImageStoreKind, files: ImageFiles, batch: number): Promise<number> {
  let moved = 0;
  for (;;) {
    const rows = await database.db
      .selectFrom("product_images")
      .select(["store_id", "sha256", "bytes", "stored_in"])
      .where("stored_in", "=", kind === "filesystem" ? "database" : "filesystem")
      .limit(batch)
      .execute();
    if (rows.length === 0) return moved;
    for (const row of rows) {
      if (kind === "filesystem") {
        await files.write(row.store_id, row.sha256, Buffer.from(row.bytes));
        await database.db
          .updateTable("product_images")
          .set({ bytes: EMPTY, stored_in: "filesystem" })
          .where("store_id", "=", row.store_id)
          .where("sha256", "=", row.sha256)
          .where("stored_in", "=", "database")
          .execute();
      } else {
        const bytes = await files.read(row.store_id, row.sha256);
        await database.db
          .updateTable("product_images")
          .set({ bytes, stored_in: "database" })
          .where("store_id", "=", row.store_id)
          .where("sha256", "=", row.sha256)
          .where("stored_in", "=", "filesystem")
          .execute();
      }
      moved++;
    }
  }
}

/** Content-addressed image files under one folder. */
export class ImageFiles {
  constructor(readonly root: string) {}

  pathOf(storeId: string, sha256: string): string {
    if (!SHA.test(sha256)) throw new Error(`not a sha256 hex digest: ${sha256}`);
    return path.join(this.root, encodeURIComponent(storeId), sha256.slice(0, 2), sha256);
  }

  async write(storeId: string, sha256: string, bytes: Buffer): Promise<void> {
    const file = this.pathOf(storeId, sha256);
    // Content-addressed: a file that exists already holds these bytes.
    const exists = await fs.promises.access(file).then(
      () => true,
      () => false,
    );
    if (exists) return;
    await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    await fs.promises.writeFile(temp, bytes, { mode: 0o600, flush: true });
    await fs.promises.rename(temp, file);
  }

  async read(storeId: string, sha256: string): Promise<Buffer> {
    return fs.promises.readFile(this.pathOf(storeId, sha256));
  }

  /** Deletes files (and temp files) older than graceMs that no product_images row stored on the filesystem references. */
  async collect(database: Database, graceMs: number): Promise<number> {
    if (!fs.existsSync(this.root)) return 0;
    const cutoff = Date.now() - graceMs;
    let removed = 0;
    for (const storeDir of await fs.promises.readdir(this.root)) {
      const storeId = decodeURIComponent(storeDir);
      const files: { name: string; file: string }[] = [];
      for (const prefix of await fs.promises.readdir(path.join(this.root, storeDir)).catch(() => [])) {
        const dir = path.join(this.root, storeDir, prefix);
        for (const name of await fs.promises.readdir(dir).catch(() => [])) {
          const file = path.join(dir, name);
          const stat = await fs.promises.stat(file).catch(() => undefined);
          if (stat?.isFile() && stat.mtimeMs < cutoff) files.push({ name, file });
        }
      }
      for (let i = 0; i < files.length; i += 500) {
        const chunk = files.slice(i, i + 500);
        const digests = chunk.map((f) => f.name).filter((n) => SHA.test(n));
        const kept = new Set(
          digests.length === 0
            ? []
            : (
                await database.db
                  .selectFrom("product_images")
                  .select("sha256")
                  .where("store_id", "=", storeId)
                  .where("sha256", "in", digests)
                  .where("stored_in", "=", "filesystem")
                  .execute()
              ).map((r) => r.sha256),
        );
        for (const f of chunk) {
          if (kept.has(f.name)) continue;
          await fs.promises.rm(f.file, { force: true });
          removed++;
        }
      }
    }
    return removed;
  }
}

/** product_images rows per place (tests, `cli`). */
export async function imagePlacement(database: Database): Promise<Record<string, number>> {
  const { rows } = await sql<{
    stored_in: string;
    n: number | string;
  }>`SELECT stored_in, count(*) AS n FROM product_images GROUP BY stored_in`.execute(database.db);
  return Object.fromEntries(rows.map((r) => [r.stored_in, Number(r.n)]));
}
