/**
 * The run state a session shows (issue 5: "working, waiting and finished states look different"):
 * - waiting: the runtime needs the user: an extension confirmation is pending, or the Up next queue is held
 *   (or stopped on an error) with tasks in it and nothing is running;
 * - working: a turn is streaming, tools run, compaction runs, or a queued task is being sent;
 * - finished: nothing runs and the branch ends with an assistant answer (or the research is complete);
 * - idle: anything else (a new session, no runtime yet).
 * A pending confirmation outranks working: the run cannot continue without the user.
 */
import type { ActiveSnapshot } from "../../../domain/runtime/runtime-types.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";

export type RunState = "idle" | "working" | "waiting" | "finished";

export const RUN_STATE_LABELS: Record<RunState, string> = {
  idle: "Ready",
  working: "Working",
  waiting: "Waiting for you",
  finished: "Finished",
};

interface QueueLike {
  held?: boolean;
  error?: string;
  items?: Array<{ status?: string }>;
  count?: number;
}

function queueSize(queue: QueueLike | undefined): number {
  if (queue === undefined) return 0;
  if (Array.isArray(queue.items)) return queue.items.length;
  return typeof queue.count === "number" ? queue.count : 0;
}

export function runStateOf(active: ActiveSnapshot | null, entries: readonly TranscriptEntry[] = []): RunState {
  if (active !== null) {
    const state = active.state;
    if (state.pendingConfirmationCount > 0) return "waiting";
    const queue = state.promptQueue as QueueLike | undefined;
    const sending = Array.isArray(queue?.items) && queue.items.some((item) => item.status === "sending");
    if (state.isStreaming || state.isCompacting || state.pendingToolCalls.length > 0 || sending) return "working";
    if (queueSize(queue) > 0 && (queue?.held === true || (queue?.error ?? "") !== "")) return "waiting";
    if (state.research?.status === "complete") return "finished";
  }
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry === undefined) continue;
    if (entry.type === "message" && entry.role === "assistant") return entry.stopReason === "toolUse" ? "idle" : "finished";
    if (entry.type === "message" && entry.role === "user") return "idle";
  }
  return "idle";
}
