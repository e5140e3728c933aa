/**
 * What the trace views show, as pure functions: labels for statuses, durations, tokens and costs; the
 * "clipped (N KB)" note of a field a read shortened; the timeline as a tree (tools under the model call that
 * asked for them, by `parentId`; child runs under the tool call that started them, by `toolCallId`); the offset
 * bar of a row (its start and duration against the trace's latency); and the transcript's link from a user
 * turn to its run (`metadata.userEntryId`). No clock: callers pass `now` where a date depends on it. A trace
 * record's timeline is built once (`timelineOf`, remembered per record: records are replaced, never changed).
 */
import type { ReadTruncation, Trace, TraceChild, TraceList, TraceObservation, TraceStatus, TraceSummary } from "../../api/traces.ts";
import { compactNumber } from "../../lib/compact-number.ts";
import { fileSize } from "../../lib/file-size.ts";
import { costText } from "../../lib/session-usage-label.ts";
import { clockTime, shortDate, toDate } from "../../lib/time-format.ts";

export const TRACE_STATUS_LABELS: Record<TraceStatus, string> = {
  running: "Running",
  completed: "Completed",
  error: "Error",
  aborted: "Aborted",
};

export const OBSERVATION_TYPE_LABELS: Record<TraceObservation["type"], { short: string; long: string }> = {
  GENERATION: { short: "LLM", long: "Model call" },
  TOOL: { short: "Tool", long: "Tool execution" },
  EVENT: { short: "Event", long: "Event" },
};

/** Seconds as people read a duration: "840 ms", "3.42 s", "12.3 s", "2 min 5 s", "1 h 2 min"; "" for none. */
export function durationText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return "";
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
}

/** "1.2k in · 340 out"; "" when both are zero. */
export function tokensText(input: number, output: number): string {
  if (input <= 0 && output <= 0) return "";
  return `${compactNumber(input)} in · ${compactNumber(output)} out`;
}

/** "$0.42", "$0.0031"; "" for nothing. */
export function costLabel(cost: number): string {
  return costText(cost);
}

/** When a trace started: "12 Mar 15:29" (with the year when it is not `now`'s); "" for an unreadable time. */
export function traceTimeText(timestamp: string, now: Date): string {
  const date = toDate(timestamp);
  if (date === null) return "";
  return `${shortDate(date, date.getFullYear() !== now.getFullYear())} ${clockTime(date)}`;
}

/** "clipped (34 KB)" when a read shortened `field` of a record (spec "Reads clip text fields to 32 KiB"), else null. */
export function clippedNote(truncation: ReadTruncation | undefined, field: string): string | null {
  if (truncation?.fields?.includes(field) !== true) return null;
  const bytes = truncation.fieldBytes?.[field];
  return bytes === undefined ? "clipped" : `clipped (${fileSize(bytes)})`;
}

/** A short form of a long identifier, for labels ("trace-1234…cdef"). */
export function shortId(id: string): string {
  return id.length <= 14 ? id : `${id.slice(0, 8)}…${id.slice(-4)}`;
}

/** A tool observation's tool call id (`metadata.toolCallId`), or null. */
export function toolCallIdOf(observation: TraceObservation): string | null {
  const id = observation.metadata["toolCallId"];
  return typeof id === "string" && id !== "" ? id : null;
}

/** One timeline row: an observation, the observations it caused, and the child runs its tool call started. */
export interface TimelineNode {
  observation: TraceObservation;
  children: TimelineNode[];
  childRuns: TraceChild[];
}

export interface Timeline {
  roots: TimelineNode[];
  /** Child runs whose tool call is not among the observations loaded (or that name none). */
  unplaced: TraceChild[];
}

function byStart(a: TimelineNode, b: TimelineNode): number {
  return a.observation.startTime - b.observation.startTime;
}

/**
 * The observations as a tree: each under its `parentId` when that observation is loaded (a tool under the model
 * call that asked for it), else at the top; siblings by start time (stable). A parent chain that loops is cut
 * where it closes. Child runs hang under the TOOL observation with their `toolCallId` (a parallel subagent call
 * starts several); the rest are `unplaced`.
 */
export function buildTimeline(observations: readonly TraceObservation[], children: readonly TraceChild[]): Timeline {
  const nodes = new Map<string, TimelineNode>();
  for (const observation of observations) {
    if (!nodes.has(observation.id)) nodes.set(observation.id, { observation, children: [], childRuns: [] });
  }
  const roots: TimelineNode[] = [];
  // A node whose parent chain loops (or leads into a loop) goes to the top: every node stays reachable.
  const reachesItself = (node: TimelineNode): boolean => {
    const seen = new Set<string>([node.observation.id]);
    let parentId = node.observation.parentId;
    while (parentId !== null) {
      if (seen.has(parentId)) return true;
      seen.add(parentId);
      parentId = nodes.get(parentId)?.observation.parentId ?? null;
    }
    return false;
  };
  for (const node of nodes.values()) {
    const parent = node.observation.parentId === null ? undefined : nodes.get(node.observation.parentId);
    if (parent === undefined || parent === node || reachesItself(node)) roots.push(node);
    else parent.children.push(node);
  }
  const sortTree = (list: TimelineNode[]): void => {
    list.sort(byStart);
    for (const node of list) sortTree(node.children);
  };
  sortTree(roots);

  const toolsByCall = new Map<string, TimelineNode>();
  for (const node of nodes.values()) {
    const callId = node.observation.type === "TOOL" ? toolCallIdOf(node.observation) : null;
    if (callId !== null && !toolsByCall.has(callId)) toolsByCall.set(callId, node);
  }
  const unplaced: TraceChild[] = [];
  for (const child of children) {
    const tool = child.toolCallId === null ? undefined : toolsByCall.get(child.toolCallId);
    if (tool === undefined) unplaced.push(child);
    else tool.childRuns.push(child);
  }
  return { roots, unplaced };
}

const timelines = new WeakMap<Trace, Timeline>();

/** A trace's timeline, built once per record (a refresh brings a new record, hence a new timeline). */
export function timelineOf(trace: Trace): Timeline {
  let timeline = timelines.get(trace);
  if (timeline === undefined) {
    timeline = buildTimeline(trace.observations, trace.metadata.children ?? []);
    timelines.set(trace, timeline);
  }
  return timeline;
}

/** Whether an observation failed (its status or its level says so). */
export function observationFailed(observation: TraceObservation): boolean {
  return observation.level === "ERROR" || observation.status === "error";
}

/** Where a row's bar sits, in percent of the trace's latency; a running row (no duration) reaches the end. */
export function offsetBar(startTime: number, duration: number | null, total: number): { left: number; width: number } {
  if (!Number.isFinite(total) || total <= 0) return { left: 0, width: 100 };
  const clamp = (value: number) => Math.min(100, Math.max(0, value));
  const left = clamp((startTime / total) * 100);
  const end = duration === null ? 100 : clamp(((startTime + Math.max(0, duration)) / total) * 100);
  return { left, width: Math.max(0.5, end - left) };
}

/** The newest trace of each user turn (`metadata.userEntryId`) in a newest-first list: entry id → trace id. */
export function tracesByUserEntry(traces: readonly TraceSummary[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const trace of traces) {
    const entryId = trace.metadata.userEntryId;
    if (entryId !== null && entryId !== "" && map[entryId] === undefined) map[entryId] = trace.id;
  }
  return map;
}

/** "1–50 of 123" for a list page; "" when it is empty. */
export function pageRangeText(list: TraceList): string {
  if (list.total === 0 || list.traces.length === 0) return "";
  const first = (list.page - 1) * list.limit + 1;
  return `${first}–${first + list.traces.length - 1} of ${list.total}`;
}

/** Whether a later page exists. */
export function hasNextPage(list: TraceList): boolean {
  return list.page * list.limit < list.total;
}

/** A text as it reads best: JSON (a tool's arguments) indented, anything else unchanged. */
export function readableText(text: string): string {
  const trimmed = text.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return text;
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2);
  } catch {
    return text;
  }
}

/** Metadata as indented JSON; "" when it has nothing. */
export function metadataText(metadata: Record<string, unknown>): string {
  return Object.keys(metadata).length === 0 ? "" : JSON.stringify(metadata, null, 2);
}

/** The trace URL of the app (`/traces/<id>`). */
export function traceHref(id: string): string {
  return `/traces/${encodeURIComponent(id)}`;
}
