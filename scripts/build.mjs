#!/usr/bin/env node
// `npm run build`: builds the Vue client (web/) into web/dist with Vite. The server serves web/dist.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "web");

await build({ root: webDir, configFile: path.join(webDir, "vite.config.ts"), logLevel: process.env.LEYLINE_BUILD_LOG_LEVEL ?? "info" });
