import { defineConfig } from "vitest/config";

// `npm test` runs two projects: "server" (every backend folder and test/, in Node) and "web" (the Vue client,
// configured in web/vite.config.ts: happy-dom and the Vue plugin).
export default defineConfig({
  test: {
    env: { PI_OFFLINE: "1", LEYLINE_CHECK_RESPONSES: "1" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "server",
          include: [
            "domain/**/*.test.ts",
            "projections/**/*.test.ts",
            "adapters/**/*.test.ts",
            "api/**/*.test.ts",
            "extensions/**/*.test.ts",
            "migrations/**/*.test.ts",
            "scripts/**/*.test.ts",
            "test/**/*.test.ts",
          ],
          exclude: ["node_modules/**", "web/**"],
        },
      },
      "web/vite.config.ts",
    ],
  },
});
