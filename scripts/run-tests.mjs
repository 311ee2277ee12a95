#!/usr/bin/env node
// `npm test`: runs every *.test.ts under src/ and test/ (or under the folders/files given as
// arguments) with Node's test runner and tsx. Node 20's runner does not expand globs itself.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const roots = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["src", "test"];
const files = roots.flatMap((root) => {
  if (!fs.existsSync(root)) return [];
  if (fs.statSync(root).isFile()) return [root];
  return fs
    .readdirSync(root, { recursive: true })
    .map((f) => path.join(root, String(f)))
    .filter((f) => f.endsWith(".test.ts") && !f.includes("node_modules"));
});
if (files.length === 0) {
  console.error(`No test files under ${roots.join(", ")}`);
  process.exit(1);
}
files.sort();
const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", ...files], { stdio: "inherit" });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
