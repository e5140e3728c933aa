/**
 * Row types of the trace tables (created by migrations/0007-traces.ts): the single source of their types.
 * Times are milliseconds since the epoch; `tags` and `metadata` are JSON text; `bookmarked` is 0 or 1.
 */
import type { Selectable } from "kysely";
import type { ObservationType, TraceLevel, TraceScore, TraceStatus } from "../../domain/traces/trace-types.ts";

export interface TraceTable {
  id: string;
  session_id: string;
  session_file: string | null;
  session_name: string | null;
  cwd: string | null;
  parent_session_file: string | null;
  parent_trace_id: string | null;
  parent_session_id: string | null;
  parent_tool_call_id: string | null;
  agent: string | null;
  name: string;
  status: TraceStatus;
  level: TraceLevel;
  status_message: string | null;
  start_ms: number;
  end_ms: number | null;
  updated_ms: number;
  input: string | null;
  output: string | null;
  model: string;
  user_entry_id: string | null;
  start_entry_id: string | null;
  end_entry_id: string | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost: number;
  bookmarked: number;
  revision: number;
  environment: string;
  user_id: string;
  version: string;
  tags: string;
  metadata: string;
}

export interface TraceObservationTable {
  trace_id: string;
  id: string;
  seq: number;
  parent_id: string | null;
  type: ObservationType;
  name: string;
  start_ms: number;
  end_ms: number | null;
  level: TraceLevel;
  status: TraceStatus;
  status_message: string | null;
  model: string | null;
  input: string | null;
  output: string | null;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost: number;
  tool_call_id: string | null;
  entry_id: string | null;
  metadata: string;
}

export interface TraceScoreTable {
  trace_id: string;
  id: string;
  name: string;
  value_number: number | null;
  value_text: string | null;
  comment: string | null;
  source: string;
  timestamp_ms: number;
  data_type: TraceScore["dataType"];
}

export interface TraceSettingTable {
  key: string;
  value: string;
}

export type TraceRow = Selectable<TraceTable>;
export type TraceObservationRow = Selectable<TraceObservationTable>;
export type TraceScoreRow = Selectable<TraceScoreTable>;
