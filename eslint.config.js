// ESLint (flat config). `npm run lint` runs it with --max-warnings 0, and so does .ci/run.
//
// Rules chosen:
// - Server code (src/, not tests): typescript-eslint `strictTypeChecked`, type-aware, with
//   three deliberate changes: `!` non-null assertions are allowed (used after a check the
//   compiler cannot follow, e.g. a Map read guarded by `has`); numbers and booleans may appear in
//   template strings; `require-await` is off because many async methods implement an async
//   interface without awaiting anything themselves; `no-unnecessary-type-conversion` is off because
//   values read from database drivers are converted on purpose (a driver may return a bigint or
//   numeric column as a string whatever the declared type says).
// - Tests, benchmarks, evaluations, scripts and the portal: `recommended` (syntax only). Tests read
//   JSON bodies as `any` on purpose and node:test's `test()` returns a promise nobody awaits.
// - Browser scripts shipped as plain JavaScript (web/widget, web/chat): ESLint's recommended.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const testFiles = ["src/**/*.test.ts", "test/**/*.ts", "bench/**/*.ts", "eval/**/*.ts", "scripts/**/*.ts"];

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "test-results/**", "web/portal/dist/**", "web/portal/src/generated/**", "**/*.d.ts"] },
  {
    files: ["src/**/*.ts"],
    ignores: testFiles,
    extends: [...tseslint.configs.strictTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unnecessary-type-conversion": "off",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      "@typescript-eslint/no-confusing-void-expression": ["error", { ignoreArrowShorthand: true }],
    },
  },
  {
    files: [...testFiles, "web/portal/src/**/*.{ts,tsx}", "web/portal/vite.config.ts"],
    extends: [...tseslint.configs.recommended],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    files: ["web/widget/**/*.js", "web/chat/**/*.js", "scripts/**/*.{js,mjs}", "*.{js,mjs,cjs}", ".dependency-cruiser.cjs"],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
  },
);
