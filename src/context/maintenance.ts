// Periodic housekeeping run by worker processes (roles worker and all): drops revocation entries
// of tokens that have expired anyway. Every task is an idempotent DELETE, so several workers
// running it at once is harmless (they just find less to do).
import type { AppContext } from "./context.js";

export const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

export interface MaintenanceTask {
  name: string;
  run(): Promise<number>;
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
  ];
}

export function startMaintenance(
  ctx: AppContext,
  options: { intervalMs?: number; log?: { warn(obj: object, msg: string): void } } = {},
): Maintenance {
  const tasks = maintenanceTasks(ctx);
  let current: Promise<unknown> | undefined;
  const runOnce = async () => {
    const out: Record<string, number> = {};
    for (const task of tasks) {
      try {
        out[task.name] = await task.run();
      } catch (error) {
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
      await current?.catch(() => undefined);
    },
  };
}
