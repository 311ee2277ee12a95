// The database handle types, apart from index.ts (which opens databases and runs migrations) so
// that migrations and the modules they use can name them without an import cycle.
import type { Kysely, Transaction } from "kysely";
import type { Schema } from "./schema.js";

export type Dialect = "sqlite" | "postgres";
export type Db = Kysely<Schema>;
export type Tx = Transaction<Schema>;
/** A database handle or an open transaction: repositories accept either. */
export type Executor = Db | Tx;
