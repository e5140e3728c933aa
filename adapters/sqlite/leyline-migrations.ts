/**
 * The migrations of leyline.sqlite, imported explicitly (no directory scanning: bundlers and tests see every
 * module, and a stray file in migrations/ cannot run by accident). Keys sort in run order.
 */
import type { Migration, MigrationProvider } from "kysely";
import * as m0001 from "../../migrations/0001-projection-checkpoints.ts";
import * as m0002 from "../../migrations/0002-subagent-overrides.ts";
import * as m0003 from "../../migrations/0003-search-index.ts";
import * as m0004 from "../../migrations/0004-native-app.ts";
import * as m0005 from "../../migrations/0005-rollout-feedback.ts";
import * as m0006 from "../../migrations/0006-vision-overrides.ts";
import * as m0007 from "../../migrations/0007-traces.ts";

export const leylineMigrations: Readonly<Record<string, Migration>> = {
  "0001-projection-checkpoints": m0001,
  "0002-subagent-overrides": m0002,
  "0003-search-index": m0003,
  "0004-native-app": m0004,
  "0005-rollout-feedback": m0005,
  "0006-vision-overrides": m0006,
  "0007-traces": m0007,
};

export const leylineMigrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve({ ...leylineMigrations }),
};

/** Number of migrations: stored in `PRAGMA user_version` once they all ran (see database.ts). */
export const LEYLINE_SCHEMA_VERSION = Object.keys(leylineMigrations).length;
