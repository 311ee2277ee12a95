// `npm run eval:assistant` (tsx scripts/eval-assistant.ts [--postgres] [--quiet]): asks the
// fixture store's questions (eval/assistant/fixture.ts) through the real Assistant API and prints
// outcome accuracy, citation precision/recall and the price check. Exits 1 when any price in a
// response_markdown matches neither a live fact nor a cited policy passage.
// --postgres runs on the TEST_DATABASE_URL server (a fresh schema) instead of SQLite.
import { formatReport, runEval } from "../eval/assistant/run.js";

const args = new Set(process.argv.slice(2));
const quiet = args.has("--quiet");
const report = await runEval({
  dialect: args.has("--postgres") ? "postgres" : "sqlite",
  log: quiet ? () => {} : (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(`\n${formatReport(report)}\n`);
for (const r of report.results) {
  for (const p of r.prices.invented) process.stdout.write(`  invented price ${JSON.stringify(p)} in ${r.id}: ${JSON.stringify(r.markdown)}\n`);
}
process.exit(report.prices.invented > 0 ? 1 : 0);
