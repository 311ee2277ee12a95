// Folder rules of issue 21, checked by `npm run lint:deps` (run by .ci/run before the tests).
// Type-only imports count like any other: a folder that names another's types depends on it.
// No folder cycle and no module-level cycle is left anywhere. Test helpers (*.test.ts,
// test-support.ts) are not product code and are left out.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "tenancy-imports-no-api",
      comment: "src/tenancy is the core both APIs share: it imports neither API.",
      severity: "error",
      from: { path: "^src/tenancy/" },
      to: { path: "^src/(search|assistant)/" },
    },
    {
      name: "shared-imports-no-api",
      comment: "src/shared holds code both APIs use: it imports neither API.",
      severity: "error",
      from: { path: "^src/shared/" },
      to: { path: "^src/(search|assistant)/" },
    },
    {
      name: "no-api-imports-the-other",
      comment:
        "Neither API imports the other (issue 40): what both need is in src/shared or src/tenancy; the assistant reads products through the catalogue port in src/shared/catalog-port.ts, which the Search API implements.",
      severity: "error",
      from: { path: "^src/(search|assistant)/" },
      to: { path: "^src/(search|assistant)/", pathNot: "^src/$1/" },
    },
    {
      name: "platform-is-the-ground",
      comment: "src/platform is infrastructure: it imports only itself and libraries (it names no table, no product error code).",
      severity: "error",
      from: { path: "^src/platform/" },
      to: { path: "^src/", pathNot: "^src/platform/" },
    },
    {
      name: "db-sits-on-platform",
      comment:
        "src/db holds the product's tables, migrations and sealed columns: it imports only platform and itself (migrations reach product code only through the DataHooks the composition root hands in).",
      severity: "error",
      from: { path: "^src/db/" },
      to: { path: "^src/", pathNot: "^src/(db|platform)/" },
    },
    {
      name: "no-upward-imports",
      comment:
        "A folder inside an API or inside embeddings never imports the files at that folder's top (app.ts, compose.ts, load.ts ...), which import the folders: no parent-child folder cycle. (platform's top files are leaves: config, clock, ids.)",
      severity: "error",
      from: { path: "^src/(search|assistant|embeddings|vectors|lexical|tenancy|context)/[^/]+/" },
      to: { path: "^src/$1/[^/]+\\.ts$" },
    },
    {
      name: "no-circular",
      comment: "No import cycles between modules.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-folder-cycles",
      comment: "No import cycles between folders (issue 21).",
      severity: "error",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/|\\.test\\.ts$|(^|/)test-support\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".json"] },
  },
};
