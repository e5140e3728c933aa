/**
 * Row type of `vision_overrides` (created by migrations/0006-vision-overrides.ts): the single source of this
 * table's types.
 *
 * - `scope`: "global" | "project" | "session" (a CHECK constraint holds it to these).
 * - `scope_id`: "" for global, the project id (adapters/subagents/subagent-context.ts) for project, the
 *   canonical session file for session.
 * - `model`: "provider/id", or "" when this scope sets no model.
 * - `thinking`: a domain/vision/vision-types.ts VISION_THINKING_VALUES value, or "" when it sets none.
 *   Never both "" (a CHECK constraint; clearing both deletes the row).
 * - `updated_at`: milliseconds since the epoch of the last write.
 */
import type { Insertable, Selectable } from "kysely";
import type { VisionScope } from "../../domain/vision/vision-types.ts";

export interface VisionOverrideTable {
  scope: VisionScope;
  scope_id: string;
  model: string;
  thinking: string;
  updated_at: number;
}

export type VisionOverrideRow = Selectable<VisionOverrideTable>;
export type NewVisionOverride = Insertable<VisionOverrideTable>;
