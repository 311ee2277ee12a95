// `npm run bench:fairness [-- --jobs 7 --items 200 --timeout-ms 2000 --slice 5 --dialect sqlite|postgres]`:
// how long one store's 1-item bulk job waits while another store's bulk jobs hang on their image
// hosts (the case: seven 1,000-item jobs whose hosts never answer).
//
// In one process, on the embedded default (or PostgreSQL from TEST_DATABASE_URL), with the tiny
// test model and the real job workers: store A submits --jobs jobs of --items images from a local
// host that accepts and never answers (each fetch ends at --timeout-ms, standing in for the default
// OUTBOUND_TIMEOUT_MS of 10 s); once A's fetches are in flight, store B submits one good image.
// Run with JOBS_CONCURRENCY 2 (the default: A holds one slot, B takes the other) and 1 (B waits for
// A's job to yield after its slice, JOBS_SLICE_SECONDS = --slice). Prints B's wait from submission
// to `completed`, the bound it must stay under, and how far A got meanwhile.
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestApp, type TestApp } from "../test/support/harness.js";
import { bearer, machineToken, registerStore } from "../test/support/factories.js";
import { solidImage, startImageHost, type ImageHost } from "../test/support/servers.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "7" },
    items: { type: "string", default: "200" },
    "timeout-ms": { type: "string", default: "2000" },
    slice: { type: "string", default: "5" },
    dialect: { type: "string", default: "sqlite" },
  },
});
const JOBS = Number(values.jobs);
const ITEMS = Number(values.items);
const TIMEOUT_MS = Number(values["timeout-ms"]);
const SLICE_S = Number(values.slice);
const dialect = values.dialect === "postgres" ? "postgres" : "sqlite";

async function tenant(t: TestApp) {
  const store = await registerStore(t, { plan: "enterprise" });
  return { store, token: await machineToken(t.search, store) };
}

async function scenario(host: ImageHost, concurrency: number) {
  const t = await createTestApp({
    dialect,
    model: true,
    env: {
      OUTBOUND_TIMEOUT_MS: String(TIMEOUT_MS),
      JOBS_CONCURRENCY: String(concurrency),
      JOBS_SLICE_SECONDS: String(SLICE_S),
    },
  });
  try {
    const a = await tenant(t);
    const b = await tenant(t);
    const aJobs: string[] = [];
    for (let j = 0; j < JOBS; j++) {
      const products = Array.from({ length: ITEMS }, (_, i) => ({
        product_id: `a-${j}-${i}`,
        image_url: host.hang(`/c${concurrency}/hang-${j}-${i}.png`),
      }));
      const res = await t.search.inject({ method: "POST", url: "/v1/products/bulk", headers: bearer(a.token), payload: { products } });
      if (res.statusCode !== 202) throw new Error(`A's job ${j}: ${res.statusCode} ${res.body}`);
      aJobs.push(res.json().job_id as string);
    }
    await t.workers.start();
    while (host.hits(`/c${concurrency}/hang-0-0.png`) === 0) await sleep(10);
    const good = host.put(`/c${concurrency}/good.png`, await solidImage("#2050d0"));
    const started = performance.now();
    const res = await t.search.inject({
      method: "POST",
      url: "/v1/products/bulk",
      headers: bearer(b.token),
      payload: { products: [{ product_id: "b-1", image_url: good }] },
    });
    const bJob = res.json().job_id as string;
    for (;;) {
      const status = (await t.search.inject({ method: "GET", url: `/v1/jobs/${bJob}`, headers: bearer(b.token) })).json().status;
      if (status !== "processing") break;
      await sleep(10);
    }
    const waitMs = performance.now() - started;
    let aProcessed = 0;
    let aDone = 0;
    for (const id of aJobs) {
      const s = (await t.search.inject({ method: "GET", url: `/v1/jobs/${id}`, headers: bearer(a.token) })).json();
      aProcessed += s.processed as number;
      if (s.status !== "processing") aDone += 1;
    }
    return { waitMs, aProcessed, aDone };
  } finally {
    await t.close();
  }
}

async function main() {
  const host = await startImageHost();
  console.log(
    `bench:fairness — store A: ${JOBS} bulk jobs × ${ITEMS} images from a host that never answers (fetch timeout ${TIMEOUT_MS} ms); store B: 1 image. ${dialect}, tiny model.`,
  );
  console.log("| JOBS_CONCURRENCY | B's job: submitted → completed | bound | A meanwhile: items processed, jobs finished |");
  console.log("|---|---|---|---|");
  try {
    for (const concurrency of [2, 1]) {
      const r = await scenario(host, concurrency);
      const bound =
        concurrency >= 2 ? "one free slot: ≈ 0 s + B's own work" : `slice ${SLICE_S} s + 1 s check + one fetch ${TIMEOUT_MS / 1000} s`;
      console.log(
        `| ${concurrency} | ${(r.waitMs / 1000).toFixed(2)} s | ${bound} | ${r.aProcessed} of ${JOBS * ITEMS}, ${r.aDone} of ${JOBS} |`,
      );
    }
  } finally {
    await host.close();
  }
}

await main();
