// `npm start`: both APIs and the background workers in one process (role "all", src/serve.ts)
// on the embedded default (or PostgreSQL/Redis when configured). Migrations run before the ports
// open; SIGTERM/SIGINT close the listeners, let in-flight requests finish, then close the database.
// Once both ports listen, a short banner names the addresses to open (portal, docs, both APIs).
import { ConfigError, loadConfig, type Config } from "./platform/config.js";
import { runRole } from "./serve.js";

/** The start-up banner: where the portal, the docs and both APIs are (PUBLIC_BASE_URL, CHAT_PUBLIC_BASE_URL). */
function startupBanner(config: Config): string {
  const search = config.publicBaseUrl;
  const chat = config.chatPublicBaseUrl;
  const lines = [
    "",
    "Shopsight is running.",
    `  Portal          ${search}/portal          (new store: ${search}/portal/register)`,
    `  API docs        ${search}/docs            (Assistant API: ${chat}/docs)`,
    `  Search API      ${search}`,
    `  Assistant API   ${chat}`,
  ];
  if (!config.mail.smtpUrl)
    lines.push(
      `  Mail            written to ${config.mail.outboxDir} (no SMTP_URL)${config.mail.logLinks ? "; links are also printed here" : ""}`,
    );
  if (!config.billing.enabled) lines.push(`  Billing         off (BILLING_MODE=off): new stores start on ${config.billing.defaultPlan}`);
  lines.push("");
  return lines.join("\n");
}

async function main() {
  const config = loadConfig();
  await runRole("all", config);
  process.stdout.write(`${startupBanner(config)}\n`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error("Shopsight failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});
