// Vite build of the store portal. `npm install` runs it (package.json `prepare` →
// src/search/portal/build.ts); the Search API serves web/portal/dist under /portal/.
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/portal/",
  publicDir: "public",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 300,
  },
});
