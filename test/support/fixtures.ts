/**
 * Real session files written by the pi coding agent itself (pi-mono's test fixtures, MIT licence), in
 * pi's version-1 format. Read-only: copy them into a temp agent dir before a test touches them.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PI_SESSION_FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "pi-sessions");

/**
 * Session files written by pi 0.74.2's SDK (the differential corpus of test/differential/session-corpus.ts, built
 * at a1f48a1 before Leyline moved to pi 1.x), with `expected.json`: what Leyline read from each of them then
 * (summary, leaf, transcript). Read-only.
 */
export const PI_074_SESSION_FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "pi-0.74-sessions");
