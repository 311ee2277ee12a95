// `npm run cli -- <command>`: operator commands. Output is JSON on stdout; errors go to stderr
// with exit code 1 (2 for usage errors).
//   admin create --email E --password P   create a super admin
import { parseArgs } from "node:util";
import { loadConfig } from "./platform/config.js";
import { createContext } from "./platform/context.js";
import { AppError } from "./platform/errors/catalogue.js";
import { AccountsService } from "./search/accounts/service.js";
import { AccountsRepository } from "./search/accounts/repository.js";
import { Reindexer } from "./search/products/reindex.js";

const USAGE = `Usage: npm run cli -- <command>
  admin create --email E --password P   create a platform super admin (prints JSON)
  reindex [--store ID|SLUG] [--all]      re-embed products from their stored images with the
                                         configured CLIP_MODEL: those embedded by another model,
                                         or every product with --all (prints a JSON report per store)`;

async function main(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === "admin" && command === "create") {
    const { values } = parseArgs({ args: rest, options: { email: { type: "string" }, password: { type: "string" } } });
    if (!values.email || !values.password) {
      console.error(USAGE);
      return 2;
    }
    const ctx = await createContext(loadConfig());
    try {
      const admin = await new AccountsService(ctx).createSuperAdmin(values.email, values.password);
      console.log(JSON.stringify(admin));
      return 0;
    } finally {
      await ctx.close();
    }
  }
  if (group === "reindex") {
    const { values } = parseArgs({ args: argv.slice(1), options: { store: { type: "string" }, all: { type: "boolean" } } });
    const ctx = await createContext(loadConfig());
    try {
      const reindexer = new Reindexer(ctx);
      let storeIds: string[];
      if (values.store) {
        const repo = new AccountsRepository(ctx.database.db);
        const store = (await repo.findStore(values.store).catch(() => undefined)) ?? (await repo.findStoreBySlug(values.store));
        if (!store) throw new AppError("not_found", `No store ${values.store}.`);
        storeIds = [store.id];
      } else if (values.all) {
        storeIds = (await ctx.database.db.selectFrom("stores").select("id").execute()).map((r) => r.id);
      } else {
        storeIds = (await reindexer.stale()).map((s) => s.store_id);
      }
      for (const id of storeIds) console.log(JSON.stringify(await reindexer.store(id, { all: values.all === true })));
      return 0;
    } finally {
      await ctx.close();
    }
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(JSON.stringify({ error: error instanceof AppError ? error.code : "error", message: (error as Error).message }));
    process.exit(1);
  },
);
