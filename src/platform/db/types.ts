// The database handle types, apart from index.ts (which opens databases and runs migrations) so
// that migrations and the modules they use can name them without an import cycle.
//
// The ground layer knows no table: `Tables` is empty here, and each layer that owns tables adds
// them by declaration merging (the product's tables in src/db/schema.ts, the job queue's and the
// token revocations' beside their modules), so every handle is typed with every table while no
// module below names a table above it.
import type { Kysely, Transaction } from "kysely";

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging (see above)
export interface Tables {}

export type Dialect = "sqlite" | "postgres";
export type Db = Kysely<Tables>;
export type Tx = Transaction<Tables>;
/** A database handle or an open transaction: repositories accept either. */
export type Executor = Db | Tx;
