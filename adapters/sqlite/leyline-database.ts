/**
 * The schema of leyline.sqlite as Kysely sees it: one property per table, each typed by its `*.table.ts`.
 * Add a table here when its migration lands.
 */
import type { ProjectionCheckpointTable } from "../projections/projection-checkpoint.table.ts";
import type { SearchDocTable, SearchFileTable, SearchFtsTable, SearchTextTable } from "../search/search-index.table.ts";
import type { SubagentModelOverrideTable } from "../subagents/subagent-model-override.table.ts";
import type { AppSettingTable, BackendConnectionTable, PinnedSessionTable } from "../native-app/native-app.table.ts";
import type { RolloutFeedbackTable } from "../rollout-feedback/rollout-feedback.table.ts";
import type { VisionOverrideTable } from "../vision/vision-override.table.ts";
import type { TraceObservationTable, TraceScoreTable, TraceSettingTable, TraceTable } from "../traces/trace.table.ts";

export interface LeylineDatabase {
  projection_checkpoints: ProjectionCheckpointTable;
  subagent_model_overrides: SubagentModelOverrideTable;
  search_files: SearchFileTable;
  search_docs: SearchDocTable;
  search_text: SearchTextTable;
  search_fts: SearchFtsTable;
  backend_connections: BackendConnectionTable;
  app_settings: AppSettingTable;
  pinned_sessions: PinnedSessionTable;
  rollout_feedback: RolloutFeedbackTable;
  vision_overrides: VisionOverrideTable;
  traces: TraceTable;
  trace_observations: TraceObservationTable;
  trace_scores: TraceScoreTable;
  trace_settings: TraceSettingTable;
}
