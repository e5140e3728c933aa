/**
 * Test support for the capture fold (trace-capture.ts):
 * - builders for pi's session events as the worker receives them (pi-agent-core's `AgentEvent` plus the coding
 *   agent's `agent_end.willRetry`, `agent_settled`, `auto_retry_start`, `compaction_end`), with pi's message shapes;
 *   a pi run (`_startRun`) ends with `agent_end` then `agent_settled` (`runEnd`);
 * - `PiRuntime`, which feeds them to the fold as the worker's recorder (adapters/runtime-worker/trace-recorder.ts)
 *   does: a clock, pi's leaf, a fresh id for an `agent_start`, and `messageEntryId`. It appends entries as pi does:
 *   every `message_end` (user, assistant, toolResult, custom) appends the message's entry `entry-<k>` after the
 *   fold saw the event, so the next event sees it as the leaf; the entry of a user or assistant message is reported
 *   once, at the next event (or when the runtime goes away), as the recorder finds it by identity. `appendEntry`
 *   appends an entry no message wrote (a model change, an extension's custom entry): it moves the leaf only;
 * - the store's reading of the writes (adapters/traces/trace-store.ts): a trace patch overrides the fields it
 *   names and merges its metadata one level deep; an observation write replaces the record with that id.
 */
import { abandonCapture, type CaptureInput, type CaptureState, EMPTY_CAPTURE, stepCapture } from "./trace-capture.ts";
import type { CaptureWrite, ObservationRecord, TraceCapturePatch } from "./trace-records.ts";

export type PiEvent = CaptureInput["event"];

export interface PiUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/** pi's usage of one model call (totalTokens as pi reports it: every input and output token). */
export function piUsage(input: number, output: number, cacheRead = 0, cacheWrite = 0, cost = 0): PiUsage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
  };
}

export const NO_USAGE = piUsage(0, 0);

export type AssistantBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

export const text = (value: string): AssistantBlock => ({ type: "text", text: value });
export const thinking = (value: string): AssistantBlock => ({ type: "thinking", thinking: value });
export const toolCall = (id: string, name: string, args: Record<string, unknown> = {}): AssistantBlock => ({
  type: "toolCall",
  id,
  name,
  arguments: args,
});

export const agentStart = (): PiEvent => ({ type: "agent_start" });
export const agentEnd = (willRetry = false): PiEvent => ({ type: "agent_end", messages: [], willRetry });
/** The end of pi's run (`_startRun`'s finally); `aborted`: the user aborted the run. */
export const agentSettled = (aborted = false): PiEvent => ({ type: "agent_settled", aborted });
/** How a pi run ends when nothing continues it: its agent loop ends, then the run settles. */
export const runEnd = (aborted = false): PiEvent[] => [agentEnd(), agentSettled(aborted)];

/** A user message (a prompt or a steering message): its message_start and message_end. */
export function userMessage(content: string | unknown[]): PiEvent[] {
  const message = { role: "user", content: typeof content === "string" ? [{ type: "text", text: content }] : content, timestamp: 1 };
  return [
    { type: "message_start", message },
    { type: "message_end", message },
  ];
}

export interface AssistantOptions {
  content?: AssistantBlock[];
  usage?: PiUsage;
  provider?: string;
  model?: string;
  stopReason?: string;
  errorMessage?: string;
}

/** An assistant message: message_start (pi's partial message: no content yet, no usage) and message_end. */
export function assistantMessage(options: AssistantOptions = {}): PiEvent[] {
  const message = {
    role: "assistant",
    content: options.content ?? [text("Done.")],
    api: "anthropic-messages",
    provider: options.provider ?? "anthropic",
    model: options.model ?? "claude-sonnet-4-5",
    usage: options.usage ?? piUsage(100, 20),
    stopReason: options.stopReason ?? "stop",
    ...(options.errorMessage !== undefined ? { errorMessage: options.errorMessage } : {}),
    timestamp: 1,
  };
  return [
    { type: "message_start", message: { ...message, content: [], usage: NO_USAGE, stopReason: "stop" } },
    { type: "message_end", message },
  ];
}

export const toolStart = (toolCallId: string, toolName: string, args: unknown = {}): PiEvent => ({
  type: "tool_execution_start",
  toolCallId,
  toolName,
  args,
});

export function toolEnd(
  toolCallId: string,
  toolName: string,
  output: string,
  options: { isError?: boolean; details?: unknown } = {},
): PiEvent {
  return {
    type: "tool_execution_end",
    toolCallId,
    toolName,
    result: { content: [{ type: "text", text: output }], details: options.details ?? {} },
    isError: options.isError ?? false,
  };
}

/** The toolResult message pi appends after a tool ran (its own message_start and message_end). */
export function toolResultMessage(
  toolCallId: string,
  toolName: string,
  output: string,
  options: { isError?: boolean; usage?: PiUsage } = {},
): PiEvent[] {
  const message = {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text: output }],
    isError: options.isError ?? false,
    ...(options.usage !== undefined ? { usage: options.usage } : {}),
    timestamp: 1,
  };
  return [
    { type: "message_start", message },
    { type: "message_end", message },
  ];
}

/** A message an extension sends into the run (role `custom`): pi appends it as a custom message entry. */
export function customMessage(customType: string, content: string): PiEvent[] {
  const message = { role: "custom", customType, content, display: true, details: undefined, timestamp: 1 };
  return [
    { type: "message_start", message },
    { type: "message_end", message },
  ];
}

/** One tool call executed: its start, its end and the toolResult message. */
export function toolRound(
  toolCallId: string,
  toolName: string,
  args: unknown,
  output: string,
  options: { isError?: boolean } = {},
): PiEvent[] {
  return [
    toolStart(toolCallId, toolName, args),
    toolEnd(toolCallId, toolName, output, options),
    ...toolResultMessage(toolCallId, toolName, output, options),
  ];
}

export const autoRetryStart = (attempt: number, errorMessage: string): PiEvent => ({
  type: "auto_retry_start",
  attempt,
  maxAttempts: 3,
  delayMs: 2000,
  errorMessage,
});

export const compactionEnd = (options: { reason?: string; aborted?: boolean; errorMessage?: string } = {}): PiEvent => ({
  type: "compaction_end",
  reason: options.reason ?? "threshold",
  result: undefined,
  aborted: options.aborted ?? false,
  willRetry: false,
  ...(options.errorMessage !== undefined ? { errorMessage: options.errorMessage } : {}),
});

/** The clock of a PiRuntime: the n-th event it feeds (1-based) happens at `at(n)`. */
export const T0 = 1_700_000_000_000;
export const STEP_MS = 1_000;
export const at = (n: number): number => T0 + n * STEP_MS;

/** Deep-freezes plain data (events, states) so a fold that mutates its inputs throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export interface PiRuntimeOptions {
  /** pi's leaf when the first event arrives (an existing session's last entry). */
  leaf?: string | null;
  /** Freeze every event and every state the fold is given. */
  freeze?: boolean;
}

/** Roles whose entries the recorder reports (it looks for a user or assistant message's entry, never another's). */
const REPORTED_ROLES: ReadonlySet<unknown> = new Set(["user", "assistant"]);

function roleOf(event: PiEvent): unknown {
  const message = event["message"];
  return typeof message === "object" && message !== null ? (message as { role?: unknown }).role : undefined;
}

/** One pi runtime as the worker's trace recorder sees it. */
export class PiRuntime {
  state: CaptureState = EMPTY_CAPTURE;
  readonly writes: CaptureWrite[] = [];
  private leaf: string | null;
  private entries = 0;
  /** The entry of the last user or assistant message, until the next event reports it. */
  private pendingEntry: string | null = null;
  private starts = 0;
  private count = 0;
  private readonly freeze: boolean;

  constructor(options: PiRuntimeOptions = {}) {
    this.leaf = options.leaf ?? null;
    this.freeze = options.freeze ?? false;
  }

  get leafId(): string | null {
    return this.leaf;
  }

  /** Feeds one event (at the next tick unless `time` is given); answers its writes. */
  push(event: PiEvent, time?: number): CaptureWrite[] {
    this.count += 1;
    const newId = event.type === "agent_start" ? `trace-${++this.starts}` : "";
    const messageEntryId = this.takePendingEntry();
    const input: CaptureInput = {
      event: this.freeze ? deepFreeze(event) : event,
      at: time ?? at(this.count),
      leafId: this.leaf,
      messageEntryId,
      newId,
    };
    const step = stepCapture(this.freeze ? deepFreeze(this.state) : this.state, input);
    this.state = step.state;
    this.writes.push(...step.writes);
    if (event.type === "message_end") {
      const entryId = this.appendEntry();
      if (REPORTED_ROLES.has(roleOf(event))) this.pendingEntry = entryId;
    }
    return step.writes;
  }

  /** pi appends an entry (a message's, or one no message wrote): it becomes the leaf. Answers its id. */
  appendEntry(): string {
    this.leaf = `entry-${++this.entries}`;
    return this.leaf;
  }

  pushAll(events: readonly PiEvent[]): CaptureWrite[] {
    return events.flatMap((event) => this.push(event));
  }

  /**
   * The runtime goes away (the recorder's `abandon`), at the next tick unless `time` is given. The last message's
   * entry is on disk by then and is reported with it.
   */
  abandon(message: string, time?: number): CaptureWrite[] {
    this.count += 1;
    const input = { at: time ?? at(this.count), leafId: this.leaf, messageEntryId: this.takePendingEntry() };
    const step = abandonCapture(this.state, input, message);
    this.state = step.state;
    this.writes.push(...step.writes);
    return step.writes;
  }

  private takePendingEntry(): string | null {
    const entryId = this.pendingEntry;
    this.pendingEntry = null;
    return entryId;
  }
}

/** The traces as the store keeps them after these writes (fields overridden, metadata merged one level deep). */
export function storedTraces(writes: readonly CaptureWrite[]): Record<string, TraceCapturePatch> {
  const traces: Record<string, TraceCapturePatch> = {};
  for (const write of writes) {
    const before = traces[write.traceId] ?? {};
    const patch = write.trace ?? {};
    traces[write.traceId] = {
      ...before,
      ...patch,
      ...(patch.metadata !== undefined || before.metadata !== undefined ? { metadata: { ...before.metadata, ...patch.metadata } } : {}),
    };
  }
  return traces;
}

/** Each trace's observations as the store keeps them (the last write of each id), in the order of their first write. */
export function storedObservations(writes: readonly CaptureWrite[]): Record<string, ObservationRecord[]> {
  const byTrace: Record<string, Map<string, ObservationRecord>> = {};
  for (const write of writes) {
    const records = (byTrace[write.traceId] ??= new Map());
    for (const record of write.observations ?? []) records.set(record.id, record);
  }
  return Object.fromEntries(Object.entries(byTrace).map(([traceId, records]) => [traceId, [...records.values()]]));
}

/** The trace ids the writes name, in the order they first appear. */
export function tracesWritten(writes: readonly CaptureWrite[]): string[] {
  return [...new Set(writes.map((write) => write.traceId))];
}
