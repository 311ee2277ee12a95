// `npm run cli -- <command>`: operator commands. Output is JSON on stdout; errors go to stderr
// with exit code 1 (2 for usage errors).
//   admin create --email E --password P   create a super admin
//   plan set --plan P (--store ID|SLUG… | --all)   set stores' plans (operators; BILLING_MODE=off)
//   vector filter-indexes                 make/drop PostgreSQL filter indexes now (vectors/filter-indexes.ts)
// Commands that need no embedding model (admin create, plan set, vector filter-indexes) build their context without
// loading it (`model: null`), so they finish in well under a second.
//   serve --role api|worker|all            run one process role (src/serve.ts); runs until SIGTERM
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "./platform/config.js";
import { createContext } from "./context/context.js";
import { AppError } from "./platform/errors/catalogue.js";
import type { AccountsRepository } from "./tenancy/stores/repository.js";
import { composeSearch } from "./search/compose.js";
import type { Reindexer } from "./search/products/reindex.js";
import { isPlanName, PLANS } from "./tenancy/plans.js";
import { isRole, runRole, ROLES } from "./serve.js";
import { formatReport, migrateData, MigrateDataError } from "./context/migrate-data.js";

const USAGE = `Usage: npm run cli -- <command>
  admin create --email E --password P   create a platform super admin (prints JSON)
  plan set --plan free|basic|premium|enterprise (--store ID|SLUG … | --all)
                                         set the plan of stores (e.g. enterprise, no limits, on a
                                         self-hosted install with BILLING_MODE=off); prints JSON
  migrate-data --from sqlite:PATH --to postgres://… [--schema S] [--store SLUG]… [--force]
               [--verify-only] [--batch-size N] [--json]
               [--images-from DIR] [--images-to database|DIR]
                                         copy the embedded database (file or DATA_DIR) into
                                         PostgreSQL, vectors included, and verify counts (exit 1 on
                                         a mismatch); see src/context/migrate-data.ts
  reindex [--store ID|SLUG] [--all] [--here]
                                         re-embed products from their stored images with the
                                         configured CLIP_MODEL: those embedded by another model,
                                         or every product with --all. Queues a job per store for
                                         the running server (which then serves each new vector at
                                         once) and prints its progress; when no server takes the
                                         job within 15 s it stays queued for the next start (exit 3).
                                         --here: re-embed in this process (server stopped; prints
                                         a JSON report per store)
  vector filter-indexes                  PostgreSQL: give every category and brand with
                                         VECTOR_FILTER_INDEX_MIN_ROWS products a filter index (a
                                         compact copy of its vectors; inverted lists over those of
                                         VECTOR_FILTER_INDEX_LISTS_MIN_ROWS, a graph checked for
                                         recall over smaller ones of
                                         VECTOR_FILTER_INDEX_GRAPH_MIN_ROWS) now, drop those no
                                         longer needed (the worker's maintenance round does it
                                         every 10 minutes; prints JSON)
  serve [--role api|worker|all]          run one process role until SIGTERM (default all): api = both
                                         HTTP APIs; worker = jobs, webhook dispatcher, maintenance
                                         (GET /metrics and /health/* on METRICS_PORT when set)`;

/** The id of the store named by its id or slug. */
/** How long `reindex` waits for a server to take its job before leaving it queued. */
const REINDEX_CLAIM_WAIT_MS = 15_000;

/** Prints the progress of reindex jobs until they end (0), or until none was taken by a server in time (0, left queued). */
async function watchReindex(reindexer: Reindexer, jobs: { storeId: string; jobId: string }[]): Promise<number> {
  const started = Date.now();
  const last = new Map<string, string>();
  for (;;) {
    const states = await Promise.all(
      jobs.map(async (j) => ({ ...j, status: await reindexer.status(j.storeId, j.jobId), claimed: await reindexer.claimed(j.jobId) })),
    );
    for (const s of states) {
      const line = JSON.stringify({
        store_id: s.storeId,
        job_id: s.jobId,
        status: s.status?.status,
        processed: s.status?.processed,
        total: s.status?.total,
        summary: s.status?.summary,
      });
      if (last.get(s.jobId) !== line) console.log(line);
      last.set(s.jobId, line);
    }
    if (states.every((s) => s.status?.status !== "processing")) return states.some((s) => s.status?.status === "failed") ? 1 : 0;
    if (Date.now() - started > REINDEX_CLAIM_WAIT_MS && states.every((s) => !s.claimed)) {
      console.log(
        "No running server took the reindex job: it stays queued and runs when the server starts (npm start). To re-embed in this process instead, stop the server and run `npm run cli -- reindex --here`.",
      );
      return 3;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function storeIdOf(repo: AccountsRepository, idOrSlug: string): Promise<string> {
  const store = (await repo.findStore(idOrSlug).catch(() => undefined)) ?? (await repo.findStoreBySlug(idOrSlug));
  if (!store) throw new AppError("not_found", `No store ${idOrSlug}.`);
  return store.id;
}

/** Resolves to an exit code, or to "running" when the command keeps the process alive (serve). */
async function main(argv: string[]): Promise<number | "running"> {
  const [group, command, ...rest] = argv;
  if (group === "serve") {
    const { values } = parseArgs({ args: argv.slice(1), options: { role: { type: "string", default: "all" } } });
    if (!isRole(values.role)) {
      console.error(`--role must be one of ${ROLES.join(", ")}\n${USAGE}`);
      return 2;
    }
    await runRole(values.role, loadConfig());
    return "running";
  }
  if (group === "admin" && command === "create") {
    const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, password: { type: "string" } } });
    if (!values.email || !values.password) {
      console.error(USAGE);
      return 2;
    }
    const ctx = await createContext(loadConfig(), { model: null });
    try {
      const admin = await composeSearch(ctx).accounts.createSuperAdmin(values.email, values.password);
      console.log(JSON.stringify(admin));
      return 0;
    } finally {
      await ctx.close();
    }
  }
  if (group === "plan" && command === "set") {
    const { values } = parseArgs({
      args: rest,
      options: { plan: { type: "string" }, store: { type: "string", multiple: true }, all: { type: "boolean", default: false } },
    });
    if (!isPlanName(values.plan) || (!values.all && !values.store?.length)) {
      console.error(`plan set needs --plan (one of ${Object.keys(PLANS).join(", ")}) and --store or --all\n${USAGE}`);
      return 2;
    }
    const plan = values.plan;
    const ctx = await createContext(loadConfig(), { model: null });
    try {
      const { billing, repositories } = composeSearch(ctx);
      const repo = repositories.accounts;
      const ids = values.all
        ? (await ctx.database.db.selectFrom("stores").select("id").execute()).map((r) => r.id)
        : await Promise.all((values.store ?? []).map((s) => storeIdOf(repo, s)));
      for (const id of ids) console.log(JSON.stringify({ store_id: id, ...(await billing.applyPlanChange(id, plan, "cli")) }));
      return 0;
    } finally {
      await ctx.close();
    }
  }
  if (group === "vector" && command === "filter-indexes") {
    const ctx = await createContext(loadConfig(), { model: null });
    try {
      if (!ctx.vectors.refreshFilterIndexes) {
        console.error("vector filter-indexes: only PostgreSQL has filter indexes (the embedded index filters in memory).");
        return 1;
      }
      console.log(JSON.stringify(await ctx.vectors.refreshFilterIndexes()));
      return 0;
    } finally {
      await ctx.close();
    }
  }
  if (group === "migrate-data") {
    const { values } = parseArgs({
      args: argv.slice(1),
      options: {
        from: { type: "string" },
        to: { type: "string" },
        schema: { type: "string" },
        store: { type: "string", multiple: true },
        force: { type: "boolean", default: false },
        "verify-only": { type: "boolean", default: false },
        "batch-size": { type: "string" },
        "images-from": { type: "string" },
        "images-to": { type: "string" },
        json: { type: "boolean", default: false },
      },
    });
    const batchSize = values["batch-size"] === undefined ? undefined : Number(values["batch-size"]);
    if (!values.from || !values.to || (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize > 0))) {
      console.error(USAGE);
      return 2;
    }
    try {
      const report = await migrateData({
        from: values.from,
        to: values.to,
        pgSchema: values.schema,
        stores: values.store,
        force: values.force,
        verifyOnly: values["verify-only"],
        batchSize,
        sourceImages: values["images-from"],
        targetImages:
          values["images-to"] === undefined || values["images-to"] === "database"
            ? { kind: "database" }
            : { kind: "filesystem", path: path.resolve(values["images-to"]) },
      });
      console.log(values.json ? JSON.stringify(report) : formatReport(report));
      return report.ok ? 0 : 1;
    } catch (error) {
      if (!(error instanceof MigrateDataError)) throw error;
      console.error(`migrate-data: ${error.message}`);
      return 1;
    }
  }
  if (group === "reindex") {
    const { values } = parseArgs({
      args: argv.slice(1),
      options: { store: { type: "string" }, all: { type: "boolean" }, here: { type: "boolean" } },
    });
    const ctx = await createContext(loadConfig());
    try {
      const { reindexer, repositories } = composeSearch(ctx);
      let storeIds: string[];
      if (values.store) {
        storeIds = [await storeIdOf(repositories.accounts, values.store)];
      } else if (values.all) {
        storeIds = (await ctx.database.db.selectFrom("stores").select("id").execute()).map((r) => r.id);
      } else {
        storeIds = (await reindexer.stale()).map((s) => s.store_id);
      }
      if (values.here) {
        for (const id of storeIds) console.log(JSON.stringify(await reindexer.store(id, { all: values.all === true })));
        return 0;
      }
      const jobs = [];
      for (const id of storeIds) jobs.push({ storeId: id, ...(await reindexer.enqueue(id, { all: values.all === true })) });
      return await watchReindex(reindexer, jobs);
    } finally {
      await ctx.close();
    }
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== "running") process.exit(code);
  },
  (error: unknown) => {
    console.error(JSON.stringify({ error: error instanceof AppError ? error.code : "error", message: (error as Error).message }));
    process.exit(1);
  },
);
