// A bulk job survives SIGKILL: the server is killed mid-job and started again on the same data
// folder; the job resumes, redoes nothing already committed and loses no acknowledged product.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import SQLite from "better-sqlite3";
import { freePort, runEntry, waitFor200, type Started } from "../support/process.js";
import { solidImage } from "../support/servers.js";
import { testModelDir } from "../support/harness.js";
import { verificationTokenIn } from "../support/factories.js";

let dataDir: string;
let imageServer: http.Server;
let imageBase: string;
const hits = new Map<string, number>();

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-bulk-"));
  const png = await solidImage("#c04020");
  imageServer = http.createServer((req, res) => {
    hits.set(req.url ?? "", (hits.get(req.url ?? "") ?? 0) + 1);
    // Each image takes a while, so the job is still running when the server is killed.
    setTimeout(() => res.writeHead(200, { "content-type": "image/png" }).end(png), 120);
  });
  await new Promise<void>((r) => imageServer.listen(0, "127.0.0.1", r));
  imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});

after(async () => {
  imageServer.closeAllConnections();
  await new Promise((r) => imageServer.close(r));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function startServer(port: number, model: string): Promise<Started> {
  const s = runEntry("main.ts", [], {
    DATA_DIR: dataDir,
    PORT: String(port),
    CHAT_PORT: String(await freePort()),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    CLIP_MODEL: model,
    OUTBOUND_ALLOW_PRIVATE: "true",
    BULK_CONCURRENCY: "2",
  });
  await waitFor200(`http://127.0.0.1:${port}/health`, 180_000, s); // start-up wait on a possibly loaded machine
  return s;
}

async function call(port: number, method: string, url: string, token?: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as any };
}

test("SIGKILL mid-job, restart: the job completes with every product exactly once", async () => {
  const model = await testModelDir();
  const port = await freePort();
  let server = await startServer(port, model);
  try {
    // An account through the real API: register, verify from the outbox mail, machine grant.
    await call(port, "POST", "/register", undefined, {
      client_name: "Resume Shop",
      email: "resume@example.com",
      password: "Resume-pass-1",
    });
    const mail = fs.readFileSync(path.join(dataDir, "outbox", fs.readdirSync(path.join(dataDir, "outbox"))[0]!), "utf8");
    const tok = verificationTokenIn(mail);
    const creds = (await call(port, "GET", `/verify?token=${encodeURIComponent(tok)}`)).json;
    const grant = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: creds.client_id, client_secret: creds.client_secret }),
    });
    const token = ((await grant.json()) as { access_token: string }).access_token;
    // The store polls its job often: lift the free plan's 10 requests a minute (plans are read per request).
    const db = new SQLite(path.join(dataDir, "shopsight.db"));
    db.prepare("UPDATE stores SET plan = 'enterprise' WHERE id = ?").run(creds.client_id);
    db.close();

    const products = Array.from({ length: 30 }, (_, i) => ({ product_id: `r-${i}`, image_url: `${imageBase}/p${i}.png` }));
    const submitted = await call(port, "POST", "/v1/products/bulk", token, { products });
    assert.equal(submitted.status, 202);
    const jobId = submitted.json.job_id as string;

    // Wait until some items are committed, then kill the server without warning.
    for (;;) {
      const s = (await call(port, "GET", `/v1/jobs/${jobId}`, token)).json;
      if (s.processed >= 6) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    server.child.kill("SIGKILL");
    await server.exited;
    const fetchedBeforeKill = new Set(hits.keys());

    server = await startServer(port, model);
    let status: any;
    const deadline = Date.now() + 60_000;
    do {
      await new Promise((r) => setTimeout(r, 100));
      status = (await call(port, "GET", `/v1/jobs/${jobId}`, token)).json;
    } while (status.status === "processing" && Date.now() < deadline);
    assert.equal(status.status, "completed", JSON.stringify(status));
    assert.deepEqual([status.total, status.succeeded, status.failed], [30, 30, 0]);
    const list = (await call(port, "GET", "/v1/products?limit=100", token)).json;
    assert.equal(list.total, 30);
    assert.deepEqual(new Set(list.products.map((p: { product_id: string }) => p.product_id)), new Set(products.map((p) => p.product_id)));
    // Items committed before the kill were not fetched again (at most the in-flight ones were).
    const refetched = [...fetchedBeforeKill].filter((u) => (hits.get(u) ?? 0) > 1);
    assert.ok(refetched.length <= 2, `refetched after restart: ${refetched.join(", ")}`);
  } finally {
    server.child.kill("SIGKILL");
  }
});
