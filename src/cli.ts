// `npm run cli -- <command>`: operator commands. Output is JSON on stdout; errors go to stderr
// with exit code 1 (2 for usage errors).
//   admin create --email E --password P   create a super admin
import { parseArgs } from "node:util";
import { loadConfig } from "./platform/config.js";
import { createContext } from "./platform/context.js";
import { AppError } from "./platform/errors/catalogue.js";
import { AccountsService } from "./search/accounts/service.js";

const USAGE = `Usage: npm run cli -- <command>
  admin create --email E --password P   create a platform super admin (prints JSON)`;

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
