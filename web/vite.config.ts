/// <reference types="vitest/config" />
import { fileURLToPath } from "node:url";
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";

const webRoot = fileURLToPath(new URL(".", import.meta.url));

// The client: `npm run build` writes web/dist, which the server serves. In `vite` dev mode /api (HTTP and
// WebSockets) is proxied to a backend started with `npm start` on 127.0.0.1:8787.
export default defineConfig({
  root: webRoot,
  plugins: [vue()],
  build: { outDir: "dist", emptyOutDir: true },
  server: {
    host: "127.0.0.1",
    proxy: { "/api": { target: "http://127.0.0.1:8787", changeOrigin: false, ws: true } },
  },
  test: {
    name: "web",
    root: webRoot,
    include: ["src/**/*.test.ts"],
    environment: "happy-dom",
    // happy-dom's Node.prototype.nodeName differs from browsers and breaks DOMPurify (see the fixture).
    setupFiles: ["src/markdown/dom-node-name.fixture.ts"],
  },
});
