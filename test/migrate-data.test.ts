// `migrate-data`: a store set built through the real Search API on the embedded default (SQLite)
// is copied into PostgreSQL (fresh schemas of TEST_DATABASE_URL), and a PostgreSQL-backed app over
// the copy answers like the original: same top text-search result, logins, client secrets and
// issued tokens still work, jobs, webhooks, deliveries and feedback analytics are there.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateData, MigrateDataError, type MigrateDataReport } from "../src/context/migrate-data.js";
import { createTestApp, openSearchApp, type SearchInstance, type TestApp } from "./support/harness.js";
import { dropPgSchemas, randomPgSchema, testConfig, withPg } from "./support/database.js";
import { bearer, freshIp, loginToken, machineToken, registerStore, type RegisteredStore } from "./support/factories.js";
import { solidImage, startImageHost, startReceiver, type ImageHost, type Receiver } from "./support/servers.js";
import { runEntry } from "./support/process.js";
import { testEnv } from "./support/env.js";

const HOOK_SECRET = "whsec-migrate-0123456789";
const COLOURS: Record<string, string> = { red: "#d01010", green: "#10b020", blue: "#1030d0", yellow: "#e0d020" };

interface Built {
  store: RegisteredStore;
  sqliteToken: string;
  /** Top result of POST /v1/search/text per query, on SQLite. */
  top: Record<string, string>;
  jobId: string;
  webhookId: string;
  clicks: number;
  products: number;
}

const schemas: string[] = [];
const freshSchema = () => {
  const s = randomPgSchema("mig");
  schemas.push(s);
  return s;
};

/** A PostgreSQL-backed Search API over `schema`, sharing the SQLite deployment's DATA_DIR (signing key). */
async function openPgApp(dataDir: string, schema: string): Promise<SearchInstance> {
  return openSearchApp(await testConfig({ dialect: "postgres", dataDir }, { model: true }), schema);
}

const ok = (report: MigrateDataReport) => {
  const bad = [...report.tables.filter((t) => !t.ok), ...report.vectors.filter((v) => !v.ok)];
  assert.deepEqual(bad, [], "every table and vector count matches");
  assert.equal(report.ok, true);
};

const count = (report: MigrateDataReport, table: string) => report.tables.find((t) => t.table === table)!.target;

const run = !testEnv.databaseUrl ? (testEnv.ci ? "fail" : "skip") : "run";

describe(
  "migrate-data: SQLite store set → PostgreSQL",
  { ...(run === "skip" ? { skip: "TEST_DATABASE_URL not set: start PostgreSQL 15 with pgvector (see .ci/run)" } : {}) },
  () => {
    let dataDir: string;
    let t: TestApp;
    let host: ImageHost;
    let receiver: Receiver;
    const built: Built[] = [];

    before(async () => {
      if (run === "fail") throw new Error("CI run without TEST_DATABASE_URL: migrate-data cannot be tested");
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-migrate-"));
      t = await createTestApp({ dialect: "sqlite", model: true, env: { DATA_DIR: dataDir } });
      host = await startImageHost();
      receiver = await startReceiver(HOOK_SECRET);
      const urls: Record<string, string> = {};
      for (const [name, hex] of Object.entries(COLOURS)) urls[name] = host.put(`/${name}.png`, await solidImage(hex));

      for (const [s, prefix] of [
        ["a", "alpha"],
        ["b", "beta"],
      ] as const) {
        const store = await registerStore(t, { name: `Store ${prefix}` });
        const token = await machineToken(t.search, store);
        const post = (url: string, payload: object) => t.search.inject({ method: "POST", url, headers: bearer(token), payload });
        const hook = await post("/v1/search/webhooks", { url: `${receiver.url}/${s}`, events: ["product.indexed"], secret: HOOK_SECRET });
        assert.equal(hook.statusCode, 201, hook.body);
        for (const name of Object.keys(COLOURS)) {
          const res = await post("/v1/products", {
            product_id: `${prefix}-${name}`,
            image_url: urls[name],
            metadata: { name: `${name} shirt`, category: "shirts", price: 20 },
          });
          assert.equal(res.statusCode, 201, res.body);
        }
        const bulk = await post("/v1/products/bulk", {
          products: ["red", "blue"].map((name) => ({
            product_id: `${prefix}-bulk-${name}`,
            image_url: urls[name],
            metadata: { category: "bulk" },
          })),
        });
        assert.equal(bulk.statusCode, 202, bulk.body);
        await t.workers.drain();
        const top: Record<string, string> = {};
        let clicks = 0;
        for (const query of ["red", "blue", "green"]) {
          const res = await post("/v1/search/text", { query, limit: 3 });
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json() as { search_id: string; results: { product_id: string }[] };
          top[query] = body.results[0]!.product_id;
          const fb = await post("/v1/search/feedback", { search_id: body.search_id, result_product_id: top[query], action: "click" });
          assert.equal(fb.statusCode, 201, fb.body);
          clicks += 1;
        }
        const job = await t.search.inject({ method: "GET", url: `/v1/jobs/${bulk.json().job_id}`, headers: bearer(token) });
        assert.equal(job.json().status, "completed");
        built.push({ store, sqliteToken: token, top, jobId: bulk.json().job_id, webhookId: hook.json().id, clicks, products: 6 });
      }
      assert.ok(receiver.calls.length >= 12 && receiver.calls.every((c) => c.signatureValid), "webhooks delivered on SQLite");
      // Closing flushes usage counts and releases the file; DATA_DIR (database, signing key) stays.
      await t.close();
    });

    after(async () => {
      await receiver?.close();
      await host?.close();
      if (testEnv.databaseUrl) await dropPgSchemas(schemas);
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    test("copies every table and vector in FK order, then a PostgreSQL app answers as the SQLite one did", async () => {
      const schema = freshSchema();
      const lines: string[] = [];
      const report = await migrateData({
        from: `sqlite:${dataDir}`,
        to: testEnv.databaseUrl!,
        pgSchema: schema,
        batchSize: 3,
        log: (l) => lines.push(l),
      });
      ok(report);
      assert.equal(report.stores, "all");
      // Parents first: stores and users before memberships, products before nothing, jobs before bulk_jobs before items.
      const order = report.tables.map((r) => r.table);
      for (const [parent, child] of [
        ["stores", "memberships"],
        ["users", "memberships"],
        ["jobs", "bulk_jobs"],
        ["bulk_jobs", "bulk_job_items"],
        ["webhook_deliveries", "webhook_attempts"],
        ["search_history", "search_feedback"],
      ]) {
        assert.ok(order.indexOf(parent!) < order.indexOf(child!), `${parent} before ${child}`);
      }
      assert.equal(count(report, "stores"), 2);
      assert.equal(count(report, "products"), 12);
      assert.equal(count(report, "product_vectors"), 12);
      assert.equal(count(report, "search_feedback"), 6);
      assert.equal(count(report, "jobs"), 2);
      assert.ok(count(report, "webhook_deliveries") >= 12);
      assert.deepEqual(
        report.vectors.map((v) => [v.source, v.target, v.sampled]),
        [
          [6, 6, 6],
          [6, 6, 6],
        ],
      );
      assert.ok(report.hnswDims.length === 1, "HNSW index built for the model's dimension");
      assert.ok(lines.some((l) => l.startsWith("copied products: 12 rows")));
      // Images move too: the SQLite deployment kept them as files under DATA_DIR/images (embedded
      // default); the target keeps them in the database (PostgreSQL default).
      assert.equal(
        fs.readdirSync(path.join(dataDir, "images"), { recursive: true }).filter((f) => /^[0-9a-f]{64}$/.test(path.basename(String(f))))
          .length,
        8,
      );
      const placed = await withPg((c) =>
        c.query(
          `SELECT stored_in, count(*)::int AS n, min(length(bytes))::int AS smallest FROM "${schema}".product_images GROUP BY stored_in`,
        ),
      );
      assert.equal(placed.rows.length, 1);
      assert.equal(placed.rows[0].stored_in, "database");
      assert.equal(placed.rows[0].n, 8, "four images per store");
      assert.ok(placed.rows[0].smallest > 0, "every row holds its image bytes");

      // Again without --force: refused, nothing changes.
      await assert.rejects(
        migrateData({ from: `sqlite:${dataDir}`, to: testEnv.databaseUrl!, pgSchema: schema, log: () => {} }),
        (e: unknown) => {
          assert.ok(e instanceof MigrateDataError);
          assert.match(e.message, /already holds rows in .*stores \(2\).*--force/);
          return true;
        },
      );
      // With --force: idempotent (nothing new is copied, counts still match).
      const again = await migrateData({
        from: `sqlite:${dataDir}`,
        to: testEnv.databaseUrl!,
        pgSchema: schema,
        force: true,
        log: () => {},
      });
      ok(again);
      assert.equal(
        again.tables.reduce((n, r) => n + r.copied, 0),
        0,
      );

      const app = await openPgApp(dataDir, schema);
      try {
        assert.equal(app.ctx.database.dialect, "postgres");
        for (const b of built) {
          // Logins and machine grants work against the copied hashes; tokens issued by SQLite too (same key).
          const login = await loginToken(app.search, b.store.email, b.store.password);
          const token = await machineToken(app.search, b.store);
          const get = (url: string, tok = token) => app.search.inject({ method: "GET", url, headers: bearer(tok) });
          assert.equal((await get("/v1/products?limit=100", b.sqliteToken)).json().total, b.products);
          assert.equal((await get("/v1/products?limit=100", login)).json().total, b.products);
          for (const [query, expected] of Object.entries(b.top)) {
            const res = await app.search.inject({
              method: "POST",
              url: "/v1/search/text",
              headers: bearer(token),
              payload: { query, limit: 3 },
            });
            assert.equal(res.statusCode, 200, res.body);
            assert.equal(res.json().results[0].product_id, expected, `top result for "${query}"`);
          }
          const job = (await get(`/v1/jobs/${b.jobId}`)).json();
          assert.equal(job.status, "completed");
          assert.equal(job.succeeded, 2);
          const hooks = (await get("/v1/search/webhooks")).json() as { id: string }[];
          assert.deepEqual(
            hooks.map((h) => h.id),
            [b.webhookId],
          );
          const deliveries = (await get(`/v1/search/webhooks/${b.webhookId}/deliveries`)).json();
          const list = (Array.isArray(deliveries) ? deliveries : deliveries.deliveries) as { status: string }[];
          assert.ok(list.length >= 6 && list.every((d) => d.status === "delivered"), "deliveries copied as delivered");
          const analytics = (await get("/v1/search/analytics?days=30")).json();
          assert.equal(analytics.events.clicks, b.clicks);
          // The copied vectors are searched by pgvector (a red query finds this store's red product first).
          const other = built.find((x) => x !== b)!;
          const isolated = await app.search.inject({ method: "GET", url: `/v1/products/${other.top.red}`, headers: bearer(token) });
          assert.equal(isolated.statusCode, 404, "a second store's products stay out of reach");
        }
        const wrong = await app.search.inject({
          method: "POST",
          url: "/oauth/login",
          remoteAddress: freshIp(),
          payload: { email: built[0]!.store.email, password: "Wrong-password-42" },
        });
        assert.equal(wrong.statusCode, 401);
      } finally {
        await app.close();
      }
      // The PostgreSQL app has written rows of its own since (searches, logins): the target is no
      // longer a copy of the source, and a merge says so.
      const merged = await migrateData({
        from: `sqlite:${dataDir}`,
        to: testEnv.databaseUrl!,
        pgSchema: schema,
        force: true,
        log: () => {},
      });
      assert.equal(merged.ok, false);
      const searches = merged.tables.find((r) => r.table === "search_history")!;
      assert.deepEqual([searches.source, searches.target > searches.source, searches.ok], [6, true, false]);
    });

    test("--images-to DIR puts the images into a filesystem image store folder of the target instead", async () => {
      const schema = freshSchema();
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-migrate-images-"));
      try {
        const report = await migrateData({
          from: `sqlite:${dataDir}`,
          to: testEnv.databaseUrl!,
          pgSchema: schema,
          targetImages: { kind: "filesystem", path: folder },
          log: () => {},
        });
        ok(report);
        const placed = await withPg((c) =>
          c.query(
            `SELECT stored_in, count(*)::int AS n, max(length(bytes))::int AS largest FROM "${schema}".product_images GROUP BY stored_in`,
          ),
        );
        assert.deepEqual(placed.rows, [{ stored_in: "filesystem", n: 8, largest: 0 }]);
        const files = fs
          .readdirSync(folder, { recursive: true })
          .map(String)
          .filter((f) => /^[0-9a-f]{64}$/.test(path.basename(f)));
        assert.equal(files.length, 8);
        for (const f of files)
          assert.deepEqual(fs.readFileSync(path.join(folder, f)), fs.readFileSync(path.join(dataDir, "images", f)), "the same bytes");
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });

    test("--store copies one store set (with its users), and a second set can follow without --force", async () => {
      const schema = freshSchema();
      const [a, b] = built as [Built, Built];
      const first = await migrateData({
        from: `sqlite:${dataDir}`,
        to: testEnv.databaseUrl!,
        pgSchema: schema,
        stores: [a.store.slug],
        log: () => {},
      });
      ok(first);
      assert.deepEqual(first.stores, [{ id: a.store.clientId, slug: a.store.slug }]);
      assert.equal(count(first, "stores"), 1);
      assert.equal(count(first, "products"), 6);
      assert.equal(count(first, "users"), 1);
      assert.equal(first.tables.find((r) => r.table === "users")!.scope, "referenced");
      assert.equal(first.vectors.length, 1);
      const app = await openPgApp(dataDir, schema);
      try {
        await loginToken(app.search, a.store.email, a.store.password);
        const other = await app.search.inject({
          method: "POST",
          url: "/oauth/login",
          remoteAddress: freshIp(),
          payload: { email: b.store.email, password: b.store.password },
        });
        assert.equal(other.statusCode, 401, "the store left out was not copied");
      } finally {
        await app.close();
      }
      // The same store again is refused; the other store is added next to it.
      await assert.rejects(
        migrateData({ from: `sqlite:${dataDir}`, to: testEnv.databaseUrl!, pgSchema: schema, stores: [a.store.clientId], log: () => {} }),
        /already holds rows of these stores/,
      );
      const second = await migrateData({
        from: `sqlite:${dataDir}`,
        to: testEnv.databaseUrl!,
        pgSchema: schema,
        stores: [b.store.slug],
        log: () => {},
      });
      ok(second);
      const rows = await withPg((c) => c.query(`SELECT count(*)::int AS n FROM "${schema}".stores`));
      assert.equal(rows.rows[0].n, 2);
    });

    test("rejects bad input: an unknown store, a non-sqlite source, a missing file, a non-postgres target", async () => {
      const to = testEnv.databaseUrl!;
      await assert.rejects(
        migrateData({ from: `sqlite:${dataDir}`, to, pgSchema: freshSchema(), stores: ["no-such-store"], log: () => {} }),
        /No store "no-such-store"/,
      );
      await assert.rejects(migrateData({ from: dataDir, to, log: () => {} }), /--from must be sqlite:PATH/);
      await assert.rejects(migrateData({ from: `sqlite:${dataDir}/nope.db`, to, log: () => {} }), /No SQLite database at/);
      await assert.rejects(migrateData({ from: `sqlite:${dataDir}`, to: "mysql://x", log: () => {} }), /--to must be a postgres:\/\/ URL/);
      await assert.rejects(
        migrateData({ from: `sqlite:${dataDir}`, to, pgSchema: "bad-name;", log: () => {} }),
        /--schema must be a plain identifier/,
      );
    });

    test("npm run cli -- migrate-data prints the table, exits 1 on a mismatch found by --verify-only and 2 on usage errors", async () => {
      const schema = freshSchema();
      const env = { NODE_ENV: "test", LOG_LEVEL: "silent", MODEL_DISABLED: "true", DATA_DIR: dataDir };
      const cli = async (...args: string[]) => {
        const started = runEntry("cli.ts", ["migrate-data", ...args], env);
        const code = await started.exited;
        return { code, out: started.output() };
      };
      const copy = await cli("--from", `sqlite:${path.join(dataDir, "shopsight.db")}`, "--to", testEnv.databaseUrl!, "--schema", schema);
      assert.equal(copy.code, 0, copy.out);
      assert.match(copy.out, /^products\s+all\s+12\s+12\s+12\s+ok$/m);
      assert.match(copy.out, /^OK: \d+ rows verified/m);

      await withPg((c) => c.query(`DELETE FROM "${schema}".product_vectors WHERE product_id = $1`, [built[0]!.top.red]));
      const verify = await cli("--from", `sqlite:${dataDir}`, "--to", testEnv.databaseUrl!, "--schema", schema, "--verify-only", "--json");
      assert.equal(verify.code, 1, verify.out);
      const report = JSON.parse(verify.out.split("\n").find((l) => l.startsWith("{"))!) as MigrateDataReport;
      assert.equal(report.ok, false);
      assert.deepEqual(
        report.tables.filter((r) => !r.ok).map((r) => [r.table, r.source, r.target]),
        [["product_vectors", 12, 11]],
      );
      assert.deepEqual(
        report.vectors.filter((v) => !v.ok).map((v) => [v.slug, v.source, v.target]),
        [[built[0]!.store.slug, 6, 5]],
      );

      const usage = await cli("--from", `sqlite:${dataDir}`);
      assert.equal(usage.code, 2);
      assert.match(usage.out, /migrate-data --from sqlite:PATH/);
      const refused = await cli("--from", `sqlite:${dataDir}`, "--to", testEnv.databaseUrl!, "--schema", schema);
      assert.equal(refused.code, 1);
      assert.match(refused.out, /migrate-data: The target already holds rows/);
    });
  },
);
