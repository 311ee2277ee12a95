// The error catalogue has one owner per code (issue 40): src/platform/errors/catalogue.ts holds the
// generic codes and each layer above registers its own. A code is only known at run time once its
// module is imported, so every module that names a layer's code imports that layer's module.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { AppError, isRegisteredError } from "../src/platform/errors/catalogue.js";

const OWNERS = ["src/tenancy/errors/codes.ts", "src/embeddings/errors.ts", "src/search/errors/codes.ts", "src/assistant/errors/codes.ts"];

const codesIn = (file: string): string[] => [...fs.readFileSync(file, "utf8").matchAll(/^ {2}(\w+): \{/gm)].map((m) => m[1] ?? "");

const sourceFiles = (fs.readdirSync("src", { recursive: true }) as string[])
  .map((f) => path.join("src", f))
  .filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".test.ts") && !f.endsWith("test-support.ts"));

test("every module that names a layer's error code imports the module that registers it", () => {
  const missing: string[] = [];
  for (const owner of OWNERS) {
    const codes = codesIn(owner);
    assert.ok(codes.length > 0, `${owner} registers no code`);
    for (const file of sourceFiles) {
      if (path.resolve(file) === path.resolve(owner)) continue;
      const text = fs.readFileSync(file, "utf8");
      const named = codes.filter((c) => text.includes(`"${c}"`));
      if (named.length === 0) continue;
      const spec = path.relative(path.dirname(file), owner).replace(/\.ts$/, ".js");
      const specifier = spec.startsWith(".") ? spec : `./${spec}`;
      if (!text.includes(`"${specifier}"`)) missing.push(`${file} names ${named.join(", ")} but does not import ${specifier}`);
    }
  }
  assert.deepEqual(missing, []);
});

test("each layer's codes are registered once imported, and no code has two owners", async () => {
  const seen = new Map<string, string>();
  for (const owner of ["src/platform/errors/catalogue.ts", ...OWNERS]) {
    for (const code of codesIn(owner)) {
      assert.equal(seen.get(code), undefined, `${code} is registered by ${seen.get(code)} and ${owner}`);
      seen.set(code, owner);
    }
  }
  for (const owner of OWNERS) await import(path.resolve(owner));
  for (const [code] of seen) assert.ok(isRegisteredError(code), `${code} is not registered`);
  const e = new AppError("plan_unchanged");
  assert.equal(e.status, 409);
  assert.equal(e.assistantCode, "PLAN_UNCHANGED");
  assert.throws(() => new AppError("no_such_code" as never), /not registered/);
});
