// Module rules of the store portal (web/portal/src, a Preact app with its own tsconfig), checked by
// `npm run lint:deps` beside the server's rules in .dependency-cruiser.cjs. Type-only imports count
// like any other (issue 40: the pages' cycle through StoreProps in pages/store.tsx is gone; the
// shared page props live in pages/store-props.ts, which imports no page).
const path = require("node:path");

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "portal-no-circular",
      comment: "No import cycles between the portal's modules (type-only imports included).",
      severity: "error",
      from: { path: "^web/portal/src/" },
      to: { circular: true },
    },
    {
      name: "portal-page-props-import-no-page",
      comment: "The props the store pages share are a leaf below the pages: they import no page.",
      severity: "error",
      from: { path: "^web/portal/src/pages/store-props\\.ts$" },
      to: { path: "^web/portal/src/pages/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/" },
    tsPreCompilationDeps: true,
    // An absolute path: TypeScript finds no inputs through a relative one outside the tsconfig's folder.
    tsConfig: { fileName: path.join(__dirname, "web/portal/tsconfig.json") },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".json"] },
  },
};
