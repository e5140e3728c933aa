/**
 * What a runtime is producing right now, as deltas: the assistant message being streamed, the output of running
 * tools and of a running `!` command. pi reports a streamed reply as `message_update` events that each carry the
 * whole message so far (twice: `message` and `assistantMessageEvent.partial`), and its bash tool reports its
 * whole output on every update; sent as they are, a 20 KB reply costs megabytes. The worker instead sends
 * `stream_delta` events (at most one per ~30 ms per runtime) carrying only what was added, and leaves the heavy
 * copies out of the other events (see `LIVE_EVENT_TYPES`); the control plane and the client rebuild the same
 * `LiveStreamState` with `applyLiveEvent`. A client that arrives mid-stream gets a `stream_snapshot`.
 *
 * Pure; states are plain JSON and never mutated (each apply returns a new state, sharing what did not change).
 */
import { applyTextDelta, isTextDelta, type TextDelta } from "./text-delta.ts";

/** One change to the streamed assistant message's content block at `index`. */
export type StreamDelta =
  /** Appends `text` to the text block (creating it). */
  | { readonly kind: "text"; readonly index: number; readonly text: string }
  /** Appends `text` to the thinking block (creating it). */
  | { readonly kind: "thinking"; readonly index: number; readonly text: string }
  /** Appends `json` (a fragment of the arguments' JSON) to the tool call block; `id` and `name` when it starts. */
  | { readonly kind: "toolCall"; readonly index: number; readonly id?: string; readonly name?: string; readonly json: string };

export type StreamedBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly text: string }
  /** `json`: the arguments as streamed so far (complete JSON once the call is complete). */
  | { readonly type: "toolCall"; readonly id: string; readonly name: string; readonly json: string };

export interface StreamedMessage {
  /** pi's message timestamp (ms): the persisted entry has the same `messageTimestamp`. */
  readonly timestamp: number;
  readonly blocks: readonly StreamedBlock[];
}

/** A running tool's output so far (pi's partial result text) and the tool's name. */
export interface LiveToolOutput {
  readonly toolName: string;
  readonly text: string;
}

/** A running `!` command. */
export interface LiveBashOutput {
  readonly command: string;
  readonly text: string;
}

export interface LiveStreamState {
  /** The assistant message being streamed; null between messages. */
  readonly message: StreamedMessage | null;
  /** Running tool calls by toolCallId (from tool_execution_start to tool_execution_end). */
  readonly tools: Readonly<Record<string, LiveToolOutput>>;
  /** The running `!` command, if any. */
  readonly bash: LiveBashOutput | null;
}

export const EMPTY_LIVE_STREAM: LiveStreamState = { message: null, tools: {}, bash: null };

/**
 * The most characters of a running tool's or `!` command's output the live state keeps (its tail). pi keeps a
 * bash tool's output tail-truncated (50 KB), but a `!` command's chunks and other tools' partial results are
 * unbounded (`!yes` never stops): without a cap the control plane and every client would hold, and the worker
 * would send, all of it. The worker caps what it sends the same way, so both folds stay equal.
 */
export const LIVE_OUTPUT_LIMIT = 65_536;

/** The last `LIVE_OUTPUT_LIMIT` characters of a text. Keeping a tail composes: `tail(tail(a) + b) === tail(a + b)`. */
export function liveOutputTail(text: string): string {
  return text.length > LIVE_OUTPUT_LIMIT ? text.slice(text.length - LIVE_OUTPUT_LIMIT) : text;
}

/**
 * The coalesced event: everything streamed since the previous one. One with none of the fields says only that
 * something made progress (a tool repeated its output): the control plane's watchdog counts events.
 */
export interface StreamDeltaEvent {
  readonly type: "stream_delta";
  /** Changes to the streamed assistant message, in order. */
  readonly deltas?: readonly StreamDelta[];
  /** Output changes of running tools, by toolCallId. */
  readonly tools?: Readonly<Record<string, TextDelta>>;
  /** Output appended by the running `!` command. */
  readonly bash?: string;
}

/** The whole live state, for a subscriber that arrives while something streams (sent after `active_session`). */
export interface StreamSnapshotEvent {
  readonly type: "stream_snapshot";
  readonly state: LiveStreamState;
}

/** A `!` command started or ended (Leyline's events: pi has none for `executeBash`). */
export type BashExecutionEvent =
  { readonly type: "bash_execution_start"; readonly command: string } | { readonly type: "bash_execution_end" };

/**
 * Event types the worker sends instead of, or besides, pi's own (their shapes above). pi's `message_update` and
 * `tool_execution_update` never travel; `message_end` of assistant messages, `message_start`/`message_end` of
 * toolResult messages, `turn_end` and `agent_end` travel without the copies of content the transcript stream
 * delivers (`contentOmitted: true`), `tool_execution_start` without `args`, `tool_execution_end` without
 * `result` (domain/live/live-event-encoding.ts).
 */
export const LIVE_EVENT_TYPES = ["stream_delta", "stream_snapshot", "bash_execution_start", "bash_execution_end"] as const;

type LooseEvent = { readonly type: string; readonly [key: string]: unknown };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStreamedBlock(value: unknown): value is StreamedBlock {
  if (!isRecord(value)) return false;
  if (value["type"] === "text" || value["type"] === "thinking") return typeof value["text"] === "string";
  return (
    value["type"] === "toolCall" &&
    typeof value["id"] === "string" &&
    typeof value["name"] === "string" &&
    typeof value["json"] === "string"
  );
}

function isOutput(value: unknown, key: "toolName" | "command"): boolean {
  return isRecord(value) && typeof value[key] === "string" && typeof value["text"] === "string";
}

/** A LiveStreamState from the wire (a `stream_snapshot`), or null when it is not one: a fold never takes junk. */
export function liveStreamStateOf(value: unknown): LiveStreamState | null {
  if (!isRecord(value) || !isRecord(value["tools"])) return null;
  const message = value["message"];
  const bash = value["bash"];
  if (
    message !== null &&
    !(
      isRecord(message) &&
      typeof message["timestamp"] === "number" &&
      Array.isArray(message["blocks"]) &&
      message["blocks"].every(isStreamedBlock)
    )
  ) {
    return null;
  }
  if (bash !== null && !isOutput(bash, "command")) return null;
  if (!Object.values(value["tools"]).every((tool) => isOutput(tool, "toolName"))) return null;
  return value as unknown as LiveStreamState;
}

/** The most content blocks a streamed message may have (a bad index must not allocate millions of blocks). */
const MAX_BLOCK_INDEX = 10_000;

/** Whether a value (from the wire) is a StreamDelta this module can apply. */
function isStreamDelta(value: unknown): value is StreamDelta {
  if (!isRecord(value)) return false;
  const index = value["index"];
  if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index > MAX_BLOCK_INDEX) return false;
  switch (value["kind"]) {
    case "text":
    case "thinking":
      return typeof value["text"] === "string";
    case "toolCall":
      return (
        typeof value["json"] === "string" &&
        (value["id"] === undefined || typeof value["id"] === "string") &&
        (value["name"] === undefined || typeof value["name"] === "string")
      );
    default:
      return false;
  }
}

/** Appends a delta to a batch, merging it into the last one when it continues the same block. Mutates `batch`. */
export function pushStreamDelta(batch: StreamDelta[], delta: StreamDelta): void {
  const last = batch[batch.length - 1];
  if (last !== undefined && last.kind === delta.kind && last.index === delta.index) {
    if (last.kind === "toolCall" && delta.kind === "toolCall") {
      if (delta.id === undefined && delta.name === undefined) {
        batch[batch.length - 1] = { ...last, json: last.json + delta.json };
        return;
      }
    } else if (last.kind !== "toolCall" && delta.kind !== "toolCall") {
      batch[batch.length - 1] = { kind: last.kind, index: last.index, text: last.text + delta.text };
      return;
    }
  }
  batch.push(delta);
}

/** The blocks after some deltas (new arrays; `blocks` is not changed). A delta for a block of another type replaces it. */
export function applyStreamDeltas(blocks: readonly StreamedBlock[], deltas: readonly StreamDelta[]): StreamedBlock[] {
  const next = blocks.slice();
  for (const delta of deltas) {
    if (!isStreamDelta(delta)) continue;
    while (next.length < delta.index) next.push({ type: "text", text: "" });
    const current = next[delta.index];
    if (delta.kind === "toolCall") {
      const base = current?.type === "toolCall" ? current : { type: "toolCall" as const, id: "", name: "", json: "" };
      next[delta.index] = { type: "toolCall", id: delta.id ?? base.id, name: delta.name ?? base.name, json: base.json + delta.json };
    } else {
      const text = current?.type === delta.kind ? current.text : "";
      next[delta.index] = { type: delta.kind, text: text + delta.text };
    }
  }
  return next;
}

/** The text of the streamed message's text blocks joined with "\n" (as the transcript joins them). */
export function streamedText(message: StreamedMessage, type: "text" | "thinking" = "text"): string {
  const parts: string[] = [];
  for (const block of message.blocks) if (block.type === type) parts.push(block.text);
  return parts.join("\n");
}

/** A tool call's arguments from its streamed JSON: the parsed object when complete, else null. */
export function streamedArguments(block: { readonly json: string }): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(block.json);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** Blocks of a (partial) pi assistant message's content, for a message that starts with content already. */
export function streamedBlocksOf(content: unknown): StreamedBlock[] {
  if (!Array.isArray(content)) return [];
  const blocks: StreamedBlock[] = [];
  for (const block of content) {
    if (!isRecord(block)) {
      blocks.push({ type: "text", text: "" });
    } else if (block["type"] === "thinking") {
      blocks.push({ type: "thinking", text: typeof block["thinking"] === "string" ? block["thinking"] : "" });
    } else if (block["type"] === "toolCall") {
      const args = block["arguments"];
      blocks.push({
        type: "toolCall",
        id: typeof block["id"] === "string" ? block["id"] : "",
        name: typeof block["name"] === "string" ? block["name"] : "",
        json: isRecord(args) && Object.keys(args).length > 0 ? JSON.stringify(args) : "",
      });
    } else {
      blocks.push({ type: "text", text: typeof block["text"] === "string" ? block["text"] : "" });
    }
  }
  return blocks;
}

function roleOf(event: LooseEvent): unknown {
  const message = event["message"];
  return isRecord(message) ? message["role"] : undefined;
}

function withoutKey<T extends Record<string, unknown>>(record: T, key: string): T {
  if (!(key in record)) return record;
  const { [key]: _dropped, ...rest } = record;
  return rest as T;
}

/**
 * The live state after one runtime event as the worker sends it (pi's events plus those of this module); other
 * events leave it unchanged (the same object).
 */
export function applyLiveEvent(state: LiveStreamState, event: LooseEvent): LiveStreamState {
  switch (event.type) {
    case "message_start": {
      if (roleOf(event) !== "assistant") return state;
      const message = event["message"] as Record<string, unknown>;
      const timestamp = typeof message["timestamp"] === "number" ? message["timestamp"] : 0;
      return { ...state, message: { timestamp, blocks: streamedBlocksOf(message["content"]) } };
    }
    case "stream_delta": {
      let next = state;
      const deltas = event["deltas"];
      if (Array.isArray(deltas) && deltas.length > 0) {
        const message = next.message ?? { timestamp: 0, blocks: [] };
        next = { ...next, message: { ...message, blocks: applyStreamDeltas(message.blocks, deltas as StreamDelta[]) } };
      }
      const tools = event["tools"];
      if (isRecord(tools) && Object.keys(tools).length > 0) {
        const updated: Record<string, LiveToolOutput> = { ...next.tools };
        for (const [id, delta] of Object.entries(tools)) {
          if (!isTextDelta(delta)) continue;
          const running = updated[id] ?? { toolName: "", text: "" };
          updated[id] = { ...running, text: liveOutputTail(applyTextDelta(running.text, delta)) };
        }
        next = { ...next, tools: updated };
      }
      const bash = event["bash"];
      if (typeof bash === "string" && bash !== "") {
        next = { ...next, bash: { command: next.bash?.command ?? "", text: liveOutputTail((next.bash?.text ?? "") + bash) } };
      }
      return next;
    }
    case "stream_snapshot":
      return liveStreamStateOf(event["state"]) ?? state;
    case "message_end":
      return roleOf(event) === "assistant" && state.message !== null ? { ...state, message: null } : state;
    case "tool_execution_start": {
      const id = event["toolCallId"];
      if (typeof id !== "string") return state;
      const toolName = typeof event["toolName"] === "string" ? event["toolName"] : "";
      return { ...state, tools: { ...state.tools, [id]: { toolName, text: state.tools[id]?.text ?? "" } } };
    }
    case "tool_execution_end": {
      const id = event["toolCallId"];
      return typeof id === "string" && id in state.tools ? { ...state, tools: withoutKey({ ...state.tools }, id) } : state;
    }
    case "bash_execution_start":
      return { ...state, bash: { command: typeof event["command"] === "string" ? event["command"] : "", text: "" } };
    case "bash_execution_end":
      return state.bash === null ? state : { ...state, bash: null };
    case "agent_end":
      return state.message === null && Object.keys(state.tools).length === 0 ? state : { ...state, message: null, tools: {} };
    default:
      return state;
  }
}

/** Whether anything is streaming (a subscriber arriving now needs a `stream_snapshot`). */
export function isLiveStreamActive(state: LiveStreamState): boolean {
  return state.message !== null || Object.keys(state.tools).length > 0 || state.bash !== null;
}
