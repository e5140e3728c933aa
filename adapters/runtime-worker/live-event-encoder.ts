/**
 * The worker's live event encoder: turns pi session events, and the chunks of a running `!` command, into the
 * wire events of domain/live/live-stream.ts (the pure part is domain/live/live-event-encoding.ts).
 *
 * Streamed output (assistant message deltas, tool output, `!` output) is buffered and sent as ONE
 * `stream_delta` event at most every `flushMs` (30 ms) per runtime: a timer started by the first buffered item.
 * While less than `minBatchChars` (1,024) of output is buffered, it waits longer, up to `maxWaitMs` (250 ms): each
 * event costs ~180 bytes of envelope on every watching socket, and a model streaming 2,000 characters a second
 * in 30 ms batches of 60 characters sent three times its text in envelopes alone (a 20 KB reply cost 6.6× its
 * size on a client's wire; with these batches, under 3×). Four updates a second still read as a live stream. Everything buffered is sent
 * immediately before any other event, so the control plane and the clients see the events in pi's order. Tool output is sent as the change since what was sent last (`textDelta`), both
 * capped to the live state's tail (`liveOutputTail`), so the receiving folds stay equal to this side.
 */
import { EMPTY_MESSAGE_MEMORY, encodeLiveEvent, type MessageEncodingMemory } from "../../domain/live/live-event-encoding.ts";
import {
  EMPTY_LIVE_STREAM,
  liveOutputTail,
  pushStreamDelta,
  type StreamDelta,
  type StreamDeltaEvent,
  type StreamSnapshotEvent,
} from "../../domain/live/live-stream.ts";
import { type TextDelta, textDelta } from "../../domain/live/text-delta.ts";

export type WireEvent = { type: string } & Record<string, unknown>;

/** How long streamed output is buffered before it is sent (when enough of it is). */
export const LIVE_FLUSH_MS = 30;
/** Less buffered output than this waits longer (see the module comment)… */
export const LIVE_MIN_BATCH_CHARS = 1024;
/** …but never longer than this. */
export const LIVE_MAX_WAIT_MS = 250;

export interface LiveEventEncoderOptions {
  /** Sends one event to the control plane. `known`: plain JSON built by the encoder (no copy needed). */
  send: (event: WireEvent, known: boolean) => void;
  flushMs?: number;
  minBatchChars?: number;
  maxWaitMs?: number;
}

export class LiveEventEncoder {
  private memory: MessageEncodingMemory = EMPTY_MESSAGE_MEMORY;
  private deltas: StreamDelta[] = [];
  /** The latest output of each running tool, not sent yet. */
  private readonly toolOutputs = new Map<string, string>();
  /** The output of each running tool as last sent (what the receiving folds hold). */
  private readonly sentToolOutputs = new Map<string, string>();
  private bashOutput = "";
  /** Something was buffered since the last flush (even output that turns out unchanged). */
  private buffered = false;
  /** Characters of output buffered since the last flush (about: a tool's repeated output counts whole). */
  private bufferedChars = 0;
  /** How long the oldest buffered output has waited, in ms (counted in timer ticks: no clock). */
  private waitedMs = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The delay the timer was set with. */
  private timerMs = 0;
  private readonly flushMs: number;
  private readonly minBatchChars: number;
  private readonly maxWaitMs: number;

  constructor(private readonly options: LiveEventEncoderOptions) {
    this.flushMs = options.flushMs ?? LIVE_FLUSH_MS;
    this.minBatchChars = options.minBatchChars ?? LIVE_MIN_BATCH_CHARS;
    this.maxWaitMs = options.maxWaitMs ?? LIVE_MAX_WAIT_MS;
  }

  /** A pi session event: buffered (streamed output) or sent after what is buffered. */
  push(event: WireEvent): void {
    const { encoding, memory } = encodeLiveEvent(event, this.memory);
    this.memory = memory;
    switch (encoding.kind) {
      case "message":
        for (const delta of encoding.deltas) pushStreamDelta(this.deltas, delta);
        this.buffer(encoding.deltas.reduce((sum, delta) => sum + (delta.kind === "toolCall" ? delta.json.length : delta.text.length), 0));
        return;
      case "toolOutput":
        this.toolOutputs.set(encoding.toolCallId, liveOutputTail(encoding.text));
        this.buffer(encoding.text.length - (this.sentToolOutputs.get(encoding.toolCallId)?.length ?? 0));
        return;
      case "event":
        this.sendEvent(encoding.event as WireEvent, encoding.known);
        if (event.type === "tool_execution_end") this.forgetTool(event["toolCallId"]);
        if (event.type === "agent_end") this.forgetTools();
        return;
      case "none":
        return;
    }
  }

  /** A `!` command starts (pi has no event for it). */
  bashStarted(command: string): void {
    this.sendEvent({ type: "bash_execution_start", command }, true);
  }

  /** A chunk of the running `!` command's output. */
  bashChunk(chunk: string): void {
    // Only the tail can matter to the receivers (their fold keeps the tail too).
    this.bashOutput = liveOutputTail(this.bashOutput + chunk);
    this.buffer(chunk.length);
  }

  /** The `!` command ended (its output is in its reply and, once written, in the transcript). */
  bashEnded(): void {
    this.sendEvent({ type: "bash_execution_end" }, true);
  }

  /**
   * The session was replaced (fork, new, switch): the old one's listeners are gone, so its stream never ends.
   * Sends what is buffered, then an empty snapshot that clears the receivers' live state.
   */
  reset(): void {
    const snapshot: StreamSnapshotEvent = { type: "stream_snapshot", state: EMPTY_LIVE_STREAM };
    this.sendEvent({ ...snapshot }, true);
    this.memory = EMPTY_MESSAGE_MEMORY;
    this.forgetTools();
  }

  /** Sends what is buffered now, as one `stream_delta` event. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (!this.buffered) return;
    this.buffered = false;
    this.bufferedChars = 0;
    this.waitedMs = 0;
    const tools: Record<string, TextDelta> = {};
    for (const [id, output] of this.toolOutputs) {
      const delta = textDelta(this.sentToolOutputs.get(id) ?? "", output);
      if (delta !== null) tools[id] = delta;
      this.sentToolOutputs.set(id, output);
    }
    this.toolOutputs.clear();
    const event: { -readonly [K in keyof StreamDeltaEvent]: StreamDeltaEvent[K] } = { type: "stream_delta" };
    if (this.deltas.length > 0) event.deltas = this.deltas;
    if (Object.keys(tools).length > 0) event.tools = tools;
    if (this.bashOutput !== "") event.bash = this.bashOutput;
    this.deltas = [];
    this.bashOutput = "";
    // Even with nothing changed (a tool repeating its progress text) the event goes out: the control plane's
    // watchdog counts events as progress, as it counted pi's updates.
    this.options.send(event as WireEvent, true);
  }

  /** Stops the timer; what is buffered is dropped (the worker is going away). */
  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.buffered = false;
    this.bufferedChars = 0;
    this.waitedMs = 0;
  }

  private buffer(chars: number): void {
    this.buffered = true;
    this.bufferedChars += Math.max(0, chars);
    if (this.timer === null) this.arm(this.flushMs);
  }

  private arm(ms: number): void {
    this.timerMs = ms;
    this.timer = setTimeout(() => this.tick(), ms);
  }

  /** The timer: sends a batch big enough, or old enough; else waits another tick. */
  private tick(): void {
    this.timer = null;
    if (!this.buffered) return;
    this.waitedMs += this.timerMs;
    if (this.bufferedChars < this.minBatchChars && this.waitedMs < this.maxWaitMs) {
      this.arm(Math.min(this.flushMs, this.maxWaitMs - this.waitedMs));
      return;
    }
    this.flush();
  }

  private sendEvent(event: WireEvent, known: boolean): void {
    this.flush();
    this.options.send(event, known);
  }

  private forgetTool(toolCallId: unknown): void {
    if (typeof toolCallId !== "string") return;
    this.toolOutputs.delete(toolCallId);
    this.sentToolOutputs.delete(toolCallId);
  }

  private forgetTools(): void {
    this.toolOutputs.clear();
    this.sentToolOutputs.clear();
  }
}
