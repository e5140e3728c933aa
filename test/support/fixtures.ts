/**
 * Real session files written by the pi coding agent itself (pi-mono's test fixtures, MIT licence), in
 * pi's version-1 format. Read-only: copy them into a temp agent dir before a test touches them.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PI_SESSION_FIXTURES_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "fixtures",
  "pi-sessions",
);
