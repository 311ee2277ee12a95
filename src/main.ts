// `npm start`: both APIs and the background workers in one process (role "all", src/serve.ts)
// on the embedded default (or PostgreSQL/Redis when configured). Migrations run before the ports
// open; SIGTERM/SIGINT close the listeners, let in-flight requests finish, then close the database.
import { ConfigError, loadConfig } from "./platform/config.js";
import { runRole } from "./serve.js";

async function main() {
  await runRole("all", loadConfig());
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error("Shopsight failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});
