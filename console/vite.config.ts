/** The console's build: Preact via esbuild's automatic JSX runtime (no Babel), served under /console/. */
import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

const root = fileURLToPath(new URL(".", import.meta.url))

export default defineConfig({
  root,
  base: "/console/",
  logLevel: "warn",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, target: "es2022", chunkSizeWarningLimit: 200 }
})
