// HNSW snapshots of the embedded index: saved complete, loaded at start when they match the
// database (no rebuild, same answers), and never trusted when the file is truncated or corrupted
// or the database changed behind them.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { EmbeddedVectorIndex } from "./embedded.js";
import { resolveOptions } from "./index.js";
import { toBlob } from "./math.js";
import { clusteredVectors, queriesLike, type ClusteredData } from "./synthetic.js";
import { openTestDatabase, type TestDatabase } from "./test-support.js";
import { createStores } from "../../test/support/database.js";

const pid = (i: number) => `p${String(i).padStart(5, "0")}`;

describe("embedded index: HNSW snapshots", () => {
  let t: TestDatabase;
  let dir: string;
  let data: ClusteredData;
  let reference: string[][];
  const queries: Float32Array[] = [];

  async function open(): Promise<EmbeddedVectorIndex> {
    const index = new EmbeddedVectorIndex(
      t.database,
      resolveOptions({ bruteForceThreshold: 500, snapshotDir: dir, snapshotIntervalMs: 3_600_000 }, "sqlite"),
    );
    await index.init();
    return index;
  }
  const answers = async (index: EmbeddedVectorIndex) => {
    const out: string[][] = [];
    for (const q of queries) out.push((await index.search("s", q, { k: 10 })).map((m) => m.productId));
    return out;
  };
  const files = () => fs.readdirSync(dir).sort();
  const indexFile = () =>
    path.join(
      dir,
      files().find((f) => f.endsWith(".usearch"))!,
    );

  before(async () => {
    t = await openTestDatabase("sqlite");
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-snapshots-"));
    await createStores(t.database, ["s"]);
    data = clusteredVectors({ count: 2_000, dim: 32, clusters: 20, seed: 21 });
    queries.push(...queriesLike(data, 20, 22));
    const index = await open();
    const upserted = Array.from({ length: data.count }, (_, i) => ({
      vectorId: `v${i}`,
      productId: pid(i),
      model: "m",
      vector: data.row(i),
    }));
    await t.database.transaction(async (tx) => {
      for (const item of upserted) await index.upsert(tx, "s", item);
    });
    index.afterCommit("s", { upserted });
    await index.settled();
    assert.equal(index.memoryStats("s")[0]!.indexed, true);
    reference = await answers(index);
    assert.equal(index.snapshotOutcomes.get("s/32"), undefined, "nothing to load the first time");
    await index.close(); // saves the built index
    assert.deepEqual(
      files().map((f) => path.extname(f)),
      [".json", ".usearch"],
    );
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a matching snapshot is loaded at start: indexed at once, same answers as before the restart", async () => {
    const index = await open();
    try {
      assert.equal(index.snapshotOutcomes.get("s/32"), "loaded");
      assert.deepEqual(index.memoryStats("s"), [{ dim: 32, size: 2_000, indexed: true }], "no background rebuild needed");
      assert.deepEqual(await answers(index), reference);
      assert.equal(index.lastPath, "hnsw");
      // Writes after loading work on top of the loaded index (keys continue after the snapshot's).
      const extra = data.row(5).map((x, i) => (i === 0 ? x + 0.01 : x));
      await t.database.transaction((tx) => index.upsert(tx, "s", { vectorId: "v-new", productId: "p-new", model: "m", vector: extra }));
      index.afterCommit("s", { upserted: [{ vectorId: "v-new", productId: "p-new", vector: extra }] });
      await index.settled();
      const top = (await index.search("s", extra, { k: 2 })).map((m) => m.productId);
      assert.deepEqual(top, ["p-new", pid(5)]);
      await t.database.transaction((tx) => index.remove(tx, "s", ["p-new"]));
      index.afterCommit("s", { removedProductIds: ["p-new"] });
    } finally {
      await index.close();
    }
  });

  test("a truncated index file is detected, ignored and rebuilt", async () => {
    const file = indexFile();
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const index = await open();
    try {
      assert.equal(index.snapshotOutcomes.get("s/32"), "corrupt");
      assert.equal(index.memoryStats("s")[0]!.indexed, false, "rebuilding in the background");
      await index.settled();
      assert.deepEqual(await answers(index), reference);
    } finally {
      await index.close(); // saves a fresh snapshot
    }
    const again = await open();
    assert.equal(again.snapshotOutcomes.get("s/32"), "loaded");
    await again.close();
  });

  test("a flipped byte in the index file or a damaged manifest is detected", async () => {
    const file = indexFile();
    const bytes = fs.readFileSync(file);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    fs.writeFileSync(file, bytes);
    let index = await open();
    assert.equal(index.snapshotOutcomes.get("s/32"), "corrupt");
    await index.settled();
    await index.close();
    const manifest = path.join(
      dir,
      files().find((f) => f.endsWith(".json"))!,
    );
    fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").slice(0, 100));
    index = await open();
    assert.equal(index.snapshotOutcomes.get("s/32"), "corrupt");
    await index.settled();
    assert.deepEqual(await answers(index), reference);
    await index.close();
  });

  test("a manifest of another format (format 1 hashed the vectors with SHA-1) or a duplicated entry is not trusted", async () => {
    const manifest = path.join(
      dir,
      files().find((f) => f.endsWith(".json"))!,
    );
    const good = fs.readFileSync(manifest, "utf8");
    const m = JSON.parse(good) as { format: number; products: string[]; vectors: string[] };
    fs.writeFileSync(manifest, JSON.stringify({ ...m, format: 1 }));
    let index = await open();
    assert.equal(index.snapshotOutcomes.get("s/32"), "corrupt");
    await index.settled();
    await index.close();
    // The vectors' hash left out: never trusted (a missing field must not compare equal to a failed check).
    const { vectorsSha256: _dropped, ...withoutHash } = JSON.parse(good) as Record<string, unknown>;
    fs.writeFileSync(manifest, JSON.stringify(withoutHash));
    index = await open();
    assert.equal(index.snapshotOutcomes.get("s/32"), "corrupt");
    await index.settled();
    await index.close();
    // The same product listed twice (and another left out): the counts agree, the entries do not.
    const again = JSON.parse(fs.readFileSync(manifest, "utf8")) as typeof m;
    again.products[1] = again.products[0]!;
    again.vectors[1] = again.vectors[0]!;
    fs.writeFileSync(manifest, JSON.stringify(again));
    index = await open();
    assert.equal(index.snapshotOutcomes.get("s/32"), "stale");
    await index.settled();
    assert.deepEqual(await answers(index), reference);
    await index.close();
  });

  test("a database edited behind the snapshot (a vector changed under its id, a row deleted) makes it stale", async () => {
    // Change one stored vector without changing its vector id.
    const changed = data.row(7).map((x) => -x);
    await t.database.db
      .updateTable("product_vectors")
      .set({ embedding: toBlob(changed) })
      .where("store_id", "=", "s")
      .where("product_id", "=", pid(7))
      .execute();
    let index = await open();
    assert.equal(index.snapshotOutcomes.get("s/32"), "stale");
    await index.settled();
    assert.equal((await index.search("s", changed, { k: 1 }))[0]!.productId, pid(7), "the rebuilt index has the edited vector");
    await index.close();
    // Delete a row behind the (fresh) snapshot.
    await t.database.db.deleteFrom("product_vectors").where("store_id", "=", "s").where("product_id", "=", pid(8)).execute();
    index = await open();
    assert.equal(index.snapshotOutcomes.get("s/32"), "stale");
    assert.equal(index.memoryStats("s")[0]!.size, 1_999);
    await index.settled();
    assert.ok(!(await index.search("s", data.row(8), { k: 5 })).some((m) => m.productId === pid(8)));
    await index.close();
  });
});
