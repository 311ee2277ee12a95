// Settings every PostgreSQL connection of the service starts with: pg-pool's onConnect runs them
// on each new connection before it is handed out (a connection whose settings fail is closed and
// the query that asked for it fails). A statement rather than a startup parameter, so poolers
// that refuse `options` still connect; behind PgBouncer in transaction mode a SET sticks to
// whichever server connection ran it, so there set it for the role as well (docs/operations.md "Sizing
// notes": `ALTER ROLE … SET jit = off`).
//
// jit = off: PostgreSQL compiles any statement the planner costs above jit_above_cost, which
// includes a search's exact scan over tens of thousands of candidates. At a million products the
// exact scan of a 5 % category filter (50,000 candidates, sent as the service sends it) spent
// ~42 ms of its ~450 ms compiling, on every search (a 3 s hash-join plan in psql: 680 ms). The
// service runs short statements only; none gains from JIT.
import type pg from "pg";

const SESSION_SETTINGS = "SET jit = off";

/** pg-pool awaits the promise onConnect returns (its typings say void). */
type PoolConfigWithHook = Omit<pg.PoolConfig, "onConnect"> & { onConnect: (client: pg.ClientBase) => Promise<void> };

/** `extra`: further `SET …` statements for this pool's connections only (a replica's lock timeout). */
export function withSessionSettings(config: pg.PoolConfig, extra: readonly string[] = []): PoolConfigWithHook {
  const statements = [SESSION_SETTINGS, ...extra].join("; ");
  return {
    ...config,
    onConnect: async (client) => {
      await client.query(statements);
    },
  };
}
