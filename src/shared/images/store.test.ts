// The image store adapter through the real product write path: where the copy of a product image
// goes (embedded default: a content-addressed file under DATA_DIR/images, the row's bytes empty;
// IMAGE_STORE=database: the row), that reindexing reads it back from there, that unreferenced
// files are collected while referenced ones stay, that a rolled-back write leaves only a file for
// the collector, and that existing blobs move into the filesystem store (adopt).
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createTestApp, describeEachDialect, type TestApp } from "../../../test/support/harness.js";
import { bearer, machineToken, registerStore, type RegisteredStore } from "../../../test/support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../../../test/support/servers.js";
import { createImageStore, imagePlacement } from "./store.js";

describeEachDialect("image store", (dialect) => {
  let t: TestApp;
  let host: ImageHost;
  let store: RegisteredStore;
  let token: string;
  let red: string;
  let blue: string;
  const root = () => path.join(t.dataDir, "images");
  const filesUnder = (dir: string): string[] =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => e.name)
      : [];

  before(async () => {
    // Filesystem on both dialects (PostgreSQL defaults to the database; the option selects it).
    t = await createTestApp({ dialect, model: true, env: { IMAGE_STORE: "filesystem" } });
    host = await startImageHost();
    red = host.put("/red.png", await solidImage("#d01010"));
    blue = host.put("/blue.png", await solidImage("#1030d0"));
    store = await registerStore(t);
    token = await machineToken(t.search, store);
  });
  after(async () => {
    await host.close();
    await t.close();
  });

  const post = (payload: object) => t.search.inject({ method: "POST", url: "/v1/products", headers: bearer(token), payload });
  const imageRow = (sha: string) =>
    t.ctx.database.db
      .selectFrom("product_images")
      .selectAll()
      .where("store_id", "=", store.clientId)
      .where("sha256", "=", sha)
      .executeTakeFirst();
  const productSha = async (id: string) =>
    (
      await t.ctx.database.db
        .selectFrom("products")
        .select("image_sha256")
        .where("store_id", "=", store.clientId)
        .where("product_id", "=", id)
        .executeTakeFirstOrThrow()
    ).image_sha256;

  test("keeps the copy as a content-addressed file under DATA_DIR/images, not in the database, and reindexing reads it", async () => {
    assert.equal(t.config.imageStore.path, root());
    assert.equal((await post({ product_id: "a", image_url: red })).statusCode, 201);
    assert.equal((await post({ product_id: "b", image_url: red })).statusCode, 201, "same image, second product");
    const sha = await productSha("a");
    const file = path.join(root(), encodeURIComponent(store.clientId), sha.slice(0, 2), sha);
    assert.ok(fs.existsSync(file), "the file exists");
    // Named by the digest of the downloaded image (the row's key); it holds the stored copy.
    assert.ok(fs.statSync(file).size > 0);
    const row = (await imageRow(sha))!;
    assert.equal(row.stored_in, "filesystem");
    assert.equal(Buffer.from(row.bytes).length, 0, "no bytes in the database");
    assert.deepEqual(filesUnder(root()), [sha], "one file for two products with the same image");
    const report = await t.services.reindexer.store(store.clientId, { all: true });
    assert.deepEqual(report.failed, []);
    assert.equal(report.reindexed, 2);
  });

  test("collects a file once no product references it, keeps referenced ones, and never collects young files", async () => {
    const redSha = await productSha("a");
    assert.equal((await post({ product_id: "c", image_url: blue })).statusCode, 201);
    const blueSha = await productSha("c");
    // Product c moves to the red image: the blue row goes with the write, its file stays until collected.
    assert.equal(
      (await t.search.inject({ method: "PUT", url: "/v1/products/c", headers: bearer(token), payload: { image_url: red } })).statusCode,
      200,
    );
    assert.equal(await imageRow(blueSha), undefined);
    assert.deepEqual(filesUnder(root()).sort(), [redSha, blueSha].sort());
    assert.equal(await t.ctx.imageStore.collect(), 0, "inside the grace period nothing goes");
    assert.equal(await t.ctx.imageStore.collect(0), 1);
    assert.deepEqual(filesUnder(root()), [redSha], "the referenced file stays");
    for (const id of ["a", "b", "c"]) {
      assert.equal((await t.search.inject({ method: "DELETE", url: `/v1/products/${id}`, headers: bearer(token) })).statusCode, 204);
    }
    assert.equal(await t.ctx.imageStore.collect(0), 1);
    assert.deepEqual(filesUnder(root()), []);
  });

  test("a write that rolls back after the file was written leaves a file only the collector removes", async () => {
    const bytes = await solidImage("#10d010");
    const sha = createHash("sha256").update(bytes).digest("hex");
    await assert.rejects(
      t.ctx.database.transaction(async (tx) => {
        const kept = await t.ctx.imageStore.put(store.clientId, sha, bytes);
        await tx
          .insertInto("product_images")
          .values({ store_id: store.clientId, sha256: sha, content_type: "image/png", width: 1, height: 1, ...kept, created_at: 0 })
          .execute();
        throw new Error("the product write failed");
      }),
      /the product write failed/,
    );
    assert.equal(await imageRow(sha), undefined);
    assert.deepEqual(filesUnder(root()), [sha]);
    assert.equal(await t.ctx.imageStore.collect(0), 1);
    assert.deepEqual(filesUnder(root()), []);
  });

  test("moves images kept in the database into the filesystem store and back (adopt), reads work in between", async () => {
    const bytes = await solidImage("#808000");
    const sha = createHash("sha256").update(bytes).digest("hex");
    // A row as written before the image store existed: bytes in the database.
    await t.ctx.database.db
      .insertInto("product_images")
      .values({ store_id: store.clientId, sha256: sha, content_type: "image/png", width: 1, height: 1, bytes, created_at: 0 })
      .execute();
    const before = (await imageRow(sha))!;
    assert.equal(before.stored_in, "database");
    assert.deepEqual(await t.ctx.imageStore.read(store.clientId, before), bytes);
    assert.equal(await t.ctx.imageStore.adopt(), 1);
    const moved = (await imageRow(sha))!;
    assert.equal(moved.stored_in, "filesystem");
    assert.equal(Buffer.from(moved.bytes).length, 0);
    assert.deepEqual(await t.ctx.imageStore.read(store.clientId, moved), bytes);
    assert.equal(await t.ctx.imageStore.adopt(), 0, "idempotent");
    // Switching back to the database store moves it into the row again.
    const database = createImageStore(t.ctx.database, "database", root());
    assert.equal(await database.adopt(), 1);
    const back = (await imageRow(sha))!;
    assert.equal(back.stored_in, "database");
    assert.deepEqual(Buffer.from(back.bytes), bytes);
    assert.equal(await database.collect(0), 1, "the file is unreferenced once the row holds the bytes");
    assert.deepEqual(await imagePlacement(t.ctx.database), { database: 1 });
    await t.ctx.database.db.deleteFrom("product_images").where("sha256", "=", sha).execute();
  });

  test("another store's image file is never read for this store", async () => {
    const other = await registerStore(t);
    const otherToken = await machineToken(t.search, other);
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/products",
      headers: bearer(otherToken),
      payload: { product_id: "x", image_url: blue },
    });
    assert.equal(res.statusCode, 201);
    const sha = (
      await t.ctx.database.db.selectFrom("products").select("image_sha256").where("store_id", "=", other.clientId).executeTakeFirstOrThrow()
    ).image_sha256;
    await assert.rejects(t.ctx.imageStore.read(store.clientId, { sha256: sha, bytes: Buffer.alloc(0), stored_in: "filesystem" }), /ENOENT/);
    assert.ok(fs.existsSync(path.join(root(), encodeURIComponent(other.clientId), sha.slice(0, 2), sha)));
  });
});
