// Background work of the Search API: the job queue's handlers (bulk imports, reindexing), the webhook
// dispatcher and, on SQLite, the merging of the full-text index's segments once writes pause
// (src/lexical/merger.ts). `npm start` runs them in the API process; tests drive them step by step.
import type { AppContext } from "../context/context.js";
import type { WarnLog } from "../context/maintenance.js";
import type { SearchServices } from "./compose.js";
import { WebhookDispatcher, type DispatcherOptions } from "./webhooks/dispatcher.js";
import { SegmentMerger } from "../lexical/merger.js";

export interface Workers {
  dispatcher: WebhookDispatcher;
  /** Recovers work interrupted by a crash (embedded mode) and starts the loops. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Runs every due job and delivery until none is left (tests, CLI). */
  drain(): Promise<void>;
}

/** The worker loops over the process's Search API services (composeSearch, src/search/compose.ts). */
export function createWorkers(
  ctx: AppContext,
  services: Pick<SearchServices, "bulkActions" | "bulkJobs" | "reindexer" | "repositories">,
  options: DispatcherOptions & { log?: WarnLog } = {},
): Workers {
  ctx.jobs.register(services.bulkJobs.handler());
  ctx.jobs.register(services.bulkActions.handler());
  ctx.jobs.register(services.reindexer.handler());
  const dispatcher = new WebhookDispatcher(ctx, { repo: services.repositories.webhooks }, ctx.fetch, options);
  const lexical = services.repositories.lexical;
  const merger =
    ctx.database.dialect === "sqlite"
      ? new SegmentMerger(
          (pages) => lexical.mergeSegments(pages),
          (err) => options.log?.warn({ err }, "merging the full-text index's segments failed; tried again after the next change"),
        )
      : undefined;
  return {
    dispatcher,
    async start() {
      await ctx.jobs.recoverInterrupted();
      // Embedded mode is one process: deliveries leased by a process that is gone are due at once.
      if (ctx.database.dialect === "sqlite") await services.repositories.webhooks.releaseLeases();
      ctx.jobs.start();
      dispatcher.start();
      merger?.start();
    },
    async stop() {
      await Promise.all([ctx.jobs.stop(), dispatcher.stop(), merger?.stop()]);
    },
    async drain() {
      for (;;) {
        const jobs = await ctx.jobs.drain();
        const sent = await dispatcher.drain();
        if (jobs === 0 && sent === 0) return;
      }
    },
  };
}
