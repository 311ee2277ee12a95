// The store portal's build (web/portal, Vite): `npm install` builds it (package.json `prepare`
// runs this file), and the Search API builds it again when the output is missing or older than
// its sources (a hash of every source file is written beside the output), so a fresh clone, a
// `git pull` and `npm start` never serve a stale portal.
//
// The build runs Vite in a child process (its bundler stays out of the server's memory) into a
// temporary folder that then replaces web/portal/dist, so a half-written build is never served
// and two processes building at once do not mix their files.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PORTAL_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../web/portal");
export const PORTAL_DIST = path.join(PORTAL_ROOT, "dist");
const STAMP = ".source-hash";
const SKIP = new Set(["dist", "node_modules"]);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (SKIP.has(entry.name) || entry.name.startsWith(".dist-")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** SHA-256 over the portal's source files (paths and contents). */
export function portalSourceHash(): string {
  const hash = createHash("sha256");
  for (const file of sourceFiles(PORTAL_ROOT)) {
    hash.update(path.relative(PORTAL_ROOT, file)).update("\0").update(fs.readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

/** Whether web/portal/dist holds a build of the current sources. */
export function portalIsFresh(): boolean {
  try {
    if (!fs.existsSync(path.join(PORTAL_DIST, "index.html"))) return false;
    return fs.readFileSync(path.join(PORTAL_DIST, STAMP), "utf8").trim() === portalSourceHash();
  } catch {
    return false;
  }
}

/** Runs `vite build` into a temporary folder, then swaps it in as web/portal/dist. */
export async function buildPortal(log: (line: string) => void = () => {}): Promise<void> {
  removeStaleTemporaries();
  const hash = portalSourceHash();
  const require = createRequire(import.meta.url);
  const viteBin = path.join(path.dirname(require.resolve("vite/package.json")), "bin", "vite.js");
  const tmp = path.join(PORTAL_ROOT, `.dist-${process.pid}-${Date.now().toString(36)}`);
  let output = "";
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [viteBin, "build", "--config", path.join(PORTAL_ROOT, "vite.config.ts"), "--outDir", tmp, "--emptyOutDir", "--logLevel", "warn"],
      { cwd: PORTAL_ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "production" } },
    );
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("exit", resolve);
  });
  if (code !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`portal build failed (vite exit ${code}):\n${output}`);
  }
  fs.writeFileSync(path.join(tmp, STAMP), hash + "\n");
  const old = path.join(PORTAL_ROOT, `.dist-old-${process.pid}-${Date.now().toString(36)}`);
  if (fs.existsSync(PORTAL_DIST)) fs.renameSync(PORTAL_DIST, old);
  try {
    fs.renameSync(tmp, PORTAL_DIST);
  } catch (e) {
    // Another process swapped its build in first: keep that one.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(PORTAL_DIST)) throw e;
  }
  fs.rmSync(old, { recursive: true, force: true });
  if (output.trim()) log(output.trim());
}

/** Removes temporary build folders left by a process that stopped mid-build (older than 10 minutes). */
function removeStaleTemporaries(): void {
  for (const name of fs.readdirSync(PORTAL_ROOT)) {
    if (!name.startsWith(".dist-")) continue;
    const full = path.join(PORTAL_ROOT, name);
    try {
      if (Date.now() - fs.statSync(full).mtimeMs > 10 * 60_000) fs.rmSync(full, { recursive: true, force: true });
    } catch {
      // gone already
    }
  }
}

let pending: Promise<void> | null = null;

/** Builds the portal unless web/portal/dist is current; concurrent callers share one build. */
export function ensurePortalBuilt(log?: (line: string) => void): Promise<void> {
  if (portalIsFresh()) return Promise.resolve();
  pending ??= buildPortal(log).finally(() => {
    pending = null;
  });
  return pending;
}

// `tsx src/search/portal/build.ts [--force]` (npm `prepare` and `build:portal`).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes("--force");
  const started = Date.now();
  (force ? buildPortal(console.log) : ensurePortalBuilt(console.log)).then(
    () => console.log(`portal: web/portal/dist is current (${Date.now() - started} ms)`),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exitCode = 1;
    },
  );
}
