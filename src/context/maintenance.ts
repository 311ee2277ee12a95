// Periodic housekeeping run by worker processes (roles worker and all): drops revocation entries
// of tokens that have expired anyway, collects unreferenced image files, and on PostgreSQL keeps
// the vector filter indexes and their inverted lists in line with the catalogues
// (vectors/filter-indexes.ts). Every task is idempotent, so several workers running it at once is
// harmless (they find less to do; filter indexes are refreshed by one process at a time). A stop
// aborts the round: a filter index being copied is left not ready, and lists being built are left
// unused, both finished by a later round. Lists that could not be built are logged as a warning
// once the rest of the round is done.
import type { AppContext } from "./context.js";
import { changesOf } from "../vectors/filter-indexes.js";

export const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

export interface MaintenanceTask {
  name: string;
  /** Runs once; returns how many things it removed or made. `signal` aborts when the process stops. */
  run(signal: AbortSignal): Promise<number>;
}

export interface Maintenance {
  /** Runs every task once; returns rows removed per task (tests, CLI). */
  runOnce(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export function maintenanceTasks(ctx: AppContext): MaintenanceTask[] {
  return [
    { name: "revoked_tokens", run: () => ctx.revocations.prune() },
    { name: "unreferenced_images", run: () => ctx.imageStore.collect() },
    {
      name: "vector_filter_indexes",
      run: async (signal) => {
        const report = await ctx.vectors.refreshFilterIndexes?.(signal);
        if (report && report.failed.length > 0) throw new Error(`inverted lists or graphs not built: ${report.failed.join("; ")}`);
        return report ? changesOf(report) : 0;
      },
    },
  ];
}

/** Where a background loop reports a failure that no request sees (the process's logger). */
export interface WarnLog {
  warn(obj: object, msg: string): void;
}

export function startMaintenance(ctx: AppContext, options: { intervalMs?: number; log?: WarnLog } = {}): Maintenance {
  const tasks = maintenanceTasks(ctx);
  const stopping = new AbortController();
  const stopped = () => stopping.signal.aborted;
  let current: Promise<unknown> | undefined;
  const runOnce = async () => {
    const out: Record<string, number> = {};
    for (const task of tasks) {
      if (stopped()) break;
      try {
        out[task.name] = await task.run(stopping.signal);
      } catch (error) {
        if (stopped()) break;
        options.log?.warn({ err: error, task: task.name }, "maintenance task failed; retried at the next round");
      }
    }
    return out;
  };
  const tick = () => {
    current ??= runOnce().finally(() => (current = undefined));
  };
  const first = setTimeout(tick, 5_000);
  const timer = setInterval(tick, options.intervalMs ?? MAINTENANCE_INTERVAL_MS);
  first.unref();
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      stopping.abort();
      await current?.catch(() => undefined);
    },
  };
}
