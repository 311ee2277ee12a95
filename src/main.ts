// `npm start`: both APIs in one process on the embedded default (or PostgreSQL/Redis when
// configured). Migrations run before the ports open; SIGTERM/SIGINT close the listeners, let
// in-flight requests finish, then close the database.
import { ConfigError, loadConfig } from "./platform/config.js";
import { createContext } from "./platform/context.js";
import { buildSearchApp } from "./search/app.js";
import { buildAssistantApp } from "./assistant/app.js";
import { createWorkers } from "./search/workers.js";
import { Reindexer } from "./search/products/reindex.js";

async function main() {
  const config = loadConfig();
  const ctx = await createContext(config);
  let ready = false;
  const isReady = () => ready;
  const search = await buildSearchApp(ctx, { isReady });
  const assistant = await buildAssistantApp(ctx, { isReady });
  const workers = createWorkers(ctx);
  if (ctx.model) {
    const stale = await new Reindexer(ctx).stale();
    if (stale.length > 0) {
      search.log.warn(
        { stores: stale },
        `${stale.reduce((n, s) => n + s.count, 0)} products were embedded by another model than CLIP_MODEL; run \`npm run cli -- reindex\``,
      );
    }
  }
  await search.listen({ port: config.port, host: config.host });
  await assistant.listen({ port: config.chatPort, host: config.host });
  await workers.start();
  ready = true;
  search.log.info({ search: config.port, assistant: config.chatPort, database: config.database.kind }, "Shopsight is ready");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ready = false;
    search.log.info({ signal }, "shutting down: finishing in-flight requests");
    await Promise.allSettled([search.close(), assistant.close()]);
    await workers.stop();
    await ctx.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error("Shopsight failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});
