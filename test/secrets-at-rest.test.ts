// Secrets at rest: webhook secrets, the copy on each webhook delivery, bulk-job callback secrets
// and TOTP secrets are sealed with the connector key (src/platform/secrets.ts); the embedded
// database file and its WAL are created 0600. The test reads the raw SQLite files and finds none
// of the secrets it registered; and migration 0014 seals rows written in clear by older versions.
import { after, before, test, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Migrator, type Kysely } from "kysely";
import { createTestApp, type TestApp } from "./support/harness.js";
import { bearer, loginToken, machineToken, registerStore } from "./support/factories.js";
import { openDatabase } from "../src/db/index.js";
import { migrations } from "../src/db/migrations/index.js";
import type { ColumnTypes } from "../src/db/migrations/types.js";
import { SecretBox, isSealed } from "../src/platform/secrets.js";
import { secretAad } from "../src/db/sealed-columns.js";

describe("secrets at rest", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test("the raw database file holds no webhook, delivery, callback or TOTP secret, and is readable by its owner only", async () => {
    const store = await registerStore(t);
    const token = await machineToken(t.search, store);
    const webhookSecret = "whsec-plain-0123456789-MARKER";
    const hook = await t.search.inject({
      method: "POST",
      url: "/v1/search/webhooks",
      headers: bearer(token),
      payload: { url: "https://hooks.example.com/x", events: ["product.deleted"], secret: webhookSecret },
    });
    assert.equal(hook.statusCode, 201, hook.body);
    const callbackSecret = "cbsec-plain-0123456789-MARKER";
    const bulk = await t.search.inject({
      method: "POST",
      url: "/v1/products/bulk",
      headers: bearer(token),
      payload: {
        products: [{ product_id: "p1", image_url: "https://img.example.com/p1.png" }],
        callback_url: "https://hooks.example.com/cb",
        callback_secret: callbackSecret,
      },
    });
    assert.equal(bulk.statusCode, 202, bulk.body);
    const generated = await t.search.inject({
      method: "POST",
      url: "/v1/products/bulk",
      headers: bearer(token),
      payload: {
        products: [{ product_id: "p2", image_url: "https://img.example.com/p2.png" }],
        callback_url: "https://hooks.example.com/cb",
      },
    });
    const generatedSecret = generated.json().callback_secret as string;
    assert.ok(generatedSecret);
    // A delivery row (which carries its own copy of the secret) and a callback delivery.
    await t.ctx.database.transaction((tx) => t.services.webhooks.emit(tx, store.clientId, "product.deleted", { product_id: "x" }, "x"));
    await t.ctx.database.transaction((tx) =>
      t.services.webhooks.emitCallback(
        tx,
        store.clientId,
        "https://hooks.example.com/cb",
        callbackSecret,
        { event: "bulk.completed" },
        "cb",
      ),
    );
    const user = await loginToken(t.search, store.email, store.password);
    const totpSecret = (await t.search.inject({ method: "POST", url: "/v1/security/2fa/setup", headers: bearer(user) })).json()
      .secret as string;
    assert.ok(totpSecret);

    const db = t.ctx.database.db;
    const sealedValues = [
      ...(await db.selectFrom("webhooks").select("secret as v").execute()),
      ...(await db.selectFrom("webhook_deliveries").select("secret as v").execute()),
      ...(await db.selectFrom("bulk_jobs").select("callback_secret as v").execute()),
      ...(await db.selectFrom("users").select("totp_secret as v").where("totp_secret", "is not", null).execute()),
    ];
    assert.ok(sealedValues.length >= 6);
    for (const { v } of sealedValues) assert.ok(v && isSealed(v), `sealed: ${v}`);

    const file = t.config.database.kind === "sqlite" ? t.config.database.file : "";
    const raw = Buffer.concat([file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
    for (const secret of [webhookSecret, callbackSecret, generatedSecret, totpSecret]) {
      assert.equal(raw.includes(Buffer.from(secret)), false, `${secret.slice(0, 8)}… is not in the database files`);
    }
    for (const f of [file, `${file}-wal`, `${file}-shm`].filter((x) => fs.existsSync(x))) {
      assert.equal(fs.statSync(f).mode & 0o777, 0o600, `${path.basename(f)} is 0600`);
    }
  });
});

test("migration 0014 seals secrets written in clear before it, once", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-0014-"));
  const file = path.join(dir, "old.db");
  fs.writeFileSync(file, "", { mode: 0o644 });
  const box = new SecretBox(Buffer.alloc(32, 7));
  try {
    // An install at 0011: migrate only that far, then write secrets as older versions did.
    const old = await openDatabase({ kind: "sqlite", file }, { migrate: false });
    const types: ColumnTypes = { dialect: "sqlite", json: "text", blob: "blob", secrets: box };
    const provider = { getMigrations: async () => Object.fromEntries(Object.entries(migrations).map(([n, m]) => [n, m(types)])) };
    const migrator = new Migrator({ db: old.db as Kysely<any>, provider });
    assert.equal((await migrator.migrateTo("0011_assistant_storefront")).error, undefined);
    const now = Date.now();
    await old.db
      .insertInto("stores")
      .values({
        id: "s1",
        slug: "s1",
        name: "S",
        status: "active",
        plan: "free",
        client_secret_hash: null,
        secret_rotated_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await old.db
      .insertInto("users")
      .values({
        id: "u1",
        email: "u@example.com",
        password_hash: "x",
        totp_secret: "JBSWY3DPEHPK3PXP",
        totp_enabled: 1,
        created_at: now,
      } as never)
      .execute();
    await old.db
      .insertInto("webhooks")
      .values({
        id: "wh1",
        store_id: "s1",
        url: "https://h.example.com",
        events: "[]",
        secret: "plain-webhook-secret",
        status: "active",
        disabled_reason: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await old.db.insertInto("revoked_tokens").values({ jti: "j1", expires_at: now }).execute();
    await old.close();

    // Starting the new version applies 0014 with the connector key.
    const current = await openDatabase({ kind: "sqlite", file }, { secrets: box });
    const user = await current.db.selectFrom("users").selectAll().where("id", "=", "u1").executeTakeFirstOrThrow();
    assert.ok(user.totp_secret && isSealed(user.totp_secret));
    assert.equal(box.open(user.totp_secret, secretAad.totp("u1")), "JBSWY3DPEHPK3PXP");
    assert.equal(user.totp_last_step, null);
    const hook = await current.db.selectFrom("webhooks").select("secret").where("id", "=", "wh1").executeTakeFirstOrThrow();
    assert.equal(box.open(hook.secret, secretAad.webhook("wh1")), "plain-webhook-secret");
    const revoked = await current.db.selectFrom("revoked_tokens").select("expires_at").where("jti", "=", "j1").executeTakeFirstOrThrow();
    assert.equal(revoked.expires_at, now + 300_000, "old revocations outlive the refresh grace");
    await current.close();
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, "a database file left world-readable is tightened");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
