// The ordered list of migrations. Append only: never edit one that has shipped.
import type { MigrationFactory } from "../migrate.js";
import m0001 from "./0001_accounts.js";

export const migrations: Record<string, MigrationFactory> = {
  "0001_accounts": m0001,
};
