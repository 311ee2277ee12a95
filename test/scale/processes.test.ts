// Real processes, as an operator runs them: `cli serve --role api`, `--role all` and
// `--role worker` (with METRICS_PORT) start at once against one fresh PostgreSQL database and one
// Redis. The free plan's budget holds across the two API processes, a bulk job submitted to the
// api-only process is run exactly once by one of the two worker loops, the worker answers
// /health/ready and /metrics on its own port, and every process stops with exit code 0 on SIGTERM.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort, grantOverHttp, registerOverHttp, runEntry, waitFor200, type Started } from "../support/process.js";
import { testEnv } from "../support/env.js";
import { testModelDir, withPg } from "../support/database.js";
import { solidImage, startImageHost, type ImageHost } from "../support/servers.js";
import { describeWithPostgresAndRedis } from "../support/peers.js";

describeWithPostgresAndRedis("scale: api, all and worker processes over one PostgreSQL and Redis", () => {
  const dbName = `scale_${randomBytes(5).toString("hex")}`;
  let dataDir: string;
  let host: ImageHost;
  let databaseUrl: string;
  const procs: Record<"api" | "all" | "worker", Started> = {} as never;
  const ports = { api: 0, apiChat: 0, all: 0, allChat: 0, metrics: 0 };

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "shopsight-scale-"));
    host = await startImageHost();
    await withPg((c) => c.query(`CREATE DATABASE "${dbName}"`));
    const url = new URL(testEnv.databaseUrl!);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
    for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL: testEnv.redisUrl!,
      JWT_SIGNING_KEY: randomBytes(32).toString("hex"),
      CONNECTOR_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      CLIP_MODEL: await testModelDir(),
      OUTBOUND_ALLOW_PRIVATE: "true",
    };
    // All three at once: migrations race and must be applied exactly once.
    procs.api = runEntry("cli.ts", ["serve", "--role", "api"], { ...env, PORT: String(ports.api), CHAT_PORT: String(ports.apiChat) });
    procs.all = runEntry("cli.ts", ["serve", "--role", "all"], { ...env, PORT: String(ports.all), CHAT_PORT: String(ports.allChat) });
    procs.worker = runEntry("cli.ts", ["serve", "--role", "worker"], { ...env, METRICS_PORT: String(ports.metrics) });
    await waitFor200(`http://127.0.0.1:${ports.api}/health/ready`, 60_000, procs.api);
    await waitFor200(`http://127.0.0.1:${ports.all}/health/ready`, 60_000, procs.all);
    await waitFor200(`http://127.0.0.1:${ports.metrics}/health/ready`, 60_000, procs.worker);
  });

  after(async () => {
    for (const p of Object.values(procs)) if (p.child.exitCode === null) p.child.kill("SIGKILL");
    await Promise.all(Object.values(procs).map((p) => p.exited));
    await host.close();
    await withPg((c) => c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (port: number, method: string, url: string, token?: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${url}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json().catch(() => null)) as any };
  };

  /** Registers a store through the api process, verifies it from the mail, sets its plan, returns a machine token. */
  async function store(plan: "free" | "enterprise"): Promise<{ id: string; token: string }> {
    const registered = await registerOverHttp(`http://127.0.0.1:${ports.api}`, dataDir);
    await withPg((db) => db.query("UPDATE stores SET plan = $1 WHERE id = $2", [plan, registered.id]), databaseUrl);
    return { id: registered.id, token: await grantOverHttp(`http://127.0.0.1:${ports.api}`, registered) };
  }

  test("each process logged one JSON ready line with its role and ports", () => {
    for (const [role, p] of Object.entries(procs)) {
      const ready = p
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg: string; role?: string; ports?: Record<string, number> })
        .filter((l) => l.msg === "Shopsight is ready");
      assert.equal(ready.length, 1, p.output());
      assert.equal(ready[0]!.role, role);
    }
    assert.deepEqual(procs.worker.output().includes('"ports":{"metrics":' + ports.metrics + "}"), true);
  });

  test("the free plan's 10 requests a minute hold across the two API processes", async () => {
    const s = await store("free");
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call(i % 2 === 0 ? ports.api : ports.all, "GET", "/v1/products", s.token)).status);
    assert.deepEqual(statuses, [...Array(10).fill(200), 429, 429]);
  });

  test("a bulk job submitted to the api-only process runs once, on a worker loop", async () => {
    const s = await store("enterprise");
    const colours = ["#d01010", "#10d010", "#1010d0", "#d0d010", "#10d0d0", "#d010d0"];
    const products = await Promise.all(
      colours.map(async (hex, i) => ({
        product_id: `bulk-${i}`,
        image_url: host.put(`/bulk-${i}.png`, await solidImage(hex, { seed: i + 1 })),
      })),
    );
    const submitted = await call(ports.api, "POST", "/v1/products/bulk", s.token, { products });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.json));
    const jobId = submitted.json.job_id as string;
    let status: any;
    const deadline = Date.now() + 60_000;
    do {
      await new Promise((r) => setTimeout(r, 100));
      status = (await call(ports.all, "GET", `/v1/jobs/${jobId}`, s.token)).json;
    } while (status.status === "processing" && Date.now() < deadline);
    assert.equal(status.status, "completed", JSON.stringify(status));
    assert.deepEqual([status.total, status.succeeded, status.failed], [6, 6, 0]);
    const job = (await withPg((db) => db.query("SELECT status, attempts FROM jobs WHERE id = $1", [jobId]), databaseUrl)).rows[0];
    assert.deepEqual(job, { status: "completed", attempts: 1 });
    for (let i = 0; i < 6; i++) assert.equal(host.hits(`/bulk-${i}.png`), 1, `image ${i} fetched once`);
    const list = await call(ports.api, "GET", "/v1/products?limit=100", s.token);
    assert.equal(list.json.total, 6);
  });

  test("the worker serves /metrics on METRICS_PORT and no API routes there", async () => {
    const metrics = await fetch(`http://127.0.0.1:${ports.metrics}/metrics`);
    assert.equal(metrics.status, 200);
    const text = await metrics.text();
    assert.match(text, /# TYPE shopsight_jobs gauge/);
    assert.match(text, /shopsight_http_requests_total\{api="worker",method="GET",route="\/health\/ready",status="200"\}/);
    assert.match(text, /process_cpu_seconds_total/);
    assert.equal((await fetch(`http://127.0.0.1:${ports.metrics}/v1/products`)).status, 404);
  });

  test("SIGTERM stops every role with exit code 0", async () => {
    for (const p of Object.values(procs)) p.child.kill("SIGTERM");
    for (const [role, p] of Object.entries(procs)) assert.equal(await p.exited, 0, `${role}: ${p.output().slice(-2000)}`);
  });
});
