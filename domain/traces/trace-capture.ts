/**
 * The capture fold: pi's session events of one runtime (whole, as the worker receives them) → the writes of its
 * traces (trace-records.ts `CaptureWrite`). Pure: the worker's adapter supplies each event's time, pi's leaf entry
 * at that moment, the entry the last message wrote once it is on disk, and a fresh id (used only when a run starts).
 *
 * - A run is one of pi's runs (`_startRun`): from its first `agent_start` to `agent_settled`. Inside it pi may end
 *   and start its agent loop again (an automatic retry after `agent_end` with `willRetry`, a continuation after an
 *   overflow compaction or a settle-boundary handler): those turns stay in the same trace. An `agent_end` without a
 *   retry ends the trace at once (status from the last model call) so views see it finish; a later `agent_start`
 *   of the same run reopens it. `agent_settled` closes the run; a run still open then (a retry that was cancelled)
 *   ends there, aborted when pi says so.
 * - The first user message is the trace's input (its text; images noted) and its entry the trace's user entry;
 *   later user messages (steering, follow-ups) are EVENT observations with their own entries. The last assistant
 *   text is the output.
 * - Every assistant message is a GENERATION (started at its `message_start`, finished at `message_end` with its
 *   usage, model, stop reason); every tool execution a TOOL under the generation that called it; retries and
 *   compactions EVENTs. A generation that stopped with an error makes the run `error`, an aborted one `aborted`.
 * - Usage is the assistant messages' own (input counts cache reads and writes). A tool result's usage (pi's
 *   nested tool calls) and a subagent tool's reported child usage are never added: a child run is captured in its
 *   own session and counted there once.
 * - Entry ids: pi appends a message to the session file after its `message_end` listeners ran; the adapter reports
 *   the entry holding that very message at a later event (`messageEntryId`), and the fold puts it on the record.
 * - Fields are clipped at capture (CAPTURE_FIELD_BYTES, whole characters); a clipped field is named in
 *   `metadata.captureClipping` (a trace's marker always describes its current input and output).
 */
import { clipUtf8 } from "../utf8-text.ts";
import { messageUsage } from "../session-usage.ts";
import { type CaptureWrite, type ObservationRecord, observationRecord, type TraceCapturePatch } from "./trace-records.ts";

/** pi's usage record of one model call, as traces count it (domain/session-usage.ts `messageUsage`). */
export { messageUsage as usageOf };
import type { TraceLevel, TraceStatus } from "./trace-types.ts";

/** The most of one text field capture keeps (UTF-8 bytes). */
export const CAPTURE_FIELD_BYTES = 128 * 1024;
/** The trace name: the prompt's first line, at most this many characters. */
export const TRACE_NAME_CHARS = 100;

type LooseEvent = { readonly type: string; readonly [key: string]: unknown };

export interface CaptureInput {
  readonly event: LooseEvent;
  /** Epoch milliseconds. */
  readonly at: number;
  /** pi's leaf entry id at this moment. */
  readonly leafId: string | null;
  /** The entry the last user or assistant message wrote, reported once, at the first event after it is on disk. */
  readonly messageEntryId?: string | null;
  /** A fresh id: the trace id if this event starts a run. */
  readonly newId: string;
}

interface RunState {
  readonly traceId: string;
  readonly generations: number;
  readonly events: number;
  /** The generation being streamed. */
  readonly open: ObservationRecord | null;
  /** Running tools by tool call id. */
  readonly tools: Readonly<Record<string, ObservationRecord>>;
  /** The generation that asked for each tool call. */
  readonly callers: Readonly<Record<string, string>>;
  readonly hasInput: boolean;
  /** Whose entry the next `messageEntryId` is: the run's first user message, or an observation's message. */
  readonly pendingEntry: { readonly kind: "user" } | { readonly kind: "observation"; readonly record: ObservationRecord } | null;
  readonly startEntrySet: boolean;
  /** How the last generation stopped. */
  readonly lastStop: { status: TraceStatus; level: TraceLevel; message: string | null } | null;
  /** pi said it will retry (`agent_end` with `willRetry`): the trace stays running. */
  readonly retrying: boolean;
  /** `agent_end` ended the trace; the run goes on until `agent_settled` (a continuation reopens the trace). */
  readonly ended: boolean;
  /** The full sizes of the trace's clipped input and output (its `captureClipping` marker). */
  readonly clipping: Readonly<Partial<Record<"input" | "output", number>>>;
}

export interface CaptureState {
  readonly run: RunState | null;
}

export const EMPTY_CAPTURE: CaptureState = { run: null };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** A message's text: a string, or its text blocks joined (images noted). */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block["type"] === "text") parts.push(str(block["text"]));
    else if (block["type"] === "image") parts.push("[image]");
  }
  return parts.join("\n");
}

interface TextFields {
  input?: string | null;
  output?: string | null;
}

/** `record` with its input and output clipped, and the original sizes of what was clipped. */
function clipTexts<T extends TextFields>(record: T): { record: T; clipping: Record<string, number> } {
  let out = record;
  const clipping: Record<string, number> = {};
  for (const field of ["input", "output"] as const) {
    const value = record[field];
    if (typeof value !== "string") continue;
    const clipped = clipUtf8(value, CAPTURE_FIELD_BYTES);
    if (!clipped.clipped) continue;
    out = { ...out, [field]: clipped.text };
    clipping[field] = clipped.bytes;
  }
  return { record: out, clipping };
}

function withCaptureClipping(metadata: Record<string, unknown>, clipping: Record<string, number>): Record<string, unknown> {
  const fields = Object.keys(clipping);
  return fields.length === 0 ? metadata : { ...metadata, captureClipping: { fields, fieldBytes: clipping } };
}

function clippedObservation(record: ObservationRecord): ObservationRecord {
  const { record: clipped, clipping } = clipTexts(record);
  return Object.keys(clipping).length === 0 ? record : { ...clipped, metadata: withCaptureClipping(clipped.metadata, clipping) };
}

/**
 * The trace's input or output set: clipped, and the trace's `captureClipping` marker rewritten whole when what is
 * clipped changed (the store merges metadata one level deep, so the marker is always complete; null: none).
 */
function textPatch(run: RunState, texts: Partial<Record<"input" | "output", string>>): { run: RunState; patch: TraceCapturePatch } {
  const patch: TraceCapturePatch = {};
  const clipping: Partial<Record<"input" | "output", number>> = { ...run.clipping };
  for (const field of ["input", "output"] as const) {
    const value = texts[field];
    if (value === undefined) continue;
    const clipped = clipUtf8(value, CAPTURE_FIELD_BYTES);
    patch[field] = clipped.text;
    if (clipped.clipped) clipping[field] = clipped.bytes;
    else delete clipping[field];
  }
  const fields = (["input", "output"] as const).filter((field) => clipping[field] !== undefined);
  const changed = fields.length !== Object.keys(run.clipping).length || fields.some((field) => run.clipping[field] !== clipping[field]);
  if (changed) {
    const fieldBytes = Object.fromEntries(fields.map((field) => [field, clipping[field]]));
    patch.metadata = { captureClipping: fields.length > 0 ? { fields: [...fields], fieldBytes } : null };
  }
  return { run: { ...run, clipping }, patch };
}

/** The first line of a text, at most TRACE_NAME_CHARS characters (whole code points; a Windows line end dropped). */
export function firstLine(text: string): string {
  const line = (text.trim().split("\n", 1)[0] ?? "").replace(/\r$/u, "");
  const points = Array.from(line);
  return points.length > TRACE_NAME_CHARS ? `${points.slice(0, TRACE_NAME_CHARS - 1).join("")}…` : line;
}

interface Step {
  state: CaptureState;
  writes: CaptureWrite[];
}

/** Adds a write for the run's trace (merging into the last one of the same trace). */
function write(writes: CaptureWrite[], traceId: string, trace?: TraceCapturePatch, records?: ObservationRecord[]): void {
  const observations = records?.map(clippedObservation);
  const last = writes[writes.length - 1];
  if (last !== undefined && last.traceId === traceId) {
    if (trace !== undefined) {
      const metadata = { ...last.trace?.metadata, ...trace.metadata };
      last.trace = { ...last.trace, ...trace, ...(Object.keys(metadata).length > 0 ? { metadata } : {}) };
    }
    if (observations !== undefined) last.observations = [...(last.observations ?? []), ...observations];
    return;
  }
  writes.push({ traceId, ...(trace !== undefined ? { trace } : {}), ...(observations !== undefined ? { observations } : {}) });
}

function startRun(input: CaptureInput, writes: CaptureWrite[]): RunState {
  const run: RunState = {
    traceId: input.newId,
    generations: 0,
    events: 0,
    open: null,
    tools: {},
    callers: {},
    hasInput: false,
    pendingEntry: null,
    startEntrySet: false,
    lastStop: null,
    retrying: false,
    ended: false,
    clipping: {},
  };
  write(writes, run.traceId, { startMs: input.at, status: "running", level: "DEFAULT", endMs: null });
  return run;
}

/** Ends the open run: its running observations end with it. */
function endRun(
  run: RunState,
  input: CaptureInput,
  status: TraceStatus,
  level: TraceLevel,
  message: string | null,
  writes: CaptureWrite[],
): void {
  const dangling: ObservationRecord[] = [];
  const close = (record: ObservationRecord): ObservationRecord => ({
    ...record,
    endMs: input.at,
    status: status === "completed" ? "aborted" : status,
    level: record.level === "DEFAULT" ? "WARNING" : record.level,
    statusMessage: record.statusMessage ?? "The run ended before it finished",
  });
  if (run.open !== null) dangling.push(close(run.open));
  for (const tool of Object.values(run.tools)) dangling.push(close(tool));
  write(
    writes,
    run.traceId,
    { endMs: input.at, status, level, statusMessage: message, endEntryId: input.leafId },
    dangling.length > 0 ? dangling : undefined,
  );
}

/** The entry the pending message wrote, once the adapter found it on disk. */
function resolveEntry(run: RunState, input: Pick<CaptureInput, "messageEntryId">, writes: CaptureWrite[]): RunState {
  const pending = run.pendingEntry;
  const entryId = input.messageEntryId ?? null;
  if (pending === null || entryId === null) return run;
  const start = run.startEntrySet ? {} : { startEntryId: entryId };
  if (pending.kind === "user") write(writes, run.traceId, { userEntryId: entryId, ...start });
  else write(writes, run.traceId, run.startEntrySet ? undefined : start, [{ ...pending.record, entryId }]);
  return { ...run, pendingEntry: null, startEntrySet: true };
}

function stopOf(message: Record<string, unknown>): { status: TraceStatus; level: TraceLevel; message: string | null } {
  const reason = str(message["stopReason"]);
  const error = str(message["errorMessage"]) || null;
  if (reason === "error") return { status: "error", level: "ERROR", message: error ?? "The model call failed" };
  if (reason === "aborted") return { status: "aborted", level: "WARNING", message: error ?? "Interrupted" };
  return { status: "completed", level: "DEFAULT", message: null };
}

function modelName(message: Record<string, unknown>): string {
  const provider = str(message["provider"]);
  const model = str(message["model"]);
  return provider !== "" && model !== "" ? `${provider}/${model}` : model || provider;
}

function generationEnd(run: RunState, input: CaptureInput, message: Record<string, unknown>, writes: CaptureWrite[]): RunState {
  const id = run.open?.id ?? `${run.traceId}:gen:${run.generations + 1}`;
  const stop = stopOf(message);
  const content = Array.isArray(message["content"]) ? message["content"] : [];
  const calls: Array<{ id: string; name: string }> = [];
  let thinkingChars = 0;
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block["type"] === "toolCall") calls.push({ id: str(block["id"]), name: str(block["name"]) });
    if (block["type"] === "thinking") thinkingChars += str(block["thinking"]).length;
  }
  const text = messageText(content);
  const model = modelName(message);
  const record = observationRecord({
    ...(run.open ?? {}),
    id,
    type: "GENERATION",
    name: model !== "" ? `chat ${model}` : "chat",
    startMs: run.open?.startMs ?? input.at,
    endMs: input.at,
    status: stop.status,
    level: stop.level,
    statusMessage: stop.message,
    model: model || null,
    output: text === "" ? null : text,
    usage: messageUsage(message["usage"]),
    metadata: {
      stopReason: str(message["stopReason"]) || null,
      api: str(message["api"]) || null,
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      ...(thinkingChars > 0 ? { thinkingChars } : {}),
    },
  });
  const callers = { ...run.callers };
  for (const call of calls) if (call.id !== "") callers[call.id] = id;
  const texts = text !== "" ? textPatch(run, { output: text }) : { run, patch: {} };
  write(writes, run.traceId, { ...(model !== "" ? { model } : {}), ...texts.patch }, [record]);
  return {
    ...texts.run,
    generations: run.open === null ? run.generations + 1 : run.generations,
    open: null,
    callers,
    lastStop: stop,
    pendingEntry: { kind: "observation", record: clippedObservation(record) },
  };
}

function eventObservation(
  run: RunState,
  input: CaptureInput,
  name: string,
  fields: Partial<ObservationRecord>,
  writes: CaptureWrite[],
): { run: RunState; record: ObservationRecord } {
  const events = run.events + 1;
  const record = observationRecord({
    id: `${run.traceId}:event:${events}`,
    type: "EVENT",
    name,
    startMs: input.at,
    endMs: input.at,
    status: "completed",
    ...fields,
  });
  write(writes, run.traceId, undefined, [record]);
  return { run: { ...run, events }, record: clippedObservation(record) };
}

function onMessage(run: RunState, input: CaptureInput, writes: CaptureWrite[]): RunState {
  const { event } = input;
  const message = isRecord(event["message"]) ? event["message"] : null;
  if (message === null) return run;
  const role = message["role"];
  if (role === "assistant") {
    if (event.type === "message_start") {
      const generations = run.generations + 1;
      const open = observationRecord({ id: `${run.traceId}:gen:${generations}`, type: "GENERATION", name: "chat", startMs: input.at });
      const model = modelName(message);
      const started = model !== "" ? { ...open, name: `chat ${model}`, model } : open;
      write(writes, run.traceId, undefined, [started]);
      return { ...run, generations, open: started };
    }
    return generationEnd(run, input, message, writes);
  }
  if (role === "user" && event.type === "message_end") {
    const text = messageText(message["content"]);
    if (!run.hasInput) {
      const texts = textPatch(run, { input: text });
      write(writes, run.traceId, { ...texts.patch, name: firstLine(text) || "(no text)" });
      return { ...texts.run, hasInput: true, pendingEntry: { kind: "user" } };
    }
    const steer = eventObservation(run, input, "user message", { input: text, metadata: { role: "user" } }, writes);
    return { ...steer.run, pendingEntry: { kind: "observation", record: steer.record } };
  }
  return run;
}

function onToolStart(run: RunState, input: CaptureInput, writes: CaptureWrite[]): RunState {
  const { event } = input;
  const toolCallId = str(event["toolCallId"]);
  const name = str(event["toolName"]) || "tool";
  let args: string | null = null;
  if (event["args"] !== undefined) {
    try {
      args = JSON.stringify(event["args"]) ?? null;
    } catch {
      args = null;
    }
  }
  const record = observationRecord({
    id: `${run.traceId}:tool:${toolCallId}`,
    parentId: run.callers[toolCallId] ?? null,
    type: "TOOL",
    name,
    startMs: input.at,
    input: args,
    toolCallId: toolCallId || null,
  });
  write(writes, run.traceId, undefined, [record]);
  return { ...run, tools: { ...run.tools, [toolCallId]: record } };
}

function onToolEnd(run: RunState, input: CaptureInput, writes: CaptureWrite[]): RunState {
  const { event } = input;
  const toolCallId = str(event["toolCallId"]);
  const started = run.tools[toolCallId];
  const isError = event["isError"] === true;
  const result = isRecord(event["result"]) ? event["result"] : null;
  const output = result !== null ? messageText(result["content"]) : "";
  const record = observationRecord({
    ...(started ?? {
      id: `${run.traceId}:tool:${toolCallId}`,
      parentId: run.callers[toolCallId] ?? null,
      type: "TOOL",
      name: str(event["toolName"]) || "tool",
      startMs: input.at,
      toolCallId: toolCallId || null,
    }),
    endMs: input.at,
    status: isError ? "error" : "completed",
    level: isError ? "ERROR" : "DEFAULT",
    statusMessage: isError ? clipUtf8(output, 1000).text || "The tool failed" : null,
    output: output === "" ? null : output,
  });
  write(writes, run.traceId, undefined, [record]);
  const { [toolCallId]: _done, ...tools } = run.tools;
  return { ...run, tools };
}

/** One event: the next state and what to write. */
export function stepCapture(state: CaptureState, input: CaptureInput): Step {
  const writes: CaptureWrite[] = [];
  const { event } = input;
  let run = state.run;
  if (run !== null) run = resolveEntry(run, input, writes);

  if (event.type === "agent_start") {
    if (run === null) return { state: { run: startRun(input, writes) }, writes };
    // The same pi run goes on (a retry, a continuation): the trace is running again.
    if (run.ended) write(writes, run.traceId, { status: "running", level: "DEFAULT", statusMessage: null, endMs: null, endEntryId: null });
    return { state: { run: { ...run, retrying: false, ended: false } }, writes };
  }
  if (run === null) return { state, writes };

  switch (event.type) {
    case "message_start":
    case "message_end":
      run = onMessage(run, input, writes);
      break;
    case "tool_execution_start":
      run = onToolStart(run, input, writes);
      break;
    case "tool_execution_end":
      run = onToolEnd(run, input, writes);
      break;
    case "auto_retry_start":
      run = eventObservation(
        run,
        input,
        "retry",
        {
          level: "WARNING",
          statusMessage: str(event["errorMessage"]) || null,
          metadata: { attempt: num(event["attempt"]), maxAttempts: num(event["maxAttempts"]), delayMs: num(event["delayMs"]) },
        },
        writes,
      ).run;
      break;
    case "compaction_end": {
      const failed = str(event["errorMessage"]) !== "" || event["aborted"] === true;
      run = eventObservation(
        run,
        input,
        "compaction",
        {
          level: failed ? "WARNING" : "DEFAULT",
          statusMessage: str(event["errorMessage"]) || (event["aborted"] === true ? "Compaction aborted" : null),
          metadata: { reason: str(event["reason"]) || null },
        },
        writes,
      ).run;
      break;
    }
    case "agent_end": {
      if (event["willRetry"] === true) return { state: { run: { ...run, retrying: true } }, writes };
      const stop = run.lastStop ?? { status: "completed" as const, level: "DEFAULT" as const, message: null };
      endRun(run, input, stop.status, stop.level, stop.message, writes);
      return { state: { run: { ...run, open: null, tools: {}, ended: true } }, writes };
    }
    case "agent_settled": {
      // pi's run is over. One still open (a retry cancelled during its wait) ends here.
      if (!run.ended) {
        const aborted = event["aborted"] === true;
        const stop = aborted
          ? { status: "aborted" as const, level: "WARNING" as const, message: "Interrupted" }
          : (run.lastStop ?? { status: "completed" as const, level: "DEFAULT" as const, message: null });
        endRun(run, input, stop.status, stop.level, stop.message, writes);
      }
      return { state: EMPTY_CAPTURE, writes };
    }
    default:
      break;
  }
  return { state: { run }, writes };
}

/** The writes that end an open run when its runtime goes away (the worker stops, the session is replaced). */
export function abandonCapture(state: CaptureState, input: Pick<CaptureInput, "at" | "leafId" | "messageEntryId">, message: string): Step {
  if (state.run === null) return { state, writes: [] };
  const writes: CaptureWrite[] = [];
  const run = resolveEntry(state.run, input, writes);
  if (!run.ended) endRun(run, { ...input, event: { type: "abandon" }, newId: "" }, "aborted", "WARNING", message, writes);
  return { state: EMPTY_CAPTURE, writes };
}
