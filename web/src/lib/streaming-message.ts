/**
 * What a session's runtime is producing right now, on the client: the server's live state
 * (domain/live/live-stream.ts, folded from the runtime events with the same `applyLiveEvent` the control plane
 * uses), plus what just ended but the persisted transcript does not hold yet: the finished message, the output of
 * finished tools and of a finished `!` command stay visible until their entries arrive, so nothing blinks out
 * between the end event and the transcript delta. Pure.
 *
 * The transcript shows a `StreamingMessage` derived from it after the persisted entries, running tools' output
 * inside their pending entries, and the running `!` command as a live entry.
 */
import {
  applyLiveEvent,
  EMPTY_LIVE_STREAM,
  type LiveBashOutput,
  type LiveStreamState,
  type LiveToolOutput,
  type StreamedMessage,
  streamedArguments,
  streamedText,
} from "../../../domain/live/live-stream.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";

export interface StreamingToolCall {
  id: string;
  name: string;
  /** The parsed arguments once their JSON is complete; the JSON so far while it streams. */
  arguments: Record<string, unknown> | string;
}

/** The running (or just finished, not yet persisted) assistant message, as the transcript shows it. */
export interface StreamingMessage {
  id: string;
  role: "assistant";
  text: string;
  thinking: string;
  toolCalls: StreamingToolCall[];
  /** pi's message timestamp (ms): the persisted entry's `messageTimestamp` (see `streamSettled`). */
  timestamp: number;
}

/** A `!` command's output: running, or ended and not persisted yet. */
export interface LiveBash extends LiveBashOutput {
  running: boolean;
}

/** One session's stream on the client. */
export interface SessionStream {
  /** The server's live state (the same fold). */
  readonly live: LiveStreamState;
  /** The last message that ended while streamed (message_end, agent_end), until the transcript has it. */
  readonly ended: StreamedMessage | null;
  /** Output of tools that ended, by toolCallId, until their results are in the transcript. */
  readonly endedTools: Readonly<Record<string, LiveToolOutput>>;
  /** The `!` command that ended, until its entry is in the transcript. */
  readonly endedBash: LiveBashOutput | null;
}

export const EMPTY_SESSION_STREAM: SessionStream = { live: EMPTY_LIVE_STREAM, ended: null, endedTools: {}, endedBash: null };

type RuntimeEvent = { readonly type: string; readonly [key: string]: unknown };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The role of an event's `message`, or null. */
export function messageRole(message: unknown): string | null {
  return isRecord(message) && typeof message["role"] === "string" ? message["role"] : null;
}

/** Tools of `before` that `after` no longer runs. */
function endedToolsOf(before: LiveStreamState, after: LiveStreamState): Record<string, LiveToolOutput> {
  const ended: Record<string, LiveToolOutput> = {};
  for (const [id, output] of Object.entries(before.tools)) if (!(id in after.tools)) ended[id] = output;
  return ended;
}

/** The next session stream for a runtime event; the same object when the event changes nothing. */
export function nextSessionStream(state: SessionStream, event: RuntimeEvent): SessionStream {
  const live = applyLiveEvent(state.live, event);
  // A new run: the previous run's tool results are persisted by now (each right after its tool ended).
  if (event.type === "agent_start" && Object.keys(state.endedTools).length > 0) return { ...state, live, endedTools: {} };
  if (live === state.live) return state;
  const ends = event.type === "message_end" || event.type === "agent_end";
  let { ended, endedTools, endedBash } = state;
  if (ends && state.live.message !== null && live.message === null) ended = state.live.message;
  if (event.type === "tool_execution_end" || event.type === "agent_end") {
    const finished = endedToolsOf(state.live, live);
    if (Object.keys(finished).length > 0) endedTools = { ...endedTools, ...finished };
  }
  if (event.type === "bash_execution_start") endedBash = null;
  if (event.type === "bash_execution_end" && state.live.bash !== null) endedBash = state.live.bash;
  return { live, ended, endedTools, endedBash };
}

/** A session's streaming message: the one streaming now, else the ended one not persisted yet; null for none. */
export function streamingMessageOf(sessionId: string, stream: SessionStream): StreamingMessage | null {
  const message = stream.live.message ?? stream.ended;
  if (message === null) return null;
  const id = `streaming:${sessionId}:${message.timestamp}`;
  const toolCalls: StreamingToolCall[] = [];
  for (const block of message.blocks) {
    if (block.type !== "toolCall") continue;
    toolCalls.push({
      id: block.id !== "" ? block.id : `${id}:tool:${toolCalls.length}`,
      name: block.name,
      arguments: streamedArguments(block) ?? block.json,
    });
  }
  return {
    id,
    role: "assistant",
    text: streamedText(message),
    thinking: streamedText(message, "thinking"),
    toolCalls,
    timestamp: message.timestamp,
  };
}

/** A tool's live output: running, or ended and not persisted yet; null when there is none. */
export function toolOutputIn(stream: SessionStream, toolCallId: string): string | null {
  return stream.live.tools[toolCallId]?.text ?? stream.endedTools[toolCallId]?.text ?? null;
}

/** The `!` command to show live: the running one, else the ended one not persisted yet. */
export function bashIn(stream: SessionStream): LiveBash | null {
  if (stream.live.bash !== null) return { ...stream.live.bash, running: true };
  return stream.endedBash === null ? null : { ...stream.endedBash, running: false };
}

/**
 * Whether the persisted transcript holds a streamed message: an assistant entry with its timestamp, or, for a
 * reply pi cut short (interrupted or failed: pi saves it with a new timestamp), a last assistant entry that was
 * cut short at or after the streamed message began.
 */
export function streamSettled(streaming: Pick<StreamingMessage, "timestamp">, persisted: readonly TranscriptEntry[]): boolean {
  let last: TranscriptEntry | undefined;
  for (let index = persisted.length - 1; index >= 0; index--) {
    const entry = persisted[index];
    if (entry?.type !== "message" || entry.role !== "assistant") continue;
    if (entry.messageTimestamp === streaming.timestamp) return true;
    last ??= entry;
  }
  return (
    last !== undefined &&
    last.type === "message" &&
    last.role === "assistant" &&
    (last.stopReason === "aborted" || last.stopReason === "error") &&
    last.messageTimestamp >= streaming.timestamp
  );
}

/** Whether the persisted transcript holds an ended `!` command: its latest bash entry ran the same command with this output. */
export function bashSettled(bash: LiveBashOutput, persisted: readonly TranscriptEntry[]): boolean {
  for (let index = persisted.length - 1; index >= 0; index--) {
    const entry = persisted[index];
    if (entry?.type !== "bash") continue;
    // Both outputs are tails of the same output (pi's tail truncation, the live state's cap).
    return entry.command === bash.command && (bash.text.endsWith(entry.output) || entry.output.endsWith(bash.text));
  }
  return false;
}

/** Drops what ended and is now in the persisted transcript; the same object when nothing is dropped. */
export function settleSessionStream(stream: SessionStream, persisted: readonly TranscriptEntry[]): SessionStream {
  const ended = stream.ended !== null && streamSettled(stream.ended, persisted) ? null : stream.ended;
  let endedTools = stream.endedTools;
  const toolIds = Object.keys(endedTools);
  if (toolIds.length > 0) {
    const done = new Set(
      persisted.flatMap((entry) =>
        entry.type === "tool" && entry.status !== "pending" && toolIds.includes(entry.toolCallId) ? [entry.toolCallId] : [],
      ),
    );
    if (done.size > 0) endedTools = Object.fromEntries(Object.entries(endedTools).filter(([id]) => !done.has(id)));
  }
  const endedBash = stream.endedBash !== null && bashSettled(stream.endedBash, persisted) ? null : stream.endedBash;
  if (ended === stream.ended && endedTools === stream.endedTools && endedBash === stream.endedBash) return stream;
  return { ...stream, ended, endedTools, endedBash };
}
