// Settings every PostgreSQL connection of the service starts with, set once when the pool opens
// it (a statement, not a startup parameter, so connection poolers such as PgBouncer that refuse
// `options` still work).
//
// jit = off: PostgreSQL compiles any statement the planner costs above jit_above_cost, which
// includes a search's exact scan over tens of thousands of candidates. At a million products the
// exact scan of a 5 % category filter (50,000 candidates, sent as the service sends it) spent
// ~42 ms of its ~450 ms compiling, on every search (a 3 s hash-join plan in psql: 680 ms). The
// service runs short statements only; none gains from JIT.
import type pg from "pg";

export const SESSION_SETTINGS = "SET jit = off";

export function withSessionSettings(pool: pg.Pool): pg.Pool {
  // pg queues a client's statements in order, so this runs before the first query on it.
  pool.on("connect", (client) => {
    client.query(SESSION_SETTINGS).catch(() => undefined);
  });
  return pool;
}
